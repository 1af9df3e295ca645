"""gen_props.py - random programs checked against PyTorch.

  views: a base tensor, random chains of 1-8 view operations (all of genie's,
         negative dims, size-0/1 dims, ranks up to GENIE_MAX_DIMS), random
         in-place writes through random aliases, reads of random aliases in
         between: values, shapes, strides, offsets, contiguity, shared storage
         and errors are compared.
  graphs: random small graphs (broadcasting, reductions, views, matmul, type
         promotion with 0-dim tensors and scalars).

  ops:   every operation of the API on random shapes, dtypes and arguments,
         valid and invalid (errors must match PyTorch's).

usage: gen_props.py MODE COUNT SEED OUT     (MODE: views | graphs | ops)
The seed of each program is in its P line, so any failure can be replayed."""
import random
import sys
import torch
from oracle import Prog, FLOATS, NONE, OPS

MAXD = 8
P = Prog()


# ---- ATen's overlap rules, to know which writes have a defined result ----
def dense(t):
    if t.dim() == 0 or t.is_contiguous():
        return True
    if t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last):
        return True
    if t.dim() == 5 and t.is_contiguous(memory_format=torch.channels_last_3d):
        return True
    if t.dim() == 1:
        return t.shape[0] < 2 or t.stride(0) == 1
    dims = sorted(range(t.dim()), key=lambda d: (t.shape[d] < 2, t.stride(d) if t.shape[d] >= 2 else 0))
    req = 1
    for d in dims:
        if t.shape[d] < 2:
            return True
        if t.stride(d) != req:
            return False
        req *= t.shape[d]
    return True


def internal_overlap(t):  # 'no' | 'yes' | 'too_hard'
    if dense(t):
        return 'no'
    if any(t.stride(d) == 0 and t.shape[d] > 1 for d in range(t.dim())):
        return 'yes'
    return 'too_hard'


def offsets(t):
    idx = torch.zeros(t.shape, dtype=torch.int64) + t.storage_offset()
    for d in range(t.dim()):
        shape = [1] * t.dim()
        shape[d] = t.shape[d]
        idx = idx + (torch.arange(t.shape[d]) * t.stride(d)).view(shape)
    return idx.reshape(-1).tolist()


def really_self_overlaps(t):
    o = offsets(t)
    return len(o) != len(set(o))


def same_storage(a, b):
    return a.storage().data_ptr() == b.storage().data_ptr() and a.storage().data_ptr() != 0


def overlap_status(a, b):  # get_overlap_status
    if a.numel() == 0 or b.numel() == 0:
        return 'no'
    if not dense(a) or not dense(b):
        return 'too_hard'
    if same_storage(a, b):
        ab, ae = a.storage_offset(), a.storage_offset() + a.numel()
        bb, be = b.storage_offset(), b.storage_offset() + b.numel()
        if ab == bb and ae == be:
            return 'full' if a.stride() == b.stride() else 'partial'
        if ab < be and bb < ae:
            return 'partial'
    return 'no'


# ---- random view operations ----
def rdim(rng, nd, extra=0):
    r = max(nd, 1) + extra
    return rng.randint(-r, r - 1)


def factor_shape(rng, numel, maxd):
    if numel == 0:
        shape = [rng.randint(0, 3) for _ in range(rng.randint(1, 3))]
        shape[rng.randrange(len(shape))] = 0
        return shape
    shape, n = [], numel
    while n > 1 and len(shape) < maxd - 1:
        divs = [k for k in range(2, n + 1) if n % k == 0]
        k = rng.choice(divs)
        shape.append(k)
        n //= k
        if rng.random() < 0.2:
            shape.append(1)
    if n > 1:
        shape.append(n)
    rng.shuffle(shape)
    return shape[:maxd]


