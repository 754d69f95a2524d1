// The Halide targets this machine can run that the kernels are built for: the host's own and,
// on x86-64, SSE4.1 (no FMA) and AVX2 with FMA where the host has them.
#pragma once

#include <string>
#include <vector>

#include "Halide.h"

inline std::vector<std::string> targets_this_machine_runs() {
    using Halide::Target;
    std::vector<std::string> targets = {"host"};
    const Target host = Halide::get_host_target();
    if (host.arch == Target::X86 && host.bits == 64) {
        targets.push_back("x86-64-linux-sse41");
        if (host.has_feature(Target::AVX2) && host.has_feature(Target::FMA)) {
            targets.push_back("x86-64-linux-sse41-avx-avx2-fma");
        }
    }
    return targets;
}

// "host" as the host's own target, any other name as itself.
inline Halide::Target jit_target(const std::string &name) {
    return Halide::Target(name == "host" ? Halide::get_host_target().to_string() : name);
}
