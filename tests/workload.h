// Reductions and poolings with their inputs, for the tests that run the same calls many times
// (test_concurrency.cpp, test_reproducibility.cpp) and compare the output bytes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "test_util.h"

namespace lpnorm::test {

struct Case {
    std::string name;
    std::shared_ptr<const Array> input;  // shared by the cases that differ only in p
    std::vector<int64_t> out_shape;
    DType dtype = DType::float32;
    bool pooling = false;
    ReduceParams reduce;
    PoolParams pool;
    int64_t terms = 1;  // terms summed into each output (window taps for pooling)

    double p() const { return pooling ? pool.p : reduce.p; }
};

// A reduction of pseudo-random data (fill_random) over a dense or strided input.
Case reduce_case(DType dtype, const std::vector<int64_t> &shape, const std::vector<int64_t> &axes,
                 double p, uint64_t seed, const std::vector<int64_t> &strides = {});
// A pooling of pseudo-random data; `edit` sets the window attributes beyond the kernel.
Case pool_case(DType dtype, const std::vector<int64_t> &shape, const std::vector<int64_t> &kernel,
               double p, uint64_t seed, void (*edit)(PoolParams &) = nullptr);
// The same call with another p, on the same input.
Case with_p(Case c, double p);

// A deep copy whose view points into its own storage.
Array clone(const Array &a);

// Runs the case on `input` into a canary-filled output; returns its bytes, or an empty vector
// with `error` set when the call fails.
std::vector<unsigned char> run_case(const Case &c, const Tensor &input, std::string *error);

}  // namespace lpnorm::test