def random_view(rng, s):
    """Apply one random view operation to slot s (often valid, sometimes not)."""
    t = s.value
    nd = t.dim()
    rng.random()  # unused draw, kept so every seed still replays the program it always made
    ops = ['view', 'reshape', 'permute', 'transpose', 't', 'expand', 'squeeze', 'unsqueeze', 'slice', 'select',
           'narrow', 'diagonal', 'as_strided', 'split', 'chunk', 'unbind', 'flip', 'contiguous', 'to_dtype']
    op = rng.choice(ops)
    if op in ('view', 'reshape'):
        shape = factor_shape(rng, t.numel(), MAXD)
        if shape and rng.random() < 0.3:
            shape[rng.randrange(len(shape))] = -1
        if rng.random() < 0.05 and len(shape) < MAXD:  # a shape of the wrong size; never over genie's 8 dims
            shape = shape + [2]                          # (views-28002192: 9 of the right size, a view PyTorch takes)
        return P.op(op, s, tuple(shape))
    if op == 'permute':
        perm = list(range(nd))
        rng.shuffle(perm)
        perm = [p - nd if rng.random() < 0.3 else p for p in perm]
        return P.op(op, s, tuple(perm))
    if op == 'transpose':
        return P.op(op, s, rdim(rng, nd), rdim(rng, nd))
    if op == 't':
        return P.op(op, s)
    if op == 'expand':
        lead = rng.randint(0, min(2, MAXD - nd))
        shape = [rng.randint(0, 3) for _ in range(lead)]
        for d in range(nd):
            sz = t.shape[d]
            if sz == 1 and rng.random() < 0.6:
                shape.append(rng.randint(0, 3))
            else:
                shape.append(-1 if rng.random() < 0.5 else sz)
        if rng.random() < 0.05 and nd:
            shape[-1] = t.shape[-1] + 1
        return P.op(op, s, tuple(shape))
    if op == 'squeeze':
        return P.op(op, s, rdim(rng, nd))
    if op == 'unsqueeze':
        if nd >= MAXD:
            return P.op('squeeze', s, rdim(rng, nd))
        return P.op(op, s, rdim(rng, nd + 1))
    if op == 'slice':
        d = rdim(rng, nd)
        sz = t.shape[d] if nd and -nd <= d < nd else 3
        return P.op(op, s, d, rng.randint(-sz - 1, sz + 1), rng.randint(-sz - 1, sz + 2), rng.choice([1, 1, 2, 3]))
    if op == 'select':
        d = rdim(rng, nd)
        sz = t.shape[d] if nd and -nd <= d < nd else 1
        return P.op(op, s, d, rng.randint(-sz, max(sz - 1, 0)) if rng.random() < 0.9 else sz)
    if op == 'narrow':
        d = rdim(rng, nd)
        sz = t.shape[d] if nd and -nd <= d < nd else 1
        start = rng.randint(-sz, sz)
        return P.op(op, s, d, start, rng.randint(0, max(sz - (start % max(sz, 1)), 0) + (1 if rng.random() < 0.1 else 0)))
    if op == 'diagonal':
        return P.op(op, s, rng.randint(-2, 2), rdim(rng, nd), rdim(rng, nd))
    if op == 'as_strided':
        storage = t.storage().size()
        r = rng.randint(0, 3)
        size = [rng.randint(0, 3) for _ in range(r)]
        stride = [rng.randint(0, 4) for _ in range(r)]
        span = sum((a - 1) * b for a, b in zip(size, stride) if a > 0)
        hi = storage - span - 1
        off = rng.randint(0, hi) if hi >= 0 else 0
        if rng.random() < 0.05:
            off = storage
        return P.op(op, s, tuple(size), tuple(stride), off)
    if op in ('split', 'chunk'):
        d = rdim(rng, nd)
        tup = P.op(op, s, rng.randint(1, 3), d)
        n = len(tup.value) if isinstance(tup.value, tuple) else 1
        return P.op('get', tup, rng.randrange(n)) if isinstance(tup.value, tuple) else tup
    if op == 'unbind':
        tup = P.op(op, s, rdim(rng, nd))
        if isinstance(tup.value, tuple) and len(tup.value):
            return P.op('get', tup, rng.randrange(len(tup.value)))
        return tup
    if op == 'flip':
        dims = tuple(sorted({rdim(rng, nd) for _ in range(rng.randint(0, nd))}))
        return P.op(op, s, dims)
    if op == 'contiguous':
        return P.op(op, s)
    return P.op('to_dtype', s, t.dtype)


