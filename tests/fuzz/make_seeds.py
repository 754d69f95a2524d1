#!/usr/bin/env python3
"""Rewrites the seed corpora under tests/fuzz/corpus/ (checked in; rerun after changing a format).

fuzz_reduce, fuzz_pool and fuzz_normalize read one byte per value (see the harnesses' headers); small values
are written as themselves, edge cases as 0xC0 + their index in the pickers' lists in
fuzz_util.h. fuzz_npy reads .npy files.
"""
import hashlib
import pathlib
import random
import shutil
import struct

HERE = pathlib.Path(__file__).resolve().parent
rng = random.Random(1)

# Indexes into pick_p's list.
P = {2: 0, 1: 1, 3: 2, 0: 3, "inf": 4, "-inf": 5, 0.5: 6, 2.5: 7, 4: 8, 5: 9, 1.5: 10, 64: 11,
     65: 12, "nan": 16, -1: 18}
# 0xC0 + index into pick_dim's specials.
DIM_MINUS_1, DIM_2_62, DIM_2_40, DIM_2_31 = 0xC0, 0xC0 + 16, 0xC0 + 15, 0xC0 + 12
MISUSES = range(1, 13)  # kNullInput .. kNullParams


def values(n=64):
    return bytes(rng.randrange(256) for _ in range(n))


def write(target, name, data):
    d = HERE / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{name}-{hashlib.sha1(data).hexdigest()[:8]}").write_bytes(data)


def misuse_bytes(misuse):
    # kOutputShape picks a dim; kOutputStrides takes 8 strides (here all 1).
    return b"\x01" if misuse == 8 else bytes([32 + 1] * 8) if misuse == 10 else b""


def reduce_case(rank, dtype, dims, axes, p=2, keep=0, empty=1, layout=0, layout_bytes=b"",
                misuse=0, guard=0):
    b = bytes([rank, dtype, *dims, layout]) + layout_bytes
    b += bytes([len(axes), *[a + 16 for a in axes], P[p], keep, empty, misuse]) + misuse_bytes(misuse)
    return b + bytes([guard]) + values()


def reduce_seeds():
    # Every dtype, each with one pattern and one p: all, inner, outer, middle, general.
    patterns = [([17], [0]), ([3, 33], [1]), ([9, 5], [0]), ([3, 5, 7], [1]), ([4, 3, 5, 2], [0, 2])]
    ps = [2, 1, 3, 2.5, "inf", "-inf", 0, 0.5]
    for dtype in range(12):
        dims, axes = patterns[dtype % 5]
        write("fuzz_reduce", f"dtype{dtype}", reduce_case(len(dims), dtype, dims, axes, ps[dtype % 8]))
    for empty in range(3):
        write("fuzz_reduce", f"empty_axes{empty}", reduce_case(2, 0, [4, 6], [], empty=empty))
    write("fuzz_reduce", "rank0", reduce_case(0, 0, [], []))
    write("fuzz_reduce", "keep_dims", reduce_case(3, 1, [2, 3, 4], [-1, 0], keep=1))
    write("fuzz_reduce", "zero_reduced", reduce_case(2, 3, [0, 5], [0]))
    write("fuzz_reduce", "zero_kept", reduce_case(2, 8, [4, 0], [0]))
    write("fuzz_reduce", "zero_middle", reduce_case(4, 0, [2, 0, 3, 4], [3]))
    # Layouts: column-major, picked strides (incl. 0 and negative), negated, broadcast, padded.
    write("fuzz_reduce", "colmajor", reduce_case(2, 0, [5, 7], [0], layout=2))
    write("fuzz_reduce", "picked", reduce_case(3, 0, [3, 4, 5], [1], layout=3,
                                               layout_bytes=bytes([32 + 20, 32 + 0, 32 - 1])))
    write("fuzz_reduce", "negated", reduce_case(2, 10, [6, 9], [1], layout=4))
    write("fuzz_reduce", "broadcast", reduce_case(3, 4, [4, 5, 6], [0, 2], layout=5, layout_bytes=b"\x02"))
    write("fuzz_reduce", "padded", reduce_case(2, 2, [5, 11], [1], layout=6, layout_bytes=b"\x03\x01"))
    write("fuzz_reduce", "rank8", reduce_case(8, 0, [2, 1, 2, 3, 1, 2, 2, 1], [1, 3, 5, 7], "inf"))
    # Errors: p, rank, dtype, axes, sizes.
    write("fuzz_reduce", "p_nan", reduce_case(1, 0, [4], [0], "nan"))
    write("fuzz_reduce", "p_negative", reduce_case(1, 0, [4], [0], -1))
    write("fuzz_reduce", "rank9", reduce_case(0xC1, 0, [1] * 9, [0]))
    write("fuzz_reduce", "dtype12", reduce_case(1, 0xC1, [4], [0]))
    write("fuzz_reduce", "axes_duplicate", reduce_case(2, 0, [4, 4], [1, -1]))
    write("fuzz_reduce", "axes_range", reduce_case(2, 0, [4, 4], [2]))
    write("fuzz_reduce", "dim_negative", reduce_case(2, 0, [DIM_MINUS_1, 4], [0]))
    write("fuzz_reduce", "bytes_overflow", reduce_case(2, 0, [DIM_2_62, DIM_2_62], [0]))
    write("fuzz_reduce", "huge_zero", reduce_case(3, 4, [DIM_2_40, 0, DIM_2_40], [1]))
    write("fuzz_reduce", "huge_dim", reduce_case(1, 4, [DIM_2_31], [0], layout=5, layout_bytes=b"\x01"))
    for m in MISUSES:
        write("fuzz_reduce", f"misuse{m}", reduce_case(2, 0, [3, 4], [1], misuse=m))


