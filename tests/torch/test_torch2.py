"""The device as a PyTorch 2.x user meets it, and the defects fixed on both torch versions.

    python tests/torch/test_torch2.py [--counts FILE]      # any torch: 1.13 (Debian) or 2.x

Each test_* function is one test. Parts that need a newer torch than the one running print one
`skip:` line and assert nothing else there (the device's name needs 2.0, the C++ hooks behind
torch.accelerator, torch.Generator(device=...) and pin_memory need 2.6). Prints
"torch2: N passed, N failed" last.
"""
import io
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

import torch  # noqa: E402
import genie_torch as gt  # noqa: E402
from runner import Skipped, run_tests  # noqa: E402

DEV = gt.device
VER = tuple(int(v) for v in torch.__version__.split("+")[0].split(".")[:2])



def skip(why, whole=True):
    """Prints the skip line; whole: the test stops here and counts as skipped."""
    print(f"  skip: {why} (torch {torch.__version__})")
    if whole:
        raise Skipped(why)


def close(a, b, rtol=1e-5, atol=1e-6):
    a = a.cpu() if a.device.type != "cpu" else a
    assert a.shape == b.shape, (a.shape, b.shape)
    assert torch.allclose(a, b, rtol=rtol, atol=atol), f"max |diff| {(a - b).abs().max().item()}"


# ---------------------------------------------------------------- the device's names

def test_names():
    if VER < (2, 0):
        assert gt.DEVICE_TYPE == "privateuseone"
        skip("the name remote_accelerator and its methods need torch >= 2.0")
    assert gt.DEVICE_TYPE == "remote_accelerator"
    assert torch._C._get_privateuse1_backend_name() == "remote_accelerator"
    x = torch.randn(3, 2, device="remote_accelerator:0")
    assert x.device == torch.device("remote_accelerator", 0)
    assert x.is_remote_accelerator and not torch.ones(1).is_remote_accelerator
    y = torch.arange(4.).remote_accelerator()
    assert y.device.type == "remote_accelerator" and y.cpu().tolist() == [0., 1., 2., 3.]
    m = torch.nn.Linear(2, 3).remote_accelerator()
    assert m.weight.device.type == "remote_accelerator"
    mod = torch.remote_accelerator
    assert mod.is_available() and mod.device_count() == 1 and mod.current_device() == 0
    mod.set_device(0)
    mod.synchronize()
    with mod.device(0):
        pass
    try:
        mod.set_device(1)
    except RuntimeError as e:
        assert "index 0" in str(e)
    else:
        raise AssertionError("set_device(1) accepted with one device")


def test_accelerator_api():
    if VER < (2, 6):
        skip("torch.accelerator and the PrivateUse1 hooks need torch >= 2.6")
    assert torch.accelerator.is_available()
    assert torch.accelerator.current_accelerator() == torch.device("remote_accelerator")
    assert torch.accelerator.device_count() == 1
    assert torch.accelerator.current_device_index() == 0
    torch.accelerator.set_device_index(0)
    torch.accelerator.synchronize()


