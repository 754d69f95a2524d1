# Sanitizer and libFuzzer builds (see the `sanitize` preset).
#
# LPNORM_SANITIZE ("address;undefined") instruments the project's own C/C++ code: the runtime,
# the CLI, the tests and the fuzz targets. Include this after add_subdirectory(generators):
# directory compile options reach only the targets created after them, so the Halide generator
# stays uninstrumented, and the kernels it emits are objects we do not compile at all.
set(LPNORM_SANITIZE "" CACHE STRING "Sanitizers for the project's own code, e.g. address;undefined")
option(LPNORM_BUILD_FUZZERS "Build the libFuzzer targets in tests/fuzz (clang, needs LPNORM_SANITIZE)" OFF)

if (LPNORM_BUILD_FUZZERS)
    if (NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR "LPNORM_BUILD_FUZZERS needs clang for libFuzzer, not ${CMAKE_CXX_COMPILER_ID}")
    endif ()
    # The sanitizer runtime also supplies the coverage callbacks that -fsanitize=fuzzer-no-link
    # adds to the library, which the non-fuzzer executables link too.
    if (NOT LPNORM_SANITIZE)
        message(FATAL_ERROR "LPNORM_BUILD_FUZZERS needs LPNORM_SANITIZE (e.g. address;undefined)")
    endif ()
endif ()

set(LPNORM_SANITIZE_LINK_FLAGS "")
if (LPNORM_SANITIZE)
    list(JOIN LPNORM_SANITIZE "," _lpnorm_sanitizers)
    set(LPNORM_SANITIZE_LINK_FLAGS "-fsanitize=${_lpnorm_sanitizers}")
    add_compile_options(-fsanitize=${_lpnorm_sanitizers} -fno-sanitize-recover=all
                        -fno-omit-frame-pointer)
    add_link_options(${LPNORM_SANITIZE_LINK_FLAGS})
endif ()

# lpnorm_fuzz_coverage(<target>...)
# Coverage feedback for libFuzzer from these libraries (the library and the CLI's reader), not
# only from the fuzz targets. The test suites go without it: they link the callbacks from the
# sanitizer runtime, and the instrumentation cost them a fifth of their compile time.
function(lpnorm_fuzz_coverage)
    if (LPNORM_BUILD_FUZZERS)
        foreach (target IN LISTS ARGN)
            target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
        endforeach ()
    endif ()
endfunction()

# lpnorm_sanitize_consumers(<target>)
# An instrumented static library needs the sanitizer runtime in every program that links it,
# including consumers of the installed package.
function(lpnorm_sanitize_consumers target)
    if (LPNORM_SANITIZE_LINK_FLAGS)
        target_link_options(${target} INTERFACE ${LPNORM_SANITIZE_LINK_FLAGS})
    endif ()
endfunction()