def random_write(rng, aliases):
    dst = rng.choice(aliases)
    t = dst.value
    op = rng.choice(['add_', 'sub_', 'mul_', 'div_', 'fill_', 'zero_', 'copy_', 'relu_', 'masked_fill_', 'copy_', 'add_'])
    rmw = op in ('add_', 'sub_', 'mul_', 'div_', 'relu_')
    src = None
    if op in ('add_', 'sub_', 'mul_', 'div_', 'copy_'):
        if rng.random() < 0.4:
            src = rng.choice(aliases)
        else:
            nd = rng.randint(0, t.dim())
            shape = [1 if rng.random() < 0.3 else t.shape[t.dim() - nd + i] for i in range(nd)]
            dt = t.dtype if rng.random() < 0.8 else rng.choice([torch.int64, torch.float64, torch.float32])
            v = torch.randint(1, 5, shape).to(dt)
            src = P.data(v)
    if op == 'masked_fill_':
        nd = rng.randint(0, t.dim())
        shape = [1 if rng.random() < 0.3 else t.shape[t.dim() - nd + i] for i in range(nd)]
        src = P.data(torch.rand(shape) > 0.5)
    ov = internal_overlap(t)
    if ov == 'too_hard' and really_self_overlaps(t):
        if rmw:  # genie refuses: no defined result (README); PyTorch would run it in some order
            P.lines.append('T %d %s %s' % (P.n, op, ' '.join(P._tok(a) for a in [dst] + ([src] if src else []))))
            P.lines.append('X %d' % P.n)
            P.n += 1
            return
        if op == 'copy_':
            return  # the last writer depends on iteration order: no defined answer to compare
    if src is not None and op != 'masked_fill_' and src.value is not None and same_storage(t, src.value) \
            and overlap_status(t, src.value) == 'too_hard' and not (t.stride() == src.value.stride()
                                                                   and t.storage_offset() == src.value.storage_offset()
                                                                   and t.shape == src.value.shape):
        if set(offsets(t)) & set(offsets(src.value)):
            return  # order-dependent in PyTorch; genie reads the old values (README)
    args = {'fill_': [dst, float(rng.randint(-3, 3))], 'zero_': [dst], 'relu_': [dst],
            'masked_fill_': [dst, src, float(rng.randint(-3, 3))]}.get(op, [dst, src])
    P.op(op, *args)


def prog_views(seed):
    rng = random.Random(seed)
    torch.manual_seed(seed)
    P.begin('views-%d' % seed)
    rank = rng.randint(0, 4)
    shape = [rng.choice([0, 1, 1, 2, 2, 3, 3, 4]) if rng.random() < 0.15 else rng.randint(1, 4) for _ in range(rank)]
    dt = rng.choice([torch.float32] * 4 + [torch.int64, torch.float64])
    base = P.data(torch.randint(-4, 5, shape).to(dt))
    aliases = [base]
    for _ in range(rng.randint(3, 10)):
        k = rng.random()
        if k < 0.55:
            s = rng.choice(aliases)
            for _ in range(rng.randint(1, 8)):
                n = random_view(rng, s)
                if not isinstance(n.value, torch.Tensor):
                    break
                s = n
            if isinstance(s.value, torch.Tensor) and s is not base:
                aliases.append(s)
        elif k < 0.85:
            random_write(rng, aliases)
        else:
            a = rng.choice(aliases)
            P.expect(a)
            P.shares(a, base)
    for a in aliases:
        P.expect(a)
        P.shares(a, base)
        P.shares(a, rng.choice(aliases))


# ---- random graphs: broadcasting, reductions, views, matmul, promotion ----
GDT = [torch.float32, torch.float32, torch.float64, torch.int64, torch.int32, torch.float16, torch.bool, torch.uint8]


def f32_bf16(a, b):  # a product genie takes where PyTorch raises: f32 with bf16, either order
    return {a.value.dtype, b.value.dtype} == {torch.float32, torch.bfloat16}