def test_pip_install_autoload():
    """`pip install ./` gives genie_torch; torch >= 2.5 loads it by itself (the torch.backends
    entry point) unless TORCH_DEVICE_BACKEND_AUTOLOAD=0."""
    if VER < (2, 5):
        skip("the torch.backends entry point (autoload) needs torch >= 2.5")
    try:
        import setuptools  # noqa: F401  (--no-build-isolation: no download while testing)
    except ImportError:
        skip("setuptools is not installed (pip install ./ builds with it)")
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                            "--target", tmp, ROOT], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        assert os.path.isfile(os.path.join(tmp, "genie_torch_lib", "libgenie_torch.so"))
        code = ("import sys, torch\n"
                "x = torch.randn(2, 3, device='remote_accelerator')\n"
                "print(x.device, 'genie_torch' in sys.modules, sys.modules['genie_torch'].LIB)\n")
        env = dict(os.environ, PYTHONPATH=tmp)
        env.pop("GENIE_TORCH_LIB", None)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp)
        assert r.returncode == 0, r.stderr[-2000:]
        dev, loaded, lib = r.stdout.split()
        assert dev == "remote_accelerator:0" and loaded == "True" and lib.startswith(tmp), r.stdout
        # torch.compile(backend="genie") is found through Dynamo's entry point group
        code = ("from importlib.metadata import entry_points\n"
                "print([e.value for e in entry_points(group='torch_dynamo_backends') if e.name == 'genie'])\n")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp)
        assert r.stdout.strip() == "['genie_torch_compile:genie_backend']", (r.stdout, r.stderr[-1000:])
        assert os.path.isfile(os.path.join(tmp, "genie_torch_compile.py"))
        env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
        r = subprocess.run([sys.executable, "-c", "import sys, torch; print('genie_torch' in sys.modules)"],
                           capture_output=True, text=True, env=env, cwd=tmp)
        assert r.returncode == 0 and r.stdout.strip() == "False", (r.stdout, r.stderr[-1000:])


# ---------------------------------------------------------------- random numbers

def test_manual_seed_reproducible():
    torch.manual_seed(7)
    a = torch.randn(5, 3, device=DEV).cpu()
    b = torch.rand(4, device=DEV).cpu()
    torch.manual_seed(7)
    assert torch.equal(torch.randn(5, 3, device=DEV).cpu(), a)
    assert torch.equal(torch.rand(4, device=DEV).cpu(), b)
    torch.manual_seed(8)
    assert not torch.equal(torch.randn(5, 3, device=DEV).cpu(), a)
    if VER < (2, 6):
        return skip("the device's own generator (torch.Generator(device=...)) needs torch >= 2.6", whole=False)
    mod = getattr(torch, gt.DEVICE_TYPE)
    mod.manual_seed(3)
    c = torch.randn(6, device=DEV).cpu()
    assert mod.initial_seed() == 3
    torch.manual_seed(3)  # seeds the device's generator too (through manual_seed_all)
    assert torch.equal(torch.randn(6, device=DEV).cpu(), c)
    g = torch.Generator(device=DEV)
    assert g.device.type == gt.DEVICE_TYPE
    g.manual_seed(11)
    d = torch.randn(6, device=DEV, generator=g).cpu()
    g.manual_seed(11)
    assert torch.equal(torch.randn(6, device=DEV, generator=g).cpu(), d)
    state = mod.get_rng_state()
    e = torch.rand(3, device=DEV).cpu()
    mod.set_rng_state(state)
    assert torch.equal(torch.rand(3, device=DEV).cpu(), e)


# ---------------------------------------------------------------- torch.save / torch.load

def small_net():
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))


def test_save_load_state_dict():
    torch.manual_seed(0)
    m = small_net().to(DEV)
    ref = {k: v.cpu() for k, v in m.state_dict().items()}
    buf = io.BytesIO()
    torch.save(m.state_dict(), buf)
    for loc in (None, "cpu", DEV, gt.DEVICE_TYPE):
        buf.seek(0)
        sd = torch.load(buf, map_location=loc)
        want = "cpu" if loc == "cpu" else gt.DEVICE_TYPE
        for k, v in sd.items():
            assert v.device.type == want, (loc, k, v.device)
            assert torch.equal(v.cpu(), ref[k]), k
    # views keep their values; a parameter keeps requires_grad; a whole module pickles
    x = torch.arange(12.).to(DEV).view(3, 4)[:, 1:3]
    w = torch.nn.Parameter(torch.randn(3).to(DEV))
    buf = io.BytesIO()
    torch.save({"x": x, "w": w, "m": m}, buf)
    buf.seek(0)
    d = torch.load(buf, weights_only=False)
    assert d["x"].device.type == gt.DEVICE_TYPE and torch.equal(d["x"].cpu(), x.cpu())
    assert isinstance(d["w"], torch.nn.Parameter) and d["w"].requires_grad and d["w"].device.type == gt.DEVICE_TYPE
    inp = torch.randn(5, 4)
    close(d["m"](inp.to(DEV)), m(inp.to(DEV)).cpu())


