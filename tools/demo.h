// `lpnorm demo`: the OpenVINO ReduceL1/L2 spec examples and a small timing table.
#pragma once

namespace lpnorm::cli {

struct DemoOptions {
    bool quick = false;  // only the small timing shape and a few runs (for tests)
};

// Prints to stdout; throws cli::Error when the library reports an error.
void run_demo(const DemoOptions &options);

}  // namespace lpnorm::cli
