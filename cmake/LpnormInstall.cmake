# `cmake --install` produces a package: find_package(lpnorm) + lpnorm::lpnorm, or, from a
# kernels-only build, lpnorm::lpnorm_kernels (the kernels' C headers in include/lpnorm/kernels).
include(CMakePackageConfigHelpers)

if (LPNORM_KERNELS_ONLY)
    set(_lpnorm_installed_library lpnorm_kernels)
    # The kernels' headers include HalideRuntime.h (Halide's package: <root>/include).
    find_file(LPNORM_HALIDE_RUNTIME_H HalideRuntime.h
              PATHS "${Halide_ROOT}/include" "${Halide_DIR}/../../../include" NO_DEFAULT_PATH
              NO_CMAKE_FIND_ROOT_PATH REQUIRED)
    install(FILES ${LPNORM_KERNEL_HEADERS} "${LPNORM_HALIDE_RUNTIME_H}"
            DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lpnorm/kernels)
else ()
    set(_lpnorm_installed_library lpnorm)
endif ()
install(TARGETS ${_lpnorm_installed_library} EXPORT lpnormTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/lpnorm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT lpnormTargets NAMESPACE lpnorm::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lpnorm)

configure_package_config_file(
    ${PROJECT_SOURCE_DIR}/cmake/lpnormConfig.cmake.in
    ${PROJECT_BINARY_DIR}/lpnormConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lpnorm)
write_basic_package_version_file(
    ${PROJECT_BINARY_DIR}/lpnormConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lpnormConfig.cmake ${PROJECT_BINARY_DIR}/lpnormConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lpnorm)
