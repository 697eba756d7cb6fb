# CUDA builds compile every C++ file through nvcc_wrapper, which runs nvcc's front end and device
# passes even over a file with no device code: compare/tables.cpp, which reaches no Kokkos header,
# took 24.8 s that way and 10.4 s with `nvcc_wrapper --host-only` (its host compiler alone) on the
# 2-core CI machine. About 100 of the 160 objects of a CUDA build reach no Kokkos header and took
# over half of its compile time, so those files are compiled host-only; every file that includes a
# Kokkos header, directly or through any project header, stays on nvcc. A file sorted wrongly fails
# to compile (Kokkos' CUDA headers need nvcc), so a mistake cannot pass unnoticed. HIP builds do
# the same with hipcc's --cuda-host-only.
#
#   miniapp_compile_host_only_sources()  -- call at the end of a directory's CMakeLists.txt: the
#                                           sources of that directory's targets are sorted
# miniapp_kokkos_include_chain(FILE OUT): OUT is the include chain from FILE to a Kokkos header,
# directly or through the project headers it includes (quoted names, found beside FILE, under
# miniapp/ or under tests/): the headers on the way, then the Kokkos header's name; empty where
# there is none. Answers are kept in global properties, so each header is read once per configure.
# tests/structure/kokkos_free_layers.cmake checks the layers above the kernels by the same rule.
function(miniapp_kokkos_include_chain file out)
  string(MAKE_C_IDENTIFIER "miniapp_kokkos_${file}" key)
  get_property(known GLOBAL PROPERTY ${key} SET)
  if(known)
    get_property(answer GLOBAL PROPERTY ${key})
    set(${out} "${answer}" PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY ${key} "") # an include cycle ends here
  file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  get_filename_component(here "${file}" DIRECTORY)
  set(answer "")
  foreach(line IN LISTS includes)
    if(line MATCHES "<((Kokkos|impl/Kokkos)[A-Za-z_]*\\.hpp)>")
      set(answer "${CMAKE_MATCH_1}")
      break()
    endif()
    if(NOT line MATCHES "\"([^\"]+)\"")
      continue()
    endif()
    set(name ${CMAKE_MATCH_1})
    foreach(dir IN ITEMS "${here}" "${PROJECT_SOURCE_DIR}/miniapp" "${PROJECT_SOURCE_DIR}/tests")
      if(EXISTS "${dir}/${name}")
        miniapp_kokkos_include_chain("${dir}/${name}" nested)
        if(nested)
          file(RELATIVE_PATH header "${PROJECT_SOURCE_DIR}" "${dir}/${name}")
          set(answer "${header};${nested}")
        endif()
        break()
      endif()
    endforeach()
    if(answer)
      break()
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY ${key} "${answer}")
  set(${out} "${answer}" PARENT_SCOPE)
endfunction()

function(miniapp_compile_host_only_sources)
  if(MINIAPP_BACKEND STREQUAL "cuda" AND CMAKE_CXX_COMPILER MATCHES "nvcc_wrapper$")
    set(flag --host-only)
  elseif(MINIAPP_BACKEND STREQUAL "hip" AND CMAKE_CXX_COMPILER MATCHES "hipcc$")
    set(flag --cuda-host-only) # clang's: no device pass (tables.cpp: 9.3 s, host-only 5.5 s)
  else()
    return()
  endif()
  get_property(targets DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)
  set(host_only 0)
  set(device 0)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "LIBRARY|EXECUTABLE$" OR type STREQUAL "INTERFACE_LIBRARY")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    get_target_property(source_dir ${target} SOURCE_DIR)
    get_target_property(target_definitions ${target} COMPILE_DEFINITIONS)
    foreach(source IN LISTS sources)
      get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${source_dir}")
      if(NOT path MATCHES "\\.cpp$" OR NOT EXISTS "${path}") # generated files stay on nvcc
        continue()
      endif()
      miniapp_kokkos_include_chain("${path}" chain)
      set(reaches FALSE)
      if(chain)
        set(reaches TRUE)
      endif()
      # nvcc_wrapper --host-only drops the quotes of a string definition (MINIAPP_SOURCE_DIR="...")
      get_source_file_property(definitions "${path}" COMPILE_DEFINITIONS)
      if(flag STREQUAL "--host-only" AND "${definitions};${target_definitions}" MATCHES "\"")
        set(reaches TRUE)
      endif()
      if(reaches)
        math(EXPR device "${device} + 1")
      else()
        get_source_file_property(options "${path}" COMPILE_OPTIONS)
        if(NOT flag IN_LIST options) # a file in two targets is marked once
          set_property(SOURCE "${path}" APPEND PROPERTY COMPILE_OPTIONS ${flag})
        endif()
        math(EXPR host_only "${host_only} + 1")
      endif()
    endforeach()
  endforeach()
  file(RELATIVE_PATH where "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
  message(STATUS "miniapp: ${where}: ${device} source(s) with device passes, ${host_only} host-only "
                 "(they reach no Kokkos header)")
endfunction()
