"""gen_cases.py - table-driven cases for every operation in the API contract,
with PyTorch's values, shapes, strides, dtypes and errors. Writes
tests/data/cases.txt (checked in; regenerate with `make cases`)."""
import sys
import torch
from oracle import Prog, NONE, FLOATS

torch.manual_seed(0)
P = Prog()
ALL = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
       torch.int8, torch.uint8, torch.bool]


def rnd(shape, dt, lo=-3, hi=3, positive=False):
    if dt == torch.bool:
        return torch.rand(shape) > 0.5
    if dt in FLOATS:
        x = torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo
        if positive:
            x = x.abs() + 0.1
        return x.to(dt)
    if dt == torch.uint8:
        return torch.randint(0, 6, shape, dtype=dt)
    x = torch.randint(lo, hi + 1, shape, dtype=torch.int64)
    if positive:
        x = x.abs() + 1
    return x.to(dt)


def d(t):
    return P.data(t)


# ---- creation ----
P.begin('creation')
for dt in ALL:
    P.run('zeros', dt, (2, 3))
    P.run('ones', dt, (3,))
    P.run('full', dt, (2, 2), 1.0)
P.run('full', torch.float32, (), 2.5)
P.run('full', torch.int8, (2,), 300.0)
P.run('full', torch.int8, (2,), -1.0)
P.run('full', torch.uint8, (2,), -1.0)
P.run('full', torch.int32, (2,), float('nan'))
P.run('full', torch.bool, (2,), 300.0)
P.run('full', torch.bool, (2,), float('nan'))
P.run('full', torch.int64, (1,), 2.0 ** 63)
P.run('full', torch.int64, (1,), -2.0 ** 63)
P.run('full', torch.int64, (1,), 9.3e18)
P.run('full', torch.int64, (1,), 2.5)
P.run('full', torch.float16, (2,), 70000.0)
P.run('zeros', torch.float32, (0, 3))
for args in [(0.0, 5.0, 1.0), (0.0, 1.0, 0.1), (5.0, 0.0, -1.5), (0.0, 0.0, 1.0), (1.0, 5.0, 0.0), (5.0, 0.0, 1.0),
             (-2.5, 2.5, 0.5)]:
    for dt in [torch.float32, torch.int64, torch.float64, torch.int32]:
        P.run('arange', dt, *args)

# ---- elementwise binary, broadcasting and type promotion ----
P.begin('binary')
shapes = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 5)), ((2, 1, 3), (4, 1)), ((), (2, 2)), ((0, 3), (1, 3)),
          ((2, 3), (4,))]
for op in ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'logical_and',
           'logical_or', 'pow']:
    for sa, sb in shapes:
        a = d(rnd(sa, torch.float32))
        b = d(rnd(sb, torch.float32, positive=(op == 'pow')))
        P.run(op, a, b)
    pairs = [(torch.int32, torch.int64), (torch.int8, torch.uint8), (torch.bool, torch.bool), (torch.float16, torch.float32),
             (torch.bfloat16, torch.float16), (torch.int64, torch.float16), (torch.bool, torch.int8), (torch.float64, torch.int32),
             (torch.int16, torch.bool)]
    for da, db in pairs:
        a = d(rnd((2, 3), da, positive=(op == 'pow')))
        b = d(rnd((3,), db, lo=0, hi=3) if op == 'pow' else rnd((3,), db))
        P.run(op, a, b)
    # 0-dim tensors take part in promotion in their own tier
    a = d(rnd((3,), torch.int32))
    P.run(op, a, d(torch.tensor(2, dtype=torch.int64)))
    P.run(op, a, d(torch.tensor(2.5, dtype=torch.float64)))
    P.run(op, d(rnd((3,), torch.float16)), d(torch.tensor(1.5, dtype=torch.float64)))
    P.run(op, d(torch.tensor(True)), d(rnd((2,), torch.uint8)))
    # strided inputs: the result takes TensorIterator's layout
    base = d(rnd((4, 3), torch.float32, positive=(op == 'pow')))
    tr = P.op('t', base)
    P.run(op, tr, tr)
    P.run(op, tr, d(rnd((3, 1), torch.float32, positive=True)))
    P.run(op, P.op('permute', d(rnd((2, 3, 4), torch.float32, positive=True)), (2, 0, 1)), d(rnd((4, 1, 1), torch.float32, positive=True)))
    P.run(op, P.op('slice', base, 1, 0, 3, 2), d(rnd((1,), torch.float32, positive=True)))
