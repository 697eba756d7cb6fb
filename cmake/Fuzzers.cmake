# MINIAPP_ENABLE_FUZZERS: libFuzzer targets (tests/fuzz, docs/testing.md). Needs clang with
# libFuzzer (Debian's clang and libclang-rt-14-dev); the fuzz preset sets everything up.
option(MINIAPP_ENABLE_FUZZERS "Build the libFuzzer targets in tests/fuzz (clang only)" OFF)
if(MINIAPP_ENABLE_FUZZERS)
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  check_cxx_source_compiles(
    "#include <cstddef>
     #include <cstdint>
     extern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }"
    MINIAPP_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT MINIAPP_HAVE_LIBFUZZER)
    message(FATAL_ERROR "miniapp: MINIAPP_ENABLE_FUZZERS needs a compiler with libFuzzer "
                        "(-fsanitize=fuzzer): configure with clang++ and install Debian's clang "
                        "and libclang-rt-14-dev (scripts/install-deps.sh --fuzz).")
  endif()
  # Every target of this build (the layer libraries the fuzzers link included) is instrumented.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
endif()
