# Finds Halide. The pinned PyPI release (see README) installs into the project's virtualenv;
# its package directory is also a CMake package root. Halide_ROOT or Halide_DIR override it.
set(LPNORM_HALIDE_VERSION 21.0.0)

if (NOT Halide_ROOT AND NOT Halide_DIR AND NOT DEFINED ENV{Halide_ROOT})
    find_program(LPNORM_VENV_PYTHON NAMES python3 python
                 HINTS "${PROJECT_SOURCE_DIR}/.venv/bin" NO_DEFAULT_PATH)
    if (LPNORM_VENV_PYTHON)
        execute_process(
            COMMAND "${LPNORM_VENV_PYTHON}" -c "import halide; print(halide.install_dir())"
            OUTPUT_VARIABLE _lpnorm_halide_root
            OUTPUT_STRIP_TRAILING_WHITESPACE
            RESULT_VARIABLE _lpnorm_halide_found)
        if (_lpnorm_halide_found EQUAL 0)
            set(Halide_ROOT "${_lpnorm_halide_root}")
            # The wheel also installs the package files under the virtualenv's share/, which
            # is found this way even when the virtualenv is not on PATH.
            list(APPEND CMAKE_PREFIX_PATH "${PROJECT_SOURCE_DIR}/.venv")
        endif ()
    endif ()
endif ()

find_package(Halide ${LPNORM_HALIDE_VERSION} EXACT REQUIRED)
find_package(Threads REQUIRED)
