"""Writes a small Llama-architecture GGUF model, deterministically, in F32, BF16, Q8_0 and Q4_0,
with a GPT-2-style byte-level BPE tokenizer, as llama.cpp's convert_hf_to_gguf.py lays it out
(q and k rows permuted for ggml's rope; every 2-D weight in the file's type, the norms in f32).

Weights: numpy's PCG64 from a fixed seed (stable across numpy versions), scaled so activations
and logits are O(1) and greedy tokens are not near-ties everywhere. Tokenizer: 256 byte tokens,
the merges in tests/data/gguf_llm_merges.txt (trained once by --train-merges: plain BPE over
the GPL-3 text Debian ships, ties broken by the pair's text) and "<|endoftext|>".

  make_llama_gguf.py OUTDIR [--size tiny|bench]   writes OUTDIR/SIZE-{f32,bf16,q8_0,q4_0}.gguf (and for tiny
                                                   tiny-spm.gguf: the f32 weights with a SentencePiece
                                                   vocabulary, tokenizer.ggml.model "llama")
  make_llama_gguf.py OUTDIR --size big             writes OUTDIR/big-{q8_0,q4_0}.gguf: ~540M parameters
                                                   (577 MB in Q8_0, 306 MB in Q4_0: weights a decode step
                                                   streams from memory, not from the last-level cache)
  make_llama_gguf.py OUTDIR --ref FILE             also writes the reference FILE (needs torch and
                                                   transformers): the tokenizer's ids of a few strings
                                                   (Hugging Face `tokenizers`) and, per file type, the
                                                   greedy tokens of transformers' LlamaForCausalLM in
                                                   float64 on the weights the file holds (dequantized);
                                                   and FILE's _spm.txt twin for tiny-spm.gguf
  make_llama_gguf.py --train-merges FILE           rewrites the merges file
  make_llama_gguf.py --train-spm FILE              rewrites tests/data/gguf_llm_spm_pieces.txt (SentencePiece)
Only numpy and gguf are needed to write the model files."""
import os
import sys

import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q
from gguf.quants import quantize, dequantize

HERE = os.path.dirname(os.path.abspath(__file__))
MERGES = os.path.join(HERE, "..", "tests", "data", "gguf_llm_merges.txt")
SPM_PIECES = os.path.join(HERE, "..", "tests", "data", "gguf_llm_spm_pieces.txt")
SPACE = "\u2581"  # SentencePiece's space
SIZES = {  # vocab is fixed by the tokenizer (256 bytes + merges + 1 special)
    "tiny": dict(dim=256, layers=2, heads=4, kv=2, ffn=512, ctx=256),
    "bench": dict(dim=1024, layers=8, heads=16, kv=4, ffn=2816, ctx=512),
    "big": dict(dim=2048, layers=12, heads=16, kv=4, ffn=5632, ctx=512, types=("q8_0", "q4_0")),
}
TYPES = {"f32": (Q.F32, 0), "bf16": (Q.BF16, 32), "q8_0": (Q.Q8_0, 7), "q4_0": (Q.Q4_0, 2)}
PROMPT = "The GNU General Public License is a free, copyleft license for"
N_DECODE = 32
TOKENIZER_STRINGS = [
    "Hello world", "  two  spaces, and\ttabs\n\nnewlines", "it's we'll they're I'd",
    "3.14159 and 2026-12-06", "caf\u00e9 na\u00efve \u00fcber", "\u65e5\u672c\u8a9e \u0440\u0443\u0441",
    "emoji \U0001F600!", "copyleft licenses (GPL) \"quoted\" ... ???", "",
]


def bytes_to_unicode():
    """GPT-2's map of the 256 bytes to printable characters."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def most_frequent_pair(words):
    """The adjacent pair most frequent in words ({symbols tuple: count}), ties by the pair's text;
    None if no word has two symbols."""
    pairs = {}
    for w, c in words.items():
        for a, b in zip(w, w[1:]):
            pairs[(a, b)] = pairs.get((a, b), 0) + c
    return min(pairs, key=lambda p: (-pairs[p], p)) if pairs else None


def merge_pair(words, pair):
    """words with every occurrence of the adjacent pair merged into one symbol, left to right."""
    nw = {}
    for w, c in words.items():
        out, i = [], 0
        while i < len(w):
            if i + 1 < len(w) and (w[i], w[i + 1]) == pair:
                out.append(w[i] + w[i + 1])
                i += 2
            else:
                out.append(w[i])
                i += 1
        nw[tuple(out)] = nw.get(tuple(out), 0) + c
    return nw


def train_merges(path, n_merges=768):
    """Plain BPE over the GPL-3 text: the most frequent adjacent pair, ties by the pair's text."""
    from tokenizers import pre_tokenizers
    text = open("/usr/share/common-licenses/GPL-3", encoding="utf-8").read()
    pre = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    counts = {}
    for w, _ in pre.pre_tokenize_str(text):
        counts[w] = counts.get(w, 0) + 1
    words = {tuple(w): c for w, c in counts.items()}
    merges = []
    while len(merges) < n_merges:
        best = most_frequent_pair(words)
        if best is None:
            break
        merges.append(best)
        words = merge_pair(words, best)
    with open(path, "w", encoding="utf-8") as f:
        for a, b in merges:
            f.write(f"{a} {b}\n")


