"""`torch.compile(model, backend="genie")`: genie as a torch.compile backend (torch >= 2.1).

    import genie_torch_compile                 # registers "genie" (pip install does it by entry point)
    fast = torch.compile(model, backend="genie")
    y = fast(x)                                # CPU in, CPU out; genie runs the graph

Dynamo traces the model (a CPU model: Dynamo's fake tensors need storage, which genie's device
tensors do not have) and AOTAutograd turns each graph into ATen operations. Each ATen node then
runs on genie's device: the operations the bridge captures become genie nodes of one lazy graph,
every other node falls back on its own (the bridge runs its CPU kernel and wraps the result), and
the graph's outputs are computed together by one genie_realize. Parameters and buffers are copied
to genie once and reused while their version counter says they are unchanged.

`last_report()` says, for the graphs compiled so far, how many ATen nodes genie lowered: a node
is lowered when on the first call the bridge captured what it ran (a composite such as
`split` counts through the operations it becomes) and nothing of it went through the fallback,
as the bridge's per-operator counters say (not by a list).
"""
import operator
import weakref

import torch
import genie_torch as gt

_BOOKKEEPING = {"getitem"}  # tuple indexing of multi-output nodes: no operation of its own
_reports = []


def last_report():
    """{'graphs', 'nodes', 'lowered', 'fallback': {op: count}} over every graph compiled so far."""
    out = {"graphs": len(_reports), "nodes": 0, "lowered": 0, "fallback": {}}
    for r in _reports:
        out["nodes"] += r["nodes"]
        out["lowered"] += r["lowered"]
        for k, v in r["fallback"].items():
            out["fallback"][k] = out["fallback"].get(k, 0) + v
    return out


def reset_report():
    _reports.clear()


class _DeviceCache:
    """CPU tensor -> its copy on the device, while the tensor lives and its version is unchanged
    (weights are copied once; a changed or freed tensor is copied again)."""

    def __init__(self):
        self.entries = {}  # id(t) -> (weakref to t, t._version, device tensor)

    def get(self, t):
        try:
            version = t._version
        except RuntimeError:  # an inference tensor has no version counter: copied each time
            return t.detach().to(gt.device)
        e = self.entries.get(id(t))
        if e is not None and e[0]() is t and e[1] == version:
            return e[2]
        d = t.detach().to(gt.device)
        key = id(t)
        try:
            ref = weakref.ref(t, lambda _, k=key: self.entries.pop(k, None))
        except TypeError:
            return d
        self.entries[key] = (ref, version, d)
        return d


def _to_device(x, cache):
    if isinstance(x, torch.Tensor) and x.device.type == "cpu":
        return cache.get(x)
    return x


def _counts():
    """(operations the bridge captured, operations it ran through the fallback) so far"""
    s = gt.stats()
    return sum(s.get("captured", {}).values()), sum(s.get("fallback", {}).values())


def _retarget_devices(gm):
    """creation nodes traced with device=cpu (arange, full, ...) create on genie's device instead,
    and the graph's constant tensors move there once"""
    for node in gm.graph.nodes:
        if node.op == "call_function" and isinstance(node.kwargs.get("device"), torch.device) \
                and node.kwargs["device"].type == "cpu":
            node.kwargs = {**node.kwargs, "device": gt.device}
        if node.op == "get_attr":
            obj = gm
            for part in node.target.split("."):
                obj = getattr(obj, part)
            if isinstance(obj, torch.Tensor) and obj.device.type == "cpu":
                parent = gm
                *path, last = node.target.split(".")
                for part in path:
                    parent = getattr(parent, part)
                setattr(parent, last, obj.to(gt.device))
    gm.recompile()


class _Classifier(torch.fx.Interpreter):
    """runs the ATen graph once on the device, noting which nodes the bridge captured"""

    def __init__(self, gm):
        super().__init__(gm)
        self.nodes = self.lowered = 0
        self.fallback = {}

    def call_function(self, target, args, kwargs):
        name = getattr(target, "__name__", str(target))
        if name in _BOOKKEEPING:
            return super().call_function(target, args, kwargs)
        op = target.name() if isinstance(target, torch._ops.OpOverload) else name
        before = _counts()
        out = super().call_function(target, args, kwargs)
        captured, fellback = (a - b for a, b in zip(_counts(), before))
        self.nodes += 1
        if captured > 0 and fellback == 0:
            self.lowered += 1
        else:
            self.fallback[op] = self.fallback.get(op, 0) + 1
        return out


_FLASH_CPU = getattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu", None)


