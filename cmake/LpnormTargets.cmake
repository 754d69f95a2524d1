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
elseif (CMAKE_SYSTEM_NAME STREQUAL "Windows")
    set(_lpnorm_default_platform x86-64-windows)
else ()
    set(_lpnorm_default_platform x86-64-linux)
endif ()
set(LPNORM_PLATFORM "${_lpnorm_default_platform}" CACHE STRING
    "Halide arch-bits-os of the kernels: x86-64-linux, x86-64-windows, arm-64-linux or arm-64-android")

if (LPNORM_PLATFORM MATCHES "^x86-64-(linux|windows)$")
    # x86-64-windows: the Windows x64 calling convention and COFF objects (MinGW-w64 here,
    # cmake/toolchains/x86_64-w64-mingw32.cmake; MSVC links the same objects).
    set(LPNORM_TARGET_sse41 "${LPNORM_PLATFORM}-sse41-large_buffers")
    set(LPNORM_TARGET_avx2 "${LPNORM_PLATFORM}-sse41-avx-avx2-fma-f16c-large_buffers")
    set(LPNORM_TARGET_avx512 "${LPNORM_PLATFORM}-sse41-avx-avx2-fma-f16c-avx512-avx512_skylake-large_buffers")
    # avx512_zen5: avx512's instructions, tuned for AMD Zen 5 (LLVM's znver5 scheduling and
    # schedules/tuned/*.avx512_zen5.* knobs). Only the kernels whose knobs differ from avx512's
    # are built for it; the runtime takes it on AMD family 1Ah and later
    # (runtime/cpu_features.cpp), and avx512's kernels for the rest.
    set(LPNORM_TARGET_avx512_zen5 "${LPNORM_TARGET_avx512}-tune_znver5")
    set(LPNORM_ISA_OPS_avx512_zen5 reduce)
    set(LPNORM_ISA_DTYPES_avx512_zen5 float32)
    set(LPNORM_ISA_REDUCE_PATTERNS_avx512_zen5 inner)
    set(LPNORM_PLATFORM_ISAS sse41 avx2 avx512 avx512_zen5)
    # F16C converts float32 to float16 keeping NaN; SSE4.1's emulated conversion turns it
    # into inf, so only those kernels keep the NaN test on float16 outputs. SSE4.1 has no FMA
    # either, so its normalization scales float32 in float64.
    set(LPNORM_NORMALIZE_PARAMS_avx2 float16_keeps_nan=true has_fma=true)
    set(LPNORM_NORMALIZE_PARAMS_avx512 float16_keeps_nan=true has_fma=true)
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
    set(LPNORM_NORMALIZE_PARAMS_neon has_fma=true)  # fmla: every AArch64 core
    set(LPNORM_NORMALIZE_PARAMS_neon_fp16 float16_keeps_nan=true has_fma=true)  # fcvtn keeps NaN
    set(LPNORM_PLATFORM_ISAS neon neon_fp16)
else ()
    message(FATAL_ERROR "LPNORM_PLATFORM: unknown platform '${LPNORM_PLATFORM}'")
endif ()

# GPU backends of the platform: one kernel variant per backend. The Halide runtime loads the
# API's driver library (libOpenCL.so, libcuda.so) when a kernel first runs, so building them
# needs no GPU, SDK or driver, and the library links without them.
#   opencl: OpenCL C with float64 (cl_khr_fp64). float16 and bfloat16 would need cl_khr_fp16,
#           which PoCL's CPU device (the CI's OpenCL) lacks, so they run on the CPU backend.
#   cuda:   PTX for compute capability 8.0, which the driver also compiles for sm_90.
#           Halide 21's PTX backend fails on bfloat16 conversions, so bfloat16 runs on the CPU.
set(LPNORM_PLATFORM_GPU_BACKENDS "")
if (LPNORM_PLATFORM STREQUAL "x86-64-linux")
    set(LPNORM_TARGET_opencl "${LPNORM_PLATFORM}-opencl-cl_doubles-large_buffers")
    set(LPNORM_ISA_DTYPES_opencl
        float32 float64 int8 uint8 int16 uint16 int32 uint32 int64 uint64)
    set(LPNORM_TARGET_cuda "${LPNORM_PLATFORM}-cuda-cuda_capability_80-large_buffers")
    set(LPNORM_ISA_DTYPES_cuda
        float32 float16 float64 int8 uint8 int16 uint16 int32 uint32 int64 uint64)
    set(LPNORM_PLATFORM_GPU_BACKENDS opencl cuda)
    # OpenCL and CUDA build every kernel: no LPNORM_GPU_LEFT_OUT_<backend> here (CUDA left out
    # the general reduction and 2-D/3-D pooling until their grids were fixed: docs/targets.md,
    # "Known fault").
endif ()
# D3D12 compute: Windows kernels, cross-compiled on an x86-64 Linux host into a static library
# of their own (d3d12/lpnorm_kernels_d3d12.lib, cmake/LpnormD3D12.cmake) for Windows programs;
# it does not link into this platform's library. Halide's HLSL is shader model 5.1, which has
# no float64 and no 64-bit integers, so:
#   - only float32 and float16 kernels are built, and float32 sums accumulate in float32
#     (generator param float32_sums; the error bound is in docs/targets.md, "D3D12
#     compute"); pooling's roots for integer p >= 5 are not refined in float64
#     (float64_powers);
#   - no_asserts: Halide 21's HLSL back end stops with an internal error on an assertion inside
#     a kernel (the bound checks of per-thread producers, which can never fail and which the
#     OpenCL back end drops with a warning). The host-side buffer checks go too: the dispatch
#     layer validates every call before it reaches a kernel.
set(_lpnorm_default_d3d12 OFF)
if (LPNORM_PLATFORM STREQUAL "x86-64-linux")
    set(_lpnorm_default_d3d12 ON)
endif ()
option(LPNORM_BUILD_D3D12
       "Build the Windows D3D12 compute kernels library (x86-64 Linux hosts)" ${_lpnorm_default_d3d12})
if (LPNORM_BUILD_D3D12 AND NOT LPNORM_PLATFORM STREQUAL "x86-64-linux")
    message(FATAL_ERROR "LPNORM_BUILD_D3D12: the D3D12 kernels are built on x86-64-linux hosts")
endif ()
set(LPNORM_TARGET_d3d12 "x86-64-windows-d3d12compute-no_asserts")
set(LPNORM_ISA_DTYPES_d3d12 float32 float16)
set(LPNORM_REDUCE_PARAMS_d3d12 float32_sums=true)
set(LPNORM_POOL_PARAMS_d3d12 float64_powers=false)
set(LPNORM_RUNTIME_TARGET_d3d12 "x86-64-windows-d3d12compute")
# On x86-64 Windows the same kernels are also a GPU backend of the library (Backend::d3d12):
# the reductions and the pooling. The normalization and its gradient sum float32 groups in
# float64, which HLSL lacks; the reduction's gradient has not been built for HLSL.
if (LPNORM_PLATFORM STREQUAL "x86-64-windows")
    set(LPNORM_PLATFORM_GPU_BACKENDS d3d12)
    set(LPNORM_GPU_LEFT_OUT_d3d12 normalize reduce_backward normalize_backward)
endif ()
# The Halide runtime feature of each GPU backend.
set(LPNORM_RUNTIME_FEATURES_opencl "opencl-cl_doubles")
set(LPNORM_RUNTIME_FEATURES_cuda "cuda")
set(LPNORM_RUNTIME_FEATURES_d3d12 "d3d12compute")
