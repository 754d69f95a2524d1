// lpnorm: command-line front end of the lpnorm library.
//
//   lpnorm reduce IN.npy OUT.npy [--p P] [--axes A,B,...] [--keep-dims] [--empty-axes POLICY]
//   lpnorm pool IN.npy OUT.npy --p P --kernel K,... [--strides ...] [--pads ...] [...]
//   lpnorm normalize IN.npy OUT.npy [--p P] [--axes A,...] [--eps E] [--eps-mode MODE]
//   lpnorm info
//   lpnorm demo
//
// On any error: exit status 1 (bad data, I/O, library error) or 2 (bad command line), exactly
// one line "lpnorm: error: ..." on stderr, and no output file.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "cli_args.h"
#include "cli_file_commands.h"
#include "demo.h"
#include "lpnorm/lpnorm.h"

namespace lpnorm::cli {
namespace {

const char kUsage[] = R"(usage:
  lpnorm reduce IN.npy OUT.npy [--p P] [--axes A,B,...] [--keep-dims]
                               [--empty-axes identity|reduce_all|elementwise]
                               [--dtype bfloat16] [--threads N]
      y = (sum over AXES of |x|^p)^(1/p), written to OUT.npy with the input's dtype.
      --p P          norm order: any real p > 0, 0 (count of non-zeros), inf, -inf (default 2)
      --axes LIST    comma-separated axes, negative counting from the end; pass negative
                     values as --axes=-2,-1. Omitted or --axes= means an empty list.
      --keep-dims    keep reduced axes as size 1
      --empty-axes   what an empty axes list means (default reduce_all):
                     identity (OpenVINO), reduce_all (ONNX), elementwise (ONNX-18, y = |x|)
      --dtype D      read raw 2-byte '<V2' data (numpy's file form of ml_dtypes.bfloat16) as D;
                     bfloat16 output is written as '<V2' too
      --threads N    worker threads (default 0: one per core)
  lpnorm pool IN.npy OUT.npy --p P --kernel K,... [--strides S,...] [--dilations D,...]
                             [--pads B,...,E,...] [--auto-pad NOTSET|SAME_UPPER|SAME_LOWER|VALID]
                             [--ceil-mode] [--mode abs|signed] [--overhang sum|rescale]
                             [--dtype bfloat16] [--threads N]
      Lp pooling (ONNX LpPool) of an N, C, D1..Dk input, k = 1, 2 or 3 = the length of --kernel:
      y = (sum over each window of |x|^p)^(1/p), taps in the padding count 0, written to OUT.npy
      with the input's dtype (float32, float64, float16 or bfloat16).
      --p P            any finite p > 0 (required)
      --kernel LIST    window size per spatial dim, each >= 1 (required)
      --strides LIST   k values >= 1 (default all 1)
      --dilations LIST k values >= 1 (default all 1)
      --pads LIST      2k values >= 0, all begins then all ends (default all 0); an empty
                       list (--pads=) means the default, as for --strides and --dilations
      --auto-pad A     NOTSET (use --pads; the default), SAME_UPPER, SAME_LOWER or VALID, as
                       ONNX spells them or all in lower case; other than NOTSET excludes --pads
      --ceil-mode      output size by ceiling instead of floor
      --mode M         abs: |x|^p (ONNX; the default); signed: x^p (PyTorch lp_pool)
      --overhang O     windows past the input under --ceil-mode: sum of the taps inside (ONNX
                       Runtime; the default) or rescale that sum by kernel taps / taps inside
                       input and pads (PyTorch)
      --dtype, --threads as for reduce
  lpnorm normalize IN.npy OUT.npy [--p P] [--axes A,...] [--eps E]
                                  [--eps-mode none|norm_max|sum_add|sum_max]
                                  [--dtype bfloat16] [--threads N]
      y = x / n, n = (sum over AXES of |x|^p)^(1/p) broadcast back over them, written to OUT.npy
      with the input's shape and dtype (float32, float64, float16 or bfloat16).
      --p P          any real p > 0, or inf (n = max |x|) (default 2)
      --axes LIST    the axes of each group (default -1); --axes= (empty) makes every element
                     its own group
      --eps E        a finite eps >= 0 (default 0), read by the eps modes
      --eps-mode M   none: 0 where n = 0 (ONNX; the default); norm_max: x / max(n, eps)
                     (PyTorch, DirectML); sum_add: x / (S + eps)^(1/p) and sum_max:
                     x / max(S, eps)^(1/p), S = n^p (OpenVINO NormalizeL2)
      --dtype, --threads as for reduce
  lpnorm info        version, instruction sets, threads and compiled kernel variants
  lpnorm demo [--quick]
                     the OpenVINO spec examples and a timing table against a naive loop
  lpnorm --help      this text

Value flags accept "--flag value" and "--flag=value". .npy files may be C or Fortran order,
format 1.0/2.0/3.0, dtypes float16/32/64, bfloat16 (as '<V2'), int8..int64, uint8..uint64.
Exit status: 0 on success, 1 on bad input data or a library error, 2 on a bad command line.
)";

// Columns of the variant table: the ISAs (indexed by Isa), then the GPU backends (opencl, cuda,
// d3d12: Backend's values from opencl on).
constexpr int kIsaColumns = static_cast<int>(Isa::avx512_zen5) + 1;
constexpr int kFirstGpuBackend = static_cast<int>(Backend::opencl);
constexpr int kIsaSlots = kIsaColumns + static_cast<int>(Backend::d3d12) - kFirstGpuBackend + 1;

int column_of(const VariantInfo &v) {
    if (v.backend != Backend::cpu)
        return kIsaColumns + static_cast<int>(v.backend) - kFirstGpuBackend;
    return static_cast<int>(v.isa);
}

const char *column_name(int i) {
    if (i >= kIsaColumns)
        return backend_name(static_cast<Backend>(i - kIsaColumns + kFirstGpuBackend));
    return isa_name(static_cast<Isa>(i));
}

// A matrix of kernel counts: one row per (op, pattern, reducer) in registry order, one column
// per ISA and GPU backend; each cell is the number of dtypes compiled. Cells with fewer than
// all dtypes are spelled out below the table.
void print_variants() {
    const std::vector<VariantInfo> variants = compiled_variants();
    struct Row {
        std::string op, pattern, reducer;
        std::string dtypes[kIsaSlots];
        int count[kIsaSlots] = {};
    };
    std::vector<Row> rows;
    bool isa_used[kIsaSlots] = {};
    for (const VariantInfo &v : variants) {
        Row *row = nullptr;
        for (Row &r : rows) {
            if (r.op == v.op && r.pattern == v.pattern && r.reducer == v.reducer) row = &r;
        }
        if (row == nullptr) {
            row = &rows.emplace_back();
            row->op = v.op;
            row->pattern = v.pattern;
            row->reducer = v.reducer;
        }
        const int i = column_of(v);
        isa_used[i] = true;
        row->dtypes[i] += std::string(row->count[i]++ ? " " : "") + dtype_name(v.dtype);
    }
    std::printf("compiled variants: %zu (dtypes per kernel and ISA; %d = all)\n", variants.size(),
                kNumDTypes);
    // Columns as wide as their longest entry.
    int op_width = 2, pattern_width = 7;
    for (const Row &r : rows) {
        op_width = std::max(op_width, int(r.op.size()));
        pattern_width = std::max(pattern_width, int(r.pattern.size()));
    }
    std::printf("  %-*s %-*s %-8s", op_width, "op", pattern_width, "pattern", "reducer");
    for (int i = 0; i < kIsaSlots; ++i) {
        if (isa_used[i]) std::printf(" %9s", column_name(i));
    }
    std::printf("\n");
    std::string partial;
    for (const Row &r : rows) {
        std::printf("  %-*s %-*s %-8s", op_width, r.op.c_str(), pattern_width, r.pattern.c_str(),
                    r.reducer.c_str());
        for (int i = 0; i < kIsaSlots; ++i) {
            if (isa_used[i]) std::printf(" %9d", r.count[i]);
            if (r.count[i] > 0 && r.count[i] < kNumDTypes) {
                partial += "  " + r.op + " " + r.pattern + " " + r.reducer + " " + column_name(i) +
                           ": " + r.dtypes[i] + "\n";
            }
        }
        std::printf("\n");
    }
    if (!partial.empty()) std::printf("partial rows:\n%s", partial.c_str());
}

int cmd_info(int argc, char **argv) {
    const Args args(argc, argv, 2, "lpnorm info", {});
    if (args.help()) {
        std::fputs(kUsage, stdout);
        return kExitOk;
    }
    if (!args.positional().empty())
        throw Error(kExitUsage,
                    "'lpnorm info' takes no arguments, got '" + args.positional()[0] + "'");
    std::printf("lpnorm %s\n", version());
    std::printf(
        "isa: detected %s, active %s (override with "
        "LPNORM_ISA=sse41|avx2|avx512|avx512_zen5|neon|neon_fp16)\n",
        isa_name(detected_isa()), isa_name(active_isa()));
    std::printf("cpu supports:");
    for (Isa isa :
         {Isa::sse41, Isa::avx2, Isa::avx512, Isa::avx512_zen5, Isa::neon, Isa::neon_fp16}) {
        std::printf(" %s %s", isa_name(isa), cpu_supports(isa) ? "yes" : "no");
    }
    const int threads = num_threads();
    std::printf("\nthreads: %d%s (hardware threads: %u)\n", threads,
                threads == 0 ? " = one per core" : "", std::thread::hardware_concurrency());
    std::printf("backend: %s (override with LPNORM_BACKEND=cpu|opencl|cuda|d3d12)\n",
                backend_name(backend_override()));
    for (const BackendStatus &b : backends()) {
        std::printf("  %-7s compiled %-3s usable %-3s %s\n", backend_name(b.backend),
                    b.compiled ? "yes" : "no", b.usable ? "yes" : "no", b.detail.c_str());
    }
    print_variants();
    return kExitOk;
}

int cmd_demo(int argc, char **argv) {
    const Args args(argc, argv, 2, "lpnorm demo", {{"quick", false}, {"threads", true}});
    if (args.help()) {
        std::fputs(kUsage, stdout);
        return kExitOk;
    }
    if (!args.positional().empty())
        throw Error(kExitUsage,
                    "'lpnorm demo' takes no arguments, got '" + args.positional()[0] + "'");
    set_threads(args);
    DemoOptions options;
    options.quick = args.flag("quick");
    run_demo(options);
    return kExitOk;
}

int run(int argc, char **argv) {
    if (argc < 2) {
        std::fputs(kUsage, stdout);
        return kExitOk;
    }
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(kUsage, stdout);
        return kExitOk;
    }
    if (command == "reduce") return cmd_reduce(argc, argv, kUsage);
    if (command == "pool") return cmd_pool(argc, argv, kUsage);
    if (command == "normalize") return cmd_normalize(argc, argv, kUsage);
    if (command == "info") return cmd_info(argc, argv);
    if (command == "demo") return cmd_demo(argc, argv);
    throw Error(kExitUsage,
                "unknown command '" + command +
                    "' (commands: reduce, pool, normalize, info, demo; see lpnorm --help)");
}

// Keeps the error to one line.
std::string one_line(std::string s) {
    for (char &c : s) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    return s;
}

}  // namespace
}  // namespace lpnorm::cli

int main(int argc, char **argv) {
    using namespace lpnorm::cli;
    int code = kExitFailure;
    std::string message;
    try {
        code = run(argc, argv);
    } catch (const Error &e) {
        code = e.exit_code();
        message = e.what();
    } catch (const std::bad_alloc &) {
        message = "out of memory";
    } catch (const std::exception &e) {
        message = e.what();
    }
    if (std::fflush(stdout) != 0 && message.empty()) {
        code = kExitFailure;
        message = "cannot write to standard output";
    }
    if (!message.empty()) std::fprintf(stderr, "lpnorm: error: %s\n", one_line(message).c_str());
    return code;
}
