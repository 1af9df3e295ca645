"""Per-operation overhead seen from Python: `x + y` on genie's device (captured, not run) vs
PyTorch CPU eager (computed), for small tensors; also a captured chain materialized at the end.

    make torch && /usr/bin/python3 bench/torch_overhead.py      (or: make bench-torch)
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torch  # noqa: E402
import genie_torch as gt  # noqa: E402

torch.set_num_threads(1)


def per_op(x, y, n=50000, reps=5):
    best = 1e9
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(n):
            x + y
        best = min(best, (time.perf_counter() - t) / n)
    return best * 1e6


print(f"torch {torch.__version__}, one thread; best of 5 runs of 50,000 `x + y`")
print(f"{'shape':>12} {'device (us)':>12} {'cpu eager (us)':>15} {'ratio':>6}")
for shape in ((1,), (16, 16), (256, 256)):
    xc, yc = torch.randn(shape), torch.randn(shape)
    xd, yd = xc.to(gt.device), yc.to(gt.device)
    d, c = per_op(xd, yd), per_op(xc, yc)
    print(f"{str(tuple(shape)):>12} {d:12.2f} {c:15.2f} {d / c:6.2f}")
x = torch.randn(64, 64, device=gt.device)
t = time.perf_counter()
y = x
for _ in range(10000):
    y = y * 0.5 + 0.5
t1 = time.perf_counter()
v = y.sum().item()
t2 = time.perf_counter()
print(f"a chain of 20,000 captured ops on 64x64: capture {(t1 - t) * 1e6 / 20000:.2f} us/op; "
      f"materializing it runs genie's CPU kernels: {(t2 - t1) * 1e3:.0f} ms")
