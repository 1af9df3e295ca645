"""PyTorch's own operator database on the genie device.

For every entry of torch.testing._internal.common_methods_invocations.op_db that supports
float32 on CPU: make its float32 sample inputs on the device, run them there and on CPU copies,
and compare values (assert_close, rtol 1e-5, atol 1e-5, NaN equal), shapes, dtypes and raised
errors (an error on CPU must be an error on the device). Then the same for the operator's
in-place variant on clones (the mutated input must match: the fallback's write-back), and the
gradient of sum(outputs) with respect to every differentiable input (backward on the device).
Each operator runs in a forked child, so a crash is counted, not fatal. Strides that differ
from CPU's are reported, not failed.

    /usr/bin/python3 tests/torch/opdb.py [--all | --subset N] [--ops a,b,c] [--max-samples K] [--no-grad]
        [--dtype float32|bfloat16|float16|int64|int32|uint8|bool] [--json FILE] [--exclude-json EARLIER.json]
        (any torch: Debian's 1.13 or the 2.x venv)

Prints one line per failing/crashing operator, then a summary with pass/fail/crash counts and
how many operators ran captured (no fallback) vs through the fallback, and writes
build/opdb.json (rewritten after every operator, so a sweep stopped early keeps its results;
--exclude-json skips the operators an earlier part ran). Exit status 1 when anything crashes, an operator outside KNOWN_FAIL fails, or
the pass rate is under --target.
"""
import argparse
import json
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# PyTorch's internal test helpers import expecttest. torch 2.x's venv has the real package
# (tools/requirements-torch2.txt); Debian's torch 1.13 has none, so tests/torch/stubs/expecttest.py
# stands in there (appended to the path: the real package wins wherever it is installed). The
# sweep never calls its assertions; the line printed at the start says which one was loaded.
sys.path.append(os.path.join(HERE, "stubs"))
sys.path.insert(0, ROOT)

import torch  # noqa: E402
import genie_torch as gt  # noqa: E402
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

DEV = gt.device
RTOL = ATOL = 1e-5
DTYPE = torch.float32  # --dtype: bfloat16 and float16 compare with torch.testing's tolerances for them
LOW_TOL = {torch.bfloat16: 1.6e-2, torch.float16: 1e-3}
# PyTorch's own kernels that are inexact (its layer_norm takes the variance as E[x^2]-E[x]^2 in
# float32: a 1-element row gives 0.39616 where the exact answer is the bias 0.39620); genie
# computes in double. PyTorch's test suite overrides these tolerances too.
TOLERANCE = {"native_layer_norm": 1e-3, "nn.functional.layer_norm": 1e-3,
             # float32 accumulation order in PyTorch's convolution (relative 2.8e-5 seen)
             "nn.functional.conv2d": 1e-4,
             # float32 accumulation order in attention's matmuls and softmax (torch 2.x's math
             # path; relative 3.2e-5 seen)
             "nn.functional.scaled_dot_product_attention": 1e-4,
             # the gradient of a product of Householder reflectors: float32 products whose rounding
             # depends on the BLAS and LAPACK that PyTorch's CPU reference links (relative 3.7e-4 seen
             # with OpenBLAS, none with the reference BLAS); PyTorch allows 1e-3 for its complex64 one
             "linalg.householder_product": 1e-3}
