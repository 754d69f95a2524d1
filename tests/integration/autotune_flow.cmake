# Runs tools/autotune from scratch in WORK with ARGS, then checks that every file of EXPECT was
# written with a provenance header and knob=value lines, and that its output matches
# EXPECT_OUTPUT (a regex) where one is given.
#   cmake -DPYTHON=... -DAUTOTUNE=<tools/autotune> -DWORK=... -DARGS=... -DEXPECT=...
#         [-DEXPECT_OUTPUT=...] -P this
file(REMOVE_RECURSE "${WORK}")
execute_process(
    COMMAND "${PYTHON}" "${AUTOTUNE}" ${ARGS} --work-dir "${WORK}/work" --out-dir "${WORK}/tuned"
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
message(STATUS "${output}")
if (NOT status EQUAL 0)
    message(FATAL_ERROR "tools/autotune exited with ${status}")
endif ()
if (DEFINED EXPECT_OUTPUT AND NOT output MATCHES "${EXPECT_OUTPUT}")
    message(FATAL_ERROR "tools/autotune's output does not match '${EXPECT_OUTPUT}'")
endif ()
foreach (name IN LISTS EXPECT)
    set(file "${WORK}/tuned/${name}")
    if (NOT EXISTS "${file}")
        message(FATAL_ERROR "tools/autotune wrote no ${name}")
    endif ()
    file(STRINGS "${file}" header REGEX "^# ")
    file(STRINGS "${file}" knobs REGEX "^[a-z_0-9]+=[0-9]+$")
    if (NOT header MATCHES "date: " OR NOT header MATCHES "Halide " OR NOT knobs)
        message(FATAL_ERROR "${name}: no provenance header or no knobs:\n${header}\n${knobs}")
    endif ()
    message(STATUS "${name}: ${knobs}")
endforeach ()
