#include "settings.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <type_traits>

#include "HalideRuntime.h"
#include "cpu_features.h"
#include "registry.h"
#include "testing.h"
#include "thread_pool.h"

namespace lpnorm {
namespace {

std::atomic<int> g_isa_override{-1};  // -1: not read from the environment yet
std::atomic<int> g_num_threads{0};
std::atomic<int> g_forced_pattern{-1};
thread_local int t_last_pattern = -1;

// Every ISA, best first: the order auto-detection tries them in.
constexpr Isa kIsasBestFirst[] = {Isa::avx512_zen5, Isa::avx512,    Isa::avx2,
                                  Isa::sse41,       Isa::neon_fp16, Isa::neon};

Isa best_isa() {
    for (Isa isa : kIsasBestFirst) {
        if (rt::cpu_can_run(isa) && rt::cpu_is_tuned_for(isa) && rt::isa_compiled(isa)) {
            return isa;
        }
    }
    return Isa::auto_detect;  // no runnable kernel: reduce() reports unsupported
}

// LPNORM_ISA=<an isa_name> forces an ISA the CPU can run; anything else is ignored.
int isa_from_environment() {
    const char *env = std::getenv("LPNORM_ISA");
    Isa isa;
    if (env && parse_isa(env, &isa) && isa != Isa::auto_detect && rt::cpu_can_run(isa) &&
        rt::isa_compiled(isa)) {
        return int(isa);
    }
    return int(Isa::auto_detect);
}

}  // namespace

const char *isa_name(Isa isa) {
    switch (isa) {
    case Isa::auto_detect: return "auto";
    case Isa::sse41: return "sse41";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
    case Isa::neon: return "neon";
    case Isa::neon_fp16: return "neon_fp16";
    case Isa::avx512_zen5: return "avx512_zen5";
    }
    return "invalid";
}

bool parse_isa(const char *name, Isa *out) {
    if (name && std::strcmp(name, isa_name(Isa::auto_detect)) == 0) {
        *out = Isa::auto_detect;
        return true;
    }
    for (Isa isa : kIsasBestFirst) {
        if (name && std::strcmp(name, isa_name(isa)) == 0) {
            *out = isa;
            return true;
        }
    }
    return false;
}

bool cpu_supports(Isa isa) { return rt::cpu_can_run(isa); }

Isa detected_isa() {
    static const Isa isa = best_isa();
    return isa;
}

Isa active_isa() {
    int o = g_isa_override.load(std::memory_order_relaxed);
    if (o < 0) {
        // Only the first reader stores the environment's choice: a set_isa() on another
        // thread in between wins.
        int unread = -1;
        const int from_env = isa_from_environment();
        o = g_isa_override.compare_exchange_strong(unread, from_env, std::memory_order_relaxed)
                ? from_env
                : unread;
    }
    return o == int(Isa::auto_detect) ? detected_isa() : Isa(o);
}

Status set_isa(Isa isa) {
    if (isa != Isa::auto_detect) {
        if (int(isa) < 0 || int(isa) >= rt::kNumIsas) {
            return Status(ErrorCode::invalid_argument,
                          "isa = " + std::to_string(int(isa)) + " is not an Isa");
        }
        if (!rt::cpu_can_run(isa)) {
            return Status(ErrorCode::unsupported,
                          std::string("isa = ") + isa_name(isa) + " cannot run on this CPU");
        }
        if (!rt::isa_compiled(isa)) {
            return Status(ErrorCode::unsupported, std::string("isa = ") + isa_name(isa) +
                                                      " was not compiled in this build");
        }
    }
    g_isa_override.store(int(isa), std::memory_order_relaxed);
    return Status::Ok();
}

// Read once: hardware_concurrency() reads sysfs on Linux, microseconds per call.
static int hardware_threads() {
    static const int n = [] {
        const int hw = static_cast<int>(std::thread::hardware_concurrency());
        return hw > 0 ? hw : 1;
    }();
    return n;
}

void set_num_threads(int n) {
    const int resolved = n > 0 ? n : 0;
    g_num_threads.store(resolved, std::memory_order_relaxed);
    const int threads = resolved > 0 ? resolved : hardware_threads();
    rt::set_pool_threads(threads);
    halide_set_num_threads(threads);  // Halide's pool runs loops that find lpnorm's busy
}

void set_parallel_for(ParallelFor parallel_for, void *pool) {
    static_assert(std::is_same_v<ParallelFor, rt::ExternalParallelFor>);
    rt::set_external_parallel_for(parallel_for, pool);
}

int num_threads() {
    const int n = g_num_threads.load(std::memory_order_relaxed);
    if (n > 0) {
        return n;
    }
    return hardware_threads();
}

namespace testing {

void force_pattern(Pattern pattern) {
    g_forced_pattern.store(int(pattern), std::memory_order_relaxed);
}

Pattern last_pattern() { return Pattern(t_last_pattern); }

}  // namespace testing

namespace rt {

int forced_pattern() { return g_forced_pattern.load(std::memory_order_relaxed); }
void set_last_pattern(int pattern) { t_last_pattern = pattern; }

}  // namespace rt
}  // namespace lpnorm
