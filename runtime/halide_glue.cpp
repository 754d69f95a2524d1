#include "halide_glue.h"

#include <mutex>
#include <string>

#include "thread_pool.h"

namespace lpnorm::rt {
namespace {

// The last message the Halide runtime reported on this thread, and on any thread: an error in
// a parallel task is reported on the worker thread that ran it, not on the caller's.
thread_local std::string t_halide_message;
std::mutex g_message_mutex;
std::string g_halide_message;

void on_halide_error(const char *msg) {
    t_halide_message = msg ? msg : "";
    std::lock_guard<std::mutex> lock(g_message_mutex);
    g_halide_message = t_halide_message;
}

}  // namespace

// This thread's message, else the latest one from any thread (a failing kernel is a library
// bug; two at once may swap their messages, never lose both).
std::string take_halide_message() {
    std::string msg;
    msg.swap(t_halide_message);
    std::lock_guard<std::mutex> lock(g_message_mutex);
    if (msg.empty()) msg.swap(g_halide_message);
    g_halide_message.clear();
    return msg;
}

}  // namespace lpnorm::rt

extern "C" {
static void lpnorm_halide_error(void *, const char *msg) { lpnorm::rt::on_halide_error(msg); }
static void lpnorm_halide_print(void *, const char *) {}
}

namespace lpnorm::rt {

halide_type_t halide_type_of(DType dtype) {
    switch (dtype) {
    case DType::float32: return halide_type_t(halide_type_float, 32);
    case DType::float16: return halide_type_t(halide_type_float, 16);
    case DType::bfloat16: return halide_type_t(halide_type_bfloat, 16);
    case DType::float64: return halide_type_t(halide_type_float, 64);
    case DType::int8: return halide_type_t(halide_type_int, 8);
    case DType::uint8: return halide_type_t(halide_type_uint, 8);
    case DType::int16: return halide_type_t(halide_type_int, 16);
    case DType::uint16: return halide_type_t(halide_type_uint, 16);
    case DType::int32: return halide_type_t(halide_type_int, 32);
    case DType::uint32: return halide_type_t(halide_type_uint, 32);
    case DType::int64: return halide_type_t(halide_type_int, 64);
    case DType::uint64: return halide_type_t(halide_type_uint, 64);
    }
    return halide_type_t();
}

BufferView::BufferView(void *data, DType dtype, int dims, const int64_t *extent,
                       const int64_t *stride) {
    buffer.host = static_cast<uint8_t *>(data);
    buffer.type = halide_type_of(dtype);
    buffer.dimensions = dims;
    buffer.dim = dims > 0 ? dim : nullptr;
    for (int i = 0; i < dims; i++) {
        // The caller has checked that extents and strides fit in 32 bits.
        dim[i] =
            halide_dimension_t(0, static_cast<int32_t>(extent[i]), static_cast<int32_t>(stride[i]));
    }
}

void install_halide_handlers() {
    static std::once_flag once;
    std::call_once(once, [] {
        halide_set_error_handler(lpnorm_halide_error);
        halide_set_custom_print(lpnorm_halide_print);
        halide_set_custom_do_par_for(pool_do_par_for);
    });
}

Status halide_failure(const std::string &what, int code) {
    std::string msg = what + " failed with Halide error " + std::to_string(code);
    const std::string halide_message = take_halide_message();
    if (!halide_message.empty()) {
        msg += ": " + halide_message;
    }
    return Status(ErrorCode::internal, msg);
}

Status kernel_failure(const char *symbol, int code) {
    return halide_failure(std::string("kernel ") + symbol, code);
}

}  // namespace lpnorm::rt
