// Reduces a small tensor through the installed lpnorm package and checks the answer.
#include <cmath>
#include <cstdio>
#include <vector>

#include "lpnorm/lpnorm.h"
#include "lpnorm/lpnorm_c.h"
#include "lpnorm/openvino.h"

int main() {
    // x[i][j] = j - 1 for a [2, 3] tensor: each row is {-1, 0, 1}.
    std::vector<float> x = {-1, 0, 1, -1, 0, 1};
    std::vector<float> y(2);
    lpnorm::Status s = lpnorm::openvino::reduce_l2(
        lpnorm::Tensor::contiguous(x.data(), lpnorm::DType::float32, {2, 3}), {1},
        lpnorm::Tensor::contiguous(y.data(), lpnorm::DType::float32, {2}));
    if (!s.ok()) {
        std::fprintf(stderr, "reduce_l2 failed: %s\n", s.message().c_str());
        return 1;
    }
    const float expected = std::sqrt(2.0f);
    if (std::fabs(y[0] - expected) > 1e-6f || std::fabs(y[1] - expected) > 1e-6f) {
        std::fprintf(stderr, "wrong result: %g %g\n", y[0], y[1]);
        return 1;
    }
    // The C ABI reports errors by code and message.
    const int64_t shape[] = {2, 3};
    const int64_t bad_axis[] = {5};
    lpnorm_tensor in = {x.data(), LPNORM_FLOAT32, 2, shape, nullptr};
    lpnorm_tensor out = {y.data(), LPNORM_FLOAT32, 1, shape, nullptr};
    if (lpnorm_reduce(&in, &out, bad_axis, 1, 2.0, 0, LPNORM_EMPTY_AXES_REDUCE_ALL) !=
        LPNORM_INVALID_ARGUMENT) {
        std::fprintf(stderr, "expected an invalid-argument error\n");
        return 1;
    }
    std::printf("lpnorm %s (isa %s): L2 of each row = %g; bad axis -> \"%s\"\n", lpnorm::version(),
                lpnorm::isa_name(lpnorm::active_isa()), y[0], lpnorm_last_error());
    return 0;
}
