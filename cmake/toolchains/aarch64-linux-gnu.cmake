# 64-bit ARM Linux with Debian's cross toolchain (g++-aarch64-linux-gnu, libc6-dev-arm64-cross).
# Target binaries (tests, the CLI) run under qemu-aarch64 from Debian's qemu-user when it is
# installed: ctest, GoogleTest discovery and the tests that start the CLI go through
# CMAKE_CROSSCOMPILING_EMULATOR.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Debian's multiarch-cross sysroot: the target's C and C++ runtime libraries.
set(LPNORM_TARGET_SYSROOT /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH "${LPNORM_TARGET_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Packages may come from anywhere: installed ARM64 packages (an lpnorm prefix for a consumer)
# live outside the sysroot. GoogleTest is built from source for the target (cmake/LpnormGTest.cmake).
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

find_program(LPNORM_QEMU_AARCH64 qemu-aarch64)
if (LPNORM_QEMU_AARCH64)
    # -L: where the emulated dynamic loader and shared libraries live.
    set(CMAKE_CROSSCOMPILING_EMULATOR "${LPNORM_QEMU_AARCH64};-L;${LPNORM_TARGET_SYSROOT}")
endif ()
