"""gen_llmops.py - cases for the transformer operations of API v1 (rms_norm, rope,
scaled_dot_product_attention, cumsum, scatter, scatter_add, index_copy_) with their
expected values, replayed by tests/unit/test_llmops.c on every CPU path and thread count.
Writes tests/data/llmops.txt (checked in; regenerate with `make cases`).

PyTorch 1.13 (Debian's /usr/bin/python3) is the oracle where it has the operation
(cumsum, scatter, scatter_add, index_copy_); rms_norm, rope and attention are newer
than 1.13, so their oracle is their definition written with torch ops in float64
(the dtype's roundings where PyTorch 2.x rounds: rms_norm rounds x * rstd before the
weight multiply). Attention rows that no key takes part in are 0, as PyTorch's CPU
kernels (2.5+) give.

Format, one case:
  case <name> <op> <p1> <p2> <p3> <atol> <rtol>
  in <dtype> <layout c|t|s> <ndim> <shape...> <values (row-major)...>   (one per input)
  out <dtype> <ndim> <shape...> <values...>  |  err <code>  |  rerr <code>
  end
Layouts: c contiguous, t the last two dims transposed in memory, s every other element
of a twice-as-wide last dim. err: the call fails with genie_result <code>; rerr: the
call succeeds and genie_read fails with <code> (a data-dependent error)."""
import math
import sys
import torch

torch.manual_seed(0)
F64 = torch.float64
DT = {torch.float32: 'f32', torch.float64: 'f64', torch.float16: 'f16', torch.bfloat16: 'bf16',
      torch.int64: 'i64', torch.int32: 'i32', torch.int16: 'i16', torch.int8: 'i8', torch.uint8: 'u8',
      torch.bool: 'bool'}
ERR = {'INVALID_ARG': -1, 'SHAPE': -2, 'DTYPE': -3, 'INDEX': -5, 'UNSUPPORTED': -8}
TOL = {torch.float32: (1e-6, 2e-5), torch.float64: (1e-12, 1e-10), torch.float16: (1e-3, 4e-3),
       torch.bfloat16: (1e-2, 3e-2)}
out = []


def num(v, fmt='%r'):
    if isinstance(v, bool):
        return '1' if v else '0'
    if isinstance(v, int):
        return str(v)
    if math.isnan(v):
        return 'nan'
    if math.isinf(v):
        return 'inf' if v > 0 else '-inf'
    return fmt % float(v)


FMT = {torch.float64: '%.17g', torch.float32: '%.9g', torch.float16: '%.5g', torch.bfloat16: '%.4g'}


def tensor_line(kind, t, layout=None):
    vals = t.reshape(-1).tolist()
    head = [kind, DT[t.dtype]] + ([layout] if layout else []) + [str(t.dim())] + [str(s) for s in t.shape]
    return ' '.join(head + [num(v, FMT.get(t.dtype, '%r')) for v in vals])


def case(name, op, params, ins, expect, dt=torch.float32, tol=None):
    """ins: list of (tensor, layout); expect: a tensor, ('err', code) or ('rerr', code)."""
    p = list(params) + [0] * (3 - len(params))
    atol, rtol = tol if tol else TOL.get(dt, (0, 0))
    out.append('case %s %s %s %s %s %r %r' % (name, op, num(p[0]), num(p[1]), num(p[2]), atol, rtol))
    for t, layout in ins:
        out.append(tensor_line('in', t, layout))
    if isinstance(expect, tuple):
        out.append('%s %d' % (expect[0], ERR[expect[1]]))
    else:
        out.append(tensor_line('out', expect))
    out.append('end')


def rnd(shape, dt=torch.float32, lo=-2.0, hi=2.0):
    """uniform in [lo, hi), multiples of 1/64 (exact in every float dtype here, short in the file)"""
    return torch.round((torch.rand(shape, dtype=F64) * (hi - lo) + lo) * 64).div(64).to(dt)


def rnd_int(shape, lo, hi, dt=torch.int64):
    return torch.randint(lo, hi, shape, dtype=torch.int64).to(dt)


