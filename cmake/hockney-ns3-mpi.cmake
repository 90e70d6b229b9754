# SPDX-License-Identifier: GPL-2.0-only
#
# ns-3's mpi module (the distributed simulator: DistributedSimulatorImpl,
# NullMessageSimulatorImpl, MpiInterface, MpiReceiver) as the shared library
# hockney-ns3-mpi. Debian's binary packages lack it; `./hockney setup` puts
# the unmodified src/mpi of the installed ns-3 release, from Debian's source
# package, in third_party/ns3. Built against Debian's libcore and libnetwork
# with Open MPI, defining NS3_MPI (the module's own build does) and
# NS3_LOG_ENABLE (Debian's libraries were built with it).
#
# Sets HOCKNEY_MPI (ON when the library is built). Without it hockney builds
# and tests everything but the distributed runs, and says so here.
set(HOCKNEY_NS3_SOURCE_DIR ${CMAKE_SOURCE_DIR}/third_party/ns3
    CACHE PATH "ns-3 sources with src/mpi (./hockney setup fetches them from Debian's ns3 source package)")
option(HOCKNEY_WITH_MPI "Build ns-3's mpi module and the distributed runs when the sources and Open MPI are there" ON)

set(HOCKNEY_MPI OFF)
set(_mpi_dir ${HOCKNEY_NS3_SOURCE_DIR}/src/mpi/model)
if(HOCKNEY_SANITIZE OR HOCKNEY_FUZZ)
  # Open MPI's own allocations at exit would be LeakSanitizer findings.
  message(STATUS "hockney: ns-3 mpi module: not in the sanitized tree; no distributed runs here")
  return()
endif()
if(NOT HOCKNEY_WITH_MPI)
  message(STATUS "hockney: ns-3 mpi module: off (-DHOCKNEY_WITH_MPI=OFF); no distributed runs")
  return()
endif()
if(NOT EXISTS ${_mpi_dir}/mpi-interface.cc)
  message(STATUS "hockney: ns-3 mpi module: no sources in ${HOCKNEY_NS3_SOURCE_DIR} (./hockney setup fetches "
                 "them); building without distributed runs")
  return()
endif()
file(READ ${HOCKNEY_NS3_SOURCE_DIR}/VERSION _ns3_src_version)
string(STRIP "${_ns3_src_version}" _ns3_src_version)
if(NOT _ns3_src_version VERSION_EQUAL ns3_VERSION)
  message(STATUS "hockney: ns-3 mpi module: the sources in ${HOCKNEY_NS3_SOURCE_DIR} are ns-3 ${_ns3_src_version}, "
                 "not the installed ${ns3_VERSION} (./hockney setup fetches the right ones); building without "
                 "distributed runs")
  return()
endif()
find_package(MPI COMPONENTS CXX QUIET)
if(NOT MPI_CXX_FOUND)
  message(STATUS "hockney: ns-3 mpi module: Open MPI not found (libopenmpi-dev); building without distributed runs")
  return()
endif()

# The module's headers as ns3/NAME.h, as ns-3's own build installs them.
file(GLOB _mpi_srcs ${_mpi_dir}/*.cc)
file(GLOB _mpi_hdrs ${_mpi_dir}/*.h)
set(_mpi_include ${CMAKE_BINARY_DIR}/ns3-mpi/include)
foreach(h ${_mpi_hdrs})
  get_filename_component(n ${h} NAME)
  configure_file(${h} ${_mpi_include}/ns3/${n} COPYONLY)
endforeach()
add_library(hockney-ns3-mpi SHARED ${_mpi_srcs})
target_include_directories(hockney-ns3-mpi PUBLIC ${_mpi_include} PRIVATE ${_mpi_dir})
target_link_libraries(hockney-ns3-mpi PUBLIC ns3::libcore ns3::libnetwork MPI::MPI_CXX)
target_compile_definitions(hockney-ns3-mpi PUBLIC NS3_MPI NS3_LOG_ENABLE)
# ns-3's code, compiled as its own build does: its warnings are not ours.
target_compile_options(hockney-ns3-mpi PRIVATE -w)
find_program(HOCKNEY_MPIEXEC NAMES mpirun mpiexec)
set(HOCKNEY_MPI ON)
message(STATUS "hockney: ns-3 mpi module: building ns-${_ns3_src_version} src/mpi from ${HOCKNEY_NS3_SOURCE_DIR} "
               "with MPI ${MPI_CXX_VERSION} (mpirun: ${HOCKNEY_MPIEXEC})")
