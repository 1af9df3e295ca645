#!/usr/bin/python3
"""Train a tiny Llama-style character model and write it as safetensors.

    /usr/bin/python3 tools/train_tiny_llama.py [out.safetensors] [--steps N]

The text is the GPL-3 as Debian ships it (/usr/share/common-licenses/GPL-3).
The model is Llama's architecture, small: RMSNorm, rotary position embedding
(Hugging Face's rotate_half pairing: feature i with i + D/2), grouped-query
attention (4 query heads sharing 2 key/value heads), a SwiGLU MLP, untied
input and output embeddings. Its math is exactly genie's definitions:
    rms_norm(x, w, eps) = x / sqrt(mean(x^2 over the last dim) + eps) * w
    rope(x, pos, theta) rotates pairs (i, i + D/2) by pos * theta^(-2i/D)
    attention = softmax(q k^T / sqrt(E) + causal mask) v, kv head h // (Hq/Hkv)
so examples/05_tiny_llama.c can reproduce PyTorch's greedy tokens.

The file (f32 weights, ~0.5 MB) holds in "__metadata__" (all strings): the
vocabulary (one character per token id, in order), the configuration, a
prompt and PyTorch's greedy continuation of it (token ids, space-separated).
The prompt is kept only where float32 and float64 agree on every greedy
token with a clear margin between the best two logits, so a correct
implementation in another library reproduces the tokens exactly.
Written by hand (json + struct): the safetensors package is not needed.
Takes about three minutes on one core (1500 steps of 8 x 96 characters).
"""
import json
import math
import struct
import sys
import time

import torch
import torch.nn.functional as F

TEXT = "/usr/share/common-licenses/GPL-3"
CFG = dict(d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=176, rope_theta=10000.0,
           norm_eps=1e-5, max_seq=128)
PROMPTS = ["The GNU General Public License", "  This program is free software",
           "You may convey", "The precise terms and conditions"]
N_NEW = 64