# ---- rms_norm: x / sqrt(mean(x^2) + eps), rounded to the dtype, * weight (rounded) ----
def rms_ref(x, nnorm, w, eps):
    if math.isnan(eps):
        eps = torch.finfo(torch.float64 if x.dtype == F64 else torch.float32).eps
    x64 = x.to(F64)
    dims = tuple(range(x.dim() - nnorm, x.dim()))
    r = (x64 * torch.rsqrt((x64 * x64).mean(dims, keepdim=True) + eps)).to(x.dtype)
    if w is not None:
        r = (r.to(F64) * w.to(F64)).to(x.dtype)
    return r


def rms(name, shape, nnorm, eps, has_w=True, dt=torch.float32, layout='c'):
    x = rnd(shape, dt)
    w = rnd(shape[len(shape) - nnorm:], dt, 0.5, 1.5) if has_w else None
    ins = [(x, layout)] + ([(w, 'c')] if has_w else [])
    case(name, 'rms_norm', [nnorm, eps, int(has_w)], ins, rms_ref(x, nnorm, w, eps), dt)


rms('rms_w', (3, 7), 1, 1e-6)
rms('rms_now_defeps', (4, 5), 1, float('nan'), has_w=False)
rms('rms_2dims', (2, 3, 5), 2, 1e-5)
rms('rms_long_rows', (5, 300), 1, 1e-6)
rms('rms_transposed', (6, 9), 1, 1e-6, layout='t')
rms('rms_strided', (4, 10), 1, 1e-6, layout='s')
rms('rms_f64', (3, 8), 1, 1e-6, dt=F64)
rms('rms_f16', (3, 16), 1, 1e-5, dt=torch.float16)
rms('rms_bf16', (3, 16), 1, 1e-5, dt=torch.bfloat16)
rms('rms_f16_defeps', (2, 8), 1, float('nan'), has_w=False, dt=torch.float16)
x = rnd((3, 7))
case('rms_err_shape', 'rms_norm', [3, 1e-6, 0], [(x, 'c')], ('err', 'SHAPE'))
case('rms_err_wshape', 'rms_norm', [1, 1e-6, 1], [(x, 'c'), (rnd((6,)), 'c')], ('err', 'SHAPE'))
case('rms_err_wdtype', 'rms_norm', [1, 1e-6, 1], [(x, 'c'), (rnd((7,), F64), 'c')], ('err', 'DTYPE'))
case('rms_err_int', 'rms_norm', [1, 1e-6, 0], [(rnd_int((3, 7), 0, 5), 'c')], ('err', 'DTYPE'))


# ---- rope ----
def rope_ref(x, pos, rd, theta, il):
    D = x.shape[-1]
    rd = D if rd == 0 else rd
    h = rd // 2
    inv = torch.pow(torch.tensor(theta, dtype=F64), -2.0 * torch.arange(h, dtype=F64) / rd)
    ang = pos.to(F64)[:, None] * inv[None, :]
    c, s = torch.cos(ang), torch.sin(ang)
    x64 = x.to(F64)
    y = x64.clone()
    if il:
        a, b = x64[..., 0:rd:2], x64[..., 1:rd:2]
        y[..., 0:rd:2] = a * c - b * s
        y[..., 1:rd:2] = b * c + a * s
    else:
        a, b = x64[..., :h], x64[..., h:rd]
        y[..., :h] = a * c - b * s
        y[..., h:rd] = b * c + a * s
    return y.to(x.dtype)


def rope(name, shape, positions, rd, theta, il, dt=torch.float32, layout='c', pdt=torch.int64, tol=None):
    x = rnd(shape, dt)
    pos = torch.tensor(positions, dtype=pdt)
    case(name, 'rope', [rd, theta, il], [(x, layout), (pos, 'c')], rope_ref(x, pos, rd, theta, il), dt, tol)