def train_spm_pieces(path, n_normal=766):
    """SentencePiece-style BPE over the GPL-3 text: words split at whitespace, each with a leading
    U+2581; the characters, then the most frequent adjacent pair merged (ties by the pair's
    text) until there are n_normal pieces. Writes one "left right" merge a line after the
    characters (one a line), in order."""
    text = open("/usr/share/common-licenses/GPL-3", encoding="utf-8").read()
    words = {}
    for w in text.split():
        w = tuple(SPACE + w)
        words[w] = words.get(w, 0) + 1
    chars = sorted({c for w in words for c in w})
    have, merges = set(chars), []
    while len(chars) + len(merges) < n_normal:
        best = most_frequent_pair(words)
        if best is None:
            break
        if best[0] + best[1] not in have:
            merges.append(best)
            have.add(best[0] + best[1])
        words = merge_pair(words, best)
    with open(path, "w", encoding="utf-8") as f:
        for c in chars:
            f.write(c + "\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")


def spm_vocabulary():
    """A SentencePiece (tokenizer.ggml.model "llama") vocabulary as llama's files lay it out:
    <unk>, <s>, </s>, the 256 byte tokens <0x00>..<0xFF>, then the characters and the merged
    pieces of tests/data/gguf_llm_spm_pieces.txt. Scores: a piece's is minus its place, so an
    earlier merge wins. Returns tokens, scores, types, merges (pairs, for Hugging Face)."""
    lines = [ln.rstrip("\n") for ln in open(SPM_PIECES, encoding="utf-8") if ln.rstrip("\n")]
    merges = [tuple(ln.split(" ")) for ln in lines if " " in ln]
    normal = [ln for ln in lines if " " not in ln] + [a + b for a, b in merges]
    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)] + normal
    scores = [0.0] * (3 + 256) + [-float(i) for i in range(len(normal))]
    T = gguf.TokenType
    types = [T.UNKNOWN, T.CONTROL, T.CONTROL] + [T.BYTE] * 256 + [T.NORMAL] * len(normal)
    return tokens, scores, types, merges


