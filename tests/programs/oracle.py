"""oracle.py - runs genie-API-shaped programs in PyTorch and writes them, with
PyTorch's answers, in the line format tests/programs/prog.c replays (see its header).

Used by gen_cases.py (table-driven cases) and gen_props.py (random programs).
Run with Debian's /usr/bin/python3 (python3-torch)."""
import math
import warnings
import torch
import torch.nn.functional as F

DT = {torch.float32: 'f32', torch.float64: 'f64', torch.float16: 'f16', torch.bfloat16: 'bf16',
      torch.int64: 'i64', torch.int32: 'i32', torch.int16: 'i16', torch.int8: 'i8', torch.uint8: 'u8',
      torch.bool: 'bool'}
warnings.filterwarnings('ignore')  # PyTorch's deprecation notes are not test output
FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
NONE = 'none'  # GENIE_DIM_NONE


def _all(t, dims):
    return tuple(dims) if len(dims) else tuple(range(t.dim()))


def _prod(t, dims, keepdim):
    t.sum(dim=_all(t, dims))  # raises where PyTorch rejects the dims
    if t.dim() == 0:
        return t.prod() if not t.is_floating_point() else t.prod()
    dims = sorted({d % t.dim() for d in _all(t, dims)}, reverse=True)
    r = t
    for d in dims:
        r = r.prod(d, keepdim=True)
    if not keepdim:
        for d in dims:
            r = r.squeeze(d)
    return r


def _clamp(t, lo, hi):
    if t.dtype == torch.bool:
        raise TypeError('genie: clamp of bool tensors is an error (README)')
    if not t.is_floating_point():  # genie converts the bounds to t's dtype
        lo = None if math.isnan(lo) else int(lo)
        hi = None if math.isnan(hi) else int(hi)
        return torch.clamp(t, lo, hi)
    lo = None if math.isnan(lo) else torch.tensor(lo, dtype=t.dtype).item()
    hi = None if math.isnan(hi) else torch.tensor(hi, dtype=t.dtype).item()
    return torch.clamp(t, lo, hi)


def _slice(t, d, start, end, step):
    if t.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor")
    d = d + t.dim() if d < 0 else d
    idx = [slice(None)] * t.dim()
    idx[d] = slice(start, end, step)
    return t[tuple(idx)]


def _layer_norm(x, s, w, b, eps):
    """F.layer_norm for its errors; the value from the definition in f64, since PyTorch's
    kernel is inexact even in f64 (a one-element row normalizes to 1.3e-6, not 0)."""
    r = F.layer_norm(x, s, w, b, eps)
    dims = tuple(range(x.dim() - len(s), x.dim()))
    xd = x.double()
    mean = xd.mean(dim=dims, keepdim=True)
    y = (xd - mean) / torch.sqrt(((xd - mean) ** 2).mean(dim=dims, keepdim=True) + eps)
    if w is not None:
        y = y * w.double()
    if b is not None:
        y = y + b.double()
    return r.copy_(y)  # keeps PyTorch's result layout


def _argmax(f):
    return lambda t, d, k: f(t, None if d == NONE else d, keepdim=bool(k))