P5 = [0, 1, 7, 100, 2047]
rope('rope_half', (2, 3, 5, 8), P5, 0, 10000.0, 0, tol=(2e-6, 2e-5))
rope('rope_interleaved', (2, 3, 5, 8), P5, 0, 10000.0, 1, tol=(2e-6, 2e-5))
rope('rope_partial', (1, 2, 5, 10), P5, 4, 10000.0, 0, tol=(2e-6, 2e-5))
rope('rope_partial_il', (1, 2, 5, 10), P5, 6, 500000.0, 1, tol=(2e-6, 2e-5))
rope('rope_2d', (4, 6), [3, 2, 1, 0], 0, 10.0, 0, tol=(2e-6, 2e-5))
rope('rope_decode', (1, 4, 1, 16), [37], 0, 10000.0, 0, tol=(2e-6, 2e-5))
rope('rope_transposed', (2, 6, 8), [5, 4, 3, 2, 1, 0], 0, 10000.0, 0, layout='t')
rope('rope_pos_i32', (2, 3, 4), [9, 10, 11], 0, 10000.0, 1, pdt=torch.int32, tol=(2e-6, 2e-5))
rope('rope_f64', (2, 3, 8), [0, 5, 9], 0, 10000.0, 0, dt=F64)
rope('rope_f16', (2, 3, 8), [0, 5, 9], 0, 10000.0, 0, dt=torch.float16)
rope('rope_bf16', (2, 3, 8), [0, 5, 9], 0, 10000.0, 1, dt=torch.bfloat16)
x = rnd((2, 3, 8))
p3 = torch.tensor([0, 1, 2])
case('rope_err_odd', 'rope', [3, 10000.0, 0], [(x, 'c'), (p3, 'c')], ('err', 'INVALID_ARG'))
case('rope_err_big', 'rope', [10, 10000.0, 0], [(x, 'c'), (p3, 'c')], ('err', 'INVALID_ARG'))
case('rope_err_theta', 'rope', [0, 0.0, 0], [(x, 'c'), (p3, 'c')], ('err', 'INVALID_ARG'))
case('rope_err_posdtype', 'rope', [0, 10000.0, 0], [(x, 'c'), (p3.float(), 'c')], ('err', 'DTYPE'))
case('rope_err_poslen', 'rope', [0, 10000.0, 0], [(x, 'c'), (torch.tensor([0, 1]), 'c')], ('err', 'SHAPE'))
case('rope_err_xint', 'rope', [0, 10000.0, 0], [(rnd_int((2, 3, 8), 0, 3), 'c'), (p3, 'c')], ('err', 'DTYPE'))
case('rope_err_x1d', 'rope', [0, 10000.0, 0], [(rnd((8,)), 'c'), (torch.tensor([0] * 8), 'c')], ('err', 'SHAPE'))


# ---- scaled_dot_product_attention ----
def sdpa_ref(q, k, v, mask, causal, scale):
    q64, k64, v64 = q.to(F64), k.to(F64), v.to(F64)
    nd = max(q.dim(), k.dim(), v.dim(), 3)
    q64, k64, v64 = [t.reshape((1,) * (nd - t.dim()) + tuple(t.shape)) for t in (q64, k64, v64)]
    G = q64.shape[-3] // k64.shape[-3]
    k64 = k64.repeat_interleave(G, dim=-3)
    v64 = v64.repeat_interleave(G, dim=-3)
    E = q.shape[-1]
    sc = (q64 @ k64.transpose(-1, -2)) * (1.0 / math.sqrt(E) if math.isnan(scale) else scale)
    L, S = sc.shape[-2], sc.shape[-1]
    if causal:
        keep = torch.ones(L, S, dtype=torch.bool).tril()
        sc = sc.masked_fill(~keep, -math.inf)
    if mask is not None:
        if mask.dtype == torch.bool:
            sc = sc.masked_fill(~mask, -math.inf)
        else:
            sc = sc + mask.to(F64)
    m = sc.amax(-1, keepdim=True)
    m = torch.where(m == -math.inf, torch.zeros_like(m), m)
    p = torch.exp(sc - m)
    l = p.sum(-1, keepdim=True)
    o = (p @ v64) / torch.where(l == 0, torch.ones_like(l), l)
    o = torch.where(l == 0, torch.zeros_like(o), o)
    if q.dim() == 2 and k.dim() == 2 and v.dim() == 2:
        o = o.reshape(o.shape[-2:])
    return o.to(q.dtype)


