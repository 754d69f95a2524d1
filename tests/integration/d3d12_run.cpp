// Runs one D3D12 kernel through Halide's d3d12compute runtime: the float32 L2 norm of 1000
// values (reduce_all), checked against a float64 sum within the D3D12 kernels' float32-sums
// bound (docs/targets.md, "D3D12 compute"). Built by Windows builds given the D3D12 library
// (LPNORM_D3D12_LIBRARY); the Windows job runs it under Wine, whose d3d12.dll is vkd3d on
// Vulkan (lavapipe's, on the CPU).
// Exit 0: the result is right; 1: it is wrong, or the kernel failed on Windows; 77 (skipped):
// under Wine only, a failure of Wine's own D3D12 stack, whose message is printed.
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifndef NOMINMAX
#define NOMINMAX
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include "HalideRuntime.h"
#include "lpnorm_reduce_all_sum_float32_d3d12.h"  // beside the library, as Halide generated it

namespace {

// What the Halide runtime reported: errors, and the prints before its own aborts (a shader
// its D3D12 module cannot compile stops the process rather than failing the call).
std::string g_error;

extern "C" void keep_message(void *, const char *message) { g_error += message ? message : ""; }

bool under_wine() {
    const HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    return ntdll != nullptr && GetProcAddress(ntdll, "wine_get_version") != nullptr;
}

// The message's first lines: Halide appends the whole HLSL source after them.
std::string head(const std::string &message) {
    const size_t dump = message.find(">>> HLSL shader source dump");
    return message.substr(0, dump == std::string::npos ? 2000 : dump);
}

int not_run(const char *what, int code) {
    std::printf("%s failed (code %d): %s\n", what, code, head(g_error).c_str());
    if (!under_wine()) return 1;
    std::printf("skipped: Wine's D3D12 stack cannot run the kernel (docs/targets.md)\n");
    return 77;
}

// Halide's D3D12 module writes through a null pointer where DXGI has no adapter (Wine without
// a display or GL): a fault, reported like a failure.
LONG WINAPI on_fault(EXCEPTION_POINTERS *info) {
    if (info->ExceptionRecord->ExceptionCode != EXCEPTION_ACCESS_VIOLATION) {
        return EXCEPTION_CONTINUE_SEARCH;
    }
    g_error += "access violation (no D3D12 adapter?)";
    std::fflush(stdout);
    std::_Exit(not_run("the Halide runtime (fault)", 0));
}

extern "C" void on_abort(int) {
    std::fflush(stdout);
    std::_Exit(not_run("the Halide runtime (abort)", SIGABRT));
}

}  // namespace

int main() {
    halide_set_error_handler(keep_message);
    halide_set_custom_print(keep_message);
    std::signal(SIGABRT, on_abort);
    AddVectoredExceptionHandler(1, on_fault);
    const int n = 1000;
    std::vector<float> x(n);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        x[i] = 0.25f * float(i % 13) - 1.5f;
        sum += double(x[i]) * double(x[i]);
    }
    float y = -1;
    halide_dimension_t dim(0, n, 1);
    halide_buffer_t input{};
    input.host = reinterpret_cast<uint8_t *>(x.data());
    input.type = halide_type_t(halide_type_float, 32);
    input.dimensions = 1;
    input.dim = &dim;
    input.set_host_dirty(true);
    halide_buffer_t output{};
    output.host = reinterpret_cast<uint8_t *>(&y);
    output.type = halide_type_t(halide_type_float, 32);

    const int code = lpnorm_reduce_all_sum_float32_d3d12(&input, 1, 1 /* kL2 */, 2.0, &output);
    if (code != 0) return not_run("the kernel", code);
    if (const int copy = halide_copy_to_host(nullptr, &output)) return not_run("the copy", copy);
    halide_device_free(nullptr, &input);
    halide_device_free(nullptr, &output);

    // n terms summed in float32 in any order: gamma(n - 1) relative; the terms and the root
    // round once each.
    const double u = std::ldexp(1.0, -24);
    const double bound = (n + 2) * u;
    const double want = std::sqrt(sum);
    const double error = std::fabs(double(y) - want) / want;
    std::printf(
        "D3D12 L2 norm of %d floats: %.9g, float64 reference %.9g, relative error %.2g "
        "(bound %.2g)\n",
        n, double(y), want, error, bound);
    return error <= bound ? 0 : 1;
}
