# Finds Halide. The pinned PyPI release (see README) installs into the project's virtualenv;
# its package directory is also a CMake package root. Halide_ROOT or Halide_DIR override it.
#
# A cross build needs only HalideHelpers (the CMake functions and the runtime headers): it
# runs the generator of a native build, which links libHalide.
set(LPNORM_HALIDE_VERSION 21.0.0)

if (NOT Halide_ROOT AND NOT Halide_DIR AND NOT DEFINED ENV{Halide_ROOT})
    if (SKBUILD AND Python_EXECUTABLE)
        # `pip install .`: Halide is a build requirement of pyproject.toml, installed for the
        # Python that builds the package.
        set(LPNORM_VENV_PYTHON "${Python_EXECUTABLE}")
    else ()
        find_program(LPNORM_VENV_PYTHON NAMES python3 python
                     HINTS "${PROJECT_SOURCE_DIR}/.venv/bin" NO_DEFAULT_PATH)
    endif ()
    if (LPNORM_VENV_PYTHON)
        execute_process(
            COMMAND "${LPNORM_VENV_PYTHON}" -c "import halide; print(halide.install_dir())"
            OUTPUT_VARIABLE _lpnorm_halide_root
            OUTPUT_STRIP_TRAILING_WHITESPACE
            RESULT_VARIABLE _lpnorm_halide_found)
        if (_lpnorm_halide_found EQUAL 0)
            set(Halide_ROOT "${_lpnorm_halide_root}")
            if (SKBUILD)
                # The package's own config (lib64/, which find_package does not search on
                # Debian): the copy under share/ finds Halide through the Python that
                # configures, which under pip's build isolation is not the one holding it.
                file(GLOB _lpnorm_halide_config_dir "${_lpnorm_halide_root}/lib*/cmake/Halide")
                set(Halide_DIR "${_lpnorm_halide_config_dir}")
            else ()
                # The wheel also installs the package files under the virtualenv's share/,
                # which is found this way even when the virtualenv is not on PATH.
                list(APPEND CMAKE_PREFIX_PATH "${PROJECT_SOURCE_DIR}/.venv")
            endif ()
        endif ()
    endif ()
endif ()

if (CMAKE_CROSSCOMPILING)
    # Halide_ROOT is the wheel's package directory, which holds HalideHelpers too (the
    # virtualenv's share/ copy would look for Python's headers in the target's sysroot).
    if (NOT HalideHelpers_ROOT AND Halide_ROOT)
        set(HalideHelpers_ROOT "${Halide_ROOT}")
        # Its config is under lib64/, which package searches for a Windows target skip.
        file(GLOB _lpnorm_helpers_dir "${Halide_ROOT}/lib*/cmake/HalideHelpers")
        if (_lpnorm_helpers_dir AND NOT HalideHelpers_DIR)
            set(HalideHelpers_DIR "${_lpnorm_helpers_dir}")
        endif ()
    endif ()
    # Toolchains restrict package searches to the target's sysroot; Halide is a build tool.
    find_package(HalideHelpers ${LPNORM_HALIDE_VERSION} EXACT REQUIRED CMAKE_FIND_ROOT_PATH_BOTH)
else ()
    find_package(Halide ${LPNORM_HALIDE_VERSION} EXACT REQUIRED)
endif ()
find_package(Threads REQUIRED)
