# The layers above the kernels reach no Kokkos header.
#
# config, plan, results, compare, report, history, jobs and the commands (app/) work on names,
# figures and files: a source there that includes a Kokkos header, directly or through any project
# header, goes through a CUDA or HIP build's device passes. Through core/backends.hpp (which
# dispatches a backend's name to its execution space) fifteen such files went through nvcc; nvcc
# took 10-23 s over each, the host compiler alone about 40% of that. The names are
# core/backend_names.hpp, the timing rule's figures core/timing_rule.hpp. Two files need Kokkos
# itself, and are listed below with why. The rule is the build's own (cmake/HostOnlySources.cmake
# sorts a GPU build's sources by it), so the test and the build cannot differ.
#
# Usage: cmake -DSOURCE_DIR=<the project's source folder> -P kokkos_free_layers.cmake
cmake_minimum_required(VERSION 3.16)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<source folder> -P kokkos_free_layers.cmake")
endif()
set(PROJECT_SOURCE_DIR "${SOURCE_DIR}") # where miniapp_kokkos_include_chain looks for headers
include("${SOURCE_DIR}/cmake/HostOnlySources.cmake")

set(layers config plan results compare report history jobs app)
set(needs_kokkos app/kokkos_launch.cpp results/metadata.cpp)
set(why_app/kokkos_launch.cpp "starts and ends Kokkos")
set(why_results/metadata.cpp "records Kokkos' configuration and concurrency in every result")

set(read 0)
set(bad "")
foreach(layer IN LISTS layers)
  file(GLOB sources RELATIVE "${SOURCE_DIR}/miniapp" "${SOURCE_DIR}/miniapp/${layer}/*.cpp")
  list(SORT sources)
  foreach(rel IN LISTS sources)
    math(EXPR read "${read} + 1")
    miniapp_kokkos_include_chain("${SOURCE_DIR}/miniapp/${rel}" chain)
    if(rel IN_LIST needs_kokkos)
      if(NOT chain)
        string(APPEND bad "miniapp/${rel} is listed as needing Kokkos (${why_${rel}}) but reaches "
                          "no Kokkos header\n")
      endif()
    elseif(chain)
      string(REPLACE ";" " -> " chain "${chain}")
      string(APPEND bad "miniapp/${rel} -> ${chain}\n")
    endif()
  endforeach()
endforeach()
if(read LESS 50)
  message(FATAL_ERROR "only ${read} sources of ${layers} found under ${SOURCE_DIR}/miniapp")
endif()
string(REPLACE ";" ", " names "${layers}")
if(bad)
  message(FATAL_ERROR "${bad}${read} sources of ${names} read: these reach Kokkos unlisted "
                      "(names: core/backend_names.hpp; the timing rule: core/timing_rule.hpp)")
endif()
message(STATUS "${read} sources of ${names} read; none reaches Kokkos unlisted")
