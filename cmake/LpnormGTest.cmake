# GoogleTest for the test suites. Native builds use the installed package (Debian's
# libgtest-dev). Cross builds compile GoogleTest's sources, which libgtest-dev also ships in
# /usr/src/googletest, with the target's compiler.

# gtest_discover_tests' DISCOVERY_TIMEOUT for the suites. Under an emulator listing a suite's
# tests may take longer than the default 5 s: Wine's first program of a session also starts
# its services.
set(LPNORM_GTEST_DISCOVERY_TIMEOUT 5)
if (CMAKE_CROSSCOMPILING_EMULATOR)
    set(LPNORM_GTEST_DISCOVERY_TIMEOUT 60)
endif ()
# The optimisation of the test suites' own sources (GoogleTest's parameterised cases, the
# bad-input tables), which spend their time in the kernels and the references: -O0 compiles
# them in half the time of -O1 (5.5 against 10.9 s for test_pool_adapters.cpp, GCC 12; -O3
# took 20.6 s), in each of CI's four builds of them. The few with hot loops of their own stay
# at -O1 (tests/CMakeLists.txt). Under an instruction-set emulator (qemu for ARM64) every
# instruction costs about 20 times more, so those builds keep -O1 throughout; Wine runs
# Windows programs at native speed.
set(LPNORM_SUITE_OPTIMIZATION -O0)
if (CMAKE_CROSSCOMPILING_EMULATOR MATCHES "qemu")
    set(LPNORM_SUITE_OPTIMIZATION -O1)
endif ()
if (TARGET GTest::gtest_main)
    return()
endif ()
if (NOT CMAKE_CROSSCOMPILING)
    find_package(GTest REQUIRED)
    return()
endif ()

set(LPNORM_GTEST_SOURCE_DIR /usr/src/googletest CACHE PATH
    "GoogleTest sources, built for the target in cross builds")
if (NOT EXISTS "${LPNORM_GTEST_SOURCE_DIR}/CMakeLists.txt")
    message(FATAL_ERROR "No GoogleTest sources in LPNORM_GTEST_SOURCE_DIR = "
                        "'${LPNORM_GTEST_SOURCE_DIR}' (Debian: apt-get install libgtest-dev)")
endif ()
set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
block()
    # GoogleTest 1.12 asks for CMake 3.5's policies, which CMake 4 warns about at every
    # configure; its CMakeLists work with 3.10's.
    set(CMAKE_POLICY_VERSION_MINIMUM 3.10)
    add_subdirectory("${LPNORM_GTEST_SOURCE_DIR}" "${PROJECT_BINARY_DIR}/googletest"
                     EXCLUDE_FROM_ALL)
endblock()
if (NOT TARGET GTest::gtest_main)
    add_library(GTest::gtest_main ALIAS gtest_main)
endif ()