OPS = {
    'zeros': lambda dt, s: torch.zeros(s, dtype=dt),
    'ones': lambda dt, s: torch.ones(s, dtype=dt),
    'full': lambda dt, s, v: torch.full(s, v, dtype=dt),
    'arange': lambda dt, a, b, c: torch.arange(a, b, c, dtype=dt),
    'add': torch.add, 'sub': torch.sub, 'mul': torch.mul, 'div': torch.div, 'pow': torch.pow,
    'maximum': torch.maximum, 'minimum': torch.minimum, 'eq': torch.eq, 'ne': torch.ne, 'lt': torch.lt,
    'le': torch.le, 'gt': torch.gt, 'ge': torch.ge, 'logical_and': torch.logical_and, 'logical_or': torch.logical_or,
    'add_scalar': torch.add, 'sub_scalar': torch.sub, 'mul_scalar': torch.mul, 'div_scalar': torch.div,
    'pow_scalar': torch.pow,
    'neg': torch.neg, 'abs': torch.abs, 'exp': torch.exp, 'log': torch.log, 'sqrt': torch.sqrt, 'rsqrt': torch.rsqrt,
    'sin': torch.sin, 'cos': torch.cos, 'tanh': torch.tanh, 'sigmoid': torch.sigmoid, 'relu': torch.relu,
    'gelu': F.gelu, 'gelu_tanh': lambda t: F.gelu(t, approximate='tanh'), 'silu': F.silu,
    'reciprocal': torch.reciprocal, 'square': torch.square, 'floor': torch.floor, 'ceil': torch.ceil,
    'round': torch.round, 'sign': torch.sign, 'erf': torch.erf, 'log1p': torch.log1p, 'expm1': torch.expm1,
    'logical_not': torch.logical_not, 'clamp': _clamp, 'where': torch.where,
    'sum': lambda t, d, k: t.sum(dim=_all(t, d), keepdim=bool(k)),
    'mean': lambda t, d, k: t.mean(dim=_all(t, d), keepdim=bool(k)),
    'amax': lambda t, d, k: t.amax(dim=_all(t, d), keepdim=bool(k)),
    'amin': lambda t, d, k: t.amin(dim=_all(t, d), keepdim=bool(k)),
    'prod': _prod,
    'logsumexp': lambda t, d, k: torch.logsumexp(t, dim=_all(t, d), keepdim=bool(k)),
    'argmax': _argmax(torch.argmax), 'argmin': _argmax(torch.argmin),
    'var': lambda t, d, c, k: torch.var(t, dim=_all(t, d), correction=c, keepdim=bool(k)),
    'std': lambda t, d, c, k: torch.std(t, dim=_all(t, d), correction=c, keepdim=bool(k)),
    'softmax': lambda t, d: torch.softmax(t, d), 'log_softmax': lambda t, d: torch.log_softmax(t, d),
    'layer_norm': _layer_norm,
    'matmul': torch.matmul, 'linear': F.linear,
    'conv2d': lambda x, w, b, s, p, d, g: F.conv2d(x, w, b, s, p, d, g),
    'to_dtype': lambda t, dt: t.to(dt), 'contiguous': lambda t: t.contiguous(), 'clone': torch.clone,
    'view': lambda t, s: t.view(s), 'reshape': lambda t, s: t.reshape(s), 'permute': lambda t, s: t.permute(s),
    'expand': lambda t, s: t.expand(s), 'flip': lambda t, s: t.flip(s),
    'transpose': lambda t, a, b: t.transpose(a, b), 't': lambda t: t.t(),
    'squeeze': lambda t, d: t.squeeze(d), 'unsqueeze': lambda t, d: t.unsqueeze(d), 'slice': _slice,
    'select': lambda t, d, i: t.select(d, i), 'narrow': lambda t, d, s, n: t.narrow(d, s, n),
    'diagonal': lambda t, o, a, b: t.diagonal(o, a, b),
    'as_strided': lambda t, s, st, o: t.as_strided(s, st, o),
    'cat': lambda ts, d: torch.cat(ts, d), 'stack': lambda ts, d: torch.stack(ts, d),
    'index_select': torch.index_select, 'gather': torch.gather,
    'embedding': lambda w, i: F.embedding(i, w),
    'masked_fill': lambda t, m, v: t.masked_fill(m, v),
    'tril': torch.tril, 'triu': torch.triu,
    'split': lambda t, s, d: torch.split(t, s, d), 'chunk': lambda t, c, d: torch.chunk(t, c, d),
    'unbind': lambda t, d: torch.unbind(t, d),
    'topk': lambda t, k, d, l, s: torch.topk(t, k, d, bool(l), bool(s)),
    'sort': lambda t, d, desc: torch.sort(t, dim=d, descending=bool(desc), stable=True),
    'max_dim': lambda t, d, k: torch.max(t, d, keepdim=bool(k)),
    'min_dim': lambda t, d, k: torch.min(t, d, keepdim=bool(k)),
    'get': lambda tup, i: tup[i],
    'add_': lambda a, b: a.add_(b), 'sub_': lambda a, b: a.sub_(b), 'mul_': lambda a, b: a.mul_(b),
    'div_': lambda a, b: a.div_(b), 'fill_': lambda a, v: a.fill_(v), 'zero_': lambda a: a.zero_(),
    'copy_': lambda a, b: a.copy_(b), 'relu_': lambda a: torch.relu_(a),
    'masked_fill_': lambda a, m, v: a.masked_fill_(m, v),
}


# Results where PyTorch's own rounding shows: genie computes in double and rounds once, so the
# oracle is PyTorch's f64 result rounded to the result dtype (PyTorch's bf16 log_softmax gives 0.0
# for -0.0017, its f32 layer_norm normalizes a constant row of 300s to 0.001, not 0).
LOWP_RECOMPUTE = {'softmax', 'log_softmax', 'layer_norm', 'logsumexp', 'var', 'std', 'mean', 'sum', 'prod',
                  'sigmoid', 'tanh', 'gelu', 'gelu_tanh', 'silu', 'exp', 'log', 'log1p', 'expm1', 'erf', 'sqrt',
                  'rsqrt', 'sin', 'cos', 'reciprocal', 'matmul', 'linear', 'conv2d', 'pow', 'pow_scalar', 'div',
                  'div_scalar'}
