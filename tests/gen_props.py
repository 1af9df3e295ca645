"""gen_props.py - random programs checked against PyTorch.

  views: a base tensor, random chains of 1-8 view operations (all of genie's,
         negative dims, size-0/1 dims, ranks up to GENIE_MAX_DIMS), random
         in-place writes through random aliases, reads of random aliases in
         between: values, shapes, strides, offsets, contiguity, shared storage
         and errors are compared.
  graphs: random small graphs (broadcasting, reductions, views, matmul, type
         promotion with 0-dim tensors and scalars).

usage: gen_props.py MODE COUNT SEED OUT     (MODE: views | graphs)
The seed of each program is in its P line, so any failure can be replayed."""
import random
import sys
import torch
from oracle import Prog, Slot, FLOATS

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
    k = rng.random()
    ops = ['view', 'reshape', 'permute', 'transpose', 't', 'expand', 'squeeze', 'unsqueeze', 'slice', 'select',
           'narrow', 'diagonal', 'as_strided', 'split', 'chunk', 'unbind', 'flip', 'contiguous', 'to_dtype']
    op = rng.choice(ops)
    if op in ('view', 'reshape'):
        shape = factor_shape(rng, t.numel(), MAXD)
        if shape and rng.random() < 0.3:
            shape[rng.randrange(len(shape))] = -1
        if rng.random() < 0.05:
            shape = shape + [2]
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


def small(rng, shape, dtype):
    x = torch.randint(-4, 5, shape, generator=None).to(dtype) if shape is not None else None
    return x


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
        if k < 0.35:
            op = rng.choice(['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'lt', 'ge', 'eq', 'logical_or'])
            n = P.op(op, a, b)
        elif k < 0.45:
            n = P.op(rng.choice(['add_scalar', 'mul_scalar', 'sub_scalar']), a, float(rng.randint(-2, 2)) + rng.choice([0, 0.5]))
        elif k < 0.6:
            dims = tuple(sorted({rdim(rng, t.dim()) for _ in range(rng.randint(0, t.dim()))}))
            op = rng.choice(['sum', 'amax', 'amin', 'mean', 'prod'])
            n = P.op(op, a, dims, rng.randint(0, 1))
        elif k < 0.7:
            if (a.value.dtype != b.value.dtype or a.value.dtype == torch.bool) and \
                    (a.value.numel() == 0 or b.value.numel() == 0):
                continue  # PyTorch skips the dtype check when the product is empty (README)
            n = P.op('matmul', a, b)
        elif k < 0.8:
            n = P.op(rng.choice(['neg', 'abs', 'exp', 'relu', 'sigmoid', 'square', 'logical_not']), a)
        elif k < 0.9:
            n = random_view(rng, a)
        else:
            n = P.op('where', P.op('gt', a, b), a, b)
        if isinstance(n.value, torch.Tensor):
            lows = [x.value.dtype for x in pool if x.value.dtype in (torch.float16, torch.bfloat16, torch.float32)]
            tol = min(lows, key=lambda d: {torch.bfloat16: 0, torch.float16: 1, torch.float32: 2}[d]) if lows else None
            P.expect(n, tol)
            pool.append(n)


def main():
    mode, count, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    gen = prog_views if mode == 'views' else prog_graphs
    for i in range(count):
        gen(seed + i)
    P.write(out)
    print('%s: %d programs from seed %d, %d lines -> %s' % (mode, count, seed, len(P.lines), out))


if __name__ == '__main__':
    main()
