// lpnorm's Halide runtime allocator, replaced for the coexistence test so that it can be told
// to refuse: an lpnorm kernel then fails inside lpnorm's runtime, which must report to lpnorm's
// error handler, not to the other library's. Only lpnorm's runtime allocates here; the other
// library keeps Halide's halide_malloc.
#include "lpnorm_halide_runtime_names.h"  // first: halide_malloc below is lpnorm's

#include <atomic>
#include <cstdlib>

#include "lpnorm_allocator.h"

namespace {
std::atomic<bool> g_refuse{false};
constexpr size_t kAlignment = 128;  // at least halide_malloc's
}  // namespace

void lpnorm_allocations_fail(bool refuse) { g_refuse = refuse; }

extern "C" void *halide_malloc(void *, size_t size) {
    if (g_refuse) return nullptr;
    return std::aligned_alloc(kAlignment, (size + kAlignment - 1) / kAlignment * kAlignment);
}

extern "C" void halide_free(void *, void *ptr) { std::free(ptr); }