def _flash_layout(out):
    """out [N, H, L, E] laid out as the flash kernel's output is ([N, L, H, E] in memory), which the
    graph's later views were traced against"""
    return out.transpose(1, 2).contiguous().transpose(1, 2)


def _attention_on_device(q, k, v, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
    """the CPU flash-attention node of an inference graph (its logsumexp unused) as
    scaled_dot_product_attention on the device, which the bridge captures as one fused node
    where it takes the call (torch >= 2.5) and as its plain operations elsewhere"""
    gqa = {"enable_gqa": True} if q.size(1) != k.size(1) else {}
    out = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal, scale=scale, **gqa)
    return _flash_layout(out), None


def _retarget_attention(gm):
    """each CPU flash-attention node whose logsumexp the graph does not use (an inference graph's)
    runs as the device's attention; one whose logsumexp a backward reads runs through the fallback"""
    if _FLASH_CPU is None:
        return
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is _FLASH_CPU.default and \
                all(u.target is operator.getitem and u.args[1] == 0 for u in node.users):
            node.target = _attention_on_device
    gm.recompile()


def _realize_to_cpu(outs):
    """the graph's outputs on CPU, their genie values computed together"""
    flat = outs if isinstance(outs, (list, tuple)) else [outs]
    dev = [o for o in flat if isinstance(o, torch.Tensor) and o.device.type == gt.DEVICE_TYPE]
    if dev:
        torch.ops.genie.realize(dev)
    res = [o.cpu() if isinstance(o, torch.Tensor) and o.device.type == gt.DEVICE_TYPE else o for o in flat]
    return type(outs)(res) if isinstance(outs, (list, tuple)) else res[0]


def _lower(gm, example_inputs):
    """the compiled function of one ATen graph: CPU inputs in, CPU outputs out, genie between"""
    _retarget_devices(gm)
    _retarget_attention(gm)
    cache = _DeviceCache()
    state = {"first": True}

    def run(args):  # boxed, as AOTAutograd prefers: the list is emptied so inputs can be freed
        dargs = [_to_device(a, cache) for a in args]
        args.clear()
        if state["first"]:
            state["first"] = False
            c = _Classifier(gm)
            outs = c.run(*dargs)
            _reports.append({"nodes": c.nodes, "lowered": c.lowered, "fallback": c.fallback})
        else:
            outs = gm(*dargs)
        return _realize_to_cpu(outs)

    run._boxed_call = True
    return run


def _decompositions():
    """ATen operations decomposed before lowering: PyTorch's CPU-specific fused kernels, which
    genie has no counterpart for, become the plain operations it captures (the CPU flash attention
    is not among them: its logsumexp output is not the decomposition's, which its backward reads;
    _lower runs an inference graph's as the device's attention, _math_attention keeps a training
    graph's out)"""
    from torch._decomp import get_decompositions
    aten = torch.ops.aten
    ops = [getattr(aten, n) for n in ("_scaled_dot_product_attention_math",) if hasattr(aten, n)]
    return get_decompositions(ops)


def _sdpa_math(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """scaled_dot_product_attention as ATen's math formula (a composite: autograd differentiates
    its operations, so the forward and backward graphs hold those)"""
    gqa = {"enable_gqa": True} if enable_gqa else {}
    if attn_mask is not None and attn_mask.dtype == torch.bool:  # the formula adds its mask: True keeps
        attn_mask = torch.zeros((), dtype=q.dtype).masked_fill(attn_mask.logical_not(), float("-inf"))
    return torch.ops.aten._scaled_dot_product_attention_math(
        q, k, v, attn_mask, dropout_p, is_causal, scale=scale, **gqa)[0]


def _math_attention(gm):
    """a graph that needs gradients computes scaled_dot_product_attention by the math formula
    (Dynamo's graph, before AOTAutograd picks the CPU flash kernel and its backward)"""
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is sdpa:
            node.target = _sdpa_math
    gm.recompile()


def genie_backend(gm, example_inputs):
    """the Dynamo backend: AOTAutograd to ATen, then each ATen graph lowered to genie (Dynamo
    guards on grad mode, so a graph compiled for inference is only run as one)"""
    from torch._functorch.aot_autograd import aot_module_simplified
    if torch.is_grad_enabled() and any(isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs):
        _math_attention(gm)
    return aot_module_simplified(gm, example_inputs, fw_compiler=_lower, bw_compiler=_lower,
                                 decompositions=_decompositions())


def register():
    from torch._dynamo.backends.registry import register_backend, _BACKENDS
    if "genie" not in _BACKENDS:
        register_backend(name="genie")(genie_backend)


register()
