# `cmake --install` produces a package: find_package(lpnorm) + lpnorm::lpnorm.
include(CMakePackageConfigHelpers)

install(TARGETS lpnorm EXPORT lpnormTargets
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
