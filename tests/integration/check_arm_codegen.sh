#!/usr/bin/env bash
# Checks the generated ARM64 kernels without running them:
#  - every kernel object is AArch64 ELF;
#  - every vectorised kernel has a loop (a backward branch) whose body does NEON arithmetic on
#    vector registers (fadd/fmla v.4s, fadd v.2d, add v.2d, ...); the general pattern is
#    exempt, it is the scalar fallback;
#  - the neon_fp16 kernels convert halves in hardware (no emulated float16): vectorised ones
#    with fcvtl, the general pattern's scalar loop with fcvt;
#  - the archive is AArch64 ELF and defines every kernel of the registry tables, and, when it
#    holds the dispatch layer, the C API.
# Usage: check_arm_codegen.sh KERNELS_DIR ARCHIVE TABLE_INC [kernels-only]
# Environment: OBJDUMP, READELF, NM (cross binutils: aarch64-linux-gnu-*).
set -euo pipefail
kernels_dir="$1"
archive="$2"
table="$3"
mode="${4:-full}"
objdump="${OBJDUMP:-aarch64-linux-gnu-objdump}"
readelf="${READELF:-aarch64-linux-gnu-readelf}"
nm="${NM:-aarch64-linux-gnu-nm}"
failures=0
checked=0

fail() {
    echo "FAIL $*"
    failures=$((failures + 1))
}

disassembly="$(mktemp)"
trap 'rm -f "$disassembly"' EXIT

# Reads a disassembly; prints "<loops> <loops with NEON arithmetic> <NEON arithmetic
# instructions inside loops> <the most frequent of them, floating-point ones first>".
vector_loops() {
    awk '
        # Addresses as 16-digit hex strings, which compare as the numbers do (a conversion
        # digit by digit made this check take 100 s for 240 objects).
        function hex(s) { return substr("0000000000000000", 1, 16 - length(s)) s }
        # The first instruction at or after address t (addr[] ascends within a function).
        function first_at(t,   lo, hi, mid) {
            lo = 1; hi = count
            while (lo < hi) {
                mid = int((lo + hi) / 2)
                if (addr[mid] < t) lo = mid + 1; else hi = mid
            }
            return lo
        }
        # A backward branch closes a loop from its target to itself: the loops are counted,
        # those with NEON arithmetic found by prefix sums (vsum), and the instructions inside
        # any loop marked by a running depth (the loop scanned back from each branch made
        # this 2.1 times slower on the largest object).
        function flush(   i, j, depth) {
            for (i = 1; i <= count + 1; i++) { opens[i] = 0; closes[i] = 0 }
            for (i = 1; i <= count; i++) {
                if (target[i] == "" || target[i] > addr[i]) continue
                total_loops++
                j = first_at(target[i])
                if (vsum[i] - vsum[j - 1] > 0) total_vloops++
                opens[j]++; closes[i]++
            }
            depth = 0
            for (i = 1; i <= count; i++) {
                depth += opens[i]
                if (depth > 0 && vec[i]) {
                    total_vinsts++
                    seen[form[i]] += (form[i] ~ /^f/) ? 1000000 : 1
                }
                depth -= closes[i]
            }
            count = 0
        }
        BEGIN { vsum[0] = 0 }
        /^[0-9a-f]+ <.*>:$/ { flush(); next }
        /^ +[0-9a-f]+:\t/ {
            split($0, f, "\t")
            a = f[1]; sub(/^ +/, "", a); sub(/:$/, "", a)
            count++
            addr[count] = hex(a)
            op = f[2]; args = f[3]
            target[count] = ""
            if (op ~ /^(b|b\.[a-z]+|cbz|cbnz|tbz|tbnz)$/ && match(args, /[0-9a-f]+ </)) {
                t = substr(args, RSTART, RLENGTH - 2)
                target[count] = hex(t)
            }
            # Arithmetic with a vector-arranged destination (not loads, stores, moves).
            vec[count] = (args ~ /^v[0-9]+\.(2d|4s|2s|8h|4h|16b|8b)/ &&
                          op !~ /^(ld|st|mov|dup|ins|ext|zip|uzp|trn|tbl|rev|umov|fmov)/)
            vsum[count] = vsum[count - 1] + vec[count]
            if (vec[count]) {
                arrangement = args; sub(/^v[0-9]+/, "", arrangement); sub(/,.*/, "", arrangement)
                form[count] = op " v" arrangement
            }
        }
        END {
            flush()
            for (k in seen) if (seen[k] > best) { best = seen[k]; top = k }
            if (top == "") top = "-"
            print total_loops + 0, total_vloops + 0, total_vinsts + 0, top
        }' "$1"
}

# Every kernel of the registry tables (its function name is its object's name): TABLE_INC and
# the tables beside it (normalization, gradients).
tables=("$table")
for other in "$(dirname "$table")"/lpnorm_*_table.inc; do
    if [ -f "$other" ] && [ "$other" != "$table" ]; then
        tables+=("$other")
    fi
done
symbols="$(cat "${tables[@]}" | grep -oE '_KERNEL\(.*\)' | sed -E 's/.*, *([A-Za-z0-9_]+)\)$/\1/' | sort -u)"
for name in $symbols; do
    obj="$kernels_dir/$name.o"
    checked=$((checked + 1))
    machine="$("$readelf" -h "$obj" | awk -F: '/Machine:/ {gsub(/^ +/, "", $2); print $2}')"
    [ "$machine" = "AArch64" ] || fail "$name: machine '$machine'"
    "$objdump" -d --no-show-raw-insn "$obj" >"$disassembly"
    read -r loops vloops vinsts top < <(vector_loops "$disassembly")
    if [[ "$name" != lpnorm_reduce_general_* && "$name" != lpnorm_reduce_partial_general_* ]] &&
        [ "$vloops" -eq 0 ]; then
        fail "$name: none of its $loops loops does NEON vector arithmetic"
    fi
    if [[ "$name" == *_neon_fp16 ]]; then
        widen='fcvtl2?\s+v[0-9]+\.4s, v[0-9]+\.(4h|8h)'
        [[ "$name" == *general* ]] && widen="$widen|fcvt\s+s[0-9]+, h[0-9]+"
        grep -qE "$widen" "$disassembly" || fail "$name: no hardware conversion of halves"
    fi
    printf '%-50s loops %4d, %4d with NEON arithmetic (%5d instructions, most: %s)\n' \
        "$name" "$loops" "$vloops" "$vinsts" "$top"
done

# The archive: AArch64 members only, every kernel of the table defined.
machines="$("$readelf" -h "$archive" | awk -F: '/Machine:/ {gsub(/^ +/, "", $2); print $2}' | sort -u)"
[ "$machines" = "AArch64" ] || fail "$(basename "$archive"): member machines '$machines'"
defined="$("$nm" --defined-only -g "$archive" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u)"
wanted="$symbols"
if [ "$mode" != kernels-only ]; then
    wanted="$wanted"$'\n'"lpnorm_reduce"$'\n'"lpnorm_pool"$'\n'"lpnorm_normalize"$'\n'"lpnorm_last_error"
    wanted="$wanted"$'\n'"lpnorm_reduce_backward"$'\n'"lpnorm_normalize_backward"
fi
missing="$(comm -23 <(sort -u <<<"$wanted") <(echo "$defined"))"
[ -z "$missing" ] || fail "$(basename "$archive") lacks: $(echo $missing)"
echo "archive $(basename "$archive"): $machines, $(wc -l <<<"$symbols") kernel symbols defined"

echo "checked $checked kernel objects, $failures failures"
[ "$checked" -gt 0 ] && [ "$failures" -eq 0 ]
