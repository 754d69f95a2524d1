// lpnorm_archive TARGET OUTPUT OBJECT...: writes the objects into a static library in the
// format of the Halide target's platform (a COFF .lib for Windows), with Halide's own archive
// writer. It archives the D3D12 kernels for Windows on a Linux host, where ar would write a
// GNU archive.
#include <cstdio>
#include <string>
#include <vector>

#include "Halide.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s TARGET OUTPUT OBJECT...\n", argv[0]);
        return 2;
    }
    try {
        std::vector<std::string> objects(argv + 3, argv + argc);
        Halide::create_static_library(objects, Halide::Target(argv[1]), argv[2]);
    } catch (const Halide::Error &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
    return 0;
}
