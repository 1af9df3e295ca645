"""bench/mlp_step_torch.py - the PyTorch eager peer of bench/mlp_step.c: the same four steps
(an MLP forward at three sizes and the elementwise chain with its amax, f32, one thread), each
written as a user writes it in Python and read back with .item(); prints one line of key=value
tokens (median microseconds a step, after warm-up) that bench/mlp_step.c prints beside its own.
Run by `make bench-mlp` (PYTHON, default /usr/bin/python3); argument: the steps, as the bench's."""
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print("torch=none")
    sys.exit(0)


def median_us(fn, steps):
    for _ in range(max(2, steps // 10)):
        fn()
    ts = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(ts)


def mlp(B, D, H, O):
    g = torch.Generator().manual_seed(1)
    x, w1, b1 = torch.randn(B, D, generator=g), torch.randn(H, D, generator=g), torch.randn(H, generator=g)
    w2, b2 = torch.randn(O, H, generator=g), torch.randn(O, generator=g)
    F = torch.nn.functional

    def step():
        y = torch.softmax(F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2), -1)
        return torch.sum(y * y).item()
    return step


def chain(B, D):
    x = torch.randn(B, D, generator=torch.Generator().manual_seed(1))

    def step():
        y = (-(x * 0.5)) + 1.0
        return torch.amax(torch.relu(y + x)).item()
    return step


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    steps = max(steps, 2)
    torch.set_num_threads(1)
    with torch.no_grad():
        r = [median_us(mlp(4, 8, 16, 3), steps * 10), median_us(mlp(32, 128, 512, 128), steps),
             median_us(mlp(64, 512, 2048, 512), max(steps // 4, 2)), median_us(chain(512, 1024), steps)]
    print("torch=%s %s" % (torch.__version__.split("+")[0], " ".join("case%d=%.2f" % (i, v) for i, v in enumerate(r))))


main()
