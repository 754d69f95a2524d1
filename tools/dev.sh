#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (idempotently), builds lpnorm, and runs one job:
#   tools/dev.sh demo      build, then run `lpnorm demo`
#   tools/dev.sh test      build, then run every test (ctest), then the sanitize job
#   tools/dev.sh sanitize  the `sanitize` preset only: ASan+UBSan tests and the fuzz targets
#   tools/dev.sh bench     build with benchmarks, then run them (bench/run_benchmarks.sh)
#   tools/dev.sh setup     only install what is missing
# Environment: LPNORM_BUILD_DIR (default build), LPNORM_SANITIZE_BUILD_DIR (default
# build-sanitize), LPNORM_FUZZ_SECONDS (each fuzz target's bounded run, default 60),
# LPNORM_JOBS (default: all cores).
set -euo pipefail

job="${1:-test}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${LPNORM_BUILD_DIR:-$root/build}"
sanitize_dir="${LPNORM_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
jobs="${LPNORM_JOBS:-$(nproc)}"
venv="$root/.venv"

log() { printf '[dev.sh] %s\n' "$*" >&2; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Debian packages: compilers, Python for the venv, GoogleTest, Google Benchmark, binutils
# (objdump for the codegen checks); clang and its sanitizer/libFuzzer runtimes for the
# sanitize job. Installed only when missing.
install_debian_packages() {
    local wanted=(g++ make python3 python3-venv python3-pip libgtest-dev libbenchmark-dev binutils)
    if [ "$job" = bench ]; then
        wanted+=(libdnnl-dev libeigen3-dev)
    fi
    if [ "$job" = test ] || [ "$job" = sanitize ]; then
        wanted+=(clang libclang-rt-14-dev)
    fi
    local missing=()
    for pkg in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$pkg")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        log "installing Debian packages: ${missing[*]}"
        as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends \
            "${missing[@]}"
    fi
}

# Halide, CMake and ninja, pinned, in the project's virtualenv.
install_python_packages() {
    if [ ! -x "$venv/bin/python" ]; then
        log "creating $venv"
        python3 -m venv "$venv"
    fi
    log "installing tools/requirements.txt into the virtualenv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check \
        -r "$root/tools/requirements.txt"
}

requirements_satisfied() {
    local frozen
    frozen="$("$venv/bin/python" -m pip freeze 2>/dev/null)"
    while read -r req; do
        [ -z "$req" ] || [ "${req#\#}" != "$req" ] && continue
        grep -qxF "$req" <<<"$frozen" || return 1
    done <"$root/tools/requirements.txt"
}

setup() {
    install_debian_packages
    if [ ! -x "$venv/bin/python" ] || ! requirements_satisfied; then
        install_python_packages
    fi
}

build() {
    local bench_flag="OFF"
    [ "$job" = bench ] && bench_flag="ON"
    export PATH="$venv/bin:$PATH"
    cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DLPNORM_BUILD_TESTS=ON -DLPNORM_BUILD_TOOLS=ON -DLPNORM_BUILD_BENCH="$bench_flag"
    cmake --build "$build_dir" -j "$jobs"
}

# The `sanitize` preset (clang, ASan+UBSan, AVX2 kernels only): every test, each fuzz target
# replaying its corpus, and a bounded run of each fuzz target.
sanitize() {
    export PATH="$venv/bin:$PATH"
    cmake --preset sanitize -S "$root" -B "$sanitize_dir" \
        -DLPNORM_FUZZ_SECONDS="${LPNORM_FUZZ_SECONDS:-60}"
    cmake --build "$sanitize_dir" -j "$jobs"
    (cd "$root" && ctest --preset sanitize --test-dir "$sanitize_dir" -j "$jobs")
}

case "$job" in
setup)
    setup
    ;;
demo)
    setup
    build
    "$build_dir/tools/lpnorm" demo
    ;;
test)
    setup
    build
    export PATH="$venv/bin:$PATH"
    ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
    sanitize
    ;;
sanitize)
    setup
    sanitize
    ;;
bench)
    setup
    build
    "$root/bench/run_benchmarks.sh" -b "$build_dir/bench/lpnorm_bench"
    ;;
*)
    echo "usage: tools/dev.sh demo|test|sanitize|bench|setup" >&2
    exit 2
    ;;
esac
