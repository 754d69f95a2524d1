# 64-bit Windows with Debian's MinGW-w64 cross toolchain (g++-mingw-w64-x86-64-posix: the
# POSIX thread model, which std::thread and std::mutex need). Target binaries (tests, the CLI)
# run under Wine (Debian's wine64) when it is installed: ctest, GoogleTest discovery and the
# tests that start the CLI go through CMAKE_CROSSCOMPILING_EMULATOR.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

set(LPNORM_TARGET_SYSROOT /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH "${LPNORM_TARGET_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# The programs carry their C and C++ runtimes (libgcc, libstdc++, winpthread), so that they run
# without MinGW's DLLs beside them, under Wine as on a user's machine.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc -static-libstdc++")

find_program(LPNORM_WINE NAMES wine64 wine)
if (LPNORM_WINE)
    # Through cmake/wine-run.sh: once more when Wine fails to start a program.
    set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/../wine-run.sh;${LPNORM_WINE}")
endif ()
