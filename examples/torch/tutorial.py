"""Tutorial: real PyTorch models on genie's lazy device.

    make torch && /usr/bin/python3 examples/torch/tutorial.py      (or: make example-torch)

1. load the bridge; the device is `privateuseone` on torch 1.13 (`remote_accelerator` on 2.x)
2. an MLP: move it to the device, run it; nothing executes until a value is needed
3. a TransformerEncoderLayer with semantic capture: module paths and a phase on every node,
   the captured graph summarized and dumped as Graphviz (clustered by module)
4. a few SGD steps on the device, losses compared with CPU
Every result is checked against the same model on CPU; the program exits 1 on a mismatch.
"""
import collections
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import torch  # noqa: E402
import genie_torch as gt  # noqa: E402

dev = gt.device
print(f"device: {dev} (torch {torch.__version__})")
ok = True


def check(what, got, want, rtol=1e-5, atol=1e-5):
    global ok
    good = torch.allclose(got.cpu(), want, rtol=rtol, atol=atol)
    ok &= good
    print(f"  {what}: max |device - cpu| = {(got.cpu() - want).abs().max().item():.2e} {'ok' if good else 'MISMATCH'}")


# ---- 2. an MLP --------------------------------------------------------------------------------
print("\n2. MLP")
torch.manual_seed(0)
mlp = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 10))
x = torch.randn(32, 64)
want = mlp(x).detach()
mlp_dev = mlp.to(dev)  # parameters become genie tensors (nn.Module.to makes new Parameters)
s0 = gt.stats()
y = mlp_dev(x.to(dev))
s1 = gt.stats()
print(f"  forward captured {s1['nodes_created'] - s0['nodes_created']} nodes, executed "
      f"{s1['nodes_executed'] - s0['nodes_executed']}")
check("logits", y.detach(), want)  # .cpu() materializes: only now the tape runs
s2 = gt.stats()
print(f"  after .cpu(): executed {s2['nodes_executed'] - s1['nodes_executed']} nodes in "
      f"{s2['tapes_run'] - s1['tapes_run']} tape(s)")

# ---- 3. a TransformerEncoderLayer, captured with module paths ----------------------------------
print("\n3. TransformerEncoderLayer")
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True).eval()
src = torch.randn(2, 10, 64)
with torch.no_grad():
    want = layer(src)
layer_dev = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True).eval()
layer_dev.load_state_dict(layer.state_dict())
layer_dev = layer_dev.to(dev)
gt.reset_counts()
with gt.capture(layer_dev, "encoder.layers.0"), gt.phase("prefill"), torch.no_grad():
    out = layer_dev(src.to(dev))
info = gt.info(out)
print(f"  output: {info['op']} in module {info['module']!r}, phase {info['phase']!r}, "
      f"materialized {info['materialized']}")
st = gt.stats()
ops = collections.Counter({k: v for k, v in st["captured"].items() if v})
print("  captured operators: " + ", ".join(f"{k.replace('aten::', '')} x{v}" for k, v in ops.most_common()))
fb = {k: v for k, v in st["fallback"].items() if v}
print(f"  through the CPU fallback: {fb if fb else 'nothing'}")
dot = os.path.join(ROOT, "build", "transformer.dot")
gt.dump_dot(out, dot)  # before materializing: a materialized value drops the graph behind it
clusters = sorted({line.split('"')[1][len("cluster_"):] for line in open(dot) if "subgraph" in line})
print(f"  graph written to {os.path.relpath(dot, ROOT)}; module clusters: {', '.join(clusters)}")
check("encoder output", out, want)

# ---- 4. training on the device -----------------------------------------------------------------
print("\n4. SGD on the device vs CPU")


def train(device):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)).to(device)
    opt = torch.optim.SGD(m.parameters(), lr=0.05)
    X, Y = torch.randn(64, 16).to(device), torch.randn(64, 1).to(device)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        with gt.phase("forward"):
            loss = torch.nn.functional.mse_loss(m(X), Y)
        with gt.phase("backward"):
            loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


lc, ld = train("cpu"), train(dev)
for i, (a, b) in enumerate(zip(lc, ld)):
    print(f"  step {i}: loss cpu {a:.6f} device {b:.6f}")
ok &= all(abs(a - b) <= 1e-5 * abs(a) for a, b in zip(lc, ld))

st = gt.stats()
print(f"\ngenie: {st['nodes_created']} nodes captured, {st['nodes_executed']} executed, {st['tapes_run']} tapes; "
      f"materializations: {st['materializations']}")
print("tutorial ok" if ok else "tutorial: MISMATCH")
sys.exit(0 if ok else 1)
