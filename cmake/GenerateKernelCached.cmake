# Runs one kernel's generator command through a cache of kernel outputs (LPNORM_KERNEL_CACHE).
#
#   cmake -DCACHE_DIR=<dir> -DOUT_DIR=<dir> -DOUTPUTS=<file;file> -DSALT=<text>
#         -P GenerateKernelCached.cmake -- <generator> <arguments...>
#
# The key is SALT (the Halide version: the generator links Halide's shared library, which can
# change under an unchanged executable), the generator executable's SHA-256 and its arguments,
# the output directory left out: two builds that run the same generator with the same arguments (the default build and the
# sanitize build's AVX2 kernels) make identical files, so the second copies the first's. OUTPUTS
# are the file names the command writes into OUT_DIR. A miss runs the command and then stores its
# outputs under a temporary name that is renamed into place, so an entry is complete or absent.
foreach (var CACHE_DIR OUT_DIR OUTPUTS SALT)
    if (NOT DEFINED ${var})
        message(FATAL_ERROR "GenerateKernelCached.cmake: ${var} is not set")
    endif ()
endforeach ()

set(command "")
set(in_command FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach (i RANGE ${last})
    if (in_command)
        list(APPEND command "${CMAKE_ARGV${i}}")
    elseif (CMAKE_ARGV${i} STREQUAL "--")
        set(in_command TRUE)
    endif ()
endforeach ()
list(LENGTH command length)
if (length EQUAL 0)
    message(FATAL_ERROR "GenerateKernelCached.cmake: no command after --")
endif ()

list(GET command 0 generator)
file(SHA256 "${generator}" key)
string(APPEND key "\n${SALT}")
list(SUBLIST command 1 -1 arguments)
foreach (argument IN LISTS arguments)
    if (NOT argument STREQUAL OUT_DIR)
        string(APPEND key "\n${argument}")
    endif ()
endforeach ()
string(SHA256 key "${key}")
set(entry "${CACHE_DIR}/${key}")

if (NOT IS_DIRECTORY "${entry}")
    execute_process(COMMAND ${command} RESULT_VARIABLE result)
    if (NOT result EQUAL 0)
        message(FATAL_ERROR "generator failed (${result})")
    endif ()
    string(RANDOM LENGTH 12 suffix)
    set(staging "${entry}.partial-${suffix}")
    file(MAKE_DIRECTORY "${staging}")
    foreach (output IN LISTS OUTPUTS)
        file(COPY_FILE "${OUT_DIR}/${output}" "${staging}/${output}")
    endforeach ()
    # Another build may have stored the same entry meanwhile: its files are the same.
    file(RENAME "${staging}" "${entry}" RESULT rename_result)
    if (NOT rename_result STREQUAL "0")
        file(REMOVE_RECURSE "${staging}")
    endif ()
    return()
endif ()
# Copied, then touched: a file with the entry's old time would look out of date to the build.
foreach (output IN LISTS OUTPUTS)
    file(COPY_FILE "${entry}/${output}" "${OUT_DIR}/${output}")
    file(TOUCH_NOCREATE "${OUT_DIR}/${output}")
endforeach ()
