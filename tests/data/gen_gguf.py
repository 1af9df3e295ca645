"""Writes the GGUF files tests/unit/test_gguf.c reads, with the `gguf` package (ggml's own
Python writer and quantizers), and beside each quantized tensor NAME the values gguf's
dequantize gives (NAME.f32: raw little-endian f32, row-major): an oracle genie did not write.
Usage: gen_gguf.py OUTDIR; gen_gguf.py --seed FILE writes the small fuzz seed
tests/fuzz/corpus_gguf/all.gguf (every value type, one tensor of each type genie reads)."""
import os
import sys

import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q
from gguf.quants import quantize, dequantize

rng = np.random.default_rng(7)


def kblocks(n_blocks, block_bytes, d_offsets):
    """Random K-quant blocks with sane f16 scales at d_offsets (Q4_K, Q6_K have no quantizer here)."""
    b = rng.integers(0, 256, size=(n_blocks, block_bytes), dtype=np.uint8)
    for off in d_offsets:
        d = rng.uniform(0.002, 0.02, size=n_blocks).astype(np.float16)
        b[:, off:off + 2] = d.view(np.uint8).reshape(n_blocks, 2)
    return b


if sys.argv[1] == "--seed":
    w = gguf.GGUFWriter(sys.argv[2], "llama")
    w.add_uint8("a", 1); w.add_int8("b", -1); w.add_uint16("c", 2); w.add_int16("d", -2); w.add_uint32("e", 3)
    w.add_int32("f", -3); w.add_float32("g", 0.5); w.add_bool("h", False); w.add_string("i", "s"); w.add_uint64("j", 4)
    w.add_int64("k", -4); w.add_float64("l", 0.25); w.add_array("m", [1, 2]); w.add_array("n", ["x", "yz"])
    w.add_array("o", [0.5]); w.add_array("p", [True])
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(2, 32)
    w.add_tensor("f32", x[:, :4].copy())
    w.add_tensor("f16", x[:, :4].astype(np.float16))
    w.add_tensor("bf16", quantize(x[:, :4].copy(), Q.BF16), raw_dtype=Q.BF16)
    w.add_tensor("q8_0", quantize(x, Q.Q8_0), raw_dtype=Q.Q8_0)
    w.add_tensor("q4_0", quantize(x, Q.Q4_0), raw_dtype=Q.Q4_0)
    w.add_tensor("q4_k", kblocks(1, 144, (0, 2)), raw_dtype=Q.Q4_K)
    w.add_tensor("q6_k", kblocks(1, 210, (208,)), raw_dtype=Q.Q6_K)
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
    sys.exit(0)

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
w = gguf.GGUFWriter(os.path.join(out, "t.gguf"), "llama")
w.add_uint8("t.u8", 200)
w.add_int8("t.i8", -100)
w.add_uint16("t.u16", 60000)
w.add_int16("t.i16", -30000)
w.add_uint32("t.u32", 4000000000)
w.add_int32("t.i32", -2000000000)
w.add_float32("t.f32", 1.5)
w.add_bool("t.bool", True)
w.add_string("t.str", "héllo")
w.add_uint64("t.u64", 2 ** 40 + 3)
w.add_int64("t.i64", -(2 ** 40) - 5)
w.add_float64("t.f64", -2.25)
w.add_array("t.arr_i", [1, -2, 3])
w.add_array("t.arr_f", [0.5, -1.25])
w.add_array("t.arr_s", ["a", "", "bc"])
w.add_array("t.arr_b", [True, False])

tensors = {}
a = (np.arange(15, dtype=np.float32) * 0.5 - 3).reshape(3, 5)
w.add_tensor("f32", a)
w.add_tensor("f16", a.astype(np.float16))
w.add_tensor("bf16", quantize(a, Q.BF16), raw_dtype=Q.BF16)
for name, qt, shape in (("q8_0", Q.Q8_0, (7, 96)), ("q4_0", Q.Q4_0, (5, 160)), ("q8_0big", Q.Q8_0, (33, 288)),
                        ("q4_0big", Q.Q4_0, (19, 320)), ("q8_0tall", Q.Q8_0, (600, 64))):
    x = rng.standard_normal(shape).astype(np.float32)
    q = quantize(x, qt)
    w.add_tensor(name, q, raw_dtype=qt)
    tensors[name] = dequantize(q, qt)
for name, qt, shape, doffs in (("q4_k", Q.Q4_K, (5, 512), (0, 2)), ("q6_k", Q.Q6_K, (3, 768), (208,)),
                               ("q4_kwide", Q.Q4_K, (40, 256), (0, 2)), ("q6_kwide", Q.Q6_K, (35, 256), (208,))):
    bb = gguf.GGML_QUANT_SIZES[qt][1]
    nb = shape[0] * shape[1] // 256
    q = kblocks(nb, bb, doffs).reshape(shape[0], shape[1] // 256 * bb)
    w.add_tensor(name, q, raw_dtype=qt)
    tensors[name] = dequantize(q, qt)
w.add_tensor("q4_1", quantize(rng.standard_normal((2, 32)).astype(np.float32), Q.Q4_1), raw_dtype=Q.Q4_1)
x = rng.standard_normal((21, 96)).astype(np.float32)  # Q4_0, an odd count of blocks a row: 8-row kernels and tails
w.add_tensor("q4_0odd", quantize(x, Q.Q4_0), raw_dtype=Q.Q4_0)
tensors["q4_0odd"] = dequantize(quantize(x, Q.Q4_0), Q.Q4_0)
# Q4_0 decode: rows of one and two blocks, one whole group of 8 blocks, 16 groups and a block
for name, shape in (("q4_0k32", (11, 32)), ("q4_0k64", (9, 64)), ("q4_0g8", (13, 256)), ("q4_0long", (11, 4128))):
    q = quantize(rng.standard_normal(shape).astype(np.float32), Q.Q4_0)
    w.add_tensor(name, q, raw_dtype=Q.Q4_0)
    tensors[name] = dequantize(q, Q.Q4_0)
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
for name, v in tensors.items():
    v.astype("<f4").tofile(os.path.join(out, name + ".f32"))

# a file aligned to 8 bytes (general.alignment), holding one f32 tensor
w = gguf.GGUFWriter(os.path.join(out, "align8.gguf"), "llama")
w.add_custom_alignment(8)
w.add_tensor("x", np.arange(6, dtype=np.float32).reshape(2, 3))
w.add_tensor("y", np.arange(4, dtype=np.float32))
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
print("ok")
