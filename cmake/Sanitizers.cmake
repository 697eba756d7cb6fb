# MINIAPP_SANITIZE: compile and link the project (not Kokkos, which is a prebuilt library) with
# the sanitizers listed, e.g. "address,undefined" (the asan preset; docs/testing.md).
# Undefined behaviour must fail a test, not just print a line: -fno-sanitize-recover=undefined.
set(MINIAPP_SANITIZE "" CACHE STRING
    "Comma-separated -fsanitize= list for the project's own code (empty: none)")
if(MINIAPP_SANITIZE)
  set(_miniapp_sanitize_flags -fsanitize=${MINIAPP_SANITIZE} -fno-omit-frame-pointer)
  if(MINIAPP_SANITIZE MATCHES "undefined")
    list(APPEND _miniapp_sanitize_flags -fno-sanitize-recover=undefined)
  endif()
  message(STATUS "miniapp: sanitizers ${MINIAPP_SANITIZE}")
  add_compile_options(${_miniapp_sanitize_flags})
  add_link_options(${_miniapp_sanitize_flags})
endif()