def hf_spm_tokenizer(tokens, merges):
    """Hugging Face's LlamaTokenizerFast pipeline: prepend U+2581, spaces to U+2581, BPE with
    byte fallback over the whole text."""
    from tokenizers import Tokenizer, models, normalizers, decoders
    vocab = {t: i for i, t in enumerate(tokens)}
    tk = Tokenizer(models.BPE(vocab, merges, unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tk.normalizer = normalizers.Sequence([normalizers.Prepend(SPACE), normalizers.Replace(" ", SPACE)])
    tk.decoder = decoders.Sequence([decoders.Replace(SPACE, " "), decoders.ByteFallback(), decoders.Fuse(),
                                    decoders.Strip(" ", 1, 0)])
    return tk


def vocabulary():
    """tokens (ids in order), merges ("a b" strings), the special token's id."""
    b2u = bytes_to_unicode()
    tokens = [b2u[b] for b in range(256)]
    merges = [ln.rstrip("\n") for ln in open(MERGES, encoding="utf-8") if ln.strip()]
    for m in merges:
        a, b = m.split(" ")
        tokens.append(a + b)
    tokens.append("<|endoftext|>")
    return tokens, merges, len(tokens) - 1


def hf_tokenizer(tokens, merges):
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders
    vocab = {t: i for i, t in enumerate(tokens)}
    tk = Tokenizer(models.BPE(vocab, [tuple(m.split(" ")) for m in merges]))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tk.decoder = decoders.ByteLevel()
    return tk


def weights(cfg, vocab):
    """Hugging Face layout and names, float32, from a fixed seed."""
    rng = np.random.default_rng(20261206)
    d, f, hd = cfg["dim"], cfg["ffn"], cfg["dim"] // cfg["heads"]

    def mat(n_out, n_in, gain=1.0):
        return (rng.standard_normal((n_out, n_in)) * gain / np.sqrt(n_in)).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)
    w = {"model.embed_tokens.weight": rng.standard_normal((vocab, d)).astype(np.float32)}
    for i in range(cfg["layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = norm(d)
        w[p + "self_attn.q_proj.weight"] = mat(cfg["heads"] * hd, d, 2.0)
        w[p + "self_attn.k_proj.weight"] = mat(cfg["kv"] * hd, d, 2.0)
        w[p + "self_attn.v_proj.weight"] = mat(cfg["kv"] * hd, d)
        w[p + "self_attn.o_proj.weight"] = mat(d, cfg["heads"] * hd, 0.5)
        w[p + "post_attention_layernorm.weight"] = norm(d)
        w[p + "mlp.gate_proj.weight"] = mat(f, d)
        w[p + "mlp.up_proj.weight"] = mat(f, d)
        w[p + "mlp.down_proj.weight"] = mat(d, f, 0.5)
    w["model.norm.weight"] = norm(d)
    w["lm_head.weight"] = mat(vocab, d, 4.0)
    return w


def permute(x, n_head):
    """convert_hf_to_gguf.py's LlamaModel.permute: Hugging Face's rotate-half rows -> ggml's pairs."""
    return x.reshape(n_head, 2, x.shape[0] // n_head // 2, *x.shape[1:]).swapaxes(1, 2).reshape(x.shape)


GGUF_NAMES = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
              "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output",
              "post_attention_layernorm": "ffn_norm", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
              "mlp.down_proj": "ffn_down"}


def gguf_name(hf):
    if hf == "model.embed_tokens.weight":
        return "token_embd.weight"
    if hf == "model.norm.weight":
        return "output_norm.weight"
    if hf == "lm_head.weight":
        return "output.weight"
    _, _, i, rest = hf.split(".", 3)
    return f"blk.{i}.{GGUF_NAMES[rest[:-len('.weight')]]}.weight"


def stored(x, qt):
    """What the file holds for x, as float64 (the same rows and blocks)."""
    if x.ndim == 1 or qt == Q.F32:
        return x.astype(np.float64)
    return dequantize(quantize(x, qt), qt).astype(np.float64)


def write(path, cfg, w, tokens, merges, eos, type_name, spm=None):
    """spm: (scores, types) of a SentencePiece vocabulary in tokens (merges and eos unused)."""
    qt, file_type = TYPES[type_name]
    out = gguf.GGUFWriter(path, "llama")
    hd = cfg["dim"] // cfg["heads"]
    out.add_name(f"genie-test-llama-{type_name}")
    out.add_file_type(file_type)
    out.add_context_length(cfg["ctx"])
    out.add_embedding_length(cfg["dim"])
    out.add_block_count(cfg["layers"])
    out.add_feed_forward_length(cfg["ffn"])
    out.add_head_count(cfg["heads"])
    out.add_head_count_kv(cfg["kv"])
    out.add_rope_dimension_count(hd)
    out.add_rope_freq_base(10000.0)
    out.add_layer_norm_rms_eps(1e-5)
    out.add_vocab_size(len(tokens))
    if spm:
        out.add_tokenizer_model("llama")
        out.add_token_list(tokens)
        out.add_token_scores(spm[0])
        out.add_token_types(spm[1])
        out.add_unk_token_id(0)
        out.add_bos_token_id(1)
        out.add_eos_token_id(2)
        out.add_add_space_prefix(True)
    else:
        out.add_tokenizer_model("gpt2")
        out.add_tokenizer_pre("gpt-2")
        out.add_token_list(tokens)
        out.add_token_types([gguf.TokenType.CONTROL if i == eos else gguf.TokenType.NORMAL for i in range(len(tokens))])
        out.add_token_merges(merges)
        out.add_bos_token_id(eos)
        out.add_eos_token_id(eos)
    out.add_add_bos_token(False)
    for hf, x in w.items():
        if hf.endswith("q_proj.weight"):
            x = permute(x, cfg["heads"])
        elif hf.endswith("k_proj.weight"):
            x = permute(x, cfg["kv"])
        if x.ndim == 1 or qt == Q.F32:
            out.add_tensor(gguf_name(hf), x)
        else:
            out.add_tensor(gguf_name(hf), quantize(x, qt), raw_dtype=qt)
    out.write_header_to_file()
    out.write_kv_data_to_file()
    out.write_tensors_to_file()
    out.close()


def reference(cfg, w, tokens, prompt_ids, type_name):
    """Greedy tokens of transformers' Llama in float64 on the file's weights: per step the token,
    its logit, the runner-up and its logit."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    qt = TYPES[type_name][0]
    c = LlamaConfig(vocab_size=len(tokens), hidden_size=cfg["dim"], intermediate_size=cfg["ffn"],
                    num_hidden_layers=cfg["layers"], num_attention_heads=cfg["heads"],
                    num_key_value_heads=cfg["kv"], max_position_embeddings=cfg["ctx"], rms_norm_eps=1e-5,
                    rope_theta=10000.0, tie_word_embeddings=False, attention_bias=False, mlp_bias=False)
    torch.manual_seed(0)
    m = LlamaForCausalLM(c).to(torch.float64).eval()
    m.load_state_dict({k: torch.from_numpy(stored(v, qt)) for k, v in w.items()}, strict=True)
    ids = list(prompt_ids)
    steps = []
    with torch.no_grad():
        for _ in range(N_DECODE):  # no cache: every step recomputes the prefix, in float64
            logits = m(torch.tensor([ids])).logits[0, -1]
            top = torch.topk(logits, 2)
            steps.append((int(top.indices[0]), float(top.values[0]), int(top.indices[1]), float(top.values[1])))
            ids.append(steps[-1][0])
    return steps


def main():
    if sys.argv[1] == "--train-merges":
        train_merges(sys.argv[2])
        return
    if sys.argv[1] == "--train-spm":
        train_spm_pieces(sys.argv[2])
        return
    outdir = sys.argv[1]
    size = sys.argv[sys.argv.index("--size") + 1] if "--size" in sys.argv else "tiny"
    ref = sys.argv[sys.argv.index("--ref") + 1] if "--ref" in sys.argv else None
    cfg = SIZES[size]
    os.makedirs(outdir, exist_ok=True)
    tokens, merges, eos = vocabulary()
    w = weights(cfg, len(tokens))
    for t in cfg.get("types", TYPES):
        p = os.path.join(outdir, f"{size}-{t}.gguf")
        write(p + ".tmp", cfg, w, tokens, merges, eos, t)
        os.replace(p + ".tmp", p)
    if size == "tiny":  # the same weights with a SentencePiece vocabulary of the same size
        stok, scores, types, smerges = spm_vocabulary()
        assert len(stok) == len(tokens)
        p = os.path.join(outdir, "tiny-spm.gguf")
        write(p + ".tmp", cfg, w, stok, None, None, "f32", (scores, types))
        os.replace(p + ".tmp", p)
    if ref:
        tk = hf_tokenizer(tokens, merges)
        with open(ref, "w", encoding="utf-8") as f:
            f.write("# written by tools/make_llama_gguf.py --ref: the tokens examples/06_gguf_llm.c must produce\n"
                    "# text HEX ids...: Hugging Face tokenizers' ids of the UTF-8 string HEX\n"
                    "# prompt HEX ids...: the prompt and its ids\n"
                    "# TYPE STEP token logit runner_up logit: transformers' Llama in float64 on the weights\n"
                    "#   the TYPE file holds (dequantized), greedy, no KV cache\n")
            for s in TOKENIZER_STRINGS:
                ids = tk.encode(s).ids
                assert tk.decode(ids) == s
                f.write(" ".join(["text", s.encode().hex() or "-"] + [str(i) for i in ids]) + "\n")
            prompt_ids = tk.encode(PROMPT).ids
            f.write(" ".join(["prompt", PROMPT.encode().hex()] + [str(i) for i in prompt_ids]) + "\n")
            for t in TYPES:
                for i, (a, la, b, lb) in enumerate(reference(cfg, w, tokens, prompt_ids, t)):
                    f.write(f"{t} {i} {a} {la:.9g} {b} {lb:.9g}\n")
        stok, scores, types, smerges = spm_vocabulary()
        tk = hf_spm_tokenizer(stok, smerges)
        with open(ref.replace(".txt", "_spm.txt"), "w", encoding="utf-8") as f:
            f.write("# written by tools/make_llama_gguf.py --ref: tiny-spm.gguf (a SentencePiece vocabulary,\n"
                    "# the f32 weights); lines as in gguf_llm_ref.txt, the ids from Hugging Face's Llama\n"
                    "# tokenizer pipeline (tokenizers: prepend and escape U+2581, BPE with byte fallback)\n")
            for s in TOKENIZER_STRINGS:
                ids = tk.encode(s).ids
                assert tk.decode(ids) == s, (s, tk.decode(ids))
                f.write(" ".join(["text", s.encode().hex() or "-"] + [str(i) for i in ids]) + "\n")
            prompt_ids = tk.encode(PROMPT).ids
            f.write(" ".join(["prompt", PROMPT.encode().hex()] + [str(i) for i in prompt_ids]) + "\n")
            for i, (a, la, b, lb) in enumerate(reference(cfg, w, stok, prompt_ids, "f32")):
                f.write(f"f32 {i} {a} {la:.9g} {b} {lb:.9g}\n")


if __name__ == "__main__":
    main()