for op in ['add_scalar', 'sub_scalar', 'mul_scalar', 'div_scalar', 'pow_scalar']:
    for dt in ALL:
        a = d(rnd((2, 3), dt, positive=True))
        P.run(op, a, 2.0)
        P.run(op, a, -0.5)
    P.run(op, P.op('t', d(rnd((3, 2), torch.float32, positive=True))), 1.5)
# integer wrap-around and division
P.run('add', d(torch.tensor([127, -128, 5], dtype=torch.int8)), d(torch.tensor([1, -1, 3], dtype=torch.int8)))
P.run('mul', d(torch.tensor([100, 200], dtype=torch.uint8)), d(torch.tensor([3, 2], dtype=torch.uint8)))
P.run('div', d(torch.tensor([7, -7, 0], dtype=torch.int64)), d(torch.tensor([2, 2, 0], dtype=torch.int64)))
P.run('pow', d(torch.tensor([2, -2, 1, -1, 3], dtype=torch.int64)), d(torch.tensor([10, 3, -2, -3, -1], dtype=torch.int64)))
nan = float('nan')
P.run('maximum', d(torch.tensor([1.0, nan, 3.0])), d(torch.tensor([nan, 2.0, 1.0])))
P.run('minimum', d(torch.tensor([1.0, nan, 3.0])), d(torch.tensor([nan, 2.0, 1.0])))
P.run('eq', d(torch.tensor([1.0, nan])), d(torch.tensor([1.0, nan])))
P.run('ne', d(torch.tensor([1.0, nan])), d(torch.tensor([1.0, nan])))
P.run('where', d(torch.tensor([True, False, True])), d(rnd((2, 3), torch.float32)), d(rnd((3,), torch.float64)))
P.run('where', d(torch.tensor([[True], [False]])), d(rnd((2, 3), torch.int32)), d(torch.tensor(7, dtype=torch.int64)))
P.run('where', d(rnd((2, 3), torch.float32)), d(rnd((2, 3), torch.int32)), d(rnd((2, 3), torch.int32)))
P.run('where', d(torch.tensor([True, False])), d(rnd((3,), torch.float32)), d(rnd((3,), torch.float32)))
wt = P.op('t', d(rnd((3, 2), torch.float32)))
P.run('where', d(rnd((2, 3), torch.bool)), wt, wt)

# ---- unary ----
P.begin('unary')
for op in ['neg', 'abs', 'exp', 'log', 'sqrt', 'rsqrt', 'sin', 'cos', 'tanh', 'sigmoid', 'relu', 'gelu', 'gelu_tanh',
           'silu', 'reciprocal', 'square', 'floor', 'ceil', 'round', 'sign', 'erf', 'log1p', 'expm1', 'logical_not']:
    pos = op in ('log', 'sqrt', 'rsqrt', 'log1p', 'reciprocal')
    for dt in ALL:
        P.run(op, d(rnd((2, 3), dt, positive=pos)))
    P.run(op, P.op('t', d(rnd((3, 2), torch.float32, positive=pos))))
    P.run(op, d(torch.tensor([nan, float('inf'), -float('inf'), 0.0, -0.0, 0.5, 1.5, 2.5, -2.5])))
    P.run(op, d(rnd((), torch.float32, positive=pos)))
for lo, hi in [(-1.0, 1.0), (nan, 0.5), (0.5, nan), (2.0, -2.0), (0.5, 2.5)]:
    for dt in [torch.float32, torch.int64, torch.float16, torch.int8]:
        P.run('clamp', d(rnd((7,), dt)), lo, hi)
P.run('clamp', d(torch.tensor([nan, 1.0])), 0.0, 0.5)
P.run('clamp', d(rnd((3,), torch.float32)), nan, nan)