# Ops PyTorch lacks a bool CPU kernel for, which genie computes: the oracle runs them on u8.
BOOL_VIA_U8 = {'argmax', 'argmin', 'topk', 'max_dim', 'min_dim', 'sort', 'amax', 'amin'}


def genie_refuses(name, vals):
    """genie's deliberate dtype errors (README), which PyTorch skips on empty inputs."""
    ts = [v for v in vals if isinstance(v, torch.Tensor)]
    if not ts:
        return False
    t = ts[0]
    if name in ('softmax', 'log_softmax', 'layer_norm', 'mean', 'var', 'std') and not t.is_floating_point():
        return True
    if name in ('gelu', 'gelu_tanh', 'silu') and not t.is_floating_point():
        return True
    if name in ('matmul', 'linear', 'conv2d') and (t.dtype == torch.bool or any(x.dtype != t.dtype for x in ts)):
        return True
    if name in ('tril', 'triu') and t.dim() < 2:
        return True
    return name == 'clamp' and t.dtype == torch.bool


class Slot:
    def __init__(self, prog, idx, value):
        self.prog, self.idx, self.value = prog, idx, value


def fmt_val(x, dtype):
    if dtype == torch.bool:
        return '1' if x else '0'
    if dtype in FLOATS:
        return repr(float(x))
    return str(int(x))


