# Finds Kokkos and the Debian-packaged libraries. Each missing piece stops with one sentence
# saying what to install.
find_package(Kokkos 3.4 CONFIG)
if(NOT Kokkos_FOUND)
  message(FATAL_ERROR "miniapp: no Kokkos >= 3.4 found; pass -DKokkos_ROOT=<prefix>, or leave "
                      "Kokkos_ROOT unset so the project builds Kokkos 3.4.01 itself.")
endif()
message(STATUS "miniapp: Kokkos ${Kokkos_VERSION} at ${Kokkos_DIR}, devices: ${Kokkos_DEVICES}")

# MINIAPP_REQUIRE_<BACKEND>: fail at configure time when the Kokkos found lacks a backend.
foreach(backend SERIAL OPENMP CUDA HIP)
  option(MINIAPP_REQUIRE_${backend} "Fail unless Kokkos has the ${backend} backend" OFF)
  if(MINIAPP_REQUIRE_${backend})
    kokkos_check(DEVICES ${backend} RETURN_VALUE _has)
    if(NOT _has)
      message(FATAL_ERROR "miniapp: MINIAPP_REQUIRE_${backend}=ON but the Kokkos found "
                          "(${Kokkos_DIR}) has only: ${Kokkos_DEVICES}; rebuild Kokkos with "
                          "Kokkos_ENABLE_${backend}=ON or point Kokkos_ROOT at one that has it.")
    endif()
  endif()
endforeach()
kokkos_check(DEVICES CUDA RETURN_VALUE MINIAPP_HAS_CUDA)
kokkos_check(DEVICES HIP RETURN_VALUE MINIAPP_HAS_HIP)

macro(miniapp_require_package pkg debian)
  find_package(${pkg} ${ARGN})
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR "miniapp: ${pkg} not found; run scripts/install-deps.sh (Debian package ${debian}).")
  endif()
endmacro()

miniapp_require_package(yaml-cpp libyaml-cpp-dev CONFIG)
miniapp_require_package(CLI11 libcli11-dev CONFIG)
miniapp_require_package(nlohmann_json nlohmann-json3-dev 3 CONFIG)
set(MPI_CXX_SKIP_MPICXX ON) # the C API is all we use; the GPU machine need not have libmpi_cxx
set(BLA_VENDOR OpenBLAS)
miniapp_require_package(BLAS libopenblas-dev)

# Static yaml-cpp where Debian ships it: the binary then runs on machines with another soname.
find_library(MINIAPP_YAML_CPP_STATIC NAMES libyaml-cpp.a)
if(MINIAPP_YAML_CPP_STATIC)
  add_library(miniapp_yaml INTERFACE)
  target_link_libraries(miniapp_yaml INTERFACE ${MINIAPP_YAML_CPP_STATIC})
  get_target_property(_yaml_inc yaml-cpp INTERFACE_INCLUDE_DIRECTORIES)
  if(_yaml_inc)
    target_include_directories(miniapp_yaml INTERFACE ${_yaml_inc})
  endif()
else()
  add_library(miniapp_yaml INTERFACE)
  target_link_libraries(miniapp_yaml INTERFACE yaml-cpp)
endif()

# hwloc: the CPU topology and the process binding recorded in results.json (results/metadata.cpp).
# Debian ships a pkg-config file and no CMake package.
find_package(PkgConfig)
if(PkgConfig_FOUND)
  pkg_check_modules(HWLOC IMPORTED_TARGET hwloc)
endif()
if(NOT HWLOC_FOUND)
  message(FATAL_ERROR "miniapp: hwloc not found; run scripts/install-deps.sh (Debian package libhwloc-dev).")
endif()

# SQLite: the results history database (history/db.cpp, issue 17).
miniapp_require_package(SQLite3 libsqlite3-dev)

option(MINIAPP_ENABLE_MPI "Build with MPI (2D block distribution, SUMMA)" ON)
if(MINIAPP_ENABLE_MPI)
  miniapp_require_package(MPI "libopenmpi-dev openmpi-bin" COMPONENTS CXX)
endif()

if(MINIAPP_HAS_CUDA)
  find_package(CUDAToolkit REQUIRED)
endif()