SDPA_TOL = {torch.float32: (2e-6, 5e-5), torch.float64: (1e-12, 1e-10), torch.float16: (2e-3, 1e-2),
            torch.bfloat16: (2e-2, 4e-2)}


def sdpa(name, qs, ks, vs, mask=None, causal=0, scale=float('nan'), dt=torch.float32, layouts='ccc', mlayout='c'):
    q, k, v = rnd(qs, dt), rnd(ks, dt), rnd(vs, dt)
    ins = [(q, layouts[0]), (k, layouts[1]), (v, layouts[2])] + ([(mask, mlayout)] if mask is not None else [])
    case(name, 'sdpa', [causal, scale, int(mask is not None)], ins, sdpa_ref(q, k, v, mask, causal, scale), dt,
         SDPA_TOL[dt])


sdpa('sdpa_basic', (1, 2, 5, 8), (1, 2, 5, 8), (1, 2, 5, 8))
sdpa('sdpa_l_ne_s_ev', (2, 2, 3, 4), (2, 2, 7, 4), (2, 2, 7, 6))
sdpa('sdpa_causal', (1, 2, 9, 8), (1, 2, 9, 8), (1, 2, 9, 8), causal=1)
sdpa('sdpa_causal_l_lt_s', (1, 2, 3, 8), (1, 2, 7, 8), (1, 2, 7, 8), causal=1)
sdpa('sdpa_causal_l_gt_s', (1, 2, 7, 8), (1, 2, 3, 8), (1, 2, 3, 8), causal=1)
sdpa('sdpa_gqa', (1, 8, 5, 16), (1, 2, 11, 16), (1, 2, 11, 16))
sdpa('sdpa_gqa_causal', (2, 8, 13, 16), (2, 2, 13, 16), (2, 2, 13, 16), causal=1)
sdpa('sdpa_decode_gqa', (1, 4, 1, 16), (1, 1, 37, 16), (1, 1, 37, 16))
sdpa('sdpa_decode_mha', (2, 3, 1, 4), (2, 3, 150, 4), (2, 3, 150, 4))
sdpa('sdpa_scale', (1, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 8), scale=0.3)
sdpa('sdpa_mask_bool_ls', (2, 2, 4, 8), (2, 2, 6, 8), (2, 2, 6, 8), mask=torch.rand(4, 6) > 0.3)
sdpa('sdpa_mask_bool_b1ls', (2, 2, 4, 8), (2, 2, 6, 8), (2, 2, 6, 8), mask=torch.rand(2, 1, 4, 6) > 0.3)
sdpa('sdpa_mask_float_h1s', (2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8), mask=rnd((1, 3, 1, 6)))
m = rnd((5, 9))
m[1, :] = -math.inf
m[2, 3:] = -math.inf
sdpa('sdpa_mask_float_inf', (1, 2, 5, 8), (1, 2, 9, 8), (1, 2, 9, 8), mask=m)
mb = torch.rand(2, 5, 9) > 0.5
mb[0, 2, :] = False
sdpa('sdpa_mask_bool_rowfalse', (1, 2, 5, 8), (1, 2, 9, 8), (1, 2, 9, 8), mask=mb)
sdpa('sdpa_mask_bool_transposed', (1, 2, 5, 8), (1, 2, 9, 8), (1, 2, 9, 8), mask=torch.rand(5, 9) > 0.4, mlayout='t')
sdpa('sdpa_q_transposed', (1, 2, 6, 8), (1, 2, 7, 8), (1, 2, 7, 8), layouts='tcc')
sdpa('sdpa_kv_transposed', (1, 2, 6, 8), (1, 2, 7, 8), (1, 2, 7, 5), layouts='ctt')
sdpa('sdpa_kv_strided', (1, 2, 6, 8), (1, 2, 7, 8), (1, 2, 7, 8), layouts='sss')
sdpa('sdpa_3d', (2, 4, 8), (2, 6, 8), (2, 6, 8))
sdpa('sdpa_2d', (4, 8), (6, 8), (6, 5))
sdpa('sdpa_batch_bcast', (2, 3, 2, 4, 8), (1, 3, 2, 6, 8), (2, 1, 2, 6, 8))
sdpa('sdpa_tiles', (1, 1, 70, 4), (1, 1, 300, 4), (1, 1, 300, 4))
sdpa('sdpa_tiles_causal', (1, 1, 70, 4), (1, 1, 300, 4), (1, 1, 300, 4), causal=1)
sdpa('sdpa_tiles_causal_sq', (1, 1, 150, 4), (1, 1, 150, 4), (1, 1, 150, 4), causal=1)
sdpa('sdpa_tiles_mask', (1, 1, 30, 4), (1, 1, 260, 4), (1, 1, 260, 4), mask=torch.rand(30, 260) > 0.2)
sdpa('sdpa_gqa_tiles', (1, 4, 20, 4), (1, 1, 200, 4), (1, 1, 200, 4), causal=1)
sdpa('sdpa_odd_e', (1, 3, 7, 37), (1, 3, 19, 37), (1, 3, 19, 23))
sdpa('sdpa_f64', (1, 2, 5, 8), (1, 2, 7, 8), (1, 2, 7, 8), causal=1, dt=F64)
sdpa('sdpa_f16', (1, 4, 5, 16), (1, 2, 7, 16), (1, 2, 7, 16), dt=torch.float16)
sdpa('sdpa_bf16', (1, 4, 5, 8), (1, 2, 140, 8), (1, 2, 140, 8), causal=0, dt=torch.bfloat16)
sdpa('sdpa_f16_decode', (1, 4, 1, 16), (1, 2, 40, 16), (1, 2, 40, 16), dt=torch.float16)
q, k, v = rnd((1, 2, 3, 4)), rnd((1, 2, 5, 4)), rnd((1, 2, 5, 4))
case('sdpa_err_causal_mask', 'sdpa', [1, float('nan'), 1], [(q, 'c'), (k, 'c'), (v, 'c'), (torch.ones(3, 5, dtype=torch.bool), 'c')],
     ('err', 'INVALID_ARG'))
