"""genie_torch: genie as a lazy PyTorch device.

    import genie_torch                      # loads the bridge library, registers the device
    x = torch.randn(4, 3, device=genie_torch.device)
    y = (x @ x.t()).relu()                  # captured, nothing runs
    print(y.cpu())                          # materializes only what y needs

The device is PyTorch's PrivateUse1 key: `privateuseone` on torch 1.13, `remote_accelerator`
on torch >= 2.0 (with `torch.remote_accelerator`, `t.remote_accelerator()`,
`t.is_remote_accelerator`, `module.remote_accelerator()`). Installed with pip on torch >= 2.5 it
loads itself when torch is imported (the `torch.backends` entry point;
TORCH_DEVICE_BACKEND_AUTOLOAD=0 turns that off).

The bridge library is looked for in this order: $GENIE_TORCH_LIB; the one pip installed
(genie_torch_lib); with $GENIE_REMOTE set, build/torch-<torch version>/libgenie_torch_remote.so
(`make torch-remote PYTHON=...`); build/torch-<torch version>/libgenie_torch.so (`make torch
PYTHON=...`); build/libgenie_torch.so.
"""
import contextlib
import json
import os
import sys
import types
import weakref

import torch

_here = os.path.dirname(os.path.abspath(__file__))
_torch_ver = torch.__version__.split("+")[0]


def _find_lib():
    if os.environ.get("GENIE_TORCH_LIB"):
        return os.environ["GENIE_TORCH_LIB"]
    try:
        import genie_torch_lib  # installed by pip beside this module
        return genie_torch_lib.LIB
    except ImportError:
        pass
    if os.environ.get("GENIE_REMOTE"):  # the bridge with the remote backend (make torch-remote)
        remote = os.path.join(_here, "build", f"torch-{_torch_ver}", "libgenie_torch_remote.so")
        if os.path.exists(remote):
            return remote
    versioned = os.path.join(_here, "build", f"torch-{_torch_ver}", "libgenie_torch.so")
    return versioned if os.path.exists(versioned) else os.path.join(_here, "build", "libgenie_torch.so")


LIB = _find_lib()
if LIB not in getattr(torch.ops, "loaded_libraries", set()):
    torch.ops.load_library(LIB)

_major = int(_torch_ver.split(".")[0])
if _major >= 2:
    # the library renames PrivateUse1 in C++ (once per process); Python's side follows
    if torch._C._get_privateuse1_backend_name() != "remote_accelerator":
        torch.utils.rename_privateuse1_backend("remote_accelerator")
    DEVICE_TYPE = "remote_accelerator"
else:
    DEVICE_TYPE = "privateuseone"
device = torch.device(DEVICE_TYPE, 0)
_has_generator = hasattr(torch.ops.genie, "default_generator")  # torch >= 2.6 (the C++ hooks)


def _default_generator():
    return torch.ops.genie.default_generator() if _has_generator else torch.default_generator


def _check_index(idx):
    if isinstance(idx, torch.device):
        idx = idx.index
    if idx not in (None, 0, -1):
        raise RuntimeError(f"genie: one {DEVICE_TYPE} device (index 0), asked for {idx}")


