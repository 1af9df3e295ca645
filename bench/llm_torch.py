#!/usr/bin/python3
"""PyTorch eager peer of bench/llm.c: the same GPT-2-small-sized model, the same
weights (bench/llm_weights.h's hash, in NumPy), the same math (prefill computes
the logits of the last position only; the KV cache is preallocated and written
by copy_ at positions), on a pinned thread count.

    OPENBLAS_NUM_THREADS=B /usr/bin/python3 bench/llm_torch.py T [reps]

T is torch.set_num_threads; OpenBLAS (Debian's PyTorch calls it for f32
products) follows OPENBLAS_NUM_THREADS, read when it loads. Prints one line:
    torch threads=<max(T,B)> split=TxB prefill=<tok/s> decode=<tok/s> tokens=a,b,...
"""
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

D, L, H, FF, V, CTX, PROMPT, DECODE = 768, 12, 12, 3072, 50257, 1024, 128, 64
M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def fill(shape, seed, a):
    n = int(np.prod(shape))
    out = np.empty(n, dtype=np.float32)
    chunk = 1 << 22
    with np.errstate(over="ignore"):
        for s in range(0, n, chunk):
            z = np.arange(s, min(n, s + chunk), dtype=np.uint64) + np.uint64(seed << 40)
            z = z + np.uint64(0x9E3779B97F4A7C15)
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            u = (z >> np.uint64(40)).astype(np.float64) * (1.0 / 16777216.0)
            out[s:s + len(u)] = ((u * 2.0 - 1.0) * a).astype(np.float32)
    return torch.from_numpy(out.reshape(shape))


def model():
    m = {"wte": fill((V, D), 1, 0.1), "wpe": fill((CTX, D), 2, 0.1), "layers": []}
    for l in range(L):
        s = 100 + 10 * l
        m["layers"].append({
            "wqkv": fill((3 * D, D), s + 0, math.sqrt(3.0 / D)), "bqkv": fill((3 * D,), s + 1, 0.02),
            "wo": fill((D, D), s + 2, math.sqrt(3.0 / D)), "bo": fill((D,), s + 3, 0.02),
            "wfc": fill((FF, D), s + 4, math.sqrt(3.0 / D)), "bfc": fill((FF,), s + 5, 0.02),
            "wpr": fill((D, FF), s + 6, math.sqrt(3.0 / FF)), "bpr": fill((D,), s + 7, 0.02),
            "ln1w": torch.ones(D), "ln1b": torch.zeros(D), "ln2w": torch.ones(D), "ln2b": torch.zeros(D),
            "K": torch.zeros(H, PROMPT + DECODE, D // H), "V": torch.zeros(H, PROMPT + DECODE, D // H),
        })
    m["lnfw"], m["lnfb"] = torch.ones(D), torch.zeros(D)
    return m


def step(m, ids, t0):
    T = len(ids)
    Dh = D // H
    x = F.embedding(torch.tensor(ids), m["wte"]) + m["wpe"][t0:t0 + T]
    mask = torch.full((T, T), float("-inf")).triu(1) if T > 1 else None
    for y in m["layers"]:
        h = F.layer_norm(x, (D,), y["ln1w"], y["ln1b"], 1e-5)
        qkv = F.linear(h, y["wqkv"], y["bqkv"])
        q = qkv[:, :D].view(T, H, Dh).transpose(0, 1)
        k = qkv[:, D:2 * D].view(T, H, Dh).transpose(0, 1)
        v = qkv[:, 2 * D:].view(T, H, Dh).transpose(0, 1)
        y["K"][:, t0:t0 + T].copy_(k)
        y["V"][:, t0:t0 + T].copy_(v)
        s = (q @ y["K"][:, :t0 + T].transpose(1, 2)) * (1.0 / math.sqrt(Dh))
        if mask is not None:
            s = s + mask
        a = torch.softmax(s, -1) @ y["V"][:, :t0 + T]
        x = x + F.linear(a.transpose(0, 1).reshape(T, D), y["wo"], y["bo"])
        h = F.layer_norm(x, (D,), y["ln2w"], y["ln2b"], 1e-5)
        x = x + F.linear(F.gelu(F.linear(h, y["wfc"], y["bfc"]), approximate="tanh"), y["wpr"], y["bpr"])
    x = x[T - 1:]
    logits = F.linear(F.layer_norm(x, (D,), m["lnfw"], m["lnfb"], 1e-5), m["wte"])
    return int(torch.argmax(logits, -1)[0])


def main():
    t = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    b = int(os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    torch.set_num_threads(t)
    m = model()
    prompt = [(i * 7919 + 13) % V for i in range(PROMPT)]
    best_p = best_d = 0.0
    with torch.no_grad():
        for _ in range(reps):
            t0 = time.perf_counter()
            toks = [step(m, prompt, 0)]
            best_p = max(best_p, PROMPT / (time.perf_counter() - t0))
            t0 = time.perf_counter()
            for i in range(DECODE):
                toks.append(step(m, [toks[-1]], PROMPT + i))
            best_d = max(best_d, DECODE / (time.perf_counter() - t0))
    print("torch threads=%d split=%dx%d prefill=%.2f decode=%.3f tokens=%s" %
          (max(t, b), t, b, best_p, best_d, ",".join(str(x) for x in toks)), flush=True)


if __name__ == "__main__":
    main()
