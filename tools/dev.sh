#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (idempotently), builds lpnorm, and runs one job:
#   tools/dev.sh demo      build, then run `lpnorm demo`
#   tools/dev.sh test      check the C/C++ formatting (format), build, then run every test
#                          (ctest; the Python package's pytest included), then the Python
#                          wheel's tests in a clean virtualenv (python) beside the sanitize job,
#                          then the same for Windows under Wine (windows) and for ARM64 (arm),
#                          then the Android kernels archive of int8 (android)
#   tools/dev.sh python    build, then the wheel `pip install .` makes, from the build tree,
#                          installed into a clean virtualenv and tested there
#   tools/dev.sh format    check that every tracked C/C++ file matches .clang-format (the
#                          test job does this first)
#   tools/dev.sh openvino  build with the OpenVINO extension (openvino/; OpenVINO's wheel in a
#                          virtualenv of its own, which the test job makes too), then run its
#                          tests
#   tools/dev.sh sanitize  the `sanitize` preset only: ASan+UBSan tests and the fuzz targets
#   tools/dev.sh arm       cross-build for aarch64-linux-gnu, then run every test, `lpnorm info`
#                          and `lpnorm demo --quick` under qemu-aarch64
#   tools/dev.sh windows   cross-build for x86-64 Windows with MinGW-w64 (SSE4.1's kernels,
#                          AVX2's float32 reductions and AVX-512's where the host runs
#                          them, D3D12's),
#                          then run every test, `lpnorm info` and `lpnorm demo --quick` under
#                          Wine
#   tools/dev.sh android   build the Android arm64 kernels archive and headers (no NDK needed;
#                          with ANDROID_NDK set, the whole library) and check the archive
#   tools/dev.sh bench     build with benchmarks, then run them (bench/run_benchmarks.sh)
#   tools/dev.sh peers [ARGS]  build with benchmarks, install ONNX Runtime, OpenVINO,
#                          PyTorch and matplotlib into .venv-peers, then run bench/peers.py on
#                          the build's Python package (ARGS go to it, e.g. --out-dir docs)
#   tools/dev.sh tune [ARGS]  build the generator, then tune every unit for AVX2 with the
#                          autoschedulers as baselines (tools/autotune; ARGS replace the default
#                          "all --isa avx2 --autoschedulers")
#   tools/dev.sh gpu [BACKEND]  on a GPU machine: build with benchmarks, rerun the GPU suites
#                          (the ctest label opencl's) on BACKEND (default cuda), each in a
#                          process of its own, then lpnorm_bench_gpu
#   tools/dev.sh setup     only install what is missing
# Environment: LPNORM_BUILD_DIR (default build), LPNORM_SANITIZE_BUILD_DIR (default
# build-sanitize), LPNORM_ARM_BUILD_DIR (default build-aarch64), LPNORM_ANDROID_BUILD_DIR
# (default build-android), LPNORM_WINDOWS_BUILD_DIR (default build-windows), LPNORM_FUZZ_SECONDS (each fuzz target's bounded run, default 30),
# LPNORM_JOBS (default: all cores).
set -euo pipefail

job="${1:-test}"
shift || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${LPNORM_BUILD_DIR:-$root/build}"
sanitize_dir="${LPNORM_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
arm_build_dir="${LPNORM_ARM_BUILD_DIR:-$root/build-aarch64}"
android_build_dir="${LPNORM_ANDROID_BUILD_DIR:-$root/build-android}"
windows_build_dir="${LPNORM_WINDOWS_BUILD_DIR:-$root/build-windows}"
# Debian's ARM64 cross toolchain and the sysroot qemu-aarch64 loads target libraries from.
aarch64_sysroot=/usr/aarch64-linux-gnu
jobs="${LPNORM_JOBS:-$(nproc)}"
venv="$root/.venv"
kernel_cache="$build_dir/kernel-cache"

log() { printf '[dev.sh] %s\n' "$*" >&2; }

