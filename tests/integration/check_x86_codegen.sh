#!/usr/bin/env bash
# Disassembles the generated x86 kernel objects (reduction, pooling and normalization; Linux's
# ELF or Windows' COFF, which binutils' objdump both reads) and checks each ISA variant really
# uses its registers: AVX-512 kernels zmm, AVX2 kernels ymm and no zmm, SSE4.1 kernels neither.
set -euo pipefail
kernels_dir="$1"
objdump="${OBJDUMP:-objdump}"
failures=0
checked=0

shopt -s nullglob  # Linux objects are .o, Windows ones .obj
for obj in "$kernels_dir"/lpnorm_{reduce,pool,normalize}_*.{o,obj}; do
    name="$(basename "${obj%.*}")"
    isa="${name##*_}"
    [[ "$name" == *_avx512_zen5 ]] && isa=avx512  # avx512's instructions, Zen 5's tuning
    case "$isa" in
    avx512 | avx2 | sse41) ;;
    *) continue ;;  # GPU kernels: their host code is not the ISA's
    esac
    # One disassembly per object: the lines that name each register class.
    read -r zmm ymm < <("$objdump" -d --no-show-raw-insn "$obj" |
        awk '/%zmm/ { z++ } /%ymm/ { y++ } END { print z + 0, y + 0 }')
    case "$isa" in
    avx512) bad=$((zmm == 0)) ;;
    avx2) bad=$((ymm == 0 || zmm > 0)) ;;
    sse41) bad=$((ymm > 0 || zmm > 0)) ;;
    esac
    checked=$((checked + 1))
    if [ "$bad" -ne 0 ]; then
        echo "FAIL $name: zmm=$zmm ymm=$ymm"
        failures=$((failures + 1))
    fi
done
echo "checked $checked kernel objects, $failures failures"
[ "$checked" -gt 0 ] && [ "$failures" -eq 0 ]