def pool_case(spatial, dtype, dims, kernel, strides=None, dilations=None, pads=None, auto_pad=0,
              ceil=0, p=2, mode=0, overhang=0, layout=0, layout_bytes=b"", rank_byte=0, arrays_extra=0,
              misuse=0):
    arrays = (2 if strides else 0) | (4 if dilations else 0) | (8 if pads else 0) | arrays_extra
    b = bytes([spatial - 1, rank_byte, dtype, *dims, layout]) + layout_bytes + bytes([arrays])
    for a in (kernel, strides, dilations, pads):
        b += bytes(a or [])
    b += bytes([auto_pad, ceil, P[p], mode, overhang, misuse]) + misuse_bytes(misuse)
    return b + bytes([0]) + values(128)


def pool_seeds():
    shapes = {1: [2, 3, 19], 2: [1, 3, 9, 11], 3: [1, 2, 5, 6, 7]}
    for spatial, dims in shapes.items():
        for dtype in range(4):
            k = [3] * spatial
            s = [2] * spatial if dtype % 2 else None
            pads = [1] * (2 * spatial) if dtype >= 2 else None
            write("fuzz_pool", f"{spatial}d_dtype{dtype}", pool_case(spatial, dtype, dims, k, s, pads=pads,
                                                                    p=[2, 1, 3, 4][dtype]))
    d2 = shapes[2]
    for auto_pad in (1, 2, 3):
        write("fuzz_pool", f"auto_pad{auto_pad}", pool_case(2, 0, d2, [3, 2], [2, 2], auto_pad=auto_pad))
    write("fuzz_pool", "ceil_mode", pool_case(2, 0, d2, [3, 3], [2, 2], ceil=1))
    write("fuzz_pool", "dilations", pool_case(2, 0, d2, [2, 3], dilations=[2, 3], pads=[1, 0, 2, 1]))
    write("fuzz_pool", "signed_rescale", pool_case(2, 0, d2, [3, 3], [2, 2], pads=[1, 1, 1, 1], ceil=1,
                                                   mode=1, overhang=1, p=3))
    write("fuzz_pool", "p_fraction", pool_case(1, 0, shapes[1], [4], p=2.5))
    write("fuzz_pool", "p_chain", pool_case(1, 3, shapes[1], [2], p=64))
    write("fuzz_pool", "p_pow", pool_case(1, 1, shapes[1], [2], p=65))
    write("fuzz_pool", "channels_last", pool_case(2, 0, [2, 5, 6, 7], [2, 2], [2, 2], layout=7))
    write("fuzz_pool", "negated", pool_case(2, 2, d2, [2, 2], layout=4))
    write("fuzz_pool", "broadcast", pool_case(2, 0, d2, [2, 2], layout=5, layout_bytes=b"\x01"))
    write("fuzz_pool", "zero_batch", pool_case(2, 0, [0, 3, 4, 4], [2, 2]))
    write("fuzz_pool", "zero_channels", pool_case(2, 0, [2, 0, 4, 4], [2, 2]))
    write("fuzz_pool", "padding_only", pool_case(1, 0, [1, 1, 0], [3], pads=[2, 2]))
    # float64 p = 2 (underflow-checked outputs): the last window lies wholly in the end padding.
    write("fuzz_pool", "window_in_padding", pool_case(1, 3, [1, 1, 4], [2], dilations=[2], pads=[0, 3]))
    write("fuzz_pool", "int_dtype", pool_case(1, 0x80, shapes[1], [2]))  # 0x80 % 12: int32
    write("fuzz_pool", "p_zero", pool_case(1, 0, shapes[1], [2], p=0))
    write("fuzz_pool", "kernel_null", pool_case(1, 0, shapes[1], [], arrays_extra=1))
    write("fuzz_pool", "kernel_zero", pool_case(1, 0, shapes[1], [0]))
    write("fuzz_pool", "window_too_big", pool_case(1, 0, [1, 1, 3], [5]))
    write("fuzz_pool", "rank_mismatch", pool_case(2, 0, [1, 3, 9], [2, 2], rank_byte=0xC0))
    write("fuzz_pool", "huge_pads", pool_case(1, 0, [1, 1, 4], [2], pads=[0xC0 + 4, 0]))
    for m in MISUSES:
        write("fuzz_pool", f"misuse{m}", pool_case(2, 0, d2, [2, 2], [2, 2], misuse=m))


