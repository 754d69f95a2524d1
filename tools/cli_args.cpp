#include "cli_args.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace lpnorm::cli {
namespace {

[[noreturn]] void usage_error(const std::string &message) { throw Error(kExitUsage, message); }

std::string trim(const std::string &s) {
    size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool parse_bool_text(const std::string &text, bool *out) {
    if (text == "true" || text == "1" || text == "yes") return *out = true, true;
    if (text == "false" || text == "0" || text == "no") return *out = false, true;
    return false;
}

// strtod over the whole text; false for junk, NaN or overflow.
bool to_double(const std::string &text, double *out) {
    const char *s = text.c_str();
    char *end = nullptr;
    errno = 0;
    const double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0]))
                         ? 0
                         : std::strtod(s, &end);
    if (end == nullptr || end == s || *end != '\0' || std::isnan(v) ||
        (errno == ERANGE && std::isinf(v))) {
        return false;
    }
    *out = v;
    return true;
}

// "2,3", "-2,-1", "" (empty); false when an item is not an int64.
bool to_int_list(const std::string &text, std::vector<int64_t> *out) {
    out->clear();
    if (trim(text).empty()) return true;
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        const std::string item = trim(
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        char *end = nullptr;
        errno = 0;
        const bool looks_numeric =
            !item.empty() && (std::isdigit(static_cast<unsigned char>(item[0])) ||
                              ((item[0] == '-' || item[0] == '+') && item.size() > 1 &&
                               std::isdigit(static_cast<unsigned char>(item[1]))));
        const long long v = looks_numeric ? std::strtoll(item.c_str(), &end, 10) : 0;
        if (!looks_numeric || *end != '\0' || errno == ERANGE) return false;
        out->push_back(v);
        if (comma == std::string::npos) return true;
        start = comma + 1;
    }
}

}  // namespace

Args::Args(int argc, char **argv, int first, const std::string &command,
           const std::vector<FlagSpec> &specs) {
    bool flags_done = false;
    for (int i = first; i < argc; ++i) {
        const std::string arg = argv[i];
        if (flags_done || arg.size() < 2 || arg[0] != '-') {
            positional_.push_back(arg);
            continue;
        }
        if (arg == "--") {
            flags_done = true;
            continue;
        }
        if (arg == "-h" || arg == "--help") {
            help_ = true;
            continue;
        }
        if (arg.compare(0, 2, "--") != 0) {
            usage_error("unknown option '" + arg + "' for '" + command +
                        "' (flags start with '--')");
        }
        const size_t eq = arg.find('=');
        const std::string name =
            arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
        const FlagSpec *spec = nullptr;
        for (const FlagSpec &s : specs) {
            if (s.name == name) spec = &s;
        }
        if (spec == nullptr) usage_error("unknown flag '--" + name + "' for '" + command + "'");
        if (values_.count(name)) usage_error("flag '--" + name + "' is given more than once");
        std::string value;
        if (eq != std::string::npos) {
            value = arg.substr(eq + 1);
        } else if (spec->takes_value) {
            if (i + 1 >= argc) usage_error("flag '--" + name + "' needs a value");
            value = argv[++i];
        } else {
            value = "true";
        }
        bool b = false;
        if (!spec->takes_value && !parse_bool_text(value, &b)) {
            usage_error("flag '--" + name + "' takes true or false, not '" + value + "'");
        }
        values_[name] = value;
    }
}

std::string Args::get(const std::string &name, const std::string &fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
}

bool Args::flag(const std::string &name) const {
    bool b = false;
    return has(name) && parse_bool_text(get(name), &b) && b;
}

double parse_double(const std::string &flag, const std::string &text) {
    double v = 0;
    if (!to_double(text, &v)) {
        usage_error("'" + flag + "' must be a number (e.g. 2, 0.5, inf, -inf), not '" + text + "'");
    }
    return v;
}

double parse_positive_finite(const std::string &flag, const std::string &text) {
    double v = 0;
    if (!to_double(text, &v) || !(v > 0) || std::isinf(v)) {
        usage_error("'" + flag + "' must be a finite number > 0 (e.g. 2, 0.5), not '" + text + "'");
    }
    return v;
}

int parse_count(const std::string &flag, const std::string &text) {
    char *end = nullptr;
    errno = 0;
    long v = text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))
                 ? -1
                 : std::strtol(text.c_str(), &end, 10);
    if (v < 0 || *end != '\0' || errno == ERANGE || v > std::numeric_limits<int>::max()) {
        usage_error("'" + flag + "' must be a non-negative integer, not '" + text + "'");
    }
    return static_cast<int>(v);
}

std::vector<int64_t> parse_axes(const std::string &flag, const std::string &text) {
    std::vector<int64_t> axes;
    if (!to_int_list(text, &axes)) {
        usage_error("'" + flag +
                    "' must be a comma-separated list of integers (e.g. 2,3 or =-2,-1), not '" +
                    text + "'");
    }
    return axes;
}

std::vector<int64_t> parse_int_list(const std::string &flag, const std::string &text,
                                    int64_t min_value) {
    std::vector<int64_t> values;
    if (!to_int_list(text, &values)) {
        usage_error("'" + flag + "' must be a comma-separated list of integers (e.g. 3,3), not '" +
                    text + "'");
    }
    for (int64_t v : values) {
        if (v < min_value) {
            usage_error("'" + flag + "' values must be >= " + std::to_string(min_value) +
                        ", not '" + text + "'");
        }
    }
    return values;
}

EmptyAxes parse_empty_axes(const std::string &flag, const std::string &text) {
    if (text == "identity") return EmptyAxes::identity;
    if (text == "reduce_all" || text == "reduce-all") return EmptyAxes::reduce_all;
    if (text == "elementwise") return EmptyAxes::elementwise;
    usage_error("'" + flag + "' must be identity, reduce_all or elementwise, not '" + text + "'");
}

AutoPad parse_auto_pad(const std::string &flag, const std::string &text) {
    if (text == "NOTSET" || text == "notset") return AutoPad::notset;
    if (text == "SAME_UPPER" || text == "same_upper") return AutoPad::same_upper;
    if (text == "SAME_LOWER" || text == "same_lower") return AutoPad::same_lower;
    if (text == "VALID" || text == "valid") return AutoPad::valid;
    usage_error("'" + flag + "' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, not '" + text +
                "'");
}

PoolMode parse_pool_mode(const std::string &flag, const std::string &text) {
    if (text == "abs") return PoolMode::abs;
    if (text == "signed") return PoolMode::signed_pow;
    usage_error("'" + flag + "' must be abs or signed, not '" + text + "'");
}

Overhang parse_overhang(const std::string &flag, const std::string &text) {
    if (text == "sum") return Overhang::sum;
    if (text == "rescale") return Overhang::rescale;
    usage_error("'" + flag + "' must be sum or rescale, not '" + text + "'");
}

EpsMode parse_eps_mode_name(const std::string &flag, const std::string &text) {
    EpsMode mode;
    if (!parse_eps_mode(text.c_str(), &mode))
        usage_error("'" + flag + "' must be none, norm_max, sum_add or sum_max, not '" + text +
                    "'");
    return mode;
}

DType parse_dtype_name(const std::string &flag, const std::string &text) {
    DType d;
    if (!parse_dtype(text.c_str(), &d))
        usage_error("'" + flag + "' is not a dtype name: '" + text + "'");
    return d;
}

void set_threads(const Args &args) {
    if (args.has("threads")) set_num_threads(parse_count("--threads", args.get("threads")));
}

}  // namespace lpnorm::cli
