# Included BEFORE project(): when the user names no Kokkos (Kokkos_ROOT, Kokkos_DIR, or a
# CMAKE_PREFIX_PATH holding one, as Spack and modules set), the project builds Kokkos 3.4.01 for
# MINIAPP_BACKEND from Debian's trilinos source package (scripts/build-kokkos.sh), once per machine,
# and points Kokkos_ROOT at it. This must run before project() because the CUDA backend of Kokkos
# 3.4 needs its own nvcc_wrapper as the C++ compiler.
set(MINIAPP_BACKEND "openmp" CACHE STRING
    "Backend of the Kokkos the project builds when none is given: openmp, serial, cuda or hip")
set_property(CACHE MINIAPP_BACKEND PROPERTY STRINGS openmp serial cuda hip)
# A separate Kokkos install (suffix -boundscheck) whose Views check every index and abort when one
# is out of bounds; only the bounds-check preset uses it (docs/testing.md).
option(MINIAPP_KOKKOS_BOUNDS_CHECK
       "Build the project's Kokkos with Kokkos_ENABLE_DEBUG_BOUNDS_CHECK (when none is given)" OFF)

function(_miniapp_user_gave_kokkos out)
  set(given OFF)
  if(Kokkos_ROOT OR Kokkos_DIR OR DEFINED ENV{Kokkos_ROOT} OR DEFINED ENV{Kokkos_DIR})
    set(given ON)
  endif()
  foreach(p IN LISTS CMAKE_PREFIX_PATH)
    file(GLOB hits "${p}/lib*/cmake/Kokkos/KokkosConfig.cmake")
    if(hits)
      set(given ON)
    endif()
  endforeach()
  if(DEFINED ENV{CMAKE_PREFIX_PATH})
    string(REPLACE ":" ";" env_paths "$ENV{CMAKE_PREFIX_PATH}")
    foreach(p IN LISTS env_paths)
      file(GLOB hits "${p}/lib*/cmake/Kokkos/KokkosConfig.cmake")
      if(hits)
        set(given ON)
      endif()
    endforeach()
  endif()
  set(${out} ${given} PARENT_SCOPE)
endfunction()

_miniapp_user_gave_kokkos(_miniapp_kokkos_given)
if(NOT _miniapp_kokkos_given)
  if(NOT MINIAPP_BACKEND MATCHES "^(openmp|serial|cuda|hip)$")
    message(FATAL_ERROR "MINIAPP_BACKEND='${MINIAPP_BACKEND}' is not one of openmp, serial, cuda, hip.")
  endif()
  set(_kokkos_variant "")
  if(MINIAPP_KOKKOS_BOUNDS_CHECK)
    set(_kokkos_variant "--bounds-check")
  endif()
  message(STATUS "miniapp: no Kokkos given; using the project's Kokkos 3.4.01 (${MINIAPP_BACKEND} "
                 "${_kokkos_variant})")
  execute_process(
    COMMAND bash "${CMAKE_CURRENT_LIST_DIR}/../scripts/build-kokkos.sh" ${_kokkos_variant}
            "${MINIAPP_BACKEND}"
    OUTPUT_VARIABLE _kokkos_out
    RESULT_VARIABLE _kokkos_rc)
  if(NOT _kokkos_rc EQUAL 0)
    message(FATAL_ERROR "miniapp: building Kokkos for '${MINIAPP_BACKEND}' failed (see the message "
                        "above); fix that, or pass -DKokkos_ROOT=<an installed Kokkos>.")
  endif()
  string(STRIP "${_kokkos_out}" _kokkos_out)
  string(REGEX REPLACE ".*\n" "" _kokkos_prefix "${_kokkos_out}")
  set(Kokkos_ROOT "${_kokkos_prefix}" CACHE PATH "Kokkos install prefix" FORCE)
  if(MINIAPP_BACKEND STREQUAL "cuda" AND NOT CMAKE_CXX_COMPILER)
    set(CMAKE_CXX_COMPILER "${_kokkos_prefix}/bin/nvcc_wrapper" CACHE FILEPATH "" FORCE)
  elseif(MINIAPP_BACKEND STREQUAL "hip" AND NOT CMAKE_CXX_COMPILER)
    find_program(_miniapp_hipcc hipcc)
    if(NOT _miniapp_hipcc)
      message(FATAL_ERROR "miniapp: the hip backend needs hipcc on PATH: run "
                          "'scripts/install-deps.sh --gpu' (Debian's hipcc).")
    endif()
    set(CMAKE_CXX_COMPILER "${_miniapp_hipcc}" CACHE FILEPATH "" FORCE)
  endif()
endif()