# operators known to fail on the device, with the reason (the README lists them): anything else
# failing is a regression and fails the run
KNOWN_FAIL = {
    "to_sparse": "sparse layouts are not supported on the device",
    "sparse.sampled_addmm": "sparse layouts are not supported on the device",
    "sparse.mm.reduce": "sparse layouts are not supported on the device",
    "cdouble": "complex128 is not held on the device (complex64 is, as raw bits)",
    "hash_tensor": "uint64 is not held on the device (torch 2.x)",
    "frexp": "open defect (torch 2.x): ATen's frexp reads the storage of its outputs, which device tensors lack",
    "as_strided.partial_views": "open defect (torch 2.x): as_strided of a partial view gives other values (sample 2)",
    "nn.functional.multi_head_attention_forward": "open defect (torch 2.x): one sample of 128 (127) differs by up to 0.05",
}
# gradients not compared (--grad), with the reason
GRAD_SKIP = {
    "as_strided_scatter": "PyTorch 1.13's CPU gradient reads uninitialized memory (differs run to run)",
}
# values undefined by definition (uninitialized memory) or drawn at random inside the operator
# with a generator whose stream the device does not share: compared by shape and dtype only
SHAPE_ONLY = {"empty_like", "new_empty", "new_empty_strided", "empty", "resize_", "resize_as_",
              "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d", "svd_lowrank",
              "pca_lowrank", "bernoulli", "normal", "normal.number_mean", "multinomial", "randint_like",
              "rand_like", "randn_like", "nn.functional.dropout", "nn.functional.dropout2d",
              "nn.functional.dropout3d", "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
              "nn.functional.feature_alpha_dropout.with_train", "nn.functional.feature_alpha_dropout.without_train",
              "nn.functional.rrelu", "uniform"}


def to_dev(x):
    if isinstance(x, torch.Tensor):
        return x.to(DEV) if x.device.type == "cpu" else x
    if isinstance(x, (list, tuple)):
        r = [to_dev(e) for e in x]
        return type(x)(r) if isinstance(x, tuple) and not hasattr(x, "_fields") else (type(x)(*r) if hasattr(x, "_fields") else r)
    if isinstance(x, dict):
        return {k: to_dev(v) for k, v in x.items()}
    return x


def to_cpu(x):
    if isinstance(x, torch.Tensor):
        return x.cpu() if x.device.type != "cpu" else x
    if isinstance(x, (list, tuple)):
        r = [to_cpu(e) for e in x]
        return type(x)(*r) if hasattr(x, "_fields") else type(x)(r) if isinstance(x, tuple) else r
    if isinstance(x, dict):
        return {k: to_cpu(v) for k, v in x.items()}
    return x


def op_tol(name):
    """the operator's tolerance: its own (TOLERANCE, set for float32) or, for bfloat16 and
    float16, that dtype's where it is wider (a float32 override must not tighten them)"""
    tols = [t for t in (TOLERANCE.get(name), LOW_TOL.get(DTYPE)) if t is not None]
    return max(tols) if tols else None


def compare(ref, out, path="out", tol=None, shape_only=False):
    """None if equal, else a message; stride differences are collected separately."""
    if isinstance(ref, torch.Tensor):
        if not isinstance(out, torch.Tensor):
            return f"{path}: expected a tensor, got {type(out).__name__}"
        if out.device.type != DEV.type and ref.device.type == "cpu" and out.device.type == "cpu":
            pass
        if out.device.type == DEV.type:
            strides = (out.stride(), out.storage_offset())
            out = out.cpu()
        else:
            strides = None
        if ref.shape != out.shape:
            return f"{path}: shape {tuple(out.shape)} != {tuple(ref.shape)}"
        if ref.dtype != out.dtype:
            return f"{path}: dtype {out.dtype} != {ref.dtype}"
        try:
            if not shape_only:
                torch.testing.assert_close(out, ref, rtol=tol or RTOL, atol=tol or ATOL, equal_nan=True,
                                           check_device=False, check_stride=False)
        except AssertionError as e:
            return f"{path}: values differ: " + " ".join(l.strip() for l in str(e).strip().splitlines()[:5])[:400]
        if strides is not None and ref.numel() > 1 and strides[0] != ref.stride():
            STRIDE_DIFFS.append(f"{path}: strides {strides[0]} vs CPU {ref.stride()}")
        return None
    if isinstance(ref, (list, tuple)):
        if not isinstance(out, (list, tuple)) or len(out) != len(ref):
            return f"{path}: expected a sequence of {len(ref)}"
        for i, (r, o) in enumerate(zip(ref, out)):
            m = compare(r, o, f"{path}[{i}]", tol, shape_only)
            if m:
                return m
        return None
    if isinstance(ref, float) and isinstance(out, float):
        if not (abs(ref - out) <= ATOL + RTOL * abs(ref) or (ref != ref and out != out)):
            return f"{path}: {out} != {ref}"
        return None
    if ref != out and not (isinstance(ref, float) and ref != ref):
        try:
            if isinstance(ref, torch.Size) or isinstance(out, torch.Size):
                return None if tuple(ref) == tuple(out) else f"{path}: {out} != {ref}"
        except TypeError:
            pass
        return f"{path}: {out!r} != {ref!r}"
    return None


