// Facts about a CPU target that the CPU schedules choose by, named so each choice says why.
#pragma once

#include "Halide.h"

namespace lpnorm::sched {

// 64-bit ARM: 128-bit NEON vectors, 32 vector registers (v0-v31).
inline bool is_arm64(const Halide::Target &target) {
    return target.arch == Halide::Target::ARM && target.bits == 64;
}

// Vector registers the inner loops can keep values in: 32 on ARM64 and with AVX-512, 16 on
// SSE and AVX2.
inline int vector_registers(const Halide::Target &target) {
    const bool avx512 = target.has_feature(Halide::Target::AVX512);
    return is_arm64(target) || avx512 ? 32 : 16;
}

// Bytes per native vector register.
inline int vector_bytes(const Halide::Target &target) {
    return target.natural_vector_size(Halide::UInt(8));
}

// Whether a general p's float64 powers with float32 or narrower results take narrow_pow, float64
// vector arithmetic (generators/float_math.h), rather than Halide's pow: on CPUs, where float64
// pow is a scalar libm call per lane (float32 p = 2.5 reduction of [4096, 1024] on Zen 4: 18.4
// ms with it, 3.7 ms with narrow_pow). GPUs keep their own pow: D3D12 has no float64, and most
// GPUs run float64 at a small fraction of float32's rate.
inline bool vector_powers(const Halide::GeneratorContext &context) {
    return !context.target().has_gpu_feature();
}

// Lanes of the float32 blocks of a row reduction (generators/reduce_algorithm.h,
// add_float32_blocks): one float32 vector of the target per row, its partial sums. 0 on GPUs,
// whose inner pattern keeps its float64 sums.
inline int float32_block_lanes(const Halide::GeneratorContext &context) {
    const Halide::Target &target = context.target();
    return target.has_gpu_feature() ? 0 : target.natural_vector_size(Halide::Float(32));
}

}  // namespace lpnorm::sched
