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

}  // namespace lpnorm::sched