# Runs "$@" and logs its wall time under NAME: the test job's phases, against CI's time budget.
timed() {
    local name="$1" start="$SECONDS"
    shift
    "$@"
    log "$name: $((SECONDS - start)) s"
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Debian packages: compilers, Python for the venv (and its headers, for the Python package's
# extension), GoogleTest, Google Benchmark, binutils
# (objdump for the codegen checks); clang and its sanitizer/libFuzzer runtimes for the
# sanitize job. Installed only when missing.
install_debian_packages() {
    local wanted=(g++ make python3 python3-venv python3-pip python3-dev libgtest-dev libbenchmark-dev
                  binutils)
    if [ "$job" = bench ] || [ "$job" = peers ]; then
        wanted+=(libdnnl-dev libeigen3-dev)
    fi
    if [ "$job" = test ] || [ "$job" = sanitize ]; then
        wanted+=(clang libclang-rt-14-dev)
    fi
    if [ "$job" = test ] || [ "$job" = format ]; then
        wanted+=(clang-format git)
    fi
    if [ "$job" = test ]; then
        # OpenCL on the CPU (PoCL) with the ICD loader and headers: the OpenCL backend's tests.
        wanted+=(pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers)
        # glslang's HLSL front end: the D3D12 kernels' HLSL is compiled by d3d12_hlsl_compiles.
        wanted+=(glslang-tools)
    fi
    if [ "$job" = test ] || [ "$job" = arm ] || [ "$job" = android ]; then
        # ARM64 cross compiler, its C/C++ runtime, cross binutils (the codegen check) and the
        # user-mode emulator; GoogleTest is compiled for ARM64 from libgtest-dev's sources.
        wanted+=(g++-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu qemu-user)
    fi
    if [ "$job" = test ] || [ "$job" = windows ]; then
        # The Windows cross compiler (POSIX threads: std::thread) and Wine, which runs its
        # programs (`wine` is the launcher wine64's recommends would bring); a virtual X
        # display and Mesa's Vulkan on the CPU (lavapipe), which Wine's D3D12 runs on.
        wanted+=(g++-mingw-w64-x86-64-posix wine wine64 xvfb xauth mesa-vulkan-drivers libgl1
                 libgl1-mesa-dri)
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

# The OpenVINO wheel (its C++ headers and CMake package), onnx and pytest, in a virtualenv of
# their own: the OpenVINO extension builds against it and its tests run in it.
openvino_venv="$build_dir/openvino-venv"
install_openvino() {
    [ -x "$openvino_venv/bin/python" ] || python3 -m venv "$openvino_venv"
    log "installing openvino/requirements-test.txt into $openvino_venv"
    "$openvino_venv/bin/python" -m pip install -q --disable-pip-version-check \
        -r "$root/openvino/requirements-test.txt"
}

# The test job builds AVX-512's kernels of float32 and int8 only (LPNORM_ISA_DTYPES_avx512),
# whatever the machine: AVX-512's other types would add about a third of the x86 kernels'
# generation time (about 10 minutes on 2 cores), and CI's time must not depend on the CPU
# it lands on. Those two types check that every op compiles for AVX-512 and uses zmm registers
# (x86_codegen_uses_isa_registers), and on an AVX-512 machine they run the suite's AVX-512
# paths while the other types' calls take AVX2's kernels (the dispatch's fallback to a lower
# ISA). Every other job builds them all.
avx512_dtypes_flag() {
    if [ "$job" = test ]; then
        echo "-DLPNORM_ISA_DTYPES_avx512=float32;int8"
    else
        echo "-ULPNORM_ISA_DTYPES_avx512"
    fi
}

# The test job's Linux build has no SSE4.1 kernels: its Windows job (windows()) builds and runs
# SSE4.1's kernels of every type, and AVX2's (and an AVX-512 host's) float32 reductions, from
# the same generator code, and covers the dispatch across the ISAs, the reproducibility
# between them and SSE4.1's codegen check (on COFF objects). So each x86 kernel is generated
# about once: SSE4.1's int8 kernels took 71 of the Linux build's 2488 core-seconds (2 cores),
# its float32 and float64 ones 400 more. Linux ctest without them: 1143/1143. Every other job
# builds them all.
# configure() also clears LPNORM_ISA_DTYPES_sse41, which the test job set in older build trees.
isas_flag() {
    if [ "$job" = test ]; then
        echo "-DLPNORM_ISAS=avx2;avx512;avx512_zen5"
    else
        echo "-ULPNORM_ISAS"
    fi
}

configure() {
    local bench_flag="OFF" openvino_flags=()
    { [ "$job" = bench ] || [ "$job" = peers ] || [ "$job" = gpu ]; } && bench_flag="ON"
    if [ "$job" = test ] || [ "$job" = openvino ]; then
        install_openvino
        local openvino_cmake
        openvino_cmake="$("$openvino_venv/bin/python" -c \
            'import openvino, os; print(os.path.join(os.path.dirname(openvino.__file__), "cmake"))')"
        openvino_flags=(-DLPNORM_BUILD_OPENVINO=ON "-DOpenVINO_DIR=$openvino_cmake"
                        "-DLPNORM_OPENVINO_PYTHON=$openvino_venv/bin/python")
    fi
    export PATH="$venv/bin:$PATH"
    prune_kernel_cache
    cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DLPNORM_BUILD_TESTS=ON -DLPNORM_BUILD_TOOLS=ON -DLPNORM_BUILD_BENCH="$bench_flag" \
        -DLPNORM_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$venv/bin/python" \
        "-DLPNORM_KERNEL_CACHE=$kernel_cache" "$(avx512_dtypes_flag)" "$(isas_flag)" \
        -ULPNORM_ISA_DTYPES_sse41 \
        "${openvino_flags[@]}"
}

# Generated kernels shared by the default build and the sanitize build, which runs the default
# build's generator (LPNORM_KERNEL_CACHE): entries older than a week are dropped, so that a
# working tree's cache does not grow without end.
prune_kernel_cache() {
    mkdir -p "$kernel_cache"
    find "$kernel_cache" -mindepth 1 -maxdepth 1 -mtime +7 -exec rm -rf {} +
}

build() {
    configure
    cmake --build "$build_dir" -j "$jobs"
}

# Every tracked C/C++ file as .clang-format says (Debian 12's clang-format 14); prints the
# differences and fails otherwise. `clang-format -i FILE` applies the style.
format_check() {
    (cd "$root" && git ls-files -z '*.c' '*.cc' '*.cpp' '*.h' '*.hpp' |
        xargs -0 clang-format --dry-run -Werror)
    log "format: every C/C++ file matches .clang-format"
}

# The `sanitize` preset (clang, ASan+UBSan, AVX2 kernels only): every test but those labelled
# autotune (Python driving the uninstrumented generator, which the default build runs) or
# codegen (the default build's kernels, disassembled there), each fuzz target replaying its
# corpus, and a bounded run of each fuzz target: 30 s here, to keep the test job (CI) short.
# It runs the default build's generator, so its AVX2 kernels are copies of that build's
# (LPNORM_KERNEL_CACHE) when it has made them: the generator is never instrumented anyway.
sanitize() {
    build_generator
    cmake --preset sanitize -S "$root" -B "$sanitize_dir" \
        -DLPNORM_FUZZ_SECONDS="${LPNORM_FUZZ_SECONDS:-30}" \
        "-Dlpnorm-halide_generators_DIR=$build_dir/cmake" "-DLPNORM_KERNEL_CACHE=$kernel_cache"
    cmake --build "$sanitize_dir" -j "$jobs"
    (cd "$root" && ctest --preset sanitize --test-dir "$sanitize_dir" -j "$jobs")
}

# The generator always runs on this machine: cross builds import the native build's
# (lpnorm-halide_generators, exported into $build_dir/cmake).
build_generator() {
    configure
    cmake --build "$build_dir" -j "$jobs" --target lpnorm-halide_generators
}

# ARM64 Linux: the kernels, the library, the tests and the CLI, built with the cross compiler;
# ctest runs them under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR of the toolchain), which is
# about 20 times slower than the native run. Timings under emulation say nothing about ARM
# performance. Left to the native run (LPNORM_ARM_TESTS=all runs them here too): the x86
# variants (they only skip, at a fifth of a second each), the tests of the thread pool and of
# reproducibility across thread counts (host C++, not kernel code), the threaded large shapes
# but for float32 and int32, and the channel-block pooling sweep of float16 (the neon_fp16
# kernel runs it), bfloat16 and float64 (the float32 one stays): together 13 of the 36 minutes
# of test time the emulated run took. The heaviest sweeps also run a share of their cases
# there (skipped_under_emulation, tests/test_util.h): 14.5 minutes of test time in all.
arm_emulation_skips='/(sse41|avx2|avx512)_|^(Concurrency|Reproducibility|PoolLarge)\.'
arm_emulation_skips+='|ThreadedPaths/(float16|float64)$|ChannelBlocks/neon_(float16|bfloat16|float64)_2d$'
[ "${LPNORM_ARM_TESTS:-}" = all ] && arm_emulation_skips='^$'
arm() {
    build_generator
    cmake -S "$root" -B "$arm_build_dir" -G Ninja \
        --toolchain "$root/cmake/toolchains/aarch64-linux-gnu.cmake" -DCMAKE_BUILD_TYPE=Release \
        -DLPNORM_BUILD_TESTS=ON -DLPNORM_BUILD_TOOLS=ON \
        "-Dlpnorm-halide_generators_DIR=$build_dir/cmake"
    cmake --build "$arm_build_dir" -j "$jobs"
    ctest --test-dir "$arm_build_dir" --output-on-failure -j "$jobs" -E "$arm_emulation_skips"
    local lpnorm=(qemu-aarch64 -L "$aarch64_sysroot" "$arm_build_dir/tools/lpnorm")
    "${lpnorm[@]}" info
    log "lpnorm demo under qemu-aarch64 (emulated: its timings are not ARM performance)"
    "${lpnorm[@]}" demo --quick
}

# x86-64 Windows: the library, the tests and the CLI, built with MinGW-w64, with the D3D12
# backend; ctest runs them under Wine (CMAKE_CROSSCOMPILING_EMULATOR of the toolchain), at
# native speed. A reduced kernel set, as in the sanitize job: SSE4.1's kernels of every dtype
# and op, which the test job's Linux build does not have (isas_flag), and AVX2's float32
# reductions, and on a host with AVX-512 that ISA's too, so that the dispatch takes every ISA
# the host has and the reproducibility test compares them. (Without AVX-512 the host could
# only compile them; the Linux build checks AVX-512's code.) AVX2's other float32 kernels took
# 155 of the job's 1635 core-seconds (the pooling gradients most), and float64's would add
# about 2 minutes more. A wineserver kept alive for the run makes each test's start 0.06 s
# instead of 3 s.
host_runs_avx512() {
    local feature
    for feature in avx512f avx512cd avx512bw avx512dq avx512vl; do  # cpu_features.cpp's set
        grep -qw "$feature" /proc/cpuinfo || return 1
    done
}
windows() {
    build_generator
    # The D3D12 kernels library (the Linux build makes it), for the test that runs one of them.
    cmake --build "$build_dir" -j "$jobs" --target lpnorm_d3d12
    local isas="sse41;avx2"
    host_runs_avx512 && isas+=";avx512"
    cmake -S "$root" -B "$windows_build_dir" -G Ninja \
        --toolchain "$root/cmake/toolchains/x86_64-w64-mingw32.cmake" -DCMAKE_BUILD_TYPE=Release \
        -DLPNORM_BUILD_TESTS=ON -DLPNORM_BUILD_TOOLS=ON "-DLPNORM_ISAS=$isas" \
        "-DLPNORM_ISA_DTYPES_avx2=float32" -DLPNORM_ISA_OPS_avx2=reduce \
        "-DLPNORM_ISA_DTYPES_avx512=float32" -DLPNORM_ISA_OPS_avx512=reduce \
        "-Dlpnorm-halide_generators_DIR=$build_dir/cmake" "-DLPNORM_KERNEL_CACHE=$kernel_cache" \
        "-DLPNORM_D3D12_LIBRARY=$build_dir/d3d12/lpnorm_kernels_d3d12.lib"
    cmake --build "$windows_build_dir" -j "$jobs"
    export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="  # no Mono or Gecko prompts
    export WINEPREFIX="$windows_build_dir/wine-prefix"
    # The server first, then the prefix and Wine's services under it, with their output away
    # from ctest's: services started by a test's process inherit its pipes, and ctest then
    # waits for them to close (a test listing timed out so).
    mkdir -p "$WINEPREFIX"
    wineserver --persistent=600
    wineboot --init >/dev/null 2>&1 || true
    # A test whose process Wine failed to start (no output at all: once in 4,745 test runs
    # here) runs a second time; a failing test fails both.
    local status=0
    ctest --test-dir "$windows_build_dir" --output-on-failure -j "$jobs" --repeat until-pass:2 ||
        status=$?
    if [ "$status" -eq 0 ]; then
        wine "$windows_build_dir/tools/lpnorm.exe" info
        log "lpnorm demo under Wine"
        wine "$windows_build_dir/tools/lpnorm.exe" demo --quick || status=$?
    fi
    wineserver --kill || true
    return "$status"
}

# Android arm64: without an NDK, the kernels archive and their headers (LPNORM_KERNELS_ONLY,
# built with this machine's tools); with ANDROID_NDK set, the whole library through the NDK's
# toolchain file. Either way the archive is checked to be AArch64 with every kernel defined.
# DTYPES (default: all) limits the element types; the test job builds int8's only (the
# reductions, about 30 core-seconds of generation): it checks that the Android target builds,
# archives and keeps NEON. The ARM64 code of every type and op, the FP16 variant's included, is
# the arm job's, which tests it and checks its disassembly (arm_codegen_uses_neon); Android's
# differs from it only in the OS of the target, so float32's kernels here (about 170
# core-seconds, every op) would add a minute and check nothing new.
android() {
    build_generator
    local dtypes="${1:-}"
    local args=() archive mode
    if [ -n "$dtypes" ]; then args+=("-DLPNORM_DTYPES=$dtypes"); else args+=(-ULPNORM_DTYPES); fi
    if [ -n "${ANDROID_NDK:-}" ]; then
        args+=(--toolchain "$ANDROID_NDK/build/cmake/android.toolchain.cmake"
              -DANDROID_ABI=arm64-v8a -DANDROID_PLATFORM=android-24)
        archive="$android_build_dir/runtime/liblpnorm.a"
        mode=full
    else
        args+=(-DLPNORM_PLATFORM=arm-64-android -DLPNORM_KERNELS_ONLY=ON)
        archive="$android_build_dir/runtime/liblpnorm_kernels.a"
        mode=kernels-only
    fi
    cmake -S "$root" -B "$android_build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DLPNORM_BUILD_TESTS=OFF -DLPNORM_BUILD_TOOLS=OFF \
        "-Dlpnorm-halide_generators_DIR=$build_dir/cmake" "${args[@]}"
    cmake --build "$android_build_dir" -j "$jobs"
    OBJDUMP=aarch64-linux-gnu-objdump READELF=aarch64-linux-gnu-readelf NM=aarch64-linux-gnu-nm \
        bash "$root/tests/integration/check_arm_codegen.sh" "$android_build_dir/runtime/kernels" \
        "$archive" "$android_build_dir/runtime/generated/lpnorm_kernel_table.inc" "$mode"
}

# The wheel `pip install .` builds, made in the build tree (its kernels are not generated a
# second time), installed into a clean virtualenv with PyTorch (python/requirements-test.txt),
# where python/tests run against it.
python_wheel() {
    python_wheel_build
    python_wheel_test
}

python_dist="$build_dir/python-dist"
python_wheel_build() {
    export PATH="$venv/bin:$PATH"
    rm -rf "$python_dist"
    "$venv/bin/python" -m pip wheel -q --disable-pip-version-check --no-build-isolation \
        --no-deps -w "$python_dist" "$root" "-Cbuild-dir=$build_dir" \
        -Ccmake.define.LPNORM_BUILD_TESTS=ON -Ccmake.define.LPNORM_BUILD_TOOLS=ON
    # scikit-build-core left its own settings in the cache (a temporary install prefix).
    cmake "$build_dir" -U 'SKBUILD*' -U CMAKE_INSTALL_PREFIX >/dev/null
}

# Uses only the wheel and a virtualenv of its own, not the build tree, so the test job runs it
# beside the sanitize job.
python_wheel_test() {
    local wheel_venv="$build_dir/python-wheel-venv"
    rm -rf "$wheel_venv"
    python3 -m venv "$wheel_venv"
    # --no-compile: byte-compiling all of PyTorch's sources took 30 of the install's 111 s; the
    # tests compile the modules they import (16 s more), a net 13 s less.
    "$wheel_venv/bin/python" -m pip install -q --disable-pip-version-check --no-compile \
        "$python_dist"/lpnorm-*.whl -r "$root/python/requirements-test.txt"
    (cd "$wheel_venv" && "$wheel_venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests")
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
    timed setup setup
    timed format format_check
    timed build build
    export PATH="$venv/bin:$PATH"
    timed ctest ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
    # The wheel's install and tests (PyTorch's download and pytest: 168 s, mostly waiting on
    # the network or one core) run beside the sanitize job, which keeps both cores busy; their
    # output follows the sanitize job's. If the sanitize job fails, the script stops there.
    timed python-wheel python_wheel_build
    python_log="$build_dir/python-wheel-test.log"
    timed python-tests python_wheel_test >"$python_log" 2>&1 &
    python_pid=$!
    trap 'kill "$python_pid" 2>/dev/null || true' EXIT
    timed sanitize sanitize
    python_status=0
    wait "$python_pid" || python_status=$?
    trap - EXIT
    cat "$python_log"
    if [ "$python_status" -ne 0 ]; then
        log "python-tests: failed ($python_status)"
        exit "$python_status"
    fi
    timed windows windows
    timed arm arm
    timed android android int8
    log "test job: $SECONDS s"
    ;;
sanitize)
    setup
    sanitize
    ;;
format)
    setup
    format_check
    ;;
openvino)
    setup
    build
    export PATH="$venv/bin:$PATH"
    ctest --test-dir "$build_dir" -R openvino_extension --output-on-failure
    ;;
python)
    setup
    build
    python_wheel
    ;;