case('sdpa_err_e', 'sdpa', [0, float('nan'), 0], [(q, 'c'), (rnd((1, 2, 5, 3)), 'c'), (v, 'c')], ('err', 'SHAPE'))
case('sdpa_err_s', 'sdpa', [0, float('nan'), 0], [(q, 'c'), (k, 'c'), (rnd((1, 2, 6, 4)), 'c')], ('err', 'SHAPE'))
case('sdpa_err_heads', 'sdpa', [0, float('nan'), 0], [(rnd((1, 3, 3, 4)), 'c'), (k, 'c'), (v, 'c')], ('err', 'SHAPE'))
case('sdpa_err_dtype', 'sdpa', [0, float('nan'), 0], [(q, 'c'), (k.double(), 'c'), (v, 'c')], ('err', 'DTYPE'))
case('sdpa_err_int', 'sdpa', [0, float('nan'), 0], [(rnd_int((1, 2, 3, 4), 0, 3), 'c')] * 3, ('err', 'DTYPE'))
case('sdpa_err_mask_shape', 'sdpa', [0, float('nan'), 1], [(q, 'c'), (k, 'c'), (v, 'c'), (torch.ones(3, 4, dtype=torch.bool), 'c')],
     ('err', 'SHAPE'))
case('sdpa_err_mask_dtype', 'sdpa', [0, float('nan'), 1], [(q, 'c'), (k, 'c'), (v, 'c'), (torch.ones(3, 5, dtype=torch.int64), 'c')],
     ('err', 'DTYPE'))