def test_checkpoint_loads_without_genie():
    """A checkpoint saved from the device loads with map_location="cpu" where genie never was."""
    torch.manual_seed(1)
    m = small_net().to(DEV)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ck.pt")
        torch.save({"model": m.state_dict(), "step": 3}, path)
        code = ("import sys, torch\n"
                f"d = torch.load({path!r}, map_location='cpu')\n"
                "assert 'genie_torch' not in sys.modules\n"
                "for k, v in d['model'].items(): print(k, v.device, repr(v.flatten().tolist()))\n")
        env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp)
        assert r.returncode == 0, r.stderr[-2000:]
        got = {}
        for line in r.stdout.splitlines():
            k, dev, vals = line.split(" ", 2)
            assert dev == "cpu", line
            got[k] = torch.tensor(eval(vals))
        for k, v in m.state_dict().items():
            assert torch.equal(got[k], v.cpu().flatten()), k


# ---------------------------------------------------------------- pinned memory, DataLoader

def test_pin_memory_dataloader():
    torch.manual_seed(0)
    ds = torch.utils.data.TensorDataset(torch.randn(20, 4), torch.randn(20, 1))
    model = torch.nn.Linear(4, 1)
    ref_model = torch.nn.Linear(4, 1)
    ref_model.load_state_dict(model.state_dict())
    model = model.to(DEV)
    pin = VER >= (2, 6)
    if not pin:
        skip("pin_memory for the device needs the PrivateUse1 hooks (torch >= 2.6); the loop runs unpinned", whole=False)
    else:
        p = torch.randn(3, 4).pin_memory()
        assert p.is_pinned() and not torch.randn(2).is_pinned()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(ref_model.parameters(), lr=0.1)
    for xb, yb in torch.utils.data.DataLoader(ds, batch_size=8, pin_memory=pin):
        if pin:
            assert xb.is_pinned()
        for mdl, o, x, y in ((model, opt, xb.to(DEV, non_blocking=True), yb.to(DEV)), (ref_model, ref_opt, xb, yb)):
            o.zero_grad()
            torch.nn.functional.mse_loss(mdl(x), y).backward()
            o.step()
    close(model.weight, ref_model.weight.detach(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- the defects

def test_batchnorm_running_stats_train():
    """native_batch_norm updates running_mean/var without its schema marking them written."""
    torch.manual_seed(0)
    cpu = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(), torch.nn.Flatten(),
                              torch.nn.Linear(4 * 6 * 6, 2))
    dev = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(), torch.nn.Flatten(),
                              torch.nn.Linear(4 * 6 * 6, 2))
    dev.load_state_dict(cpu.state_dict())
    dev = dev.to(DEV)
    for step in range(3):
        x = torch.randn(5, 3, 8, 8) * (step + 1) + step
        cpu(x)
        dev(x.to(DEV))
    bc, bd = cpu[1], dev[1]
    assert not torch.equal(bc.running_mean, torch.zeros(4))
    close(bd.running_mean, bc.running_mean, rtol=1e-4, atol=1e-5)
    close(bd.running_var, bc.running_var, rtol=1e-4, atol=1e-5)
    assert int(bd.num_batches_tracked.cpu()) == 3
    cpu.eval()
    dev.eval()
    x = torch.randn(2, 3, 8, 8)
    close(dev(x.to(DEV)), cpu(x), rtol=1e-4, atol=1e-4)


def test_fallback_writes_back_marked_arguments():
    """An in-place operation through the fallback (schema Tensor(a!)) writes through views."""
    base = torch.zeros(4, 5)
    d = base.to(DEV)
    view = d[1:3]
    idx = torch.tensor([0, 2, 4])
    src = torch.arange(6.).view(2, 3)
    view.index_add_(1, idx.to(DEV), src.to(DEV))
    base[1:3].index_add_(1, idx, src)
    assert torch.equal(d.cpu(), base)
    out = torch.empty(0).to(DEV)
    torch.cumsum(torch.arange(5.).to(DEV), 0, out=out)
    assert out.cpu().tolist() == [0., 1., 3., 6., 10.]