arm)
    setup
    arm
    ;;
windows)
    setup
    windows
    ;;
android)
    setup
    android
    ;;
bench)
    setup
    build
    "$root/bench/run_benchmarks.sh" -b "$build_dir/bench/lpnorm_bench"
    ;;
peers)
    setup
    build
    peers_venv="$root/.venv-peers"
    [ -x "$peers_venv/bin/python" ] || python3 -m venv "$peers_venv"
    "$peers_venv/bin/python" -m pip install -q --disable-pip-version-check \
        -r "$root/bench/requirements-peers.txt"
    PYTHONPATH="$build_dir/python" "$peers_venv/bin/python" "$root/bench/peers.py" \
        --bench "$build_dir/bench/lpnorm_bench" "$@"
    ;;
gpu)
    setup
    build
    backend="${1:-cuda}"
    # The suites the ctest label `opencl` runs on PoCL (tests/CMakeLists.txt), on BACKEND, each
    # in a process of its own: a kernel that fails on the device poisons its process's context
    # (docs/targets.md, "Known fault").
    filter="$(sed -n 's/^ *"\(\*KernelSweep.*\)")$/\1/p' "$root/tests/CMakeLists.txt")"
    suites="${filter%%-*}" failed=()
    set -f  # gtest patterns, not file globs
    for suite in ${suites//:/ }; do
        LPNORM_BACKEND="$backend" "$build_dir/tests/lpnorm_tests" --gtest_brief=1 \
            --gtest_filter="$suite-${filter#*-}" || failed+=("$suite")
    done
    set +f
    "$build_dir/tests/lpnorm_tests" --gtest_filter='GpuBackends.*:CudaRun.*:OpenClMemory.*' ||
        failed+=("GpuBackends/CudaRun/OpenClMemory")
    LPNORM_BACKEND="$backend" "$build_dir/bench/lpnorm_bench_gpu" --benchmark_repetitions=5 \
        --benchmark_report_aggregates_only=true
    if [ "${#failed[@]}" -gt 0 ]; then
        log "suites with failures on $backend: ${failed[*]}"
        exit 1
    fi
    ;;
tune)
    setup
    build_generator
    [ "$#" -gt 0 ] || set -- all --isa avx2 --autoschedulers
    "$venv/bin/python" "$root/tools/autotune" "$@" --build-dir "$build_dir" \
        --work-dir "$root/build-autotune"
    ;;
*)
    echo "usage: tools/dev.sh demo|test|python|sanitize|arm|windows|android|bench|peers|gpu|tune|setup" >&2
    exit 2
    ;;
esac