STRIDE_DIFFS = []


def run_op(op, max_samples, inplace=True):
    """In the child: returns a dict with status, message, captured/fallback, stride notes."""
    name = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
    tol, shape_only = op_tol(name), name in SHAPE_ONLY or op.name in SHAPE_ONLY
    # samples are made on the device (as PyTorch's own device tests do: arguments an operator
    # wants on CPU stay there), the reference runs on CPU copies of them
    torch.manual_seed(0)
    samples = list(op.sample_inputs(DEV, DTYPE, requires_grad=False))[:max_samples]
    fallback_ops = set()
    n = 0
    for s in samples:
        n += 1
        ci, ca, ck = to_cpu(s.input), to_cpu(s.args), to_cpu(s.kwargs)
        torch.manual_seed(1234)
        try:
            ref = op(ci, *ca, **ck)
            ref_err = None
        except Exception as e:  # noqa: BLE001 - PyTorch's own error: the device must raise too
            ref, ref_err = None, e
        di, da, dk = s.input, s.args, s.kwargs
        before = gt.stats()["fallback"]
        torch.manual_seed(1234)
        try:
            out = op(di, *da, **dk)
            err = None
        except Exception as e:  # noqa: BLE001
            out, err = None, e
        after = gt.stats()["fallback"]
        fallback_ops |= {k for k, v in after.items() if v != before.get(k, 0)}
        if inplace and op.inplace_variant is not None and isinstance(s.input, torch.Tensor) and not shape_only:
            # the in-place variant on clones: the mutated input must match (the fallback's write-back)
            ci2, di2 = ci.clone(), s.input.clone()
            torch.manual_seed(1234)
            try:
                op.inplace_variant(ci2, *ca, **ck)
                ierr = None
            except Exception as e:  # noqa: BLE001
                ierr = e
            torch.manual_seed(1234)
            try:
                op.inplace_variant(di2, *da, **dk)
                derr = None
            except Exception as e:  # noqa: BLE001
                derr = e
            if (ierr is None) != (derr is None):
                return {"status": "fail", "fallback": sorted(fallback_ops),
                        "msg": f"sample {n}: in-place: CPU {'raised ' + str(ierr)[:80] if ierr else 'ran'}, device "
                               f"{'raised ' + str(derr)[:160] if derr else 'ran'}"}
            if ierr is None:
                m = compare(ci2, di2, "in-place", tol=tol)
                if m:
                    return {"status": "fail", "msg": f"sample {n}: {m}", "fallback": sorted(fallback_ops)}
        if ref_err is not None:
            if err is None:
                return {"status": "fail", "msg": f"sample {n}: CPU raised {type(ref_err).__name__}: "
                        f"{str(ref_err)[:100]} but the device did not", "fallback": sorted(fallback_ops)}
            continue
        if err is not None:
            return {"status": "fail", "msg": f"sample {n}: {type(err).__name__}: {str(err).strip()[:200]}",
                    "fallback": sorted(fallback_ops)}
        try:
            m = compare(ref, out, tol=tol, shape_only=shape_only)
        except Exception as e:  # noqa: BLE001
            m = f"comparing: {type(e).__name__}: {str(e)[:200]}"
        if m:
            return {"status": "fail", "msg": f"sample {n}: {m}", "fallback": sorted(fallback_ops)}
    return {"status": "pass", "samples": n, "fallback": sorted(fallback_ops), "strides": STRIDE_DIFFS[:3]}


