#include "cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__aarch64__) && (defined(__linux__) || defined(__ANDROID__))
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include <cstdint>

namespace lpnorm::rt {

#if defined(__x86_64__) || defined(__i386__)
namespace {

struct X86Features {
    bool sse41 = false;
    bool avx2_fma_f16c = false;      // the avx2 variant's target: AVX, AVX2, FMA, F16C
    bool avx512_skylake = false;     // the avx512 variant's target: F, CD, BW, DQ, VL
    bool amd_zen5_or_later = false;  // "AuthenticAMD", family 1Ah or higher
};

uint64_t read_xcr0() {
    uint32_t eax = 0, edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (uint64_t(edx) << 32) | eax;
}

X86Features detect() {
    X86Features f;
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
        return f;
    }
    const bool sse41 = ecx & (1u << 19);
    const bool fma = ecx & (1u << 12);
    const bool osxsave = ecx & (1u << 27);
    const bool avx = ecx & (1u << 28);
    const bool f16c = ecx & (1u << 29);
    f.sse41 = sse41;
    // Family: the base field, plus the extended one when the base is 0Fh (AMD's convention).
    unsigned family = (eax >> 8) & 0xF;
    if (family == 0xF) family += (eax >> 20) & 0xFF;
    unsigned max_leaf = 0, vendor_b = 0, vendor_c = 0, vendor_d = 0;
    __get_cpuid(0, &max_leaf, &vendor_b, &vendor_c, &vendor_d);
    const bool amd = vendor_b == 0x68747541 && vendor_d == 0x69746e65 && vendor_c == 0x444d4163;
    f.amd_zen5_or_later = amd && family >= 0x1A;
    if (!osxsave) {
        return f;
    }
    const uint64_t xcr0 = read_xcr0();
    const bool os_avx = (xcr0 & 0x6) == 0x6;       // XMM and YMM state
    const bool os_avx512 = (xcr0 & 0xE6) == 0xE6;  // plus opmask, ZMM_Hi256, Hi16_ZMM
    unsigned eax7 = 0, ebx7 = 0, ecx7 = 0, edx7 = 0;
    __get_cpuid_count(7, 0, &eax7, &ebx7, &ecx7, &edx7);
    const bool avx2 = ebx7 & (1u << 5);
    const bool avx512f = ebx7 & (1u << 16);
    const bool avx512dq = ebx7 & (1u << 17);
    const bool avx512cd = ebx7 & (1u << 28);
    const bool avx512bw = ebx7 & (1u << 30);
    const bool avx512vl = ebx7 & (1u << 31);
    f.avx2_fma_f16c = sse41 && os_avx && avx && avx2 && fma && f16c;
    f.avx512_skylake =
        f.avx2_fma_f16c && os_avx512 && avx512f && avx512dq && avx512cd && avx512bw && avx512vl;
    return f;
}

const X86Features &features() {
    static const X86Features f = detect();
    return f;
}

}  // namespace

bool cpu_can_run(Isa isa) {
    switch (isa) {
    case Isa::sse41: return features().sse41;
    case Isa::avx2: return features().avx2_fma_f16c;
    case Isa::avx512:
    case Isa::avx512_zen5: return features().avx512_skylake;
    default: return false;
    }
}

bool cpu_is_tuned_for(Isa isa) { return isa != Isa::avx512_zen5 || features().amd_zen5_or_later; }

#elif defined(__aarch64__) && (defined(__linux__) || defined(__ANDROID__))

// Half-precision arithmetic (ARMv8.2-A FP16), scalar and vector; older headers lack the names.
#ifndef HWCAP_FPHP
#define HWCAP_FPHP (1 << 9)
#endif
#ifndef HWCAP_ASIMDHP
#define HWCAP_ASIMDHP (1 << 10)
#endif

// Advanced SIMD is part of every AArch64 Linux and Android ABI; the kernel still reports it,
// and an emulator reports what it emulates.
bool cpu_can_run(Isa isa) {
    static const unsigned long hwcap = getauxval(AT_HWCAP);
    const bool asimd = (hwcap & HWCAP_ASIMD) != 0;
    const bool fp16 = (hwcap & HWCAP_FPHP) != 0 && (hwcap & HWCAP_ASIMDHP) != 0;
    switch (isa) {
    case Isa::neon: return asimd;
    case Isa::neon_fp16: return asimd && fp16;
    default: return false;
    }
}

bool cpu_is_tuned_for(Isa) { return true; }

#else

bool cpu_can_run(Isa) { return false; }
bool cpu_is_tuned_for(Isa) { return true; }

#endif

}  // namespace lpnorm::rt