def npy(descr, shape, data, fortran=False, version=1, raw_header=None):
    shape_text = f"({shape[0]},)" if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"
    header = raw_header or f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape_text}, }}"
    len_bytes = 2 if version == 1 else 4
    pad = (64 - (10 + len_bytes - 2 + len(header) + 1) % 64) % 64
    header = (header + " " * pad + "\n").encode()
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header + data


def npy_seeds():
    sizes = {"f4": 4, "f2": 2, "f8": 8, "i1": 1, "u1": 1, "i2": 2, "u2": 2, "i4": 4, "u4": 4,
             "i8": 8, "u8": 8, "V2": 2}
    for code, size in sizes.items():
        order = "|" if size == 1 else "<"
        write("fuzz_npy", code, npy(order + code, [2, 3], values(6 * size)))
    write("fuzz_npy", "bfloat16", npy("bfloat16", [4], values(8)))
    write("fuzz_npy", "big_endian", npy(">f4", [3], values(12)))
    write("fuzz_npy", "big_endian_v2", npy(">V2", [3], values(6)))
    write("fuzz_npy", "fortran", npy("<f8", [2, 3], values(48), fortran=True))
    write("fuzz_npy", "v2", npy("<i4", [2, 2], values(16), version=2))
    write("fuzz_npy", "v3", npy("<u2", [5], values(10), version=3))
    write("fuzz_npy", "scalar", npy("<f4", [], values(4)))
    write("fuzz_npy", "zero_size", npy("<f4", [0, 3], b""))
    write("fuzz_npy", "rank8", npy("|u1", [1, 2, 1, 2, 1, 2, 1, 1], values(8)))
    write("fuzz_npy", "py2_long", npy("", [], values(8), raw_header="{'descr': '<i8', 'fortran_order': False, 'shape': (1L,), }"))
    write("fuzz_npy", "bool", npy("|b1", [2], b"\x00\x01"))
    write("fuzz_npy", "truncated_data", npy("<f8", [4], values(8)))
    write("fuzz_npy", "huge_shape", npy("<f8", [2**40, 2**40], b""))
    write("fuzz_npy", "extra_key", npy("", [], b"", raw_header="{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}"))
    write("fuzz_npy", "bad_magic", b"\x93NUMPZ\x01\x00\x10\x00{}")
    write("fuzz_npy", "truncated_header", npy("<f4", [2], values(8))[:20])