def prog_graphs(seed):
    rng = random.Random(seed)
    torch.manual_seed(seed)
    P.begin('graphs-%d' % seed)
    pool = []
    for _ in range(rng.randint(2, 4)):
        r = rng.randint(0, 3)
        shape = [rng.randint(1, 4) for _ in range(r)]
        dt = rng.choice(GDT)
        v = torch.randint(-3, 4, shape).to(dt) if dt != torch.bool else torch.rand(shape) > 0.5
        pool.append(P.data(v))
    for _ in range(rng.randint(3, 8)):
        a = rng.choice(pool)
        b = rng.choice(pool)
        t = a.value
        k = rng.random()
        # zs: the value may hold a zero whose sign PyTorch leaves to its kernel's path: min and
        # max of -0.0 and 0.0 (and relu, a max with 0) return either, by vector width or tail
        za, zb = getattr(a, 'zsign', False), getattr(b, 'zsign', False)
        if k < 0.35:
            op = rng.choice(['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'lt', 'ge', 'eq', 'logical_or'])
            if op == 'div' and zb and isinstance(b.value, torch.Tensor) and bool((b.value == 0).any()):
                continue  # x / that zero is inf of either sign (graphs-9010163)
            n = P.op(op, a, b)
            zs = za or zb or op in ('maximum', 'minimum')
        elif k < 0.45:
            n = P.op(rng.choice(['add_scalar', 'mul_scalar', 'sub_scalar']), a, float(rng.randint(-2, 2)) + rng.choice([0, 0.5]))
            zs = za
        elif k < 0.6:
            dims = tuple(sorted({rdim(rng, t.dim()) for _ in range(rng.randint(0, t.dim()))}))
            op = rng.choice(['sum', 'amax', 'amin', 'mean', 'prod'])
            n = P.op(op, a, dims, rng.randint(0, 1))
            zs = za or op in ('amax', 'amin')
        elif k < 0.7:
            if (a.value.dtype != b.value.dtype or a.value.dtype == torch.bool) and \
                    (a.value.numel() == 0 or b.value.numel() == 0):
                continue  # PyTorch skips the dtype check when the product is empty (README)
            if f32_bf16(a, b):
                continue  # genie multiplies f32 with bf16 (an f32 result) where PyTorch raises (README)
            n = P.op('matmul', a, b)
            zs = za or zb
        elif k < 0.8:
            op = rng.choice(['neg', 'abs', 'exp', 'relu', 'sigmoid', 'square', 'logical_not'])
            n = P.op(op, a)
            zs = za or op == 'relu'
        elif k < 0.9:
            n = random_view(rng, a)
            zs = za
        else:
            n = P.op('where', P.op('gt', a, b), a, b)
            zs = za or zb
        n.zsign = zs
        if isinstance(n.value, torch.Tensor):
            lows = [x.value.dtype for x in pool if x.value.dtype in (torch.float16, torch.bfloat16, torch.float32)]
            tol = min(lows, key=lambda d: {torch.bfloat16: 0, torch.float16: 1, torch.float32: 2}[d]) if lows else None
            P.expect(n, tol)
            pool.append(n)


# ---- random operations: every op of the API on random shapes, dtypes, arguments ----
ODT = [torch.float32, torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
       torch.int8, torch.uint8, torch.bool]
UNARY = ['neg', 'abs', 'exp', 'log', 'sqrt', 'rsqrt', 'sin', 'cos', 'tanh', 'sigmoid', 'relu', 'gelu', 'gelu_tanh',
         'silu', 'reciprocal', 'square', 'floor', 'ceil', 'round', 'sign', 'erf', 'log1p', 'expm1', 'logical_not']
BINARY = ['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'eq', 'ne', 'lt', 'le', 'gt', 'ge',
          'logical_and', 'logical_or']


def pool_tol(pool):
    """The precision that bounds values computed from the pool: its lowest float dtype's."""
    return (torch.bfloat16 if any(x.value.dtype in (torch.float16, torch.bfloat16) for x in pool)
            else torch.float32 if any(x.value.dtype == torch.float32 for x in pool) else None)


def pool_r(pool):
    """The relative tolerance prog.c compares values computed from the pool with."""
    lows = [x.value.dtype for x in pool]
    return 1.6e-2 if torch.float16 in lows or torch.bfloat16 in lows else 2e-5 if torch.float32 in lows else 1e-9


# unary functions with a jump or a pole: where their argument must not be within tolerance
SINGULAR = {'log': 'zero', 'rsqrt': 'zero', 'reciprocal': 'zero', 'sqrt': 'zero', 'sign': 'zero',
            'log1p': 'minus_one', 'floor': 'integer', 'ceil': 'integer', 'round': 'half'}


def near_singular(x, kind, r):
    """Whether some element of the computed floats x lies within the comparison's tolerance of
    a point where the function jumps or has a pole, so a rounding difference genie may have in x
    changes the result beyond any tolerance (log of a sum that cancels to 0 or to 1e-9)."""
    if x.dtype not in FLOATS or x.numel() == 0:
        return False
    v = x.double().reshape(-1)
    v = v[torch.isfinite(v)]
    margin = r * v.abs() + r * 0.5
    d = {'zero': v.abs(), 'minus_one': (v + 1).abs(), 'integer': (v - v.round()).abs(),
         'half': ((v - v.floor()) - 0.5).abs()}[kind]
    return bool((d <= margin).any())


# functions whose relative error can be far above their arguments': poles and powers, and
# exponentials and sines of large arguments (cos of a prod that came out 392445.03 in genie and
# 392445.0 in PyTorch, one f32 ulp apart, differs by 0.012: ops-7305217)
ILL = {'reciprocal': lambda x: 1 / x, 'rsqrt': torch.rsqrt, 'log': torch.log, 'sqrt': torch.sqrt,
       'div': torch.div, 'pow': torch.pow, 'exp': torch.exp, 'expm1': torch.expm1, 'sin': torch.sin,
       'cos': torch.cos}


def near_tie(a, b, ea, eb, r):
    """Whether a comparison of a and b (ea, eb: exact values) is ill-conditioned: some pair of
    elements, one of them computed, within the comparison's tolerance of each other, so a
    rounding difference genie may have (a SIMD gelu one ulp apart) flips its result: le(x,
    gelu_tanh(x)) at x = 4.97, where gelu_tanh(x) is x or one ulp below it (ops-26003574)."""
    if (ea and eb) or a.numel() == 0 or b.numel() == 0 or \
            (a.dtype not in FLOATS and b.dtype not in FLOATS):
        return False
    x, y = torch.broadcast_tensors(a.double(), b.double())
    ok = torch.isfinite(x) & torch.isfinite(y)
    d = (x - y).abs()[ok]
    m = r * torch.maximum(x.abs(), y.abs())[ok] + r * 0.5
    return bool((d <= m).any())


CMP = ('eq', 'ne', 'lt', 'le', 'gt', 'ge')


def ill_conditioned(f, args, r):
    """Whether f (on float64 tensors) moves beyond the comparison's tolerance (r relative, r/2
    absolute: prog.c) when a computed float argument moves by r/20 relative plus r/20 absolute,
    a few ulp of operands near 1 in f32: the rounding differences genie may have in a value that
    cancelled to near 0 (1 / -1.0141e-4, computed from O(1) operands, is only good to ~1e-5), or
    in a row that normalization divides by its tiny spread (layer_norm of erf's outputs, all
    within 1e-3 of 1). Each argument moves all one way and alternately (a uniform shift is
    invisible to a normalization). args: (tensor, exact) pairs; an exact argument does not move."""
    if all(exact or t.dtype not in FLOATS or t.numel() == 0 for t, exact in args):
        return False
    xs = [t.double() if t.dtype in FLOATS else t for t, _ in args]
    with torch.no_grad():
        y0 = f(*xs)
        for i, (t, exact) in enumerate(args):
            if exact or t.dtype not in FLOATS or t.numel() == 0:
                continue
            alt = (torch.arange(xs[i].numel(), dtype=torch.float64) % 2 * 2 - 1).reshape(xs[i].shape)
            for sgn in (1.0, -1.0, alt, -alt):
                moved = list(xs)
                moved[i] = xs[i] + sgn * (r / 20) * (xs[i].abs() + 1)
                y = f(*moved)
                same = (y == y0) | (torch.isnan(y) & torch.isnan(y0)) | \
                    (torch.isfinite(y) & torch.isfinite(y0) & ((y - y0).abs() <= r * y0.abs() + r * 0.5))
                if not bool(same.all()):
                    return True
    return False


def flips(x, dt, r):
    """Whether converting computed floats x to the integer (or bool) dtype dt is ill-conditioned:
    some element within the comparison's tolerance (r relative, r/2 absolute: prog.c) of an
    integer (truncation flips there; bool: of 0) or outside dt's range (wraps), so a rounding
    difference genie may have in x changes the result."""
    if x.dtype not in FLOATS or dt in FLOATS:
        return False
    v = x.double().reshape(-1)
    if v.numel() == 0:
        return False
    if not bool(torch.isfinite(v).all()):
        return True
    margin = r * v.abs() + r * 0.5
    if dt == torch.bool:
        return bool((v.abs() <= margin).any())
    lo, hi = torch.iinfo(dt).min, torch.iinfo(dt).max
    return bool(((v - margin) < lo).any() or ((v + margin) > hi).any() or ((v - v.round()).abs() <= margin).any())


def rand_tensor(rng, shape=None, dt=None):
    if shape is None:
        shape = [rng.choice([0, 1, 2, 3, 4]) if rng.random() < 0.2 else rng.randint(1, 4) for _ in range(rng.randint(0, 3))]
    dt = dt or rng.choice(ODT)
    if dt == torch.bool:
        return torch.rand(shape) > 0.5
    x = torch.randint(-3, 4, shape).to(torch.float64)
    if dt in FLOATS:
        x = x + torch.rand(shape, dtype=torch.float64).round(decimals=2)
    if dt == torch.uint8:
        x = x.abs()
    return x.to(dt)


def rand_dims(rng, nd):
    return tuple(sorted({rdim(rng, nd) for _ in range(rng.randint(0, max(nd, 1)))}))


def index_tensor(rng, shape, hi, bad):
    lo_v, hi_v = (-1, hi + 1) if bad else (0, max(hi - 1, 0))
    return torch.randint(lo_v, hi_v + 1, shape) if hi > 0 or bad else torch.zeros(shape, dtype=torch.int64)


def prog_ops(seed):
    rng = random.Random(seed)
    torch.manual_seed(seed)
    P.begin('ops-%d' % seed)
    pool = [P.data(rand_tensor(rng)) for _ in range(rng.randint(2, 4))]
    for _ in range(rng.randint(4, 10)):
        a = rng.choice(pool)
        b = rng.choice(pool)
        t = a.value
        nd = t.dim()
        k = rng.randrange(16)
        n = None
        if k == 0:
            op = rng.choice(UNARY)
            n = P.op(op, a)
            if op in SINGULAR and not getattr(a, 'exact', False) and n.value is not None and \
                    near_singular(a.value, SINGULAR[op], pool_r(pool)):
                continue  # not compared, not reused: see near_singular
            if op in ILL and n.value is not None and ill_conditioned(ILL[op], [(a.value, getattr(a, 'exact', False))],
                                                                     pool_r(pool)):
                continue  # likewise: see ill_conditioned
        elif k == 1:
            op = rng.choice(BINARY)
            n = P.op(op, a, b)
            if op in CMP and n.value is not None and \
                    near_tie(a.value, b.value, getattr(a, 'exact', False), getattr(b, 'exact', False), pool_r(pool)):
                continue  # not compared, not reused: see near_tie
            if op in ILL and n.value is not None and \
                    ill_conditioned(ILL[op], [(a.value, getattr(a, 'exact', False)), (b.value, getattr(b, 'exact', False))],
                                    pool_r(pool)):
                continue
        elif k == 2:
            op = rng.choice(['add_scalar', 'sub_scalar', 'mul_scalar', 'div_scalar', 'pow_scalar'])
            s = rng.choice([2.0, -1.5, 0.5, 0.0, 3.0])
            n = P.op(op, a, s)
            if op in ('div_scalar', 'pow_scalar') and n.value is not None and \
                    ill_conditioned(torch.div if op == 'div_scalar' else torch.pow,
                                    [(a.value, getattr(a, 'exact', False)), (torch.tensor(s, dtype=torch.float64), True)],
                                    pool_r(pool)):
                continue
        elif k == 3:
            lo, hi = rng.choice([(-1.0, 1.0), (float('nan'), 0.5), (0.5, float('nan')), (2.0, -2.0), (-2.5, 1.5)])
            n = P.op('clamp', a, lo, hi)
        elif k == 4:
            n = P.op('where', P.op('gt', a, b), a, rng.choice(pool))
        elif k == 5:
            op = rng.choice(['sum', 'mean', 'amax', 'amin', 'prod', 'logsumexp'])
            dims = rand_dims(rng, nd)
            if op == 'prod' and len(dims) > 1 and t.dtype in (torch.float16, torch.bfloat16):
                dims = dims[:1]
            n = P.op(op, a, dims, rng.randint(0, 1))
        elif k == 6:
            op = rng.choice(['var', 'std', 'argmax', 'argmin', 'softmax', 'log_softmax'])
            if op in ('var', 'std'):
                dims, corr, keep = rand_dims(rng, nd), rng.randint(0, 2), rng.randint(0, 1)
                n = P.op(op, a, dims, corr, keep)
                if n.value is not None and ill_conditioned(lambda x: OPS[op](x, dims, corr, keep),
                                                           [(a.value, getattr(a, 'exact', False))], pool_r(pool)):
                    continue
            elif op in ('argmax', 'argmin'):
                n = P.op(op, a, NONE if rng.random() < 0.3 else rdim(rng, nd), rng.randint(0, 1))
            else:
                n = P.op(op, a, rdim(rng, nd))
        elif k == 7:
            kk = rng.randint(1, max(nd, 1))
            shape = tuple(t.shape[nd - kk:]) if nd and rng.random() < 0.85 else (rng.randint(1, 3),)
            w = P.data(rand_tensor(rng, list(shape), t.dtype)) if rng.random() < 0.6 else None
            bb = P.data(rand_tensor(rng, list(shape), t.dtype)) if rng.random() < 0.6 else None
            n = P.op('layer_norm', a, shape, w, bb, 1e-5)
            if n.value is not None and ill_conditioned(
                    lambda x, wv, bv: OPS['layer_norm'](x, shape, wv if w is not None else None, bv if bb is not None else None, 1e-5),
                    [(x.value, getattr(x, 'exact', False)) for x in (a, w or a, bb or a)], pool_r(pool)):
                continue
        elif k == 8:
            if rng.random() < 0.5:
                n = P.op('matmul', a, b) if not ((a.value.dtype != b.value.dtype or a.value.dtype == torch.bool) and
                                                 (a.value.numel() == 0 or b.value.numel() == 0)) and not f32_bf16(a, b) else None
            else:
                kin = t.shape[-1] if nd else 2
                w = P.data(rand_tensor(rng, [rng.randint(1, 3), kin if rng.random() < 0.9 else kin + 1], t.dtype))
                bias = P.data(rand_tensor(rng, [w.value.shape[0]], t.dtype)) if rng.random() < 0.5 else None
                if t.numel() and t.dtype != torch.bool:
                    n = P.op('linear', a, w, bias)
        elif k == 9:
            c = rng.randint(1, 3)
            g = rng.choice([1, 1, c])
            x = P.data(rand_tensor(rng, [rng.randint(1, 2), c * g, rng.randint(1, 5), rng.randint(1, 5)], torch.float32))
            w = P.data(rand_tensor(rng, [g * rng.randint(1, 2), c if rng.random() < 0.9 else c + 1, rng.randint(1, 3),
                                         rng.randint(1, 3)], torch.float32))
            bias = P.data(rand_tensor(rng, [w.value.shape[0]], torch.float32)) if rng.random() < 0.5 else None
            n = P.op('conv2d', x, w, bias, (rng.randint(1, 2), rng.randint(1, 2)), (rng.randint(0, 1), rng.randint(0, 1)),
                     (rng.randint(1, 2), 1), g)
        elif k == 10:
            parts = [a] + [P.op(rng.choice(['clone', 'contiguous']), a) if rng.random() < 0.5 else rng.choice(pool)
                           for _ in range(rng.randint(0, 2))]
            n = P.op(rng.choice(['cat', 'stack']), parts, rdim(rng, nd, 1))
        elif k == 11:
            if nd == 0:
                continue
            d = rdim(rng, nd)
            size = t.shape[d]
            bad = rng.random() < 0.2
            op = rng.choice(['index_select', 'gather', 'embedding'])
            if size == 0 or (op == 'embedding' and nd == 2 and t.shape[0] == 0):
                continue  # every index is out of range: data-dependent, covered by the bad case
            if op == 'index_select':
                shp = [rng.randint(0, 3)]
                idx, safe = index_tensor(rng, shp, size, bad), index_tensor(rng, shp, size, False)
                n = P.op_idx(op, [a, d, P.data(idx)], [a, d, P.data(safe)])
            elif op == 'gather':
                shp = [rng.randint(0, s) if i != d % nd else rng.randint(0, 3) for i, s in enumerate(t.shape)]
                idx, safe = index_tensor(rng, shp, size, bad), index_tensor(rng, shp, size, False)
                n = P.op_idx(op, [a, d, P.data(idx)], [a, d, P.data(safe)])
            elif nd == 2:
                shp = [rng.randint(0, 3) for _ in range(rng.randint(0, 2))]
                idx, safe = index_tensor(rng, shp, t.shape[0], bad), index_tensor(rng, shp, t.shape[0], False)
                n = P.op_idx(op, [a, P.data(idx)], [a, P.data(safe)])
        elif k == 12:
            m = P.data(torch.rand([s if rng.random() < 0.8 else 1 for s in t.shape]) > 0.5)
            n = P.op('masked_fill', a, m, rng.choice([1.0, -2.0, 0.5, 300.0]))
        elif k == 13:
            n = P.op(rng.choice(['tril', 'triu']), a, rng.randint(-2, 2))
        elif k == 14:
            op = rng.choice(['topk', 'sort', 'max_dim', 'min_dim'])
            d = rdim(rng, nd)
            if op == 'topk':
                size = t.shape[d] if nd and -nd <= d < nd else 1
                args = (rng.randint(0, size + (1 if rng.random() < 0.1 else 0)), d, rng.randint(0, 1), 1)
            elif op == 'sort':
                args = (d, rng.randint(0, 1))
            else:
                args = (d, rng.randint(0, 1))
            tup = P.op(op, a, *args)
            if isinstance(tup.value, tuple):
                vals = P.op('get', tup, 0)
                P.expect(vals, pool_tol(pool))  # the values may be computed ones, as below
                P.gathered(P.op('get', tup, 1), a, d, vals)
            continue
        else:
            op = rng.choice(['to_dtype', 'clone', 'contiguous', 'flip'])
            if op == 'to_dtype':
                dt = rng.choice(ODT)
                n = P.op(op, a, dt)
                if not getattr(a, 'exact', False) and n.value is not None and flips(a.value, dt, pool_r(pool)):
                    continue  # a computed value whose conversion rounding can flip: not compared, not reused
            elif op == 'flip':
                n = P.op(op, a, rand_dims(rng, nd))
            else:
                n = P.op(op, P.op('t', a) if nd == 2 else a)
        if n is not None and isinstance(n.value, torch.Tensor):
            P.expect(n, pool_tol(pool))
            if n.value.numel() < 64:
                pool.append(n)


def main():
    mode, count, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    gen = {'views': prog_views, 'graphs': prog_graphs, 'ops': prog_ops}[mode]
    for i in range(count):
        gen(seed + i)
    P.write(out)
    print('%s: %d programs from seed %d, %d lines -> %s' % (mode, count, seed, len(P.lines), out))


if __name__ == '__main__':
    main()
