"""gguf_llm_torch.py - the PyTorch peer of bench/gguf_llm.c's BF16 prefill: transformers'
LlamaForCausalLM in bfloat16 (oneDNN's bf16 products, on AMX tiles where the CPU has them) with
the weights of a bench-bf16.gguf (tools/make_llama_gguf.py --size bench; q and k rows turned back
from ggml's pair order to Hugging Face's), a prompt of 128 token ids in one forward pass (logits
of the last position only, as genie's step), on THREADS threads; prints the best of REPS as
`torch_prefill=TOKENS_PER_S` (after one warm-up pass).

    .venv/bin/python bench/gguf_llm_torch.py FILE.gguf THREADS [REPS]
"""
import sys
import time

import numpy as np
import torch
from gguf import GGUFReader
from gguf.quants import dequantize

PROMPT = 128
NAMES = {"attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
         "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
         "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj"}


def field(r, key):
    f = r.fields[key]
    return f.parts[f.data[0]].tolist()[0] if len(f.data) == 1 else [f.parts[i] for i in f.data]


def unpermute(x, n_head):
    """The inverse of convert_hf_to_gguf.py's permute (ggml's pairs -> rotate-half rows)."""
    return x.reshape(n_head, x.shape[0] // n_head // 2, 2, *x.shape[1:]).swapaxes(1, 2).reshape(x.shape)


def load(path):
    from transformers import LlamaConfig, LlamaForCausalLM
    r = GGUFReader(path)
    heads, kv = field(r, "llama.attention.head_count"), field(r, "llama.attention.head_count_kv")
    w = {}
    for t in r.tensors:
        shape = [int(d) for d in reversed(t.shape.tolist())]
        x = dequantize(t.data, t.tensor_type).reshape(shape).astype(np.float32)
        if t.name == "token_embd.weight":
            name = "model.embed_tokens.weight"
        elif t.name == "output_norm.weight":
            name = "model.norm.weight"
        elif t.name == "output.weight":
            name = "lm_head.weight"
        else:
            _, i, kind, _ = t.name.split(".")
            name = "model.layers.%s.%s.weight" % (i, NAMES[kind])
            if kind == "attn_q":
                x = unpermute(x, heads)
            elif kind == "attn_k":
                x = unpermute(x, kv)
        w[name] = torch.from_numpy(np.ascontiguousarray(x))
    d = w["model.embed_tokens.weight"].shape[1]
    c = LlamaConfig(vocab_size=w["model.embed_tokens.weight"].shape[0], hidden_size=d,
                    intermediate_size=field(r, "llama.feed_forward_length"),
                    num_hidden_layers=field(r, "llama.block_count"), num_attention_heads=heads, num_key_value_heads=kv,
                    max_position_embeddings=field(r, "llama.context_length"),
                    rms_norm_eps=field(r, "llama.attention.layer_norm_rms_epsilon"),
                    rope_theta=field(r, "llama.rope.freq_base"), tie_word_embeddings=False, attention_bias=False,
                    mlp_bias=False)
    m = LlamaForCausalLM(c).to(torch.bfloat16).eval()
    m.load_state_dict({k: v.to(torch.bfloat16) for k, v in w.items()}, strict=True)
    return m


def main():
    path, threads = sys.argv[1], int(sys.argv[2])
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    torch.set_num_threads(threads)
    m = load(path)
    ids = torch.arange(PROMPT, dtype=torch.long).reshape(1, PROMPT) % m.config.vocab_size
    best = 0.0
    with torch.no_grad():
        for r in range(reps + 1):
            t0 = time.perf_counter()
            out = m(ids, use_cache=False, logits_to_keep=1).logits
            t = time.perf_counter() - t0
            assert out.shape[-2] == 1
            if r > 0:
                best = max(best, PROMPT / t)
    print("torch_prefill=%.1f" % best)


if __name__ == "__main__":
    main()