# ---- reductions ----
P.begin('reductions')
for op in ['sum', 'mean', 'amax', 'amin', 'prod', 'logsumexp']:
    for dt in [torch.float32, torch.float64, torch.float16, torch.int64, torch.int32, torch.bool, torch.uint8]:
        x = d(rnd((2, 3, 4), dt, lo=-2, hi=2))
        for dims, keep in [((), 0), ((), 1), ((1,), 0), ((-1,), 1), ((0, 2), 0), ((2, 0), 1)]:
            if op == 'prod' and dt == torch.float16 and len(dims) > 1:
                continue
            P.run(op, x, dims, keep)
    P.run(op, P.op('permute', d(rnd((2, 3, 4), torch.float32)), (2, 0, 1)), (1,), 0)
    P.run(op, d(rnd((), torch.float32)), (), 0)
    P.run(op, d(rnd((), torch.float32)), (0,), 1)
    P.run(op, d(rnd((0, 3), torch.float32)), (0,), 0)
    P.run(op, d(rnd((0, 3), torch.float32)), (1,), 0)
    P.run(op, d(rnd((2, 3), torch.float32)), (3,), 0)
    P.run(op, d(rnd((2, 3), torch.float32)), (1, 1), 0)
    P.run(op, d(torch.tensor([[1.0, nan], [2.0, 3.0]])), (1,), 0)
for op in ['var', 'std']:
    for dt in [torch.float32, torch.float64, torch.int64]:
        x = d(rnd((3, 4), dt))
        for dims, c, keep in [((), 1, 0), ((1,), 0, 1), ((0,), 2, 0), ((0, 1), 1, 1), ((0,), 5, 0)]:
            P.run(op, x, dims, c, keep)
    P.run(op, d(rnd((1,), torch.float32)), (), 1, 0)
for op in ['argmax', 'argmin']:
    for dt in [torch.float32, torch.int64, torch.float16, torch.uint8]:
        x = d(rnd((3, 4), dt, lo=-1, hi=1))
        for dim, keep in [(NONE, 0), (0, 0), (1, 1), (-1, 0), (NONE, 1)]:
            P.run(op, x, dim, keep)
    P.run(op, d(torch.tensor([[1.0, nan, 3.0, nan], [2.0, 2.0, 1.0, 0.0]])), 1, 0)
    P.run(op, d(rnd((0, 3), torch.float32)), NONE, 0)
    P.run(op, d(rnd((0, 3), torch.float32)), 1, 0)
    P.run(op, d(rnd((0, 3), torch.float32)), 0, 0)
    P.run(op, d(rnd((), torch.float32)), 0, 0)
    P.run(op, P.op('t', d(rnd((4, 3), torch.float32))), 0, 0)

# ---- normalization and activation ----
P.begin('norm')
for op in ['softmax', 'log_softmax']:
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16]:
        x = d(rnd((2, 3, 4), dt))
        for dim in [0, 1, -1]:
            P.run(op, x, dim)
    P.run(op, P.op('t', d(rnd((4, 3), torch.float32))), 1)
    P.run(op, d(torch.tensor([[-float('inf'), -float('inf')], [1.0, -float('inf')]])), 1)
    P.run(op, d(rnd((2, 3), torch.int64)), 1)
    P.run(op, d(rnd((2, 3), torch.float32)), 2)
    P.run(op, d(rnd((), torch.float32)), 0)
for dt in [torch.float32, torch.float64, torch.float16]:
    x = d(rnd((2, 3, 4), dt))
    w = d(rnd((4,), dt))
    b = d(rnd((4,), dt))
    P.run('layer_norm', x, (4,), w, b, 1e-5)
    P.run('layer_norm', x, (4,), None, None, 1e-5)
    P.run('layer_norm', x, (3, 4), d(rnd((3, 4), dt)), None, 1e-3)
x = d(rnd((2, 3, 4), torch.float32))
P.run('layer_norm', x, (3,), None, None, 1e-5)
P.run('layer_norm', x, (4,), d(rnd((3,), torch.float32)), None, 1e-5)
P.run('layer_norm', P.op('permute', x, (2, 0, 1)), (3,), None, None, 1e-5)

