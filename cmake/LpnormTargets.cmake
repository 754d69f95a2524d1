# The Halide target strings of every kernel family: the one place they are spelled.
#
# A build compiles the kernels of one platform (LPNORM_PLATFORM, Halide's arch-bits-os, taken
# from the toolchain), with one kernel variant per ISA of that platform; the runtime picks the
# variant from CPU features (runtime/cpu_features.cpp checks the same feature sets, including
# the OS's XCR0 state for AVX and AVX-512 registers on x86 and HWCAP on ARM64).
# large_buffers: 64-bit address arithmetic, so one tensor may exceed 2 GiB.
if (CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
    if (CMAKE_SYSTEM_NAME STREQUAL "Android")
        set(_lpnorm_default_platform arm-64-android)
    else ()
        set(_lpnorm_default_platform arm-64-linux)
    endif ()
else ()
    set(_lpnorm_default_platform x86-64-linux)
endif ()
set(LPNORM_PLATFORM "${_lpnorm_default_platform}" CACHE STRING
    "Halide arch-bits-os of the kernels: x86-64-linux, arm-64-linux or arm-64-android")

if (LPNORM_PLATFORM STREQUAL "x86-64-linux")
    set(LPNORM_TARGET_sse41 "x86-64-linux-sse41-large_buffers")
    set(LPNORM_TARGET_avx2 "x86-64-linux-sse41-avx-avx2-fma-f16c-large_buffers")
    set(LPNORM_TARGET_avx512 "x86-64-linux-sse41-avx-avx2-fma-f16c-avx512-avx512_skylake-large_buffers")
    set(LPNORM_PLATFORM_ISAS sse41 avx2 avx512)
elseif (LPNORM_PLATFORM MATCHES "^arm-64-(linux|android)$")
    # ARMv8.0-A Advanced SIMD, which every AArch64 core has.
    set(LPNORM_TARGET_neon "${LPNORM_PLATFORM}-large_buffers")
    # ARMv8.2-A half-precision arithmetic (FEAT_FP16): |x| of float16 in half precision and
    # fcvtl widening to the float32 accumulators; without it Halide emulates float16 with
    # integer code. Only the float16 sums and pooling change (max/min of |x| compare integer
    # keys: the same code either way), so only they are built for it.
    set(LPNORM_TARGET_neon_fp16 "${LPNORM_PLATFORM}-arm_fp16-large_buffers")
    set(LPNORM_ISA_DTYPES_neon_fp16 float16)
    set(LPNORM_ISA_REDUCERS_neon_fp16 sum)
    set(LPNORM_PLATFORM_ISAS neon neon_fp16)
else ()
    message(FATAL_ERROR "LPNORM_PLATFORM: unknown platform '${LPNORM_PLATFORM}'")
endif ()
# The Halide runtime (thread pool, allocator, error reporting) shared by every kernel.
set(LPNORM_RUNTIME_TARGET "${LPNORM_PLATFORM}")
