#!/usr/bin/env python3
"""Reference safetensors files for tests/unit/test_safetensors.c and the fuzzer's seed corpus.

Written with struct and json only (the safetensors package is not installed here), laid out
as huggingface/safetensors' save_file (and so PyTorch's safetensors.torch.save_file) does:
compact JSON with ensure_ascii escapes, "__metadata__" first, the data ordered by element
alignment (largest first) then by name, the header padded with spaces to a multiple of 8.
Values follow v(i) = ((7 i) mod 23 - 11) / 4 for floats, (7 i) mod 23 - 11 for signed
integers, (7 i) mod 23 for u8, i mod 3 == 0 for bool: exact in every dtype, and
test_safetensors.c recomputes them.

usage: gen_safetensors.py [out_dir] [corpus_dir]
       gen_safetensors.py --check FILE   (a file genie wrote: valid, and holding v(i); prints its metadata)
"""
import json
import os
import struct
import sys

DT = {  # name: (struct code, size, kind)
    "F64": ("d", 8, "f"), "F32": ("f", 4, "f"), "F16": ("e", 2, "f"), "BF16": (None, 2, "f"),
    "I64": ("q", 8, "i"), "I32": ("i", 4, "i"), "I16": ("h", 2, "i"), "I8": ("b", 1, "i"),
    "U8": ("B", 1, "u"), "BOOL": ("?", 1, "b"),
}


def value(kind, i):
    r = (7 * i) % 23
    return {"f": (r - 11) / 4.0, "i": r - 11, "u": r, "b": i % 3 == 0}[kind]


def tensor_bytes(dtype, shape):
    code, size, kind = DT[dtype]
    n = 1
    for s in shape:
        n *= s
    vals = [value(kind, i) for i in range(n)]
    if dtype == "BF16":  # the top half of the f32 (the values are exact in bf16)
        return b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:] for v in vals)
    return struct.pack("<%d%s" % (n, code), *vals)


def write(path, tensors, metadata=None, pad=True, hf_order=True):
    """tensors: list of (name, dtype, shape). Returns the bytes written."""
    order = sorted(tensors, key=lambda t: (-DT[t[1]][1], t[0])) if hf_order else list(tensors)
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape in order:
        b = tensor_bytes(dtype, shape)
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    h = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        h += b" " * (-len(h) % 8)
    blob = struct.pack("<Q", len(h)) + h + data
    with open(path, "wb") as f:
        f.write(blob)
    return blob


ALL = [("w.f64", "F64", [3]), ("w.f32", "F32", [2, 3]), ("w.f16", "F16", [2, 2, 2]), ("w.bf16", "BF16", [5]),
       ("i.i64", "I64", []), ("i.i32", "I32", [1, 4]), ("i.i16", "I16", [3, 1]), ("i.i8", "I8", [7]),
       ("u.u8", "U8", [2, 0, 3]), ("m.bool", "BOOL", [4]), ("emb.\U0001F600 caf\u00e9", "F32", [2, 1, 1, 3])]


def check(path):
    """Check a file as huggingface/safetensors' reader does (and a little more: alignment), and that
    every tensor holds the values v(i) above. Exit status 0 if so, else 1 with the reason."""
    def no_dups(pairs):
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate key")
        return dict(pairs)
    blob = open(path, "rb").read()
    n = struct.unpack("<Q", blob[:8])[0]
    assert n % 8 == 0 and 8 + n <= len(blob), "header length %d" % n
    raw = blob[8:8 + n]
    assert raw[:1] == b"{", "header start"
    header = json.loads(raw.decode("utf-8"), object_pairs_hook=no_dups)
    meta = header.pop("__metadata__", {})
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items()), "metadata"
    data = blob[8 + n:]
    spans = []
    for name, info in header.items():
        assert set(info) == {"dtype", "shape", "data_offsets"}, name
        b, e = info["data_offsets"]
        code, size, kind = DT[info["dtype"]]
        numel = 1
        for s in info["shape"]:
            numel *= s
        assert e - b == numel * size and (8 + n + b) % size == 0, name
        assert data[b:e] == tensor_bytes(info["dtype"], info["shape"]), "values of " + name
        spans.append((b, e))
    cur = 0
    for b, e in sorted(spans):
        assert b == cur, "hole or overlap at %d" % b
        cur = e
    assert cur == len(data), "trailing data"
    return meta


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        try:
            meta = check(sys.argv[2])
        except Exception as e:  # noqa: BLE001 - any failure is the answer
            print("gen_safetensors.py --check: %s: %r" % (sys.argv[2], e))
            sys.exit(1)
        print(json.dumps(meta, sort_keys=True))
        return
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "safetensors")
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.dirname(__file__)), "fuzz", "corpus_safetensors")
    os.makedirs(out, exist_ok=True)
    os.makedirs(corpus, exist_ok=True)
    seeds = {}
    seeds["all"] = write(os.path.join(out, "ref_all.safetensors"), ALL,
                         {"format": "pt", "note": "caf\u00e9 \"quoted\"\n\\"})
    # another writer: no padding, given order: the f32 data is not 4-aligned (genie copies it)
    seeds["unaligned"] = write(os.path.join(out, "ref_unaligned.safetensors"),
                               [("a", "U8", [3]), ("b", "F32", [2, 2]), ("c", "I16", [3])], pad=False, hf_order=False)
    seeds["empty"] = write(os.path.join(out, "ref_empty.safetensors"), [])
    # seeds only: more dtypes genie lacks, many dims, metadata alone
    h = b'{"x":{"dtype":"U16","shape":[2],"data_offsets":[0,4]},"y":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[4,8]}}'
    seeds["others"] = struct.pack("<Q", len(h)) + h + b"\x01\x00\x02\x00\x00\x00\x80\x3f"
    h = b'{"__metadata__":{"k":"v","\\u00e9":"\\ud83d\\ude00"}}'
    seeds["meta"] = struct.pack("<Q", len(h)) + h
    h = b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}'
    seeds["overlap"] = struct.pack("<Q", len(h)) + h + b"\x00" * 8
    for k, v in seeds.items():
        with open(os.path.join(corpus, k + ".safetensors"), "wb") as f:
            f.write(v)


if __name__ == "__main__":
    main()
