"""genie_torch: genie as a lazy PyTorch device.

    import genie_torch                      # loads build/libgenie_torch.so, registers the device
    x = torch.randn(4, 3, device=genie_torch.device)
    y = (x @ x.t()).relu()                  # captured, nothing runs
    print(y.cpu())                          # materializes only what y needs

The device is PyTorch's PrivateUse1 key: `privateuseone` on torch 1.13, `remote_accelerator`
on torch >= 2.0. GENIE_TORCH_LIB overrides the library's path.
"""
import contextlib
import json
import os

import torch

_here = os.path.dirname(os.path.abspath(__file__))
LIB = os.environ.get("GENIE_TORCH_LIB", os.path.join(_here, "build", "libgenie_torch.so"))
if LIB not in getattr(torch.ops, "loaded_libraries", set()):
    torch.ops.load_library(LIB)

_major = int(torch.__version__.split(".")[0])
if _major >= 2:
    # the library renames PrivateUse1 in C++; torch.utils keeps Python's side in step (once)
    try:
        torch.utils.rename_privateuse1_backend("remote_accelerator")
    except RuntimeError:
        pass
    DEVICE_TYPE = "remote_accelerator"
else:
    DEVICE_TYPE = "privateuseone"
device = torch.device(DEVICE_TYPE, 0)


class _DeviceModule:
    """torch.<device> runtime module (is_available, device_count, ...)."""

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def device_count():
        return 1

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def set_device(idx):
        if idx not in (0, -1):
            raise RuntimeError("genie: one device (index 0)")

    @staticmethod
    def synchronize(device=None):
        pass

    @staticmethod
    def manual_seed(seed):
        # random tensors made on the device draw their seed from PyTorch's CPU generator
        torch.manual_seed(seed)

    @staticmethod
    def manual_seed_all(seed):
        torch.manual_seed(seed)

    @staticmethod
    def is_initialized():
        return True

    @staticmethod
    def _is_in_bad_fork():
        return False


if not hasattr(torch, DEVICE_TYPE):
    try:
        torch._register_device_module(DEVICE_TYPE, _DeviceModule)
    except (RuntimeError, AttributeError):
        pass
if _major >= 2 and hasattr(torch.utils, "generate_methods_for_privateuse1_backend"):
    try:
        torch.utils.generate_methods_for_privateuse1_backend()
    except RuntimeError:
        pass


_tensor_numpy = torch.Tensor.numpy


def _numpy(self, *args, **kwargs):
    # a device tensor materializes for NumPy (PyTorch raises for non-CPU tensors: the README
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
