"""bench/cuda_torch.py - the PyTorch peer of bench/cuda.c on the same GPU: prints one line of
key=value (times in ms, medians after warm-up, each run synchronized) for bench/cuda.c.
Run by `make bench-cuda` with TORCH_PY (default /opt/torch/.venv/bin/python3).
BENCH_QUICK=1: the small sizes bench/cuda.c uses then."""
import os
import statistics
import sys
import time

import torch


def median_ms(fn, warm, reps):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def main():
    if not torch.cuda.is_available():
        print("torch_version=%s torch_gpu=none" % torch.__version__)
        return
    quick = bool(os.environ.get("BENCH_QUICK"))
    torch.backends.cuda.matmul.allow_tf32 = False  # genie's sgemm is plain f32 unless GENIE_CUDA_TF32=1
    dev = torch.device("cuda")
    out = ["torch_version=%s" % torch.__version__, "torch_gpu=%s" % torch.cuda.get_device_name(0).replace(" ", "_")]
    for n in ([2048] if quick else [2048, 4096, 8192]):
        a = torch.randn(n, n, device=dev)
        b = torch.randn(n, n, device=dev)
        out.append("sgemm_%d=%.4f" % (n, median_ms(lambda: torch.mm(a, b), 2, 5 if quick else 15)))
        del a, b
    n = (1 << 24) if quick else (1 << 28)
    x = torch.randn(n, device=dev)
    y = torch.randn(n, device=dev)
    gelu = torch.nn.functional.gelu
    silu = torch.nn.functional.silu

    def chain():
        t = x + y
        t *= y
        t = torch.relu(t)
        t = gelu(t)
        t = t - x
        t = t * 0.5
        t = torch.square(t)
        return silu(t)

    with torch.no_grad():
        out.append("chain8_%s=%.4f" % ("16M" if quick else "256M", median_ms(chain, 2, 5 if quick else 11)))
    del x, y
    layer = torch.nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, activation="gelu", batch_first=True).to(dev).eval()
    for bsz in (1, 32):
        xb = torch.randn(bsz, 128, 512, device=dev)
        with torch.no_grad():
            out.append("block_%d=%.4f" % (bsz, median_ms(lambda: layer(xb), 3, 5 if quick else 21)))
    print(" ".join(out))


if __name__ == "__main__":
    sys.exit(main())