def test_threads_follow_torch():
    n0 = torch.get_num_threads()
    try:
        for n in (1, 2):
            torch.set_num_threads(n)
            assert torch.get_num_threads() == n
            (torch.randn(64, 64, device=DEV) @ torch.randn(64, 64, device=DEV)).sum().item()
            assert torch.ops.genie.num_threads() == n, (torch.ops.genie.num_threads(), n)
    finally:
        torch.set_num_threads(n0)


_probe_lib = None


def test_small_fallback_runs_serially():
    """A fallback on small tensors runs its CPU kernel with one intra-op thread (no OpenMP region
    whose spinning workers would take the cores from genie's pool), a large one with all; the
    count the user set is back afterwards, for torch and for genie."""
    global _probe_lib
    if _probe_lib is None:  # an operator with a CPU kernel only: on the device it is a fallback
        _probe_lib = torch.library.Library("genie_probe", "DEF")
        _probe_lib.define("threads(Tensor x) -> Tensor")
        _probe_lib.impl("threads", lambda x: torch.full((1,), float(torch.get_num_threads())), "CPU")
    n0 = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        small, large = torch.ones(1000, device=DEV), torch.ones(1 << 19, device=DEV)
        with torch.inference_mode():  # torch 1.13 has no autograd fallthrough for the device
            inside = [torch.ops.genie_probe.threads(t).cpu().item() for t in (small, large)]
        if "parallel backend: OpenMP" not in torch.__config__.parallel_info():
            skip("torch's intra-op pool here is not OpenMP, which the serial fallback sets")
        assert inside == [1, 2], inside
        assert torch.get_num_threads() == 2
        (small * 2).sum().item()
        assert torch.ops.genie.num_threads() == 2, torch.ops.genie.num_threads()
    finally:
        torch.set_num_threads(n0)


def test_layer_norm_values():
    torch.manual_seed(0)
    for shape, ns in (((3, 7), (7,)), ((2, 3, 5), (3, 5)), ((4, 1), (1,))):
        x = torch.randn(*shape) * 3 + 10  # a large mean: E[x^2]-E[x]^2 would lose digits
        w, b = torch.randn(*ns), torch.randn(*ns)
        ref = torch.nn.functional.layer_norm(x.double(), ns, w.double(), b.double(), 1e-5).float()
        got = torch.nn.functional.layer_norm(x.to(DEV), ns, w.to(DEV), b.to(DEV), 1e-5)
        close(got, ref, rtol=1e-5, atol=2e-5)


def test_transformer_encoder_fast_path_lazy():
    """nn.TransformerEncoder in eval takes torch 2.x's fused fast path
    (aten::_transformer_encoder_layer_fwd): on the device it is captured, not run by the fallback"""
    if not hasattr(torch, "_safe_softmax"):
        skip("the encoder layer's fast path on the device needs torch >= 2.5")
    torch.manual_seed(0)
    for norm_first, act in ((False, "relu"), (True, "gelu")):
        layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True,
                                                 norm_first=norm_first, activation=act)
        enc = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
        x = torch.randn(3, 7, 32)
        pad = torch.zeros(3, 7, dtype=torch.bool)
        pad[1, 5:] = True
        # (a sequence with every key masked is left out: CPU's fused kernel gives NaN there, the
        # device gives the non-fused path's value, as scaled_dot_product_attention does)
        causal = torch.nn.Transformer.generate_square_subsequent_mask(7)
        for kw in ({}, {"src_key_padding_mask": pad}, {"mask": causal}):
            with torch.no_grad():
                ref = enc.cpu()(x, **kw)
                enc.to(DEV)
                gt.reset_counts()
                got = enc(x.to(DEV), **{k: v.to(DEV) for k, v in kw.items()})
                st = gt.stats()
            assert "aten::_transformer_encoder_layer_fwd" not in st["fallback"], st["fallback"]
            # the attention of each layer: captured whole (genie's fused attention) or as the
            # math path's masked softmax
            att = sum(st["captured"].get(k, 0) for k in ("aten::_safe_softmax",
                                                          "aten::_scaled_dot_product_fused_attention_overrideable"))
            assert att == 2, st["captured"]
            close(got, ref, rtol=1e-5, atol=1e-5)


