// Wrapping caller memory as Halide buffers and routing the Halide runtime's errors and
// prints into lpnorm statuses instead of stderr.
#pragma once

#include <cstdint>
#include <string>

#include "HalideRuntime.h"
#include "lpnorm/lpnorm.h"
#include "x87_precision.h"

namespace lpnorm::rt {

halide_type_t halide_type_of(DType dtype);

// A halide_buffer_t over caller memory with `dims` dimensions, innermost first, all mins 0.
struct BufferView {
    halide_buffer_t buffer{};
    halide_dimension_t dim[kMaxRank]{};

    BufferView(void *data, DType dtype, int dims, const int64_t *extent, const int64_t *stride);
    BufferView(const BufferView &) = delete;
    BufferView &operator=(const BufferView &) = delete;
    halide_buffer_t *get() { return &buffer; }
};

// Installs the error and print handlers once; cheap after the first call.
void install_halide_handlers();

// What a call into the CPU kernels holds while it runs: the handlers installed, and on
// Windows the x87 unit at 64-bit precision (x87_precision.h).
class KernelScope {
public:
    KernelScope() { install_halide_handlers(); }

private:
    ExtendedPrecision precision_;
};

// The Halide runtime's last message on this thread (else on any thread), cleared.
std::string take_halide_message();

// Turns a Halide runtime call's non-zero return code into an `internal` Status naming `what`
// and carrying the runtime's message; kernel_failure for a kernel's own return code.
Status halide_failure(const std::string &what, int code);
Status kernel_failure(const char *symbol, int code);

}  // namespace lpnorm::rt
