#!/usr/bin/env bash
# Runs lpnorm_bench with repetitions and writes the JSON plus a table of medians.
#
#   bench/run_benchmarks.sh [-b BINARY] [-o OUTDIR] [-r REPETITIONS] [-s SET | -f REGEX] [-- FLAGS]
#
#   -b  the binary (default: build/bench/lpnorm_bench)
#   -o  output directory (default: out/bench), gets lpnorm_bench.json and summary.md
#   -r  repetitions per benchmark (default 5); the table shows their medians
#   -s  which benchmarks (default: lpnorm):
#         lpnorm  probes, lpnorm::reduce (automatic and forced ISAs) and lpnorm::pool
#         peers   probes, the naive loop, oneDNN and Eigen (slow: seconds per call for some)
#         quick   probes, lpnorm::reduce and lpnorm::pool with the automatic ISA, p = 2 only,
#                 and oneDNN's plain average pooling
#         pool    lpnorm::pool, its naive loop and oneDNN's average pooling
#         normalize  copy probes, lpnorm::normalize and its naive loop
#         all     everything
#   -f  a Google Benchmark filter regex instead of a set
#   --  anything after it goes to lpnorm_bench (e.g. --threads=4, --check)
#
# Timings on a shared machine are noisy: compare medians and pct_of_probe, not single runs.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/build/bench/lpnorm_bench"
out="$root/out/bench"
reps=5
set_name=lpnorm
filter=""

while [[ $# -gt 0 ]]; do
    case "$1" in
        -b) bin="$2"; shift 2 ;;
        -o) out="$2"; shift 2 ;;
        -r) reps="$2"; shift 2 ;;
        -s) set_name="$2"; shift 2 ;;
        -f) filter="$2"; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "run_benchmarks.sh: unknown argument '$1' (see -h)" >&2; exit 2 ;;
    esac
done

if [[ -z "$filter" ]]; then
    case "$set_name" in
        lpnorm) filter='^(probe/|copy/|(reduce|pool|normalize)/.*/lpnorm)' ;;
        peers) filter='^(probe/|(reduce|pool)/.*/(naive_1thread|onednn[a-z0-9_]*|eigen)(/|$))' ;;
        quick) filter='^(probe/.*/threads2|(reduce|pool)/[^/]+/p2/.*/lpnorm/|pool/f32/avg/.*/onednn_nchw)' ;;
        pool) filter='^pool/' ;;
        normalize) filter='^(copy/|normalize/)' ;;
        all) filter='.' ;;
        *) echo "run_benchmarks.sh: unknown set '$set_name'" >&2; exit 2 ;;
    esac
fi
[[ -x "$bin" ]] || { echo "run_benchmarks.sh: no binary at $bin (build the lpnorm_bench target)" >&2; exit 1; }
mkdir -p "$out"
json="$out/lpnorm_bench.json"

aggregates=()
if [[ "$reps" -gt 1 ]]; then
    aggregates=(--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true)
fi
"$bin" --benchmark_filter="$filter" "${aggregates[@]}" \
    --benchmark_out="$json" --benchmark_out_format=json "$@"

python3 - "$json" > "$out/summary.md" <<'EOF'
import json, re, sys

data = json.load(open(sys.argv[1]))
rows, below = [], []
for b in data["benchmarks"]:
    if b.get("error_occurred"):
        name = b["run_name"].replace("/real_time", "").replace("/manual_time", "")
        rows.append((name, "-", "-", "-", "skipped: " + b.get("error_message", "")))
        continue
    if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
        continue
    name = b["run_name"].replace("/real_time", "").replace("/manual_time", "")
    scale = {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}[b["time_unit"]]
    micros = b["real_time"] * scale / b.get("passes", 1)  # probes: time per pass
    gbps = b.get("bytes_per_second", 0) / 1e9
    pct = b.get("pct_of_probe", 0)
    rows.append((name, f"{micros:.1f}", f"{gbps:.2f}", f"{pct:.1f}", b.get("label", "")))
    # The bars: reductions at 90% of the probe; pooling (float32 p = 1, 2; float16 p = 2) at 80%.
    pooled = re.match(r"pool/(f32/p[12]|f16/p2)/", name)
    if "/lpnorm" in name and ((name.startswith("reduce/") and pct < 90) or (pooled and pct < 80)):
        below.append(name)

print(f"Medians of the repetitions; {data['context'].get('threads', '?')} threads; "
      f"detected ISA {data['context'].get('lpnorm_detected_isa', '?')}. "
      "GB/s = (input + output bytes) / time, 1 GB = 1e9 bytes.\n")
print("| benchmark | time per call (us) | GB/s | % of probe | note |")
print("|---|---:|---:|---:|---|")
seen = set()
for r in rows:
    if r[0] in seen:
        continue
    seen.add(r[0])
    print("| " + " | ".join(r) + " |")
print(f"\nlpnorm rows below their bar (reduce 90%, pool 80% of the probe): {len(below)}")
for name in below:
    print(f"- {name}")
EOF
echo "wrote $json and $out/summary.md"
