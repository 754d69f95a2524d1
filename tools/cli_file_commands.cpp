#include "cli_file_commands.h"

#include <cstdio>
#include <string>
#include <vector>

#include "cli_args.h"
#include "lpnorm/lpnorm.h"
#include "npy.h"

namespace lpnorm::cli {
namespace {

using Shape = std::vector<int64_t>;

struct Files {
    std::string in, out;
};

// The flags every file command takes besides its own.
std::vector<FlagSpec> with_file_flags(std::vector<FlagSpec> specs) {
    specs.push_back({"dtype", true});
    specs.push_back({"threads", true});
    return specs;
}

Files file_arguments(const Args &args, const std::string &command) {
    if (args.positional().size() != 2) {
        throw Error(kExitUsage, "'lpnorm " + command + "' needs IN.npy and OUT.npy, got " +
                                    std::to_string(args.positional().size()) + " file arguments");
    }
    return {args.positional()[0], args.positional()[1]};
}

void check_status(const Status &s, const std::string &what) {
    if (!s.ok()) throw Error(kExitFailure, what + ": " + s.message());
}

// Reads IN.npy; "--dtype D" reinterprets raw '<V2' records as D.
npy::Array read_input(const Args &args, const std::string &path) {
    npy::ReadOptions options;
    if (args.has("dtype")) options.void2_dtype = parse_dtype_name("--dtype", args.get("dtype"));
    npy::Array in;
    std::string error;
    if (!npy::read(path, &in, &error, options))
        throw Error(kExitFailure, "cannot read '" + path + "': " + error);
    if (options.void2_dtype && *options.void2_dtype != in.dtype) {
        throw Error(kExitUsage, "--dtype " + args.get("dtype") + " does not match '" + path +
                                    "', which holds " + dtype_name(in.dtype) +
                                    " (--dtype only reinterprets raw '<V2' data)");
    }
    return in;
}

// Runs `op` (reduce or pool) from `in` into a new array of its output shape, writes that to
// `path` atomically and prints a one-line summary.
template <typename Params>
int compute_and_write(const char *name, const npy::Array &in, const std::string &path,
                      const Params &params,
                      Status (*output_shape)(const Shape &, const Params &, Shape *),
                      Status (*op)(const Tensor &, const Tensor &, const Params &)) {
    Shape out_shape;
    check_status(output_shape(in.shape, params, &out_shape), name);
    int64_t out_bytes = 0;
    npy::Buffer out;
    std::string error;
    if (!npy::byte_count(out_shape, in.dtype, &out_bytes, &error) ||
        !out.allocate(static_cast<size_t>(out_bytes))) {
        throw Error(kExitFailure, "cannot allocate the output " + npy::shape_string(out_shape));
    }
    check_status(op(in.tensor(), Tensor::contiguous(out.data(), in.dtype, out_shape), params),
                 name);
    if (!npy::write(path, in.dtype, out_shape, out.data(), &error)) {
        throw Error(kExitFailure, "cannot write '" + path + "': " + error);
    }
    std::printf("%s: %s %s -> %s\n", path.c_str(), dtype_name(in.dtype),
                npy::shape_string(in.shape).c_str(), npy::shape_string(out_shape).c_str());
    return kExitOk;
}

std::string required_pool_flag(const Args &args, const std::string &name, const std::string &what) {
    if (!args.has(name)) throw Error(kExitUsage, "'lpnorm pool' needs --" + name + " " + what);
    return args.get(name);
}

// A per-spatial-dim list: empty (the default) or exactly `count` values.
std::vector<int64_t> spatial_list(const Args &args, const std::string &name, int64_t min_value,
                                  size_t count, const std::string &what) {
    const std::string text = args.get(name);
    std::vector<int64_t> values = parse_int_list("--" + name, text, min_value);
    if (!values.empty() && values.size() != count) {
        throw Error(kExitUsage, "'--" + name + "' needs " + std::to_string(count) + " values (" +
                                    what + "), got " + std::to_string(values.size()) + ": '" +
                                    text + "'");
    }
    return values;
}

PoolParams pool_params(const Args &args) {
    PoolParams params;
    params.p = parse_positive_finite("--p", required_pool_flag(args, "p", "P (any finite p > 0)"));
    const std::string kernel =
        required_pool_flag(args, "kernel", "K,... (the window size per spatial dim)");
    params.kernel = parse_int_list("--kernel", kernel, 1);
    const size_t k = params.kernel.size();
    if (k < 1 || k > 3) {
        throw Error(kExitUsage, "'--kernel' needs 1, 2 or 3 sizes (one per spatial dim), got " +
                                    std::to_string(k) + ": '" + kernel + "'");
    }
    params.strides = spatial_list(args, "strides", 1, k, "one per --kernel size");
    params.dilations = spatial_list(args, "dilations", 1, k, "one per --kernel size");
    params.pads = spatial_list(args, "pads", 0, 2 * k, "all begins, then all ends");
    if (args.has("auto-pad")) params.auto_pad = parse_auto_pad("--auto-pad", args.get("auto-pad"));
    if (args.has("pads") && params.auto_pad != AutoPad::notset) {
        throw Error(kExitUsage, "'--pads' cannot be combined with --auto-pad " +
                                    args.get("auto-pad") + " (only with NOTSET)");
    }
    params.ceil_mode = args.flag("ceil-mode");
    if (args.has("mode")) params.mode = parse_pool_mode("--mode", args.get("mode"));
    if (args.has("overhang")) params.overhang = parse_overhang("--overhang", args.get("overhang"));
    return params;
}

// Pool-specific input checks, so that the message names the file and the flag.
void check_pool_input(const npy::Array &in, const std::string &path, const PoolParams &params) {
    if (!is_floating(in.dtype)) {
        throw Error(kExitFailure, "pool takes float32, float64, float16 or bfloat16; '" + path +
                                      "' holds " + dtype_name(in.dtype));
    }
    const size_t k = params.kernel.size();
    if (in.shape.size() != k + 2) {
        throw Error(kExitFailure, "'" + path + "' has shape " + npy::shape_string(in.shape) +
                                      ", but --kernel with " + std::to_string(k) +
                                      " sizes needs rank " + std::to_string(k + 2) + " (N, C and " +
                                      std::to_string(k) + " spatial dims)");
    }
}

}  // namespace

int cmd_reduce(int argc, char **argv, const char *usage) {
    const Args args(
        argc, argv, 2, "lpnorm reduce",
        with_file_flags({{"p", true}, {"axes", true}, {"keep-dims", false}, {"empty-axes", true}}));
    if (args.help()) {
        std::fputs(usage, stdout);
        return kExitOk;
    }
    const Files files = file_arguments(args, "reduce");
    ReduceParams params;
    params.p = args.has("p") ? parse_double("--p", args.get("p")) : 2.0;
    params.axes = parse_axes("--axes", args.get("axes"));
    params.keep_dims = args.flag("keep-dims");
    if (args.has("empty-axes"))
        params.empty_axes = parse_empty_axes("--empty-axes", args.get("empty-axes"));
    set_threads(args);
    const npy::Array in = read_input(args, files.in);
    return compute_and_write("reduce", in, files.out, params, reduce_output_shape, reduce);
}

int cmd_pool(int argc, char **argv, const char *usage) {
    const Args args(argc, argv, 2, "lpnorm pool",
                    with_file_flags({{"p", true},
                                     {"kernel", true},
                                     {"strides", true},
                                     {"dilations", true},
                                     {"pads", true},
                                     {"auto-pad", true},
                                     {"ceil-mode", false},
                                     {"mode", true},
                                     {"overhang", true}}));
    if (args.help()) {
        std::fputs(usage, stdout);
        return kExitOk;
    }
    const Files files = file_arguments(args, "pool");
    const PoolParams params = pool_params(args);
    set_threads(args);
    const npy::Array in = read_input(args, files.in);
    check_pool_input(in, files.in, params);
    return compute_and_write("pool", in, files.out, params, pool_output_shape, pool);
}

int cmd_normalize(int argc, char **argv, const char *usage) {
    const Args args(
        argc, argv, 2, "lpnorm normalize",
        with_file_flags({{"p", true}, {"axes", true}, {"eps", true}, {"eps-mode", true}}));
    if (args.help()) {
        std::fputs(usage, stdout);
        return kExitOk;
    }
    const Files files = file_arguments(args, "normalize");
    NormalizeParams params;
    params.p = args.has("p") ? parse_double("--p", args.get("p")) : 2.0;
    if (args.has("axes")) params.axes = parse_axes("--axes", args.get("axes"));
    if (args.has("eps")) params.eps = parse_double("--eps", args.get("eps"));
    if (args.has("eps-mode"))
        params.eps_mode = parse_eps_mode_name("--eps-mode", args.get("eps-mode"));
    set_threads(args);
    const npy::Array in = read_input(args, files.in);
    return compute_and_write("normalize", in, files.out, params, normalize_output_shape, normalize);
}

}  // namespace lpnorm::cli