class _DeviceContext:
    """torch.<device>.device(idx): a context manager, as torch.cuda.device (one device here)."""

    def __init__(self, idx):
        _check_index(idx)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _device_module():
    """torch.<device>: the runtime module PyTorch looks up for a PrivateUse1 backend."""
    m = types.ModuleType(f"torch.{DEVICE_TYPE}")
    m.__doc__ = "genie's lazy device (genie_torch)"
    m.device = _DeviceContext
    m.is_available = lambda: True
    m.device_count = lambda: 1
    m.current_device = lambda: 0
    m.set_device = _check_index
    m.synchronize = lambda device=None: None  # values are computed where they are read
    m.is_initialized = lambda: True
    m._lazy_init = lambda: None
    m._is_in_bad_fork = lambda: False
    # random numbers: the device's own generator on torch >= 2.6 (torch.manual_seed seeds it
    # through manual_seed_all), PyTorch's CPU generator before
    m.default_generators = (_default_generator(),)
    m.manual_seed = lambda seed: _default_generator().manual_seed(int(seed))
    m.manual_seed_all = lambda seed: _default_generator().manual_seed(int(seed))
    m.seed = lambda: _default_generator().seed()
    m.seed_all = lambda: _default_generator().seed()
    m.initial_seed = lambda: _default_generator().initial_seed()
    m.get_rng_state = lambda device=None: _default_generator().get_state()
    m.set_rng_state = lambda state, device=None: _default_generator().set_state(state)
    # torch.autocast(DEVICE_TYPE, dtype=...): the bridge registers ATen's autocast policy lists
    # for the device on torch >= 2.5
    m.get_amp_supported_dtype = lambda: [torch.bfloat16, torch.float16]
    return m


if not hasattr(torch, DEVICE_TYPE):
    torch._register_device_module(DEVICE_TYPE, _device_module())
if _major >= 2 and not hasattr(torch.Tensor, "is_" + DEVICE_TYPE):
    torch.utils.generate_methods_for_privateuse1_backend(for_storage=False)


# ---- torch.save / torch.load
# A device tensor has no storage; it pickles as the CPU tensor PyTorch's own reduction writes,
# with its storage's location recorded as "<device>:0" (as a CUDA checkpoint records "cuda:0").
# So torch.load(..., map_location="cpu") needs no genie (a process without genie loads it), and
# in a process with genie the storage comes back to the device (map_location default or device).
_LOCATION = f"{DEVICE_TYPE}:0"
_saving = {}                             # storage address -> CPU copy, while a save holds it
_loaded = weakref.WeakValueDictionary()  # storage address -> storage restored for the device
_reduce_ex_internal = torch.Tensor._reduce_ex_internal
_rebuild_tensor_v2 = torch._utils._rebuild_tensor_v2


def _storage_key(storage):
    return getattr(storage, "_cdata", None)


def _reduce_ex(self, proto):
    if self.device.type != DEVICE_TYPE:
        return _reduce_ex_internal(self, proto)
    cpu = self.detach().cpu()
    cpu.requires_grad_(self.requires_grad)
    rv = _reduce_ex_internal(cpu, proto)
    for a in rv[1]:
        untyped = getattr(a, "_untyped_storage", None) or getattr(a, "_storage", None)
        if untyped is not None:  # the TypedStorage: the entry lives as long as the pickle holds it
            key = _storage_key(untyped)
            _saving[key] = cpu
            weakref.finalize(a, _saving.pop, key, None)
    return rv


def _tag(storage):
    return _LOCATION if _storage_key(storage) in _saving else None


def _restore(storage, location):
    if not location.startswith(DEVICE_TYPE):
        return None
    _loaded[_storage_key(storage)] = storage
    return storage


def _rebuild_device_tensor(storage, *args, **kwargs):
    t = _rebuild_tensor_v2(storage, *args, **kwargs)
    untyped = getattr(storage, "_untyped_storage", None) or getattr(storage, "_storage", None)
    if untyped is not None and _loaded.get(_storage_key(untyped)) is not None:
        t = t.detach().to(device).requires_grad_(t.requires_grad)
    return t


if getattr(torch.Tensor._reduce_ex_internal, "__name__", "") != "_reduce_ex":
    torch.Tensor._reduce_ex_internal = _reduce_ex
    torch._utils._rebuild_tensor_v2 = _rebuild_device_tensor
    _rebuild_device_tensor.__module__ = "torch._utils"
    _rebuild_device_tensor.__name__ = _rebuild_device_tensor.__qualname__ = "_rebuild_tensor_v2"
    torch.serialization.register_package(5, _tag, _restore)
    # torch.load(weights_only=True) allows the rebuild functions it listed when first asked
    _allowed = getattr(getattr(torch, "_weights_only_unpickler", None), "_get_allowed_globals", None)
    if hasattr(_allowed, "cache_clear"):
        _allowed.cache_clear()


