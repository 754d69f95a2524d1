#include "workload.h"

#include <sstream>

namespace lpnorm::test {

namespace {

std::string describe_case(const Case &c) {
    std::ostringstream s;
    const Tensor &t = c.input->t;
    s << (c.pooling ? "pool " : "reduce ") << dtype_name(c.dtype) << " "
      << shape_string(t.shape_vector());
    if (!t.is_contiguous())
        s << " strides " << shape_string(std::vector<int64_t>(t.strides, t.strides + t.rank));
    if (c.pooling) {
        const PoolParams &p = c.pool;
        s << " kernel " << shape_string(p.kernel);
        if (!p.strides.empty()) s << " strides " << shape_string(p.strides);
        if (!p.dilations.empty()) s << " dilations " << shape_string(p.dilations);
        if (!p.pads.empty()) s << " pads " << shape_string(p.pads);
        if (p.auto_pad != AutoPad::notset) s << " auto_pad " << int(p.auto_pad);
        if (p.ceil_mode) s << " ceil_mode";
        if (p.mode == PoolMode::signed_pow) s << " signed";
        if (p.overhang == Overhang::rescale) s << " rescale";
    } else {
        s << " axes " << shape_string(c.reduce.axes);
    }
    s << " p=" << c.p();
    return s.str();
}

}  // namespace

Case reduce_case(DType dtype, const std::vector<int64_t> &shape, const std::vector<int64_t> &axes,
                 double p, uint64_t seed, const std::vector<int64_t> &strides) {
    Case c;
    c.dtype = dtype;
    auto input = std::make_shared<Array>(strides.empty() ? make_array(dtype, shape)
                                                         : make_strided(dtype, shape, strides));
    fill_random(input.get(), seed);
    c.input = input;
    c.reduce = params(axes, p);
    const Status s = reduce_output_shape(shape, c.reduce, &c.out_shape);
    EXPECT_TRUE(s.ok()) << s.message();
    for (int64_t a : axes) c.terms *= shape[size_t(a < 0 ? a + int64_t(shape.size()) : a)];
    c.name = describe_case(c);
    return c;
}

Case pool_case(DType dtype, const std::vector<int64_t> &shape, const std::vector<int64_t> &kernel,
               double p, uint64_t seed, void (*edit)(PoolParams &)) {
    Case c;
    c.dtype = dtype;
    c.pooling = true;
    auto input = std::make_shared<Array>(make_array(dtype, shape));
    fill_random(input.get(), seed);
    c.input = input;
    c.pool.kernel = kernel;
    c.pool.p = p;
    if (edit) edit(c.pool);
    const Status s = pool_output_shape(shape, c.pool, &c.out_shape);
    EXPECT_TRUE(s.ok()) << s.message();
    for (int64_t k : kernel) c.terms *= k;
    c.name = describe_case(c);
    return c;
}

Case with_p(Case c, double p) {
    (c.pooling ? c.pool.p : c.reduce.p) = p;
    c.name = describe_case(c);
    return c;
}

Array clone(const Array &a) {
    Array b = a;
    const auto offset = static_cast<const unsigned char *>(a.t.data) - a.storage.data();
    b.t.data = b.storage.data() + offset;
    return b;
}

std::vector<unsigned char> run_case(const Case &c, const Tensor &input, std::string *error) {
    Array out = make_array(c.dtype, c.out_shape);
    fill_bytes(&out, 0xA5);
    const Status s = c.pooling ? pool(input, out.t, c.pool) : reduce(input, out.t, c.reduce);
    if (!s.ok()) {
        *error = c.name + ": " + s.message();
        return {};
    }
    return out.storage;
}

}  // namespace lpnorm::test
