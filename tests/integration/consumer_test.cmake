# Installs the built lpnorm into a scratch prefix, then configures, builds and runs
# examples/consumer against it with find_package(lpnorm).
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, GENERATOR; for a cross build TOOLCHAIN_FILE and
# EMULATOR (a space-separated command the target's executables run under); SUFFIX, the target's
# executable suffix (.exe on Windows).
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
separate_arguments(emulator UNIX_COMMAND "${EMULATOR}")

function(run)
    execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "command failed (${rc}): ${ARGV}")
    endif ()
endfunction()

set(toolchain_args "")
if (TOOLCHAIN_FILE)
    set(toolchain_args "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_FILE}")
endif ()
run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}/examples/consumer" -B "${WORK_DIR}/build"
    -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}" ${toolchain_args})
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run(${emulator} "${WORK_DIR}/build/consumer${SUFFIX}")
if (NOT EXISTS "${prefix}/bin/lpnorm${SUFFIX}")
    message(FATAL_ERROR "the lpnorm command-line tool was not installed")
endif ()
run(${emulator} "${prefix}/bin/lpnorm${SUFFIX}" info)