# ---- nn.TransformerEncoderLayer's inference fast path
# In eval (or no_grad) torch 2.x calls aten::_transformer_encoder_layer_fwd for the device: one
# fused CPU/CUDA kernel with no PrivateUse1 implementation, which would run whole through the
# fallback. Here it is the same computation written with the operations the bridge captures,
# so the layer stays one lazy graph (ATen's formula: transformer.cpp, attention.cpp).
def _masked_softmax(s, mask, mask_type):
    """softmax over the last dim of s [B,H,L,L] with ATen's mask types: 0 = [L,L] attention mask,
    1 = [B,L] key padding mask, 2 = broadcastable to [B,H,L,L]; True (bool) masks out a position,
    a float mask is added; a row with every position masked gives zeros"""
    if mask is not None:
        B, L = s.shape[0], s.shape[-1]
        if mask_type == 0:
            mask = mask.view(1, 1, L, L)
        elif mask_type == 1:
            mask = mask.view(B, 1, 1, L)
        if mask.dtype == torch.bool:
            s = s.masked_fill(mask, float("-inf"))
        else:
            s = s + mask
    return torch._safe_softmax(s, -1)


def _encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias,
                       use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2,
                       norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2,
                       mask=None, mask_type=None):
    F = torch.nn.functional
    E, H = int(embed_dim), int(num_heads)
    batched = src.dim() == 3
    x = src if batched else src.unsqueeze(0)          # [B, L, E]
    B, L = x.shape[0], x.shape[1]

    def attention(h):
        qkv = F.linear(h, qkv_weight, qkv_bias).view(B, L, 3, H, E // H).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]              # [B, H, L, D]
        s = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / float(E // H) ** 0.5)
        a = torch.matmul(_masked_softmax(s, mask, mask_type), v)
        return F.linear(a.transpose(1, 2).reshape(B, L, E), proj_weight, proj_bias)

    def ffn(h):
        h = F.linear(h, ffn_weight_1, ffn_bias_1)
        return F.linear(F.gelu(h) if use_gelu else F.relu(h), ffn_weight_2, ffn_bias_2)

    if norm_first:
        x = x + attention(F.layer_norm(x, (E,), norm_weight_1, norm_bias_1, eps))
        x = x + ffn(F.layer_norm(x, (E,), norm_weight_2, norm_bias_2, eps))
    else:
        x = F.layer_norm(x + attention(x), (E,), norm_weight_1, norm_bias_1, eps)
        x = F.layer_norm(x + ffn(x), (E,), norm_weight_2, norm_bias_2, eps)
    return x if batched else x.squeeze(0)


_aten_impls = None
if _major >= 2 and hasattr(torch, "_safe_softmax") and \
        not torch._C._dispatch_has_kernel_for_dispatch_key("aten::_transformer_encoder_layer_fwd", "PrivateUse1"):
    _aten_impls = torch.library.Library("aten", "IMPL")
    _aten_impls.impl("_transformer_encoder_layer_fwd", _encoder_layer_fwd, "PrivateUse1")


def _autoload():
    """The `torch.backends` entry point: importing this module registered the device."""


_tensor_numpy = torch.Tensor.numpy


def _numpy(self, *args, **kwargs):
    # a device tensor materializes for NumPy (PyTorch raises for non-CPU tensors: docs/torch.md
    # lists this difference); `x.cpu().numpy()` works everywhere
    if self.device.type == DEVICE_TYPE:
        self = self.cpu()
    return _tensor_numpy(self, *args, **kwargs)


if getattr(torch.Tensor.numpy, "__name__", "") != "_numpy":
    torch.Tensor.numpy = _numpy


def stats():
    """genie's statistics and the bridge's per-operator counts (captured / fallback)."""
    return json.loads(torch.ops.genie.stats())


def reset_counts():
    torch.ops.genie.reset_counts()


def info(t):
    """(op name, module path, phase, materialized) of a device tensor's value."""
    op, path, phase, mat = torch.ops.genie.info(t)
    return {"op": op, "module": path, "phase": phase, "materialized": mat == "1"}


def shares_storage(a, b):
    return torch.ops.genie.shares_storage(a, b)


def dump_dot(tensors, path):
    """Graphviz of the graph behind some device tensors, clustered by module path."""
    if isinstance(tensors, torch.Tensor):
        tensors = [tensors]
    torch.ops.genie.dump_dot(list(tensors), path)


@contextlib.contextmanager
def phase(name):
    """Tags every operation captured inside with a phase (e.g. "forward", "backward")."""
    torch.ops.genie.set_phase(name)
    try:
        yield
    finally:
        torch.ops.genie.set_phase("")


@contextlib.contextmanager
def scope(name):
    torch.ops.genie.scope_push(name)
    try:
        yield
    finally:
        torch.ops.genie.scope_pop()


class Capture:
    """Forward hooks on every submodule: operations carry module paths (encoder.layers.0.attn)."""

    def __init__(self, model, name=""):
        self.handles = []
        for path, mod in model.named_modules(prefix=name):
            # the root pushes its whole name (it may be dotted), every child its attribute name
            leaf = path if mod is model else path.rsplit(".", 1)[-1]
            if not leaf:
                continue
            self.handles.append(mod.register_forward_pre_hook(self._pre(leaf)))
            self.handles.append(mod.register_forward_hook(self._post))

    @staticmethod
    def _pre(leaf):
        def hook(mod, inputs):
            torch.ops.genie.scope_push(leaf)
        return hook

    @staticmethod
    def _post(mod, inputs, output):
        torch.ops.genie.scope_pop()

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def capture(model, name=""):
    """Registers forward hooks on `model` so captured nodes carry their module paths."""
    return Capture(model, name)


def remote_stats():
    """The work the genie-server did for this process (GENIE_REMOTE; the bridge of `make torch-remote`):
    a list of dicts module, phase, role, nodes, flops, bytes, ns (docs/remote.md)."""
    try:
        text = torch.ops.genie.remote_stats()
    except (AttributeError, RuntimeError) as e:
        if "remote_stats" in str(e) or isinstance(e, AttributeError):
            raise RuntimeError("genie: this bridge has no remote backend (make torch-remote, GENIE_REMOTE=host:port)") from e
        raise
    rows = []
    for line in text.splitlines():
        module, phase, role, *nums = line.split("\t")
        rows.append(dict(module=module, phase=phase, role=role, **dict(zip(("nodes", "flops", "bytes", "ns"), map(int, nums)))))
    return rows


def remote_reconnect():
    """After the server was lost (a RuntimeError naming it): connect to GENIE_REMOTE again; weights and
    inputs are sent again when needed, values that lived only on the lost server are gone."""
    torch.ops.genie.remote_reconnect()


def remote_table(rows=None):
    """remote_stats() as a text table (one line a row, the heaviest first)."""
    rows = remote_stats() if rows is None else rows
    lines = [f"{'module':<40} {'phase':<10} {'role':<10} {'nodes':>6} {'MFLOP':>10} {'MB':>8} {'ms':>8}"]
    for r in sorted(rows, key=lambda r: -r["flops"]):
        lines.append(f"{r['module'] or '-':<40.40} {r['phase'] or '-':<10.10} {r['role'] or '-':<10.10} {r['nodes']:>6} "
                     f"{r['flops'] / 1e6:>10.3f} {r['bytes'] / 1e6:>8.3f} {r['ns'] / 1e6:>8.3f}")
    return "\n".join(lines)
