// `lpnorm reduce`, `lpnorm pool` and `lpnorm normalize`: read IN.npy, run the library, write
// OUT.npy.
#pragma once

namespace lpnorm::cli {

// Each parses argv[2..argc), prints `usage` for --help, returns the exit status and throws
// Error on failure (having written no output file).
int cmd_reduce(int argc, char **argv, const char *usage);
int cmd_pool(int argc, char **argv, const char *usage);
int cmd_normalize(int argc, char **argv, const char *usage);

}  // namespace lpnorm::cli
