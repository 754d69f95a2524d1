// Command-line parsing for the lpnorm tool: flags, values and the errors they raise.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"

namespace lpnorm::cli {

// Exit statuses.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // bad input data, I/O errors, library errors
constexpr int kExitUsage = 2;    // bad command line

// Thrown for any failure; main() prints "lpnorm: error: <what()>" on one line and exits.
class Error : public std::runtime_error {
public:
    Error(int exit_code, const std::string &message)
        : std::runtime_error(message), exit_code_(exit_code) {}
    int exit_code() const { return exit_code_; }

private:
    int exit_code_;
};

struct FlagSpec {
    std::string name;  // without the leading "--"
    bool takes_value;
};

// Flags accept "--flag value" and "--flag=value"; the "=" form is how values starting with '-'
// are usually passed, but "--axes -2,-1" works too because a value flag always takes the next
// argument. Boolean flags accept "--flag" and "--flag=true|false". "--" ends the flags.
class Args {
public:
    // Parses argv[first..argc) for `command` (used in messages). Throws Error (kExitUsage) for an
    // unknown flag, a missing value or a flag given twice.
    Args(int argc, char **argv, int first, const std::string &command,
         const std::vector<FlagSpec> &specs);

    const std::vector<std::string> &positional() const { return positional_; }
    bool has(const std::string &name) const { return values_.count(name) != 0; }
    // The value of a value flag; `fallback` when absent.
    std::string get(const std::string &name, const std::string &fallback = "") const;
    // A boolean flag: false when absent.
    bool flag(const std::string &name) const;
    bool help() const { return help_; }

private:
    std::vector<std::string> positional_;
    std::map<std::string, std::string> values_;
    bool help_ = false;
};

// Value parsers; each throws Error (kExitUsage) naming `flag` and the bad text.
// "2", "0.5", "inf", "+inf", "-inf", "1e3"; NaN is rejected.
double parse_double(const std::string &flag, const std::string &text);
// A finite number > 0 ("2", "0.5", "1e-3").
double parse_positive_finite(const std::string &flag, const std::string &text);
// A non-negative int.
int parse_count(const std::string &flag, const std::string &text);
// "2,3", "-2,-1", "" (an empty list); spaces around items are allowed.
std::vector<int64_t> parse_axes(const std::string &flag, const std::string &text);
// As parse_axes, with every value >= `min_value`.
std::vector<int64_t> parse_int_list(const std::string &flag, const std::string &text,
                                    int64_t min_value);
// "identity", "reduce_all" (or "reduce-all"), "elementwise".
EmptyAxes parse_empty_axes(const std::string &flag, const std::string &text);
// ONNX spelling "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", or the same in lower case.
AutoPad parse_auto_pad(const std::string &flag, const std::string &text);
// "abs", "signed".
PoolMode parse_pool_mode(const std::string &flag, const std::string &text);
// "sum", "rescale".
Overhang parse_overhang(const std::string &flag, const std::string &text);
// "none", "norm_max", "sum_add", "sum_max".
EpsMode parse_eps_mode_name(const std::string &flag, const std::string &text);
// A dtype name as spelled by lpnorm::dtype_name ("bfloat16", "float16", ...).
DType parse_dtype_name(const std::string &flag, const std::string &text);

// Applies "--threads N" when given.
void set_threads(const Args &args);

}  // namespace lpnorm::cli