# ---- linear algebra ----
P.begin('linalg')
mm_shapes = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
             ((2, 1, 2, 3), (4, 3, 2)), ((3,), (2, 3, 4)), ((2, 2, 3), (3,)), ((2, 3), (4, 5)), ((3,), (4,)), ((), (3,)),
             ((2, 2, 3), (3, 3, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((1, 1), (1, 1, 4)), ((4, 3), (2, 3, 1)),
             ((1, 3), (2, 2, 3, 4)), ((2, 3), (2, 1, 3, 1))]
for sa, sb in mm_shapes:
    for dt in [torch.float32, torch.float64, torch.int64]:
        P.run('matmul', d(rnd(sa, dt)), d(rnd(sb, dt)))
P.run('matmul', d(rnd((2, 3), torch.float16)), d(rnd((3, 2), torch.float16)))
P.run('matmul', d(rnd((2, 3), torch.float32)), d(rnd((3, 2), torch.float64)))
a = d(rnd((4, 3), torch.float32))
P.run('matmul', P.op('t', a), a)
P.run('matmul', a, P.op('t', a))
for xs in [(3,), (2, 3), (4, 2, 3)]:
    x = d(rnd(xs, torch.float32))
    w = d(rnd((5, 3), torch.float32))
    P.run('linear', x, w, d(rnd((5,), torch.float32)))
    P.run('linear', x, w, None)
P.run('linear', d(rnd((2, 3), torch.float32)), d(rnd((5, 4), torch.float32)), None)
P.run('linear', d(rnd((2, 3), torch.float32)), P.op('t', d(rnd((3, 5), torch.float32))), d(rnd((2, 5), torch.float32)))
for xs, ws, b, s, p, dl, g in [((1, 2, 5, 5), (3, 2, 3, 3), True, (1, 1), (0, 0), (1, 1), 1),
                                ((2, 4, 6, 5), (6, 2, 3, 2), True, (2, 1), (1, 2), (1, 1), 2),
                                ((1, 3, 7, 7), (2, 3, 3, 3), False, (2, 2), (1, 1), (2, 2), 1),
                                ((3, 5, 5), (2, 3, 2, 2), True, (1, 1), (0, 0), (1, 1), 1),
                                ((1, 3, 2, 2), (2, 3, 3, 3), False, (1, 1), (0, 0), (1, 1), 1),
                                ((1, 4, 5, 5), (2, 3, 3, 3), False, (1, 1), (0, 0), (1, 1), 1),
                                ((1, 4, 4, 4), (4, 1, 3, 3), True, (1, 1), (1, 1), (1, 1), 4)]:
    x = d(rnd(xs, torch.float32))
    w = d(rnd(ws, torch.float32))
    P.run('conv2d', x, w, d(rnd((ws[0],), torch.float32)) if b else None, s, p, dl, g)

# ---- types and copies ----
P.begin('copies')
src = torch.tensor([0.0, 1.5, -1.5, 2.7, -2.7, 300.7, -300.2, 1e10, nan, float('inf'), -0.0, 255.9])
for dt in ALL:
    P.run('to_dtype', d(src), dt)
    P.run('to_dtype', d(torch.tensor([0, 1, -1, 127, 128, 255, 256, -129, 70000], dtype=torch.int64)), dt)
    P.run('to_dtype', d(torch.tensor([True, False])), dt)
x = d(rnd((3, 4), torch.float32))
for s in [x, P.op('t', x), P.op('slice', x, 1, 0, 4, 2), P.op('expand', d(rnd((3, 1), torch.float32)), (3, 4)),
          P.op('as_strided', x, (1, 2), (5, 1), 0), P.op('permute', d(rnd((2, 3, 4), torch.float32)), (1, 2, 0))]:
    P.run('clone', s)
    P.run('contiguous', s)
    P.run('to_dtype', s, torch.float64)
    P.run('to_dtype', s, torch.float32)
    P.run('flip', s, (0,))
    P.run('flip', s, (-1, 0))

# ---- views: strides and offsets must be exactly PyTorch's ----
P.begin('views')
x = d(rnd((2, 3, 4), torch.float32))
for shape in [(6, 4), (24,), (-1,), (2, -1), (4, 3, 2), (1, 2, 1, 12), (5, 5), (-1, -1), (0, -1)]:
    P.run('view', x, shape)
    P.run('reshape', x, shape)
tx = P.op('transpose', x, 0, 2)
for shape in [(24,), (4, 6), (4, 3, 2), (2, 2, 3, 2), (4, 1, 3, 2)]:
    P.run('view', tx, shape)
    s = P.run('reshape', tx, shape)
    P.shares(s, x)
e = d(rnd((0, 3), torch.float32))
P.run('view', e, (3, 0))
P.run('view', e, (0, -1))
P.run('reshape', d(rnd((), torch.float32)), (1, 1))
P.run('view', d(rnd((1,), torch.float32)), ())
for dims in [(2, 0, 1), (0, 1, 2), (-1, 0, 1), (0, 0, 1), (0, 1)]:
    P.run('permute', x, dims)
for a, b in [(0, 1), (-1, 0), (1, 1), (0, 3)]:
    P.run('transpose', x, a, b)
P.run('t', x)
P.run('t', d(rnd((3,), torch.float32)))
P.run('t', d(rnd((), torch.float32)))
y = d(rnd((3, 1), torch.float32))
for shape in [(3, 4), (2, 3, 4), (-1, 4), (3, -1), (4, 4), (2, -1, 4), (3,), (0, 3, 1)]:
    P.run('expand', y, shape)
P.run('expand', d(rnd((), torch.float32)), (2, 2))
for dim in [0, 1, -1, 2]:
    P.run('squeeze', y, dim)
    P.run('unsqueeze', y, dim)
P.run('unsqueeze', y, -3)
P.run('squeeze', d(rnd((), torch.float32)), 0)
P.run('unsqueeze', d(rnd((), torch.float32)), 0)
P.run('unsqueeze', P.op('t', d(rnd((3, 4), torch.float32))), 1)
for args in [(0, 0, 2, 1), (1, 1, 3, 1), (2, 0, 4, 2), (-1, -3, -1, 1), (2, -100, 100, 3), (1, 2, 1, 1), (2, 1, 4, 0),
             (5, 0, 1, 1), (1, 3, 10, 1)]:
    P.run('slice', x, *args)
for args in [(0, 1), (1, -1), (2, 3), (0, 2), (-1, -5)]:
    P.run('select', x, *args)
for args in [(0, 0, 1), (2, 1, 3), (1, -2, 2), (1, 2, 2), (2, -5, 1), (2, 0, 0)]:
    P.run('narrow', x, *args)
sq = d(rnd((4, 5), torch.float32))
for args in [(0, 0, 1), (1, 0, 1), (-2, 0, 1), (2, 1, 0), (10, 0, 1), (-10, 0, 1), (0, 1, 1)]:
    P.run('diagonal', sq, *args)
P.run('diagonal', x, 1, 0, 2)
P.run('diagonal', x, 0, -1, 1)
for args in [((2, 2), (1, 2), 0), ((3,), (4,), 1), ((2, 3), (0, 1), 5), ((5, 5), (5, 1), 0), ((2,), (-1,), 3), ((2,), (1,), -1),
             ((0, 3), (100, 100), 23), ((4,), (6,), 3)]:
    P.run('as_strided', x, *args)
sl = P.op('slice', x, 2, 1, 3, 1)
P.run('as_strided', sl, (3, 3), (4, 1), 1)
for dims in [(0,), (1, 2), (-1,), (0, 0)]:
    f = P.run('flip', x, dims)
    P.shares(f, x)
P.run('flip', d(rnd((), torch.float32)), ())

# ---- joining and indexing ----
P.begin('joining')
a = d(rnd((2, 3), torch.float32))
b = d(rnd((2, 2), torch.float64))
c = d(rnd((1, 3), torch.int32))
P.run('cat', [a, b], 1)
P.run('cat', [a, c], 0)
P.run('cat', [a, c], 1)
P.run('cat', [a, d(torch.zeros(0))], 0)
P.run('cat', [a], -1)
P.run('cat', [d(rnd((), torch.float32))], 0)
P.run('cat', [a, P.op('t', d(rnd((3, 2), torch.float32)))], 0)
P.run('cat', [d(rnd((2, 3, 4), torch.float16)), d(rnd((2, 1, 4), torch.float16))], 1)
P.run('stack', [a, a], 0)
P.run('stack', [a, P.op('t', d(rnd((3, 2), torch.int64)))], 2)
P.run('stack', [a, a], -1)
P.run('stack', [a, b], 0)
P.run('stack', [a, a], 3)
t = d(rnd((4, 3), torch.float32))
for idx, dim in [([0, 2, 2], 0), ([2, 1], 1), ([], 0), ([3, 0], 0), ([5], 0), ([-1], 1)]:
    P.run('index_select', t, dim, d(torch.tensor(idx, dtype=torch.int64)), dd=idx in ([5], [-1]))
P.run('index_select', t, 0, d(torch.tensor(1, dtype=torch.int64)))
P.run('index_select', t, 0, d(torch.tensor([1.0])))
P.run('index_select', t, 0, d(torch.tensor([[1]], dtype=torch.int64)))
P.run('index_select', P.op('t', t), 1, d(torch.tensor([3, 1], dtype=torch.int32)))
# an empty result still checks every index (ATen does): [4, 0, 2] selecting [2, 0] along dim 2
P.run('index_select', d(rnd((4, 0, 2), torch.float32)), 2, d(torch.tensor([2, 0], dtype=torch.int64)), dd=True)
P.run('index_select', d(rnd((4, 0, 2), torch.float32)), 2, d(torch.tensor([1, 0], dtype=torch.int64)))
P.run('embedding', d(rnd((3, 0), torch.float32)), d(torch.tensor([3], dtype=torch.int64)), dd=True)
P.run('gather', t, 1, d(torch.tensor([[0, 0], [1, 0], [2, 2], [0, 1]])))
P.run('gather', t, 0, d(torch.tensor([[0, 1, 3]])))
P.run('gather', t, 0, d(torch.tensor([[0, 1, 4]])), dd=True)
P.run('gather', t, 1, d(torch.tensor([[0, 0, 0, 0]])))
P.run('gather', t, 1, d(torch.tensor([0, 1])))
w = d(rnd((5, 3), torch.float32))
P.run('embedding', w, d(torch.tensor([[0, 4], [2, 2]])))
P.run('embedding', w, d(torch.tensor(3)))
P.run('embedding', w, d(torch.tensor([5])), dd=True)
P.run('embedding', w, d(torch.tensor([-1])), dd=True)
P.run('embedding', d(rnd((5,), torch.float32)), d(torch.tensor([1])))
m = d(torch.tensor([[True, False, True]]))
for dt in [torch.float32, torch.int8, torch.bool]:
    P.run('masked_fill', d(rnd((2, 3), dt)), m, 5.0)
P.run('masked_fill', d(rnd((3,), torch.float32)), d(torch.tensor([[True], [False]])), -1.5)
P.run('masked_fill', d(rnd((2, 3), torch.int8)), m, 300.0)
P.run('masked_fill', d(rnd((2, 3), torch.float32)), d(rnd((2, 3), torch.float32)), 1.0)
for op in ['tril', 'triu']:
    for k in [0, 1, -1, 5]:
        P.run(op, d(rnd((3, 4), torch.float32)), k)
    P.run(op, d(rnd((2, 3, 3), torch.int64)), 0)
    P.run(op, P.op('t', d(rnd((4, 3), torch.float32))), 0)
    P.run(op, d(rnd((3,), torch.float32)), 0)

# ---- tuples ----
P.begin('tuples')
x = d(rnd((5, 4), torch.float32))
for name, args, n in [('split', (2, 0), 3), ('split', (3, 1), 2), ('split', (10, 0), 1), ('chunk', (2, 0), 3),
                      ('chunk', (3, 1), 2), ('chunk', (6, 0), 5), ('unbind', (1,), 4), ('unbind', (0,), 5)]:
    tup = P.op(name, x, *args)
    for i in range(n):
        g = P.run('get', tup, i)
        P.shares(g, x)
P.op('split', x, 0, 0)
P.op('split', x, -1, 0)
P.op('chunk', x, 0, 0)
P.op('unbind', d(rnd((), torch.float32)), 0)
e0 = d(rnd((0, 2), torch.float32))
tup = P.op('split', e0, 0, 0)
P.run('get', tup, 0)
tup = P.op('chunk', e0, 3, 0)
for i in range(3):
    P.run('get', tup, i)
v = d(torch.tensor([[3.0, 1.0, nan, 2.0, 2.0], [0.0, -1.0, 5.0, 5.0, 4.0]]))
def pair(name, src, *args):
    tup = P.op(name, src, *args)
    vals = P.run('get', tup, 0)
    idx = P.op('get', tup, 1)
    dim = args[1] if name == 'topk' else args[0]
    P.gathered(idx, src, dim, vals)


for args in [(2, 1, 1, 1), (3, 1, 0, 1), (1, 0, 1, 1), (5, -1, 1, 1), (0, 1, 1, 1), (6, 1, 1, 1)]:
    pair('topk', v, *args)
for args in [(1, 0), (1, 1), (0, 1), (-1, 0)]:
    pair('sort', v, *args)
pair('sort', P.op('t', d(rnd((4, 3), torch.int32))), 1, 0)
pair('sort', d(rnd((3, 5), torch.float16)), 1, 1)
pair('topk', P.op('t', d(rnd((6, 3), torch.float32))), 2, 0, 1, 1)
for name in ['max_dim', 'min_dim']:
    for args in [(1, 0), (0, 1), (-1, 1)]:
        pair(name, v, *args)
    P.op(name, d(rnd((0, 3), torch.float32)), 0, 0)
    pair(name, d(rnd((3, 4), torch.int64)), 1, 0)

# ---- in place ----
P.begin('inplace')
for op in ['add_', 'sub_', 'mul_', 'div_']:
    for da, db in [(torch.float32, torch.float32), (torch.float32, torch.int64), (torch.int64, torch.int64),
                   (torch.int64, torch.float32), (torch.int32, torch.int64), (torch.float16, torch.float32), (torch.bool, torch.bool)]:
        base = d(rnd((3, 4), da, positive=True))
        P.op(op, base, d(rnd((4,), db, positive=True)))
        P.expect(base)
    base = d(rnd((3, 4), torch.float32, positive=True))
    P.op(op, P.op('t', base), d(rnd((4, 1), torch.float32, positive=True)))
    P.expect(base)
    P.op(op, base, d(rnd((2, 4), torch.float32)))
    P.op(op, P.op('expand', d(rnd((1, 4), torch.float32)), (3, 4)), base)
    P.op(op, P.op('slice', base, 0, 1, 3, 1), P.op('slice', base, 0, 0, 2, 1))
    P.expect(base)
for dt in [torch.float32, torch.int8, torch.bool]:
    base = d(rnd((3, 4), dt))
    P.op('fill_', P.op('select', base, 1, 2), 7.0)
    P.expect(base)
    P.op('fill_', base, 300.0)
    P.op('zero_', P.op('slice', base, 0, 0, 3, 2))
    P.expect(base)
base = d(rnd((3, 4), torch.float32))
P.op('copy_', P.op('select', base, 0, 1), d(rnd((4,), torch.int64)))
P.expect(base)
P.op('copy_', base, d(rnd((4,), torch.float64)))
P.expect(base)
P.op('copy_', P.op('slice', base, 0, 1, 3, 1), P.op('slice', base, 0, 0, 2, 1))
P.op('copy_', base, base)
P.op('copy_', base, d(rnd((5,), torch.float32)))
P.op('relu_', base)
P.expect(base)
P.op('relu_', d(rnd((3,), torch.bool)))
P.op('relu_', P.op('expand', d(rnd((1, 4), torch.float32)), (3, 4)))
P.op('masked_fill_', base, d(torch.tensor([True, False, False, True])), -2.0)
P.expect(base)
P.op('masked_fill_', base, d(rnd((2, 4), torch.bool)), -2.0)
ex = P.op('expand', d(rnd((1, 4), torch.float32)), (3, 4))
P.op('fill_', ex, 5.0)
P.expect(ex)

# the logical ops' layout: ATen casts operands only to the common dtype (f16 here), so a
# non-contiguous diagonal [4, 1] with strides [4, 5] decides [1, 4] (graphs-125311); a mixed
# f16/f32 pair casts the f16 one, which makes it contiguous, and the result is [1, 1]
dg = P.op('diagonal', d(rnd((4, 1, 4), torch.float16)), -2, 2, -2)
for op in ('logical_or', 'logical_and'):
    P.run(op, dg, P.op('add', dg, dg))
    P.run(op, dg, P.op('to_dtype', dg, torch.float32))

# ---- mixed dtypes in one chain (one fused group): each op rounds to its own dtype, as ATen's nodes do ----
P.begin('mixed dtypes')
for shape in [(5, 7), (3, 1, 33)]:
    x, y = d(rnd(shape, torch.float32)), d(rnd(shape, torch.float32))
    h, b = d(rnd(shape, torch.float16)), d(rnd(shape, torch.bfloat16))
    t = P.op('to_dtype', P.op('mul', x, y), torch.float16)  # f32 -> f16, read by an f16 op
    t = P.op('to_dtype', P.op('add', t, h), torch.bfloat16)  # f16 -> bf16, read by bf16 ops
    t = P.op('to_dtype', P.op('mul_scalar', P.op('mul', t, b), 3.0), torch.float32)
    P.run('sub', t, x)
    P.run('add', P.op('to_dtype', P.op('exp', h), torch.float32), P.op('mul', y, y))  # f16 op into a widening
    P.run('add', P.op('to_dtype', P.op('mul', x, y), torch.float16), d(torch.tensor(1.0 / 3)))  # 0-dim f32, f16 op

P.write(sys.argv[1] if len(sys.argv) > 1 else 'tests/data/cases.txt')
print('wrote %d lines' % len(P.lines))