def test_sdpa_fused():
    """scaled_dot_product_attention on the device: genie's fused attention (the overrideable
    backend, one captured node) where no gradient is needed, PyTorch's math path where one is;
    CPU's math values both ways (masks bool and float, causal, a scale, a fully masked row: 0)"""
    if not hasattr(torch.ops.aten, "_scaled_dot_product_fused_attention_overrideable"):
        skip("the device's fused attention needs torch >= 2.5 (the overrideable backend)")
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    fused = "aten::_scaled_dot_product_fused_attention_overrideable"
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 4)
    bmask = torch.rand(2, 1, 5, 7) > 0.3
    bmask[0, 0, 1] = False  # every key of a row masked: the math path's 0
    fmask = torch.randn(5, 7)
    dev = lambda kw: {a: b.to(DEV) if torch.is_tensor(b) else b for a, b in kw.items()}  # noqa: E731
    for kw in ({}, {"attn_mask": bmask}, {"attn_mask": fmask}, {"is_causal": True}, {"scale": 0.3}):
        with sdpa_kernel([SDPBackend.MATH]):
            ref = F.scaled_dot_product_attention(q, k, v, **kw)
        gt.reset_counts()
        got = F.scaled_dot_product_attention(q.to(DEV), k.to(DEV), v.to(DEV), **dev(kw))
        st = gt.stats()
        assert st["captured"].get(fused, 0) == 1 and not any(st["fallback"].values()), (kw.keys(), st["fallback"])
        close(got, ref, rtol=1e-5, atol=1e-5)
    # grouped-query attention (enable_gqa): each head of k and v serves two of q's
    kg, vg = torch.randn(2, 1, 7, 8), torch.randn(2, 1, 7, 4)
    q2 = torch.randn(2, 2, 5, 8)
    with sdpa_kernel([SDPBackend.MATH]):
        ref = F.scaled_dot_product_attention(q2, kg, vg, attn_mask=fmask, enable_gqa=True)
    gt.reset_counts()
    got = F.scaled_dot_product_attention(q2.to(DEV), kg.to(DEV), vg.to(DEV), attn_mask=fmask.to(DEV), enable_gqa=True)
    assert gt.stats()["captured"].get(fused, 0) == 1
    close(got, ref, rtol=1e-5, atol=1e-5)
    # a gradient needed: the math path, and CPU's gradients
    qc = q.clone().requires_grad_()
    qd = q.to(DEV).requires_grad_()
    with sdpa_kernel([SDPBackend.MATH]):
        F.scaled_dot_product_attention(qc, k, v, attn_mask=fmask).sum().backward()
    gt.reset_counts()
    out = F.scaled_dot_product_attention(qd, k.to(DEV), v.to(DEV), attn_mask=fmask.to(DEV))
    assert gt.stats()["captured"].get(fused, 0) == 0
    out.sum().backward()
    close(qd.grad, qc.grad, rtol=1e-4, atol=1e-5)