# Indexes into pick_p's list, read as eps.
EPS = {0: 3, 1e-5: 29, 1e-300: 23, 1e300: 24, "nan": 16, -1: 18, "inf": 4}


def normalize_case(rank, dtype, dims, axes, p=2, eps=0, mode=0, layout=0, layout_bytes=b"",
                   misuse=0, guard=0):
    b = bytes([rank, dtype, *dims, layout]) + layout_bytes
    b += bytes([len(axes), *[a + 16 for a in axes], P[p], EPS[eps], mode, misuse])
    return b + misuse_bytes(misuse) + bytes([guard]) + values()


def normalize_seeds():
    # Every float dtype through the inner, middle and reordered-copy paths, each eps mode.
    shapes = [([3, 33], [1]), ([3, 5, 7], [1]), ([9, 5], [0]), ([4, 3, 5, 2], [1, 3])]
    ps = [2, 1, 3, 2.5, "inf", 0.5, 5, 1.5]
    for dtype in range(4):
        for i, (dims, axes) in enumerate(shapes):
            p = ps[(dtype + i) % 8]
            mode = (dtype + i) % 4 if p != "inf" else 1
            write("fuzz_normalize", f"dtype{dtype}_shape{i}",
                  normalize_case(len(dims), dtype, dims, axes, p, 1e-5, mode))
    write("fuzz_normalize", "empty_axes", normalize_case(2, 0, [4, 6], []))
    write("fuzz_normalize", "rank0", normalize_case(0, 0, [], []))
    write("fuzz_normalize", "zero_size", normalize_case(2, 0, [0, 5], [1]))
    write("fuzz_normalize", "eps_tiny", normalize_case(2, 1, [3, 8], [1], 2, 1e-300, 2))
    write("fuzz_normalize", "eps_huge", normalize_case(2, 3, [3, 8], [1], 2, 1e300, 1))
    write("fuzz_normalize", "colmajor", normalize_case(2, 0, [5, 7], [0], layout=2))
    write("fuzz_normalize", "negated", normalize_case(2, 3, [6, 9], [1], layout=4))
    write("fuzz_normalize", "broadcast", normalize_case(3, 0, [4, 5, 6], [0, 2], layout=5,
                                                        layout_bytes=b"\x02"))
    write("fuzz_normalize", "rank8", normalize_case(8, 0, [2, 1, 2, 3, 1, 2, 2, 1], [1, 3, 5, 7]))
    # Errors: p, eps, eps_mode, dtype, axes, p = inf with a sum mode.
    write("fuzz_normalize", "p_zero", normalize_case(1, 0, [4], [0], 0))
    write("fuzz_normalize", "p_nan", normalize_case(1, 0, [4], [0], "nan"))
    write("fuzz_normalize", "eps_negative", normalize_case(1, 0, [4], [0], 2, -1, 1))
    write("fuzz_normalize", "eps_nan", normalize_case(1, 0, [4], [0], 2, "nan", 2))
    write("fuzz_normalize", "eps_mode4", normalize_case(1, 0, [4], [0], 2, 0, 4))
    write("fuzz_normalize", "inf_sum_add", normalize_case(1, 0, [4], [0], "inf", 0, 2))
    write("fuzz_normalize", "dtype_int32", normalize_case(1, 8, [4], [0]))
    write("fuzz_normalize", "axes_duplicate", normalize_case(2, 0, [4, 4], [1, -1]))
    for m in MISUSES:
        write("fuzz_normalize", f"misuse{m}", normalize_case(2, 0, [3, 4], [1], misuse=m))


def gradient_seeds():
    # fuzz_gradients reads the op's number, then the forward target's bytes: every forward seed.
    for op, target in enumerate(["fuzz_reduce", "fuzz_pool", "fuzz_normalize"]):
        for seed in sorted((HERE / "corpus" / target).iterdir()):
            name = seed.name.rsplit("-", 1)[0]
            write("fuzz_gradients", f"{target[5:]}_{name}", bytes([op]) + seed.read_bytes())


if __name__ == "__main__":
    shutil.rmtree(HERE / "corpus", ignore_errors=True)
    reduce_seeds()
    pool_seeds()
    npy_seeds()
    normalize_seeds()
    gradient_seeds()
