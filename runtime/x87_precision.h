// x87 precision control for the code that computes in long double or calls MinGW's pow.
#pragma once

namespace lpnorm::rt {

// Windows starts a thread with the x87 unit rounding to 53-bit significands (control word
// 0x27F); MinGW's start-up code and its std::thread set 64 (0x37F), but threads made by
// CreateThread itself keep 53: Halide's runtime pool, an engine's workers. Two things follow
// the setting: long double arithmetic (the range repair), and MinGW-w64's pow, which the
// kernels call for float64 powers and computes through log2l and exp2l on the x87 unit (at
// 53 bits, a float64 reduction with p = 0.5 came out differently on such a thread than on the
// caller's). This holds 64 for its scope, on the thread that makes it. Other systems start
// every thread with 64, and it does nothing there.
#if defined(_WIN32) && (defined(__x86_64__) || defined(__i386__))
#define LPNORM_X87_PRECISION_SCOPE 1
class ExtendedPrecision {
public:
    ExtendedPrecision() {
        __asm__ volatile("fnstcw %0" : "=m"(saved_));
        const unsigned short extended = saved_ | 0x300;  // precision control: 64-bit
        __asm__ volatile("fldcw %0" : : "m"(extended));
    }
    ~ExtendedPrecision() { __asm__ volatile("fldcw %0" : : "m"(saved_)); }
    ExtendedPrecision(const ExtendedPrecision &) = delete;
    ExtendedPrecision &operator=(const ExtendedPrecision &) = delete;

private:
    unsigned short saved_ = 0;
};
#else
#define LPNORM_X87_PRECISION_SCOPE 0
struct ExtendedPrecision {};
#endif

}  // namespace lpnorm::rt