def flat_tensors(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for e in x for t in flat_tensors(e)]
    if isinstance(x, dict):
        return [t for e in x.values() for t in flat_tensors(e)]
    return []


def run_grad(op, max_samples):
    """Backward on the device vs CPU: the gradient of sum(outputs) for every differentiable input."""
    if not op.supports_autograd:
        return None
    name = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
    if name in SHAPE_ONLY or op.name in SHAPE_ONLY or name in GRAD_SKIP:
        return None
    tol = op_tol(name)
    torch.manual_seed(0)
    samples = list(op.sample_inputs(DEV, DTYPE, requires_grad=True))[:max_samples]
    for n, s in enumerate(samples, 1):
        def fresh(x, cpu):
            # fresh leaves on both sides: a sample may hold views made under no_grad (istft's
            # window[:8]), whose gradient is None on CPU as on the device
            if isinstance(x, torch.Tensor):
                c = x.detach().cpu() if cpu else x.detach()
                return c.requires_grad_(x.requires_grad) if x.is_floating_point() else c
            if isinstance(x, (list, tuple)):
                r = [fresh(e, cpu) for e in x]
                return type(x)(*r) if hasattr(x, "_fields") else type(x)(r) if isinstance(x, tuple) else r
            if isinstance(x, dict):
                return {k: fresh(v, cpu) for k, v in x.items()}
            return x
        ci, ca, ck = fresh(s.input, True), fresh(s.args, True), fresh(s.kwargs, True)
        di, da, dk = fresh(s.input, False), fresh(s.args, False), fresh(s.kwargs, False)
        cpu_leaves = [t for t in flat_tensors([ci, ca, ck]) if t.requires_grad]
        dev_leaves = [t for t in flat_tensors([di, da, dk]) if t.requires_grad]
        if not dev_leaves:
            continue
        grads = []
        for inp, args, kwargs, leaves in ((ci, ca, ck, cpu_leaves), (di, da, dk, dev_leaves)):
            torch.manual_seed(1234)
            try:
                out = s.output_process_fn_grad(op(inp, *args, **kwargs))
                outs = [o for o in flat_tensors(out) if o.requires_grad and o.is_floating_point()]
                if not outs:
                    grads.append(None)
                    continue
                total = sum(o.sum() for o in outs)
                g = torch.autograd.grad(total, leaves, allow_unused=True)
                grads.append([x.cpu() if x is not None else None for x in g])
            except Exception as e:  # noqa: BLE001
                grads.append(e)
        gc, gd = grads
        if isinstance(gc, Exception) or gc is None:
            continue  # CPU cannot differentiate this sample either
        if isinstance(gd, Exception):
            return f"grad sample {n}: {type(gd).__name__}: {str(gd).strip()[:200]}"
        for i, (a, b) in enumerate(zip(gc, gd)):
            if (a is None) != (b is None):
                return f"grad sample {n}: input {i}: gradient defined on one side only"
            if a is not None:
                m = compare(a, b, f"grad[{i}]", tol=tol or 1e-4)
                if m:
                    return f"grad sample {n}: {m}"
    return None


def run_child(op, max_samples, timeout, grad=False):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        signal.alarm(timeout)
        import warnings
        warnings.simplefilter("ignore")
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # PyTorch's deprecation notices
        try:
            res = run_op(op, max_samples)
            if grad and res["status"] == "pass":
                m = run_grad(op, max_samples)
                if m:
                    res = {"status": "fail", "msg": m, "fallback": res["fallback"]}
        except Exception as e:  # noqa: BLE001 - failures in sample generation etc.
            res = {"status": "fail", "msg": f"{type(e).__name__}: {str(e)[:200]}", "fallback": []}
        with os.fdopen(w, "w") as f:
            f.write(json.dumps(res))
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        why = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
            why = f"timeout after {timeout}s"
        return {"status": "crash", "msg": why, "fallback": []}
    return json.loads(data)


