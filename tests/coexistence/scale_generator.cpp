// The second Halide library of the coexistence test: a pipeline of its own, generated apart
// from lpnorm's kernels and linked with Halide's runtime under Halide's own names, as another
// Halide-generated library in a user's engine would be. output = input * factor, rows in
// parallel, so that it calls its runtime's halide_do_par_for.
#include "Halide.h"

namespace {

class CoexistenceScale : public Halide::Generator<CoexistenceScale> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Input<float> factor{"factor"};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        Halide::Var x("x"), y("y");
        output(x, y) = input(x, y) * factor;
        output.vectorize(x, 8, Halide::TailStrategy::GuardWithIf).parallel(y);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(CoexistenceScale, coexistence_scale)
