// Value formatting shared by the framework adapters' error messages (onnx.h, directml.h,
// torch.h). Internal to the adapters: not part of the lpnorm API.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace lpnorm::adapter_text {

// The shortest text that reads back as `v`: "2", "2.5", "0.1", "inf", "-inf", "nan".
inline std::string number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    for (int digits = 1; digits <= 17; digits++) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

// "[2, 2]" for a list of integers.
template <typename Int>
std::string list(const std::vector<Int> &values) {
    std::string s = "[";
    for (size_t i = 0; i < values.size(); i++) {
        s += (i ? ", " : "") + std::to_string(values[i]);
    }
    return s + "]";
}

}  // namespace lpnorm::adapter_text