case('sdpa_err_1d', 'sdpa', [0, float('nan'), 0], [(rnd((4,)), 'c'), (k, 'c'), (v, 'c')], ('err', 'SHAPE'))
case('sdpa_err_batch', 'sdpa', [0, float('nan'), 0], [(rnd((2, 2, 3, 4)), 'c'), (rnd((3, 2, 5, 4)), 'c'), (rnd((3, 2, 5, 4)), 'c')],
     ('err', 'SHAPE'))


# ---- cumsum, scatter, scatter_add, index_copy_: PyTorch 1.13 itself ----
def torch_case(name, op, params, ins, fn, dt, err=None):
    try:
        r = fn()
    except (RuntimeError, IndexError) as e:
        if err is None:
            raise
        case(name, op, params, ins, err if err[0] == 'rerr' else ('err', err[1]), dt)
        return
    if err is not None:
        raise SystemExit('%s: PyTorch accepted a case expected to fail' % name)
    case(name, op, params, ins, r, dt)


def cumsum(name, shape, dim, dt=torch.float32, layout='c', err=None):
    t = rnd(shape, dt) if dt.is_floating_point else (torch.rand(shape) > 0.5 if dt == torch.bool else rnd_int(shape, -5, 6, dt)
                                                     if dt != torch.uint8 else rnd_int(shape, 0, 250, dt))
    fn = (lambda: torch.cumsum(t.float(), dim).to(dt)) if dt in (torch.float16, torch.bfloat16) else (lambda: torch.cumsum(t, dim))
    torch_case(name, 'cumsum', [dim], [(t, layout)], fn, dt, err)


cumsum('cumsum_d1', (3, 4), 1)
cumsum('cumsum_d0', (3, 4), 0)
cumsum('cumsum_neg', (2, 3, 5), -1)
cumsum('cumsum_long', (2, 300), 1, F64)
cumsum('cumsum_transposed', (4, 6), 1, layout='t')
cumsum('cumsum_i32', (3, 4), 1, torch.int32)
cumsum('cumsum_u8', (3, 40), 1, torch.uint8)
cumsum('cumsum_bool', (3, 4), 0, torch.bool)
cumsum('cumsum_f16', (2, 9), 1, torch.float16)
cumsum('cumsum_0d', (), 0)
cumsum('cumsum_err_dim', (3, 4), 2, err=('err', 'INDEX'))


def scatter(name, op, shape, dim, index, src_shape, dt=torch.float32, layout='c', err=None, idt=torch.int64):
    t = rnd(shape, dt) if dt.is_floating_point else rnd_int(shape, -5, 6, dt)
    src = rnd(src_shape, dt) if dt.is_floating_point else rnd_int(src_shape, -5, 6, dt)
    idx = torch.tensor(index, dtype=idt)
    f = torch.scatter if op == 'scatter' else torch.scatter_add
    torch_case(name, op, [dim], [(t, layout), (idx, 'c'), (src, 'c')], lambda: f(t, dim, idx, src), dt, err)


for op in ('scatter', 'scatter_add'):
    scatter(op + '_d0', op, (3, 5), 0, [[0, 1, 2], [2, 0, 1]], (2, 4))
    scatter(op + '_d1', op, (3, 5), 1, [[4, 0], [1, 3], [2, 2 if op == 'scatter_add' else 0]], (3, 4))
    scatter(op + '_3d', op, (2, 3, 4), 2, [[[3, 1], [0, 2]], [[1, 0], [2, 3]]], (2, 2, 3), F64)
    scatter(op + '_i64', op, (4, 3), 0, [[3, 0, 1]], (1, 3), torch.int64)
    scatter(op + '_transposed', op, (5, 4), 1, [[0, 1], [3, 2]], (2, 3), layout='t')
    scatter(op + '_empty_index', op, (3, 2), 0, [[]], (1, 1))
    scatter(op + '_0d', op, (), 0, 0, ())
    scatter(op + '_err_range', op, (3, 5), 0, [[0, 3]], (1, 2), err=('rerr', 'INDEX'))
    scatter(op + '_err_neg', op, (3, 5), 1, [[-1]], (1, 2), err=('rerr', 'INDEX'))
    scatter(op + '_err_idx_dtype', op, (3, 5), 0, [[0, 1]], (1, 2), idt=torch.int32, err=('err', 'DTYPE'))
    scatter(op + '_err_src_small', op, (3, 5), 0, [[0, 1, 2]], (1, 2), err=('err', 'SHAPE'))
    scatter(op + '_err_self_small', op, (3, 2), 0, [[0, 1, 2]], (1, 3), err=('err', 'SHAPE'))