def rms_norm(x, w, eps):
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rope(x, pos, theta):
    """x [B, H, T, D]; pairs (i, i + D/2) rotated by pos * theta^(-2i/D)."""
    d = x.shape[-1]
    inv = theta ** (-torch.arange(0, d // 2, dtype=torch.float64) * 2.0 / d)
    ang = pos.to(torch.float64)[:, None] * inv[None, :]          # [T, D/2]
    cos = torch.cos(ang).to(x.dtype)
    sin = torch.sin(ang).to(x.dtype)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def init_params(vocab, cfg, seed=0):
    g = torch.Generator().manual_seed(seed)
    d, ff, hd = cfg["d_model"], cfg["d_ff"], cfg["d_model"] // cfg["n_heads"]
    kvd = cfg["n_kv_heads"] * hd

    def lin(o, i):
        return torch.randn(o, i, generator=g) / math.sqrt(i)

    p = {"model.embed_tokens.weight": torch.randn(vocab, d, generator=g) * 0.5}
    for l in range(cfg["n_layers"]):
        pre = "model.layers.%d." % l
        p[pre + "input_layernorm.weight"] = torch.ones(d)
        p[pre + "self_attn.q_proj.weight"] = lin(d, d)
        p[pre + "self_attn.k_proj.weight"] = lin(kvd, d)
        p[pre + "self_attn.v_proj.weight"] = lin(kvd, d)
        p[pre + "self_attn.o_proj.weight"] = lin(d, d) / math.sqrt(2 * cfg["n_layers"])
        p[pre + "post_attention_layernorm.weight"] = torch.ones(d)
        p[pre + "mlp.gate_proj.weight"] = lin(ff, d)
        p[pre + "mlp.up_proj.weight"] = lin(ff, d)
        p[pre + "mlp.down_proj.weight"] = lin(d, ff) / math.sqrt(2 * cfg["n_layers"])
    p["model.norm.weight"] = torch.ones(d)
    p["lm_head.weight"] = lin(vocab, d)
    return p


def forward(p, cfg, ids):
    """ids [B, T] -> logits [B, T, V] (positions 0 .. T-1, causal)."""
    B, T = ids.shape
    H, Hkv, eps, theta = cfg["n_heads"], cfg["n_kv_heads"], cfg["norm_eps"], cfg["rope_theta"]
    d = cfg["d_model"]
    hd = d // H
    pos = torch.arange(T)
    mask = torch.full((T, T), float("-inf"), dtype=p["lm_head.weight"].dtype).triu(1)
    x = F.embedding(ids, p["model.embed_tokens.weight"])
    for l in range(cfg["n_layers"]):
        pre = "model.layers.%d." % l
        h = rms_norm(x, p[pre + "input_layernorm.weight"], eps)
        q = F.linear(h, p[pre + "self_attn.q_proj.weight"]).view(B, T, H, hd).transpose(1, 2)
        k = F.linear(h, p[pre + "self_attn.k_proj.weight"]).view(B, T, Hkv, hd).transpose(1, 2)
        v = F.linear(h, p[pre + "self_attn.v_proj.weight"]).view(B, T, Hkv, hd).transpose(1, 2)
        q, k = rope(q, pos, theta), rope(k, pos, theta)
        k = k.repeat_interleave(H // Hkv, dim=1)
        v = v.repeat_interleave(H // Hkv, dim=1)
        a = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(hd) + mask, dim=-1) @ v
        x = x + F.linear(a.transpose(1, 2).reshape(B, T, d), p[pre + "self_attn.o_proj.weight"])
        h = rms_norm(x, p[pre + "post_attention_layernorm.weight"], eps)
        m = F.silu(F.linear(h, p[pre + "mlp.gate_proj.weight"])) * F.linear(h, p[pre + "mlp.up_proj.weight"])
        x = x + F.linear(m, p[pre + "mlp.down_proj.weight"])
    return F.linear(rms_norm(x, p["model.norm.weight"], eps), p["lm_head.weight"])


def greedy(p, cfg, prompt_ids, n_new):
    """Greedy decoding by recomputing the whole sequence (no cache): the
    reference. Returns (new tokens, smallest gap between the two best logits)."""
    ids = list(prompt_ids)
    gap = float("inf")
    with torch.no_grad():
        for _ in range(n_new):
            logits = forward(p, cfg, torch.tensor([ids]))[0, -1]
            top = torch.topk(logits, 2).values
            gap = min(gap, float(top[0] - top[1]))
            ids.append(int(torch.argmax(logits)))
    return ids[len(prompt_ids):], gap


def write_safetensors(path, tensors, metadata):
    header = {"__metadata__": metadata}
    off = 0
    blobs = []
    for name, t in tensors.items():
        b = t.detach().contiguous().to(torch.float32).numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def main():
    out = "examples/data/tiny_llama.safetensors"
    steps = 1500
    args = sys.argv[1:]
    while args:
        a = args.pop(0)
        if a == "--steps":
            steps = int(args.pop(0))
        else:
            out = a
    torch.manual_seed(0)
    torch.set_num_threads(1)
    text = open(TEXT, encoding="ascii").read()
    vocab = "".join(sorted(set(text)))
    stoi = {c: i for i, c in enumerate(vocab)}
    data = torch.tensor([stoi[c] for c in text])
    cfg = dict(CFG, vocab_size=len(vocab))
    p = init_params(len(vocab), cfg)
    for t in p.values():
        t.requires_grad_(True)
    opt = torch.optim.AdamW(p.values(), lr=3e-3, weight_decay=0.0)
    B, T = 8, 96
    g = torch.Generator().manual_seed(1)
    t0 = time.time()
    for step in range(steps):
        lr = 3e-3 * min(1.0, (step + 1) / 50) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * step / steps)))
        for grp in opt.param_groups:
            grp["lr"] = lr
        ix = torch.randint(0, len(data) - T - 1, (B,), generator=g)
        x = torch.stack([data[i:i + T] for i in ix])
        y = torch.stack([data[i + 1:i + T + 1] for i in ix])
        loss = F.cross_entropy(forward(p, cfg, x).reshape(-1, len(vocab)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == steps - 1:
            print("step %4d  loss %.3f  (%.0f s)" % (step, loss.item(), time.time() - t0), flush=True)
    p = {k: v.detach() for k, v in p.items()}
    p64 = {k: v.double() for k, v in p.items()}
    chosen = None
    for prompt in PROMPTS:
        ids = [stoi[c] for c in prompt]
        toks, gap = greedy(p, cfg, ids, N_NEW)
        toks64, _ = greedy(p64, cfg, ids, N_NEW)
        print("prompt %r: gap %.4f, f32 == f64: %s" % (prompt, gap, toks == toks64))
        print("  -> %r" % "".join(vocab[i] for i in toks))
        if toks == toks64 and gap > 1e-3:
            chosen = (prompt, toks, gap)
            break
    if chosen is None:
        sys.exit("no prompt whose greedy tokens are robust; train longer")
    prompt, toks, gap = chosen
    meta = {k: str(v) for k, v in cfg.items()}
    meta.update({
        "format": "genie tiny llama v1",
        "vocab": vocab,
        "prompt": prompt,
        "greedy_tokens": " ".join(str(t) for t in toks),
        "greedy_min_gap": "%.6f" % gap,
        "rope_pairs": "half",
        "source": "tools/train_tiny_llama.py on " + TEXT,
    })
    write_safetensors(out, p, meta)
    print("wrote %s (%d tensors, %d parameters)" % (out, len(p), sum(v.numel() for v in p.values())))


if __name__ == "__main__":
    main()
