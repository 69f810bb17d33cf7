# What `cmake --install` (make install) puts under the prefix:
#   include/collsel.h, collsel_iso.h        the public headers
#   lib/libcollsel.so*, lib/libcollsel_pmpi.so*
#   lib/cmake/collsel/                      find_package(collsel): collsel::collsel and
#                                           collsel::collsel_pmpi, MPI found by the package
#   lib/pkgconfig/collsel.pc, collsel_pmpi.pc
#   bin/collsel-bench, collsel-bench-iso,   (their install rules are in bench/ and report/)
#   bin/collsel-report
# Directories follow GNUInstallDirs (lib may be lib/<multiarch> for prefix /usr). Nothing
# internal is installed: the algorithms, the database layer and SQLite, hwloc and pthreads are
# private to libcollsel, so neither the package config nor collsel.pc mentions them.
include(CMakePackageConfigHelpers)

set(CS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/collsel)

install(TARGETS collsel collsel_pmpi EXPORT collselTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT collselTargets NAMESPACE collsel:: DESTINATION ${CS_CMAKE_DIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/collselConfig.cmake.in
  ${PROJECT_BINARY_DIR}/collselConfig.cmake INSTALL_DESTINATION ${CS_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/collselConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/collselConfig.cmake
              ${PROJECT_BINARY_DIR}/collselConfigVersion.cmake
        DESTINATION ${CS_CMAKE_DIR})

# pkg-config. collsel.h includes mpi.h, so collsel.pc requires the MPI library's own module
# when it has one that matches the MPI found here (Open MPI: ompi-c; MPICH: mpich); otherwise
# the MPI include directories and libraries go into Cflags and Libs.
set(CS_PC_REQUIRES "")
set(CS_PC_MPI_CFLAGS "")
set(CS_PC_MPI_LIBS "")
foreach(candidate ompi-c mpich)
  string(MAKE_C_IDENTIFIER "CS_PC_${candidate}" var)
  pkg_check_modules(${var} QUIET ${candidate})
  foreach(dir IN LISTS MPI_C_INCLUDE_DIRS)
    if(${var}_FOUND AND NOT CS_PC_REQUIRES AND dir IN_LIST ${var}_INCLUDE_DIRS)
      set(CS_PC_REQUIRES ${candidate})
    endif()
  endforeach()
endforeach()
if(NOT CS_PC_REQUIRES)
  foreach(dir IN LISTS MPI_C_INCLUDE_DIRS)
    string(APPEND CS_PC_MPI_CFLAGS " -I${dir}")
  endforeach()
  foreach(lib IN LISTS MPI_C_LIBRARIES)
    string(APPEND CS_PC_MPI_LIBS " ${lib}")
  endforeach()
endif()
message(STATUS "collsel.pc: MPI through "
  "${CS_PC_REQUIRES}${CS_PC_MPI_CFLAGS}${CS_PC_MPI_LIBS}")

# The .pc files name absolute directories, so they are written at install time, for the prefix
# being installed to (cmake --install --prefix P gives P, not the configured prefix).
install(CODE "
  set(CS_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(CS_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(CS_PC_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(CS_PC_VERSION \"${PROJECT_VERSION}\")
  set(CS_PC_REQUIRES \"${CS_PC_REQUIRES}\")
  set(CS_PC_MPI_CFLAGS \"${CS_PC_MPI_CFLAGS}\")
  set(CS_PC_MPI_LIBS \"${CS_PC_MPI_LIBS}\")
  foreach(pc collsel collsel_pmpi)
    configure_file(\"${CMAKE_CURRENT_LIST_DIR}/\${pc}.pc.in\"
                   \"${PROJECT_BINARY_DIR}/pkgconfig/\${pc}.pc\" @ONLY)
  endforeach()
")
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/collsel.pc
              ${PROJECT_BINARY_DIR}/pkgconfig/collsel_pmpi.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
