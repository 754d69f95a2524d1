// Halide's Windows code (kernels and runtime, target x86-64-windows) probes large stack frames
// by calling __chkstk, MSVC's name for the probe. MinGW-w64's libgcc has the same routine as
// ___chkstk_ms: on x86-64 both touch each page of the new frame below rsp and leave every
// register but r10, r11 and the flags as they were. This gives the MSVC name to MinGW's.
#if defined(__MINGW64__)
__asm__(
    ".globl __chkstk\n"
    "__chkstk:\n"
    "    jmp ___chkstk_ms\n");
#endif