def test_autocast_bf16():
    """torch.autocast on the device: matmuls in the lower precision, layer_norm in float32"""
    if VER < (2, 5):
        skip("autocast for the device needs torch >= 2.5 (ATen's PrivateUse1 autocast lists)")
    torch.manual_seed(0)
    x, w = torch.randn(8, 16), torch.randn(4, 16)
    for dt in (torch.bfloat16, torch.float16):
        with torch.autocast(gt.DEVICE_TYPE, dtype=dt):
            y = torch.nn.functional.linear(x.to(DEV), w.to(DEV))
            n = torch.nn.functional.layer_norm(y, (4,))
            a = x.to(DEV) + 1  # not in the lists: unchanged
        assert y.dtype == dt and n.dtype == torch.float32 and a.dtype == torch.float32, (y.dtype, n.dtype, a.dtype)
        ref = torch.nn.functional.linear(x.to(dt), w.to(dt))
        close(y.float(), ref.float(), rtol=2e-2, atol=2e-2)
    with torch.autocast(gt.DEVICE_TYPE, dtype=torch.bfloat16, enabled=False):
        assert (x.to(DEV) @ w.to(DEV).t()).dtype == torch.float32


def test_compile_backend_trains():
    """torch.compile(backend="genie") of a CPU MLP: forward and AOTAutograd's backward lowered to
    genie, three SGD steps give eager's losses and parameters (weights re-copied after each step)"""
    if VER < (2, 5):
        skip("torch.compile(backend='genie') is tested on torch >= 2.5")
    import genie_torch_compile as gc
    gc.reset_report()
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    net.load_state_dict(ref.state_dict())
    fast = torch.compile(net, backend="genie")
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    opts = {ref: torch.optim.SGD(ref.parameters(), lr=0.1), fast: torch.optim.SGD(net.parameters(), lr=0.1)}
    for _ in range(3):
        losses = []
        for mod, opt in opts.items():
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(mod(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert abs(losses[0] - losses[1]) <= 1e-6 * abs(losses[0]), losses
    for a, b in zip(ref.parameters(), net.parameters()):
        close(b, a, rtol=1e-5, atol=1e-6)
    r = gc.last_report()
    assert r["graphs"] == 2 and r["nodes"] > 0 and r["lowered"] == r["nodes"], r  # forward, backward


def test_compile_attention_fused():
    """torch.compile(backend="genie") of a CPU attention block (bool padding mask, as BERT's):
    for inference, the CPU flash-attention node runs as the device's fused attention (one captured
    node per call, no per-head products); with gradients, the math formula's operations forward and
    backward (not the CPU flash kernel's backward, which reads a logsumexp the decomposition lacks);
    eager CPU's values and gradients"""
    if not hasattr(torch.ops.aten, "_scaled_dot_product_fused_attention_overrideable"):
        skip("the device's fused attention needs torch >= 2.5 (the overrideable backend)")
    fused = "aten::_scaled_dot_product_fused_attention_overrideable"

    class Block(torch.nn.Module):
        def __init__(self, E=16, H=4):
            super().__init__()
            self.H, self.qkv, self.out = H, torch.nn.Linear(E, 3 * E), torch.nn.Linear(E, E)

        def forward(self, x, keep):
            B, L, E = x.shape
            q, k, v = (t.view(B, L, self.H, E // self.H).transpose(1, 2) for t in self.qkv(x).chunk(3, -1))
            a = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])
            return self.out(a.transpose(1, 2).reshape(B, L, E))

    torch.manual_seed(0)
    net = Block()
    x, keep = torch.randn(3, 6, 16), torch.ones(3, 6, dtype=torch.bool)
    keep[1, 4:] = False
    keep[2, 2:] = False
    ref = net(x, keep)
    fast = torch.compile(net, backend="genie")
    gt.reset_counts()
    with torch.no_grad():
        got = fast(x, keep)
    cap = gt.stats()["captured"]
    assert cap.get(fused, 0) == 1 and cap.get("aten::bmm", 0) == 0, {k: v for k, v in cap.items() if "bmm" in k or "scaled" in k}
    close(got, ref.detach(), rtol=1e-5, atol=1e-5)
    # gradients needed: a graph compiled again (Dynamo guards on grad mode), eager's gradients
    ref.sum().backward()
    gref = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    fast(x, keep).sum().backward()
    for p, g in zip(net.parameters(), gref):
        close(p.grad, g, rtol=1e-4, atol=1e-5)


def main():
    run_tests("torch2", globals())


if __name__ == "__main__":
    main()
