"""amx_torch.py - the PyTorch peer of bench/amx.c: torch.matmul of bf16 [N,N] @ [N,N] (oneDNN,
on AMX tiles where the CPU has them) at 1 and 2 threads, printed as name=value arguments for
bench_amx: torch_version=V, torch_bf16_N_T=GFLOP/s (the fastest call after a warm-up, as
bench_amx times genie).

    .venv/bin/python bench/amx_torch.py [N ...]      (default 512 2048)
"""
import sys
import time

import torch


def best_secs(fn, budget=0.5):
    fn()
    t0 = time.perf_counter()
    fn()
    one = time.perf_counter() - t0
    reps = max(3, min(200, int(budget / max(one, 1e-6))))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [512, 2048]
    print("torch_version=%s" % torch.__version__)
    g = torch.Generator().manual_seed(1)
    for n in sizes:
        a = torch.rand(n, n, generator=g).to(torch.bfloat16)
        b = torch.rand(n, n, generator=g).to(torch.bfloat16)
        for t in (1, 2):
            torch.set_num_threads(t)
            s = best_secs(lambda: torch.matmul(a, b))
            print("torch_bf16_%d_%d=%.1f" % (n, t, 2.0 * n * n * n / s * 1e-9))


if __name__ == "__main__":
    main()
