# The Halide target strings of every kernel family: the one place they are spelled.
#
# x86 variants are selected at run time by CPU features (runtime/cpu_features.cpp checks the
# same feature sets, including the OS's XCR0 state for AVX and AVX-512 registers).
# large_buffers: 64-bit address arithmetic, so one tensor may exceed 2 GiB.
set(LPNORM_TARGET_sse41 "x86-64-linux-sse41-large_buffers")
set(LPNORM_TARGET_avx2 "x86-64-linux-sse41-avx-avx2-fma-f16c-large_buffers")
set(LPNORM_TARGET_avx512 "x86-64-linux-sse41-avx-avx2-fma-f16c-avx512-avx512_skylake-large_buffers")
# The Halide runtime (thread pool, allocator, error reporting) shared by every kernel.
set(LPNORM_RUNTIME_TARGET "x86-64-linux")

set(LPNORM_ALL_X86_ISAS sse41 avx2 avx512)