def write_json(path, results):
    """the sweep's counts and per-operator results"""
    counts = {s: sum(1 for r in results.values() if r["status"] == s) for s in ("pass", "fail", "crash")}
    captured = sum(1 for r in results.values() if r["status"] == "pass" and not r["fallback"])
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump({"counts": counts, "captured": captured, "fallback": counts["pass"] - captured, "results": results}, f,
                  indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--all", action="store_true", help="every float32 operator (default: every k-th)")
    ap.add_argument("--subset", type=int, default=150, help="size of the fixed subset (every k-th operator)")
    ap.add_argument("--ops", default="", help="comma-separated operator names")
    ap.add_argument("--max-samples", type=int, default=1000)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--target", type=float, default=0.98)
    ap.add_argument("--no-grad", action="store_true", help="do not compare gradients (backward on the device)")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16", "int64", "int32", "uint8", "bool"])
    ap.add_argument("--json", default=None, help="default: build/opdb[-DTYPE]-torch<version>.json")
    ap.add_argument("--exclude-json", default=None,
                    help="skip the operators of this earlier sweep's json (a long sweep in parts)")
    a = ap.parse_args()
    import expecttest
    stub = os.path.dirname(os.path.abspath(expecttest.__file__)) == os.path.join(HERE, "stubs")
    print(f"op_db: expecttest {'stand-in (tests/torch/stubs)' if stub else 'from ' + expecttest.__file__}", flush=True)
    global DTYPE
    DTYPE = getattr(torch, a.dtype)
    if a.json is None:
        sfx = "" if a.dtype == "float32" else "-" + a.dtype
        a.json = os.path.join(ROOT, "build", f"opdb{sfx}-torch{torch.__version__.split('+')[0]}.json")
    ops = [o for o in op_db if DTYPE in o.supported_dtypes("cpu")]
    total_db = len(ops)
    if a.ops:
        want = set(a.ops.split(","))
        ops = [o for o in ops if o.name in want or f"{o.name}.{o.variant_test_name}" in want]
    elif not a.all:
        k = max(1, len(ops) // a.subset)
        ops = ops[::k]
    if a.exclude_json:
        with open(a.exclude_json) as f:
            done = set(json.load(f)["results"])
        ops = [o for o in ops if o.name + (f".{o.variant_test_name}" if o.variant_test_name else "") not in done]
    t0 = time.time()
    results = {}
    for o in ops:
        name = o.name + (f".{o.variant_test_name}" if o.variant_test_name else "")
        res = run_child(o, a.max_samples, a.timeout, not a.no_grad)
        results[name] = res
        write_json(a.json, results)  # after every operator: a sweep stopped early keeps what it ran
        if res["status"] != "pass":
            known = f" (known: {KNOWN_FAIL[name]})" if name in KNOWN_FAIL and res["status"] == "fail" else ""
            print(f"  {res['status'].upper():5} {name}: {res.get('msg', '')}{known}", flush=True)
    counts = {s: sum(1 for r in results.values() if r["status"] == s) for s in ("pass", "fail", "crash")}
    passed = [r for r in results.values() if r["status"] == "pass"]
    captured = sum(1 for r in passed if not r["fallback"])
    strided = sum(1 for r in passed if r.get("strides"))
    n = len(results)
    rate = counts["pass"] / n if n else 1.0
    print(f"op_db ({a.dtype}, torch {torch.__version__}, {n} of {total_db} operators, {time.time() - t0:.0f}s): "
          f"{counts['pass']} pass, {counts['fail']} fail, {counts['crash']} crash ({100 * rate:.1f}% pass); "
          f"of the passing: {captured} fully captured, {len(passed) - captured} used the fallback; "
          f"{strided} with strides differing from CPU")
    write_json(a.json, results)
    new_fail = [k for k, r in results.items() if r["status"] == "fail" and k not in KNOWN_FAIL]
    if new_fail:
        print("op_db: failing beyond the known list: " + ", ".join(new_fail))
    return 1 if counts["crash"] or rate < a.target or new_fail else 0


if __name__ == "__main__":
    sys.exit(main())