class Prog:
    def __init__(self):
        self.lines = []
        self.n = 0

    def begin(self, name):
        self.lines.append('P ' + name)
        self.n = 0

    def _slot(self, value):
        s = Slot(self, self.n, value)
        self.n += 1
        return s

    def data(self, t):
        t = torch.empty(t.shape, dtype=t.dtype).copy_(t)  # plain contiguous strides, as genie's data
        s = self._slot(t)
        s.exact = True  # given, not computed: no rounding of genie's can differ from PyTorch's
        vals = ' '.join(fmt_val(x, t.dtype) for x in t.reshape(-1).tolist())
        self.lines.append('T %d data d:%s L:%s %s' % (s.idx, DT[t.dtype], ','.join(map(str, t.shape)), vals))
        return s

    def _tok(self, a):
        if isinstance(a, Slot):
            return '%%%d' % a.idx
        if a is None:
            return 'N'
        if a is NONE:
            return 'i:none'
        if isinstance(a, torch.dtype):
            return 'd:' + DT[a]
        if isinstance(a, bool) or isinstance(a, int):
            return 'i:%d' % int(a)
        if isinstance(a, float):
            return 'f:' + repr(a)
        if isinstance(a, (list, tuple)) and a and isinstance(a[0], Slot):
            return 'T:' + ','.join(str(x.idx) for x in a)
        if isinstance(a, (list, tuple)):
            return 'L:' + ','.join(str(int(x)) for x in a)
        raise TypeError(a)

    @staticmethod
    def _val(a):
        if isinstance(a, Slot):
            return a.value
        if isinstance(a, (list, tuple)) and a and isinstance(a[0], Slot):
            return [x.value for x in a]
        return a

    def op_idx(self, name, args, safe_args):
        """An index op: an error that the same op with in-range indices (safe_args)
        does not raise is data-dependent (genie reports it at realize)."""
        try:
            OPS[name](*[self._val(a) for a in safe_args])
            static_ok = True
        except (RuntimeError, IndexError, ValueError, TypeError):
            static_ok = False
        return self.op(name, *args, dd=static_ok)

    def op(self, name, *args, dd=False):
        """Run name(*args) in torch, emit it; returns the slot (value None on error).
        dd: an error here is data-dependent (genie reports it when computing).
        An op on a failed slot is not emitted (NULL in, NULL out is tested elsewhere)."""
        s = self._slot(None)
        for a in args:
            if isinstance(a, Slot) and (a.value is None or isinstance(a.value, str)):
                return s
            if isinstance(a, (list, tuple)) and any(isinstance(x, Slot) and x.value is None for x in a):
                return s
        self.lines.append('T %d %s %s' % (s.idx, name, ' '.join(self._tok(a) for a in args)))
        vals = [self._val(a) for a in args]
        try:
            s.value = OPS[name](*vals)
            if genie_refuses(name, vals):
                raise TypeError('genie refuses this dtype by design')
            if name in LOWP_RECOMPUTE and isinstance(s.value, torch.Tensor) and s.value.is_floating_point():
                s.value = self._recompute_f64(name, vals, s.value)
        except (RuntimeError, IndexError, ValueError, TypeError) as e:
            msg = str(e)
            fallback = None
            if "not implemented for 'Half'" in msg or "not implemented for 'BFloat16'" in msg:
                try:
                    fallback = self._lowp_fallback(name, vals)
                except (RuntimeError, IndexError, ValueError, TypeError):
                    fallback = None
            elif "for 'Bool'" in msg and name in BOOL_VIA_U8:
                try:
                    fallback = self._bool_fallback(name, vals)
                except (RuntimeError, IndexError, ValueError, TypeError):
                    fallback = None
            if fallback is not None:
                s.value = fallback
            elif dd:
                s.value = 'data_error'
                self.lines.append('R %d' % s.idx)
                return s
            else:
                s.value = None
                self.lines.append('X %d' % s.idx)
        return s

    @staticmethod
    def _lowp_fallback(name, vals):
        """Debian's torch lacks many f16 CPU kernels: compute in f32, round back."""
        low = [v.dtype for v in vals if isinstance(v, torch.Tensor) and v.dtype in (torch.float16, torch.bfloat16)]
        lowdt = low[0]
        if name in ('matmul', 'linear', 'conv2d', 'layer_norm') and \
                any(isinstance(v, torch.Tensor) and v.dtype != lowdt for v in vals):
            raise RuntimeError('mixed dtypes: the original error stands')
        conv = [v.float() if isinstance(v, torch.Tensor) and v.dtype == lowdt else v for v in vals]
        r = OPS[name](*conv)
        if isinstance(r, tuple):
            return tuple(x.to(lowdt) if x.dtype == torch.float32 else x for x in r)
        return r.to(lowdt) if r.dtype == torch.float32 else r

    @staticmethod
    def _recompute_f64(name, vals, native):
        """The f64 result, rounded into a tensor with the native result's dtype and layout.
        Inputs are cast to the common (result) dtype first, as PyTorch does, then widened."""
        conv = [v.to(native.dtype).double() if isinstance(v, torch.Tensor) else v for v in vals]
        out = torch.empty_strided(native.shape, native.stride(), dtype=native.dtype)
        return out.copy_(OPS[name](*conv))

    @staticmethod
    def _bool_fallback(name, vals):
        conv = [v.to(torch.uint8) if isinstance(v, torch.Tensor) and v.dtype == torch.bool else v for v in vals]
        r = OPS[name](*conv)
        if isinstance(r, tuple):
            return tuple(x.bool() if x.dtype == torch.uint8 else x for x in r)
        return r.bool() if r.dtype == torch.uint8 else r

    def expect(self, s, tol=None):
        """tol: a dtype whose precision bounds the comparison (lower-precision inputs)."""
        t = s.value
        if t is None or isinstance(t, (tuple, str)):
            return
        vals = ' '.join(fmt_val(x, t.dtype) for x in t.reshape(-1).tolist())
        dts = DT[t.dtype] + ('~' + DT[tol] if tol is not None and tol != t.dtype and t.dtype in FLOATS else '')
        self.lines.append('E %d %s L:%s L:%s %d %d %s' % (
            s.idx, dts, ','.join(map(str, t.shape)), ','.join(map(str, t.stride())),
            t.storage_offset(), int(t.is_contiguous()), vals))

    def shares(self, a, b):
        if not isinstance(a.value, torch.Tensor) or not isinstance(b.value, torch.Tensor):
            return
        pa, pb = a.value.storage().data_ptr(), b.value.storage().data_ptr()
        if pa == 0 or pb == 0:  # empty storages have no address to compare
            return
        self.lines.append('S %d %d %d' % (a.idx, b.idx, int(pa == pb)))

    def gathered(self, idx, src, dim, vals):
        """Indices are checked by gathering (any index of a tied value is right)."""
        if all(isinstance(x.value, torch.Tensor) for x in (idx, src, vals)):
            self.lines.append('G %d %d %d %d' % (idx.idx, src.idx, dim, vals.idx))

    def run(self, name, *args, dd=False):
        """op + expect."""
        s = self.op(name, *args, dd=dd)
        self.expect(s)
        return s

    def write(self, path):
        with open(path, 'w') as f:
            f.write('\n'.join(self.lines) + '\n')