t = rnd((3, 4))
case('scatter_err_src_dtype', 'scatter', [0], [(t, 'c'), (torch.tensor([[0]]), 'c'), (rnd((1, 1), F64), 'c')], ('err', 'DTYPE'))


def index_copy(name, shape, dim, index, src_shape, dt=torch.float32, layout='c', err=None, idt=torch.int64):
    t = rnd(shape, dt) if dt.is_floating_point else (torch.rand(shape) > 0.5 if dt == torch.bool else rnd_int(shape, -5, 6, dt))
    src = (rnd(src_shape, dt) if dt.is_floating_point else
           (torch.rand(src_shape) > 0.5 if dt == torch.bool else rnd_int(src_shape, -5, 6, dt)))
    idx = torch.tensor(index, dtype=idt)
    torch_case(name, 'index_copy', [dim], [(t, layout), (idx, 'c'), (src, 'c')], lambda: t.clone().index_copy_(dim, idx, src), dt, err)


index_copy('index_copy_d0', (5, 3), 0, [2, 0], (2, 3))
index_copy('index_copy_d1', (5, 3), 1, [2, 0], (5, 2))
index_copy('index_copy_kv', (1, 2, 8, 4), 2, [3, 4], (1, 2, 2, 4))
index_copy('index_copy_kv_last', (2, 3, 6, 5), -2, [5], (2, 3, 1, 5))
index_copy('index_copy_transposed', (6, 4), 0, [1, 5, 3], (3, 4), layout='t')
index_copy('index_copy_strided', (4, 6), 1, [1, 0], (4, 2), layout='s')
index_copy('index_copy_f16', (4, 3), 0, [3], (1, 3), torch.float16)
index_copy('index_copy_i32', (4, 3), 0, [1, 2], (2, 3), torch.int32)
index_copy('index_copy_bool', (4, 3), 1, [0], (4, 1), torch.bool)
index_copy('index_copy_0d_index', (4, 3), 0, 2, (1, 3))
index_copy('index_copy_empty', (4, 3), 0, [], (0, 3))
index_copy('index_copy_err_range', (4, 3), 0, [1, 4], (2, 3), err=('rerr', 'INDEX'))
index_copy('index_copy_err_neg', (4, 3), 1, [-1], (4, 1), err=('rerr', 'INDEX'))
index_copy('index_copy_err_idx_dtype', (4, 3), 0, [1], (1, 3), idt=torch.int32, err=('err', 'DTYPE'))
index_copy('index_copy_err_slice', (4, 3), 0, [1], (1, 2), err=('err', 'SHAPE'))
index_copy('index_copy_err_count', (4, 3), 0, [1, 2], (3, 3), err=('err', 'SHAPE'))
index_copy('index_copy_err_idx2d', (4, 3), 0, [[1]], (1, 3), err=('err', 'SHAPE'))
index_copy('index_copy_scalar_src', (3,), 0, [1], ())
index_copy('index_copy_0d_self', (), 0, [0], (1,))
index_copy('index_copy_err_scalar_src', (3, 2), 0, [1], (), err=('err', 'SHAPE'))
case('index_copy_err_src_dtype', 'index_copy', [0], [(rnd((4, 3)), 'c'), (torch.tensor([0]), 'c'), (rnd((1, 3), F64), 'c')],
     ('err', 'DTYPE'))

with open(sys.argv[1] if len(sys.argv) > 1 else 'tests/data/llmops.txt', 'w') as f:
    f.write('\n'.join(out) + '\n')
print('%d cases' % sum(1 for l in out if l.startswith('case ')))
