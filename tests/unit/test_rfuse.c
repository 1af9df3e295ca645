/* test_rfuse.c - row groups (>>fuse): a reduction, argreduce, softmax,
   log_softmax or layer_norm with its elementwise producers as a prologue and
   its elementwise consumers as an epilogue, run in one pass, against a
   GENIE_CPU_REFERENCE context (which never fuses: every node on its own
   reference kernel). Random small programs around each row op: prologue chains
   over plain, transposed and broadcast (row and column) operands and scalars,
   epilogues with broadcast and strided operands, some intermediates held by
   handles (they must be written, and equal the reference), odd row lengths (1,
   3, 17, 64, 1000, 1031) and batch shapes, on 1 and 2 threads (GENIE_GEMM_QUICK, as under
   valgrind: the programs over more than 64K elements in f32 on 1 thread only); then in-place
   writes through views inside and around fused chains, and empty tensors.
   Column groups too: sum, mean, amax, amin, prod, var, std, logsumexp, argmax, argmin and max
   values over the leading dims (dim 0, dims 0 and 1) and over dim 1 (dim 0 kept outside), and the row reductions of the
   transposed leaf, whose kept dims then end in a unit-stride run; a column
   reduction whose input is not laid out so is no group's centre, and its
   program's groups are not predicted. Segmented groups: sum, mean, var, amax, prod and
   logsumexp over dims (0, 2) with a prologue, and argmax/argmin of all from a leaf laid
   out as [B, A, L] (x02: runs of L), with a prologue or alone.
   Each program's statistics must show the one group it predicts (fused_groups,
   fused_nodes): a pass without fusion fails here.
   Tolerances: a program of exact operations (add, sub, mul, maximum, relu,
   abs, square, scalars) feeds both contexts the same f32 rows, so amax/amin,
   prod, argmax/argmin and max values must match bit for bit, and the rest
   within the row kernels' bounds (genie.h, "fast reductions"); with
   transcendental operations (gelu, tanh, sigmoid: a few ulp apart in the SIMD
   paths) everything is compared within |f - r| <= 1e-4 (|r| + 0.05 max|r|) + 1e-6.
   The same programs run over f16 and bf16 leaves (every op of the dtype, rounded as
   its node; the row op computed in f32 and rounded once): amax/amin, argmax/argmin and
   max values bit for bit, the rest within 2e-2 (f16) or 1e-1 (bf16) in place of 1e-4 (an
   epilogue's cancellation turns a row value one ulp apart into a large relative error) and
   with at most 2% of the elements not the reference's bits (a rounding missed or done
   twice shows in far more); a lone f16/bf16 op is a group of one. */
#include "../../genie.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int *P, *F;
#define RCHECK(cond, ...) do { if (cond) (*P)++; else { (*F)++; printf("FAIL test_rfuse: " __VA_ARGS__); printf("\n"); } } while (0)

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33) % n;
}

enum { R_SUM, R_SUM_KEEP, R_SUM_ALL, R_MEAN, R_AMAX, R_AMIN, R_PROD, R_VAR, R_STD, R_LSE, R_ARGMAX, R_ARGMIN, R_MAXV,
       R_SOFTMAX, R_LOGSOFTMAX, R_LN, R_LN_WB, R_CSUM, R_CMEAN, R_CAMAX, R_CAMIN, R_CMID, R_CPROD, R_CVAR, R_CSTD,
       R_CLSE, R_CARGMAX, R_CARGMIN, R_CMAXV, R_SSUM, R_SMEAN, R_SVAR, R_SAMAX, R_SPROD, R_SLSE, R_SARGMAX, R_SARGMIN, R_COUNT };
static const char *const r_names[R_COUNT] = {"sum", "sum keepdim", "sum all", "mean", "amax", "amin", "prod", "var", "std",
                                             "logsumexp", "argmax", "argmin", "max values", "softmax", "log_softmax",
                                             "layer_norm", "layer_norm w b", "sum over dim 0", "mean over dims 0, 1 keepdim",
                                             "amax over dims 0, 1", "amin over dim 0 keepdim", "mean over dim 1",
                                             "prod over dim 0", "var over dim 1", "std over dims 0, 1 keepdim",
                                             "logsumexp over dim 0", "argmax over dim 0", "argmin over dim 1 keepdim",
                                             "max values over dim 0", "sum over dims 0, 2", "mean over dims 0, 2",
                                             "var over dims 0, 2", "amax over dims 0, 2", "prod over dims 0, 2",
                                             "logsumexp over dims 0, 2", "argmax of all", "argmin of all keepdim"};
static int exact_op(int op) {
    return op == R_AMAX || op == R_AMIN || op == R_PROD || op == R_ARGMAX || op == R_ARGMIN || op == R_MAXV || op == R_CAMAX ||
           op == R_CAMIN || op == R_CPROD || op == R_CARGMAX || op == R_CARGMIN || op == R_CMAXV || op == R_SAMAX ||
           op == R_SPROD || op == R_SARGMAX || op == R_SARGMIN;
}
/* Reductions over dims 0 and 2 of [A, B, L], keeping B (a channel's statistics). */
static int seg_op(int op) { return op >= R_SSUM && op <= R_SLSE; }
/* Argreductions over every dim: from the leaf laid out as [B, A, L] (x02), segments of L. */
static int flat_op(int op) { return op == R_SARGMAX || op == R_SARGMIN; }
static int arg_op(int op) {
    return op == R_ARGMAX || op == R_ARGMIN || op == R_MAXV || op == R_CARGMAX || op == R_CARGMIN || op == R_CMAXV || flat_op(op);
}
static int row_shaped(int op) { return op >= R_SOFTMAX && op <= R_LN_WB; }
/* Column reductions (a column group's centre where the input is laid out so): the dims they
   keep, a bit a dim. */
static int col_kept(int op) {
    return op == R_CSUM || op == R_CAMIN || op == R_CPROD || op == R_CLSE || op == R_CARGMAX || op == R_CMAXV ? 6
         : op == R_CMEAN || op == R_CAMAX || op == R_CSTD ? 4
         : op == R_CMID || op == R_CVAR || op == R_CARGMIN ? 5 : seg_op(op) ? 2 : 0;
}
/* Is op of t the centre of a column group (genie.h, >>fuse): a reduction (sum, mean, amax, amin, prod, var,
   std, logsumexp) or argreduce whose kept dims, in order, end in a unit-stride run of at least 16 elements? The
   row ops over the last dim are, of the transposed leaf. */
static int col_group(genie_tensor *t, int op) {
    const int64_t *sh = genie_shape(t), *st = genie_strides(t);
    const int row = op == R_SUM || op == R_SUM_KEEP || op == R_MEAN || op == R_AMAX || op == R_AMIN || op == R_PROD || op == R_VAR ||
                    op == R_STD || op == R_LSE || op == R_ARGMAX || op == R_ARGMIN || op == R_MAXV;
    const int kept = row ? 3 : col_kept(op);
    int64_t run = 1;
    int d;
    for (d = 2; d >= 0 && kept; d--) {
        if (!(kept >> d & 1)) continue;
        if (sh[d] != 1 && st[d] != run) break;
        run *= sh[d];
    }
    return kept && run >= 16;
}

/* Is a reduction over dims 0 and 2 of t segments (genie.h, a segmented group's centre where a
   prologue computes t): A runs of L >= 16 elements of unit stride, not one run? */
static int seg_layout(genie_tensor *t) {
    const int64_t *sh = genie_shape(t), *st = genie_strides(t);
    return sh[0] > 1 && sh[2] >= 16 && st[2] == 1 && st[0] != sh[2];
}
/* Are t's dims one run of some stride (dims of size 1 aside)? A sum over them all is a row;
   else (the transposed leaf's) segments, which center no row group (genie.h, genie__row_groupable). */
static int one_run(genie_tensor *t) {
    const int64_t *sh = genie_shape(t), *st = genie_strides(t);
    int64_t want = -1;
    int d;
    for (d = genie_ndim(t) - 1; d >= 0; d--) {
        if (sh[d] == 1) continue;
        if (want >= 0 && st[d] != want) return 0;
        want = st[d] * sh[d];
    }
    return 1;
}
/* Are t's dims, not one run, segments for a reduction over them all: do they end in a
   unit-stride run of at least 16 elements (genie.h, genie__seg_run)? */
static int flat_seg(genie_tensor *t) {
    const int64_t *sh = genie_shape(t), *st = genie_strides(t);
    int64_t run = 1;
    int d;
    for (d = genie_ndim(t) - 1; d >= 0 && (sh[d] == 1 || st[d] == run); d--) run *= sh[d];
    return !one_run(t) && run >= 16;
}

/* The leaves of a program over rows [A, B, L] (A*B rows of L): x, a transposed
   view xt, a row vector bias [L] and a column [A, B, 1] (both broadcast), an
   output-space vector ov [A, B] read with stride 2, layer_norm's w and b, a 0-d s0,
   and x02: [B, A, L] transposed in its first two dims. */
typedef struct leaves {
    genie_tensor *x, *xt, *bias, *col, *ov, *w, *b, *s0, *x02;
} leaves;
static void make_leaves(genie_ctx *c, uint64_t seed, int64_t A, int64_t B, int64_t L, genie_dtype dt, leaves *lv) {
    int64_t s3[3] = {A, B, L}, s3t[3] = {A, L, B}, sc[3] = {A, B, 1}, so[3] = {A, B, 2}, s3s[3] = {B, A, L};
    genie_tensor *all[9];
    int i;
    lv->x = genie_randn(c, GENIE_F32, 3, s3, seed);
    lv->xt = genie_transpose(c, genie_randn(c, GENIE_F32, 3, s3t, seed + 1), 1, 2);
    lv->bias = genie_randn(c, GENIE_F32, 1, &L, seed + 2);
    lv->col = genie_randn(c, GENIE_F32, 3, sc, seed + 3);
    lv->ov = genie_select(c, genie_randn(c, GENIE_F32, 3, so, seed + 4), 2, 1);
    lv->w = genie_randn(c, GENIE_F32, 1, &L, seed + 5);
    lv->b = genie_randn(c, GENIE_F32, 1, &L, seed + 6);
    lv->s0 = genie_randn(c, GENIE_F32, 0, NULL, seed + 7);
    lv->x02 = genie_transpose(c, genie_randn(c, GENIE_F32, 3, s3s, seed + 8), 0, 1);
    all[0] = lv->x; all[1] = lv->xt; all[2] = lv->bias; all[3] = lv->col; all[4] = lv->ov; all[5] = lv->w; all[6] = lv->b;
    all[7] = lv->s0; all[8] = lv->x02;
    for (i = 0; i < 9 && dt != GENIE_F32; i++) { /* of dt (the transposed ones as views, as in f32) */
        const int tr = i == 1 || i == 8, d0 = i == 1;
        genie_tensor *u = tr ? genie_transpose(c, all[i], d0, d0 + 1) : all[i], *h = genie_to_dtype(c, u, dt);
        if (tr) genie_release(u);
        genie_release(all[i]);
        all[i] = tr ? genie_transpose(c, h, d0, d0 + 1) : h;
        if (tr) genie_release(h);
    }
    lv->x = all[0]; lv->xt = all[1]; lv->bias = all[2]; lv->col = all[3]; lv->ov = all[4]; lv->w = all[5]; lv->b = all[6];
    lv->s0 = all[7]; lv->x02 = all[8];
    genie_realize(c, 9, all);
}
static void drop_leaves(leaves *lv) {
    genie_release(lv->x); genie_release(lv->xt); genie_release(lv->bias); genie_release(lv->col);
    genie_release(lv->ov); genie_release(lv->w); genie_release(lv->b); genie_release(lv->s0);
    genie_release(lv->x02);
}

/* One elementwise step on t; o: operands of t's shape (or broadcast to it). Exact unless trans. */
static genie_tensor *step(genie_ctx *c, genie_tensor *t, genie_tensor *const *o, int no, int trans) {
    genie_tensor *u = o[rnd((uint32_t)no)];
    switch (rnd(trans ? 12 : 9)) {
    case 0: return genie_add(c, t, u);
    case 1: return genie_mul(c, u, t);
    case 2: return genie_sub(c, t, u);
    case 3: return genie_maximum(c, t, u);
    case 4: return genie_add_scalar(c, t, 0.25 * (double)rnd(9) - 1.0);
    case 5: return genie_mul_scalar(c, t, 0.75);
    case 6: return genie_relu(c, t);
    case 7: return genie_abs(c, t);
    case 8: return genie_square(c, t);
    case 9: return genie_gelu(c, t);
    case 10: return genie_tanh(c, t);
    default: return genie_sigmoid(c, t);
    }
}
static genie_tensor *row_apply(genie_ctx *c, int op, genie_tensor *t, const leaves *lv) {
    int64_t last = -1, L = genie_shape(t)[2], dims01[2] = {0, 1}, dims02[2] = {0, 2};
    genie_tuple *tu;
    genie_tensor *r;
    switch (op) {
    case R_SUM: return genie_sum(c, t, 1, &last, 0);
    case R_SUM_KEEP: return genie_sum(c, t, 1, &last, 1);
    case R_SUM_ALL: return genie_sum(c, t, 0, NULL, 0);
    case R_MEAN: return genie_mean(c, t, 1, &last, 0);
    case R_AMAX: return genie_amax(c, t, 1, &last, 0);
    case R_AMIN: return genie_amin(c, t, 1, &last, 1);
    case R_PROD: return genie_prod(c, t, 1, &last, 0);
    case R_VAR: return genie_var(c, t, 1, &last, 1, 0);
    case R_STD: return genie_std(c, t, 1, &last, 0, 1);
    case R_LSE: return genie_logsumexp(c, t, 1, &last, 0);
    case R_ARGMAX: return genie_argmax(c, t, -1, 0);
    case R_ARGMIN: return genie_argmin(c, t, -1, 1);
    case R_MAXV:
        tu = genie_max_dim(c, t, -1, 0);
        r = genie_tuple_get(tu, 0);
        genie_retain(r);
        genie_tuple_release(tu);
        return r;
    case R_SOFTMAX: return genie_softmax(c, t, -1);
    case R_LOGSOFTMAX: return genie_log_softmax(c, t, -1);
    case R_LN: return genie_layer_norm(c, t, 1, &L, NULL, NULL, 1e-5);
    case R_LN_WB: return genie_layer_norm(c, t, 1, &L, lv->w, lv->b, 1e-5);
    case R_CSUM: return genie_sum(c, t, 1, dims01, 0);
    case R_CMEAN: return genie_mean(c, t, 2, dims01, 1);
    case R_CAMAX: return genie_amax(c, t, 2, dims01, 0);
    case R_CMID: return genie_mean(c, t, 1, dims01 + 1, 0);
    case R_CPROD: return genie_prod(c, t, 1, dims01, 0);
    case R_CVAR: return genie_var(c, t, 1, dims01 + 1, 1, 0);
    case R_CSTD: return genie_std(c, t, 2, dims01, 0, 1);
    case R_CLSE: return genie_logsumexp(c, t, 1, dims01, 0);
    case R_CARGMAX: return genie_argmax(c, t, 0, 0);
    case R_CARGMIN: return genie_argmin(c, t, 1, 1);
    case R_CMAXV:
        tu = genie_max_dim(c, t, 0, 0);
        r = genie_tuple_get(tu, 0);
        genie_retain(r);
        genie_tuple_release(tu);
        return r;
    case R_SSUM: return genie_sum(c, t, 2, dims02, 0);
    case R_SMEAN: return genie_mean(c, t, 2, dims02, 0);
    case R_SVAR: return genie_var(c, t, 2, dims02, 1, 0);
    case R_SAMAX: return genie_amax(c, t, 2, dims02, 0);
    case R_SPROD: return genie_prod(c, t, 2, dims02, 0);
    case R_SLSE: return genie_logsumexp(c, t, 2, dims02, 0);
    case R_SARGMAX: return genie_argmax(c, t, GENIE_DIM_NONE, 0);
    case R_SARGMIN: return genie_argmin(c, t, GENIE_DIM_NONE, 1);
    default: return genie_amin(c, t, 1, dims01, 1);
    }
}

/* One random program around row op `op`, replayed identically from the seed:
   np prologue steps, the row op, ne epilogue steps; some values held. Returns
   the handles to read; *groups, *nodes: the groups it fuses into and their
   nodes (one group around the row op; rows over 64K elements are no centre:
   the prologue and epilogue chains are groups of their own; a column group's
   centre alone is a group of one, and so is an argreduction of all of the x02
   leaf; -1: not predicted, a column reduction whose input's kept dims are not
   one run, or a sum over every dim of a prologue laid out as the transposed
   leaf: segments, no centre). */
#define NKEEP 4
static int build(genie_ctx *c, uint64_t seed, int op, const leaves *lv, genie_tensor **out, int *groups, int *nodes) {
    const int half = genie_dtype_of(lv->x) != GENIE_F32; /* a lone f16/bf16 op is a group of one */
    genie_tensor *pro[4], *epi[3], *t, *t0, *u;
    int np, ne, i, nout = 0, trans, noe = 0, cg, sg, seg, nocentre;
    rng_state = seed;
    trans = !exact_op(op) && rnd(2);
    np = (int)rnd(6);
    ne = arg_op(op) ? 0 : (int)rnd(5);
    pro[0] = lv->x; pro[1] = lv->xt; pro[2] = lv->bias; pro[3] = lv->col;
    genie_pool_push(c);
    t = rnd(2) ? (flat_op(op) ? lv->x02 : lv->x) : lv->xt; /* a transposed input with no prologue: the row op reads it
                                                              through its view */
    for (i = 0; i < np; i++) {
        t = step(c, t, pro, 4, trans);
        if (nout < NKEEP - 1 && rnd(5) == 0) { genie_retain(t); out[nout++] = t; }
    }
    cg = col_group(t, op);
    sg = !cg && seg_op(op) && np > 0 && seg_layout(t); /* a segmented group: only with a prologue */
    seg = op == R_SUM_ALL && !one_run(t);
    t0 = t;
    nocentre = flat_op(op) && !flat_seg(t) && (!one_run(t) || genie_numel(t) > 65536); /* neither segments nor a row */
    t = u = row_apply(c, op, t, lv);
    if (nout < NKEEP - 1 && ne > 0 && rnd(4) == 0) { genie_retain(t); out[nout++] = t; }
    if (row_shaped(op)) { epi[noe++] = lv->x; epi[noe++] = lv->xt; epi[noe++] = lv->bias; }
    else if (seg_op(op)) { epi[noe++] = genie_select(c, lv->ov, 0, 0); epi[noe++] = lv->s0; } /* [B] strided, 0-dim */
    else if (col_kept(op)) { epi[noe++] = lv->bias; epi[noe++] = lv->s0; }  /* [L] broadcast, 0-dim */
    else if (op == R_SUM_KEEP || op == R_STD || op == R_AMIN) epi[noe++] = genie_unsqueeze(c, lv->ov, 2);
    else if (op != R_SUM_ALL) epi[noe++] = lv->ov;
    else epi[noe++] = lv->s0;
    for (i = 0; i < ne; i++) {
        t = step(c, t, epi, noe, trans);
        if (nout < NKEEP - 1 && i + 1 < ne && rnd(4) == 0) { genie_retain(t); out[nout++] = t; }
    }
    genie_retain(t);
    out[nout++] = t;
    genie_pool_pop(c); /* the other intermediates are released: nothing can read them */
    if (op == R_MAXV || op == R_CMAXV) genie_release(u); /* ours, not the pool's (taken from the tuple) */
    *groups = col_kept(op) && !cg && !sg ? -1 : np + ne > 0 || cg;
    *nodes = col_kept(op) && !cg && !sg ? -1 : np + ne > 0 || cg ? np + ne + 1 : 0;
    if (seg && np) *groups = *nodes = -1; /* segments of a prologue laid out as the transposed leaf (its layout: not predicted) */
    else if (flat_op(op) && !np && flat_seg(t0)) { /* the leaf's segments alone: a segmented group of one */
        *groups = 1;
        *nodes = 1;
    } else if (nocentre && np) {
        *groups = np >= 2 - half;
        *nodes = np >= 2 - half ? np : 0;
    }
    else if (op == R_SUM_ALL && (genie_numel(lv->x) > 65536 || seg)) { /* one row of them all, too long for the row registers,
                                                                          or segments of the strided leaf: no centre */
        *groups = (np >= 2 - half) + (ne >= 2 - half);
        *nodes = (np >= 2 - half ? np : 0) + (ne >= 2 - half ? ne : 0);
    }
    return nout;
}

static int compare(genie_ctx *c, genie_tensor *a, genie_ctx *r, genie_tensor *b, const char *what, double tol) {
    int64_t n = genie_numel(a), i, bad = 0, bits = 0;
    double *x = (double *)malloc((size_t)n * 8 + 8), *y = (double *)malloc((size_t)n * 8 + 8), big = 0;
    genie_result e1 = genie_read(c, a, GENIE_F64, x, (size_t)n * 8), e2 = genie_read(r, b, GENIE_F64, y, (size_t)n * 8);
    RCHECK(e1 == GENIE_OK && e2 == GENIE_OK && n == genie_numel(b), "%s: read failed: %s / %s", what, genie_last_error(c),
           genie_last_error(r));
    for (i = 0; i < n && e1 == GENIE_OK && e2 == GENIE_OK; i++)
        if (isfinite(y[i]) && fabs(y[i]) > big) big = fabs(y[i]);
    for (i = 0; i < n && e1 == GENIE_OK && e2 == GENIE_OK; i++) {
        int same = memcmp(&x[i], &y[i], 8) == 0 || (x[i] != x[i] && y[i] != y[i]) ||
                   (tol > 0 && fabs(x[i] - y[i]) <= tol * (fabs(y[i]) + 0.05 * big) + 1e-6);
        if (!same && bad++ == 0) printf("  %s: element %lld: fused %.9g, reference %.9g\n", what, (long long)i, x[i], y[i]);
        bits += memcmp(&x[i], &y[i], 8) != 0 && !(x[i] != x[i] && y[i] != y[i]);
    }
    RCHECK(bad == 0, "%s: %lld of %lld elements differ", what, (long long)bad, (long long)n);
    RCHECK(genie_dtype_of(a) == GENIE_F32 || genie_dtype_of(a) == GENIE_I64 || bits <= n / 50 + 1,
           "%s: %lld of %lld elements are not the reference's bits", what, (long long)bits, (long long)n);
    free(x);
    free(y);
    return bad == 0;
}

static void random_programs(int th, genie_dtype dt) {
    const double tol = dt == GENIE_F16 ? 2e-2 : dt == GENIE_BF16 ? 1e-1 : 1e-4;
    static const int64_t shapes[][3] = {{1, 1, 1}, {2, 3, 3}, {1, 5, 17}, {3, 7, 64}, {1, 4, 1000}, {2, 35, 1031},
                                        {1, 300, 3}, {1, 1, 1031}, {70, 1, 1}};
    const int quick = getenv("GENIE_GEMM_QUICK") != NULL; /* (valgrind) rows over 64K: f32 on 1 thread only */
    genie_ctx_desc dc, dr;
    genie_ctx *c, *r;
    int op, si, v, fails = 0;
    memset(&dc, 0, sizeof dc);
    memset(&dr, 0, sizeof dr);
    dc.n_threads = th;
    dc.cpu = (genie_cpu)(GENIE_CPU_COUNT - 1); /* the best path this CPU runs, whatever GENIE_CPU says */
    dr.cpu = GENIE_CPU_REFERENCE;
    c = genie_ctx_create(&dc);
    r = genie_ctx_create(&dr);
    for (op = 0; op < R_COUNT; op++)
        for (si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); si++)
            for (v = 0; v < (shapes[si][0] * shapes[si][1] * shapes[si][2] > 4096 ? 2 : 3) &&
                        !(quick && shapes[si][0] * shapes[si][1] * shapes[si][2] > 65536 && (th > 1 || dt != GENIE_F32)); v++) {
                const int64_t *s = shapes[si];
                uint64_t seed = 100000u * (uint64_t)th + 1000000u * (uint64_t)dt + 1000u * (uint64_t)op + 10u * (uint64_t)si + (uint64_t)v;
                genie_tensor *a[NKEEP], *b[NKEEP];
                leaves lc, lr;
                genie_stats s0, s1;
                char what[200];
                int na, nb, k, nodes = 0, nodes_r = 0, groups = 0, groups_r = 0;
                make_leaves(c, seed, s[0], s[1], s[2], dt, &lc);
                make_leaves(r, seed, s[0], s[1], s[2], dt, &lr);
                na = build(c, seed, op, &lc, a, &groups, &nodes);
                nb = build(r, seed, op, &lr, b, &groups_r, &nodes_r);
                s0 = genie_get_stats(c);
                genie_realize(c, na, a);
                s1 = genie_get_stats(c);
                snprintf(what, sizeof what, "%s %s [%lld, %lld, %lld] seed %llu, %d thread%s", genie_dtype_name(dt), r_names[op],
                         (long long)s[0], (long long)s[1], (long long)s[2], (unsigned long long)seed, th, th > 1 ? "s" : "");
                RCHECK(na == nb, "%s: programs differ", what);
                RCHECK(groups < 0 || (s1.fused_groups - s0.fused_groups == (uint64_t)groups &&
                                      s1.fused_nodes - s0.fused_nodes == (uint64_t)nodes),
                       "%s: %llu groups of %llu nodes, expected %d of %d", what,
                       (unsigned long long)(s1.fused_groups - s0.fused_groups), (unsigned long long)(s1.fused_nodes - s0.fused_nodes),
                       groups, nodes);
                for (k = 0; k < na && k < nb; k++) {
                    char w2[260];
                    snprintf(w2, sizeof w2, "%s, value %d of %d", what, k + 1, na);
                    if (!compare(c, a[k], r, b[k], w2, exact_op(op) && (dt == GENIE_F32 || (op != R_PROD && op != R_CPROD && op != R_SPROD)) ? 0 : tol) &&
                        ++fails > 10)
                        return;
                    genie_release(a[k]);
                    genie_release(b[k]);
                }
                drop_leaves(&lc);
                drop_leaves(&lr);
            }
    genie_ctx_destroy(c);
    genie_ctx_destroy(r);
}

/* In-place writes through views inside and around fused chains: a column
   block of a prologue value scaled in place before the row op reads it; a
   leaf written after a group that reads it was captured (the group reads the
   old version); softmax(x * s + mask) with mask's rows written in place. */
static void inplace_cases(int th) {
    genie_ctx *cs[2];
    genie_tensor *res[2][4];
    int k, form;
    for (form = 0; form < 3; form++) {
        for (k = 0; k < 2; k++) {
            genie_ctx_desc d;
            int64_t s[2] = {37, 70}, L = 70, last = -1;
            genie_tensor *x, *m, *t, *w, *b, *all[4];
            memset(&d, 0, sizeof d);
            d.n_threads = th;
            d.cpu = k ? GENIE_CPU_REFERENCE : (genie_cpu)(GENIE_CPU_COUNT - 1);
            cs[k] = genie_ctx_create(&d);
            x = genie_randn(cs[k], GENIE_F32, 2, s, 9);
            m = genie_randn(cs[k], GENIE_F32, 2, s, 10);
            w = genie_randn(cs[k], GENIE_F32, 1, &L, 11);
            b = genie_randn(cs[k], GENIE_F32, 1, &L, 12);
            all[0] = x; all[1] = m; all[2] = w; all[3] = b;
            genie_realize(cs[k], 4, all);
            genie_pool_push(cs[k]);
            if (form == 0) { /* a prologue value written through a transposed narrow view */
                t = genie_add(cs[k], genie_mul_scalar(cs[k], x, 0.5), m);
                genie_mul_(cs[k], genie_narrow(cs[k], genie_t(cs[k], t), 0, 3, 20), genie_full(cs[k], GENIE_F32, 0, NULL, 2.0));
                res[k][0] = genie_relu(cs[k], genie_layer_norm(cs[k], genie_sub(cs[k], t, b), 1, &L, w, b, 1e-5));
                res[k][1] = genie_mul(cs[k], genie_logsumexp(cs[k], genie_add(cs[k], t, x), 0, NULL, 0), genie_sum(cs[k], m, 0, NULL, 0));
            } else if (form == 1) { /* x written after the groups reading it were captured */
                res[k][0] = genie_add(cs[k], genie_softmax(cs[k], genie_mul_scalar(cs[k], x, 0.125), -1), b);
                res[k][1] = genie_sqrt(cs[k], genie_var(cs[k], genie_add(cs[k], x, m), 1, &last, 1, 1));
                genie_add_(cs[k], genie_narrow(cs[k], x, 1, 5, 30), genie_narrow(cs[k], m, 1, 0, 30));
            } else { /* the mask's rows written in place, then softmax(x * s + mask) * w; the written rows read again */
                genie_tensor *rows = genie_narrow(cs[k], m, 0, 2, 10);
                genie_mul_(cs[k], rows, genie_full(cs[k], GENIE_F32, 0, NULL, -3.0));
                res[k][0] = genie_mul(cs[k], genie_softmax(cs[k], genie_add(cs[k], genie_mul_scalar(cs[k], x, 0.3), m), -1), w);
                res[k][1] = genie_gelu(cs[k], genie_amax(cs[k], genie_sub(cs[k], m, x), 1, &last, 0));
                genie_add_(cs[k], genie_narrow(cs[k], genie_t(cs[k], res[k][0]), 0, 1, 4), genie_full(cs[k], GENIE_F32, 0, NULL, 1.0));
            }
            res[k][2] = x;
            res[k][3] = m;
            genie_retain(res[k][0]);
            genie_retain(res[k][1]);
            genie_pool_pop(cs[k]);
        }
        for (k = 0; k < 4; k++) {
            char what[120];
            snprintf(what, sizeof what, "in-place form %d, value %d, %d thread%s", form, k, th, th > 1 ? "s" : "");
            compare(cs[0], res[0][k], cs[1], res[1][k], what, 1e-4);
        }
        RCHECK(genie_get_stats(cs[0]).fused_groups >= 2, "in-place form %d: %llu groups", form,
               (unsigned long long)genie_get_stats(cs[0]).fused_groups);
        for (k = 0; k < 2; k++) genie_ctx_destroy(cs[k]);
    }
}

/* Empty tensors and empty rows: nothing is fused (no rows to run), the results agree. */
static void empty_cases(void) {
    int64_t s0[3] = {0, 3, 5}, s1[3] = {2, 3, 0}, L = 5;
    genie_ctx *cs[2];
    genie_tensor *res[2][3];
    int k;
    for (k = 0; k < 2; k++) {
        genie_ctx_desc d;
        genie_tensor *x, *e;
        int64_t last = -1;
        memset(&d, 0, sizeof d);
        d.cpu = k ? GENIE_CPU_REFERENCE : (genie_cpu)(GENIE_CPU_COUNT - 1);
        cs[k] = genie_ctx_create(&d);
        x = genie_randn(cs[k], GENIE_F32, 3, s0, 1);
        e = genie_randn(cs[k], GENIE_F32, 3, s1, 2);
        res[k][0] = genie_add_scalar(cs[k], genie_softmax(cs[k], genie_mul_scalar(cs[k], x, 2.0), -1), 1.0);
        res[k][1] = genie_mul_scalar(cs[k], genie_sum(cs[k], genie_add_scalar(cs[k], e, 1.0), 1, &last, 0), 3.0);
        res[k][2] = genie_relu(cs[k], genie_layer_norm(cs[k], genie_add(cs[k], x, x), 1, &L, NULL, NULL, 1e-5));
    }
    for (k = 0; k < 3; k++) compare(cs[0], res[0][k], cs[1], res[1][k], "empty", 0);
    for (k = 0; k < 2; k++) genie_ctx_destroy(cs[k]);
}

/* Chains longer than a group (32 ops) around a row op, and more distinct
   inputs than a group takes (16): split into several groups, still equal. */
static void long_cases(int th) {
    genie_ctx *cs[2];
    genie_tensor *res[2][2];
    int k, i;
    for (k = 0; k < 2; k++) {
        genie_ctx_desc d;
        int64_t s[2] = {20, 33}, last = -1;
        genie_tensor *x, *t, *u;
        memset(&d, 0, sizeof d);
        d.n_threads = th;
        d.cpu = k ? GENIE_CPU_REFERENCE : (genie_cpu)(GENIE_CPU_COUNT - 1);
        cs[k] = genie_ctx_create(&d);
        x = genie_randn(cs[k], GENIE_F32, 2, s, 5);
        genie_realize(cs[k], 1, &x);
        genie_pool_push(cs[k]);
        for (t = x, i = 0; i < 40; i++) t = genie_add_scalar(cs[k], genie_mul_scalar(cs[k], t, 0.9), 0.01 * i);
        t = genie_softmax(cs[k], t, -1);
        for (i = 0; i < 40; i++) t = genie_mul_scalar(cs[k], genie_add_scalar(cs[k], t, 0.5), 1.1);
        res[k][0] = t;
        for (u = x, i = 0; i < 20; i++) u = genie_add(cs[k], u, genie_randn(cs[k], GENIE_F32, 2, s, 100 + (uint64_t)i));
        res[k][1] = genie_add(cs[k], genie_sum(cs[k], u, 1, &last, 0), genie_randn(cs[k], GENIE_F32, 1, s, 99));
        genie_retain(res[k][0]);
        genie_retain(res[k][1]);
        genie_pool_pop(cs[k]);
    }
    compare(cs[0], res[0][0], cs[1], res[1][0], "a 161-op chain around softmax", 1e-4);
    compare(cs[0], res[0][1], cs[1], res[1][1], "sum over 20 distinct inputs", 1e-4);
    RCHECK(genie_get_stats(cs[0]).fused_groups >= 6, "long chains: %llu groups", (unsigned long long)genie_get_stats(cs[0]).fused_groups);
    for (k = 0; k < 2; k++) genie_ctx_destroy(cs[k]);
}

/* softmax(x * 0.125 + m) over outputs of 8 MiB and more: a group whose root streams its rows out,
   pipelined (genie.h, genie__k_rfused: row o's exps while row o - 1 goes out), with rows of 4097
   (every alignment of the output) and of 200 (two rows a prologue block), every element within
   1e-5 of the reference relative to itself (softmax's bound: 2^-24 (24 + |x - max|)). Quick
   (valgrind): the first shape on 1 thread only. */
static void stream_cases(int th) {
    static const int64_t shapes[2][2] = {{520, 4097}, {10500, 200}};
    int si, k;
    for (si = 0; si < 2; si++) {
        genie_ctx *cs[2];
        float *v[2];
        int64_t n = shapes[si][0] * shapes[si][1], i, bad = 0;
        uint64_t g0 = 0;
        if (getenv("GENIE_GEMM_QUICK") && (si || th > 1)) continue;
        for (k = 0; k < 2; k++) {
            genie_ctx_desc d;
            genie_tensor *x, *m, *t;
            memset(&d, 0, sizeof d);
            d.n_threads = th;
            d.cpu = k ? GENIE_CPU_REFERENCE : (genie_cpu)(GENIE_CPU_COUNT - 1);
            cs[k] = genie_ctx_create(&d);
            v[k] = (float *)malloc((size_t)n * sizeof(float));
            x = genie_randn(cs[k], GENIE_F32, 2, shapes[si], 41);
            m = genie_randn(cs[k], GENIE_F32, 1, shapes[si] + 1, 42);
            genie_realize(cs[k], 1, &x);
            genie_realize(cs[k], 1, &m);
            if (k == 0) g0 = genie_get_stats(cs[0]).fused_groups;
            t = genie_softmax(cs[k], genie_add(cs[k], genie_mul_scalar(cs[k], x, 0.125), m), -1);
            RCHECK(v[k] && genie_read(cs[k], t, GENIE_F32, v[k], (size_t)n * sizeof(float)) == GENIE_OK, "streamed softmax: %s",
                   genie_last_error(cs[k]));
        }
        RCHECK(genie_get_stats(cs[0]).fused_groups == g0 + 1, "streamed softmax [%lld, %lld]: not one fused group",
               (long long)shapes[si][0], (long long)shapes[si][1]);
        for (i = 0; i < n && v[0] && v[1]; i++)
            if (!(fabs((double)v[0][i] - v[1][i]) <= 1e-5 * fabs((double)v[1][i])) && bad++ == 0)
                printf("  streamed softmax [%lld, %lld], %d threads: element %lld: fused %.9g, reference %.9g\n",
                       (long long)shapes[si][0], (long long)shapes[si][1], th, (long long)i, v[0][i], v[1][i]);
        RCHECK(bad == 0, "streamed softmax [%lld, %lld], %d threads: %lld of %lld elements off", (long long)shapes[si][0],
               (long long)shapes[si][1], th, (long long)bad, (long long)n);
        for (k = 0; k < 2; k++) free(v[k]), genie_ctx_destroy(cs[k]);
    }
}

/* The tape cache keeps row groups as templates: the same structure realized
   again with other scalars (the prologue's scale, layer_norm's eps) takes the
   kept plan, rebound to the new nodes and scalars. */
static void cache_cases(void) {
    genie_ctx *cs[2];
    int k, it;
    uint64_t hits;
    for (k = 0; k < 2; k++) {
        genie_ctx_desc d;
        memset(&d, 0, sizeof d);
        d.cpu = k ? GENIE_CPU_REFERENCE : (genie_cpu)(GENIE_CPU_COUNT - 1);
        cs[k] = genie_ctx_create(&d);
    }
    hits = genie_get_stats(cs[0]).tape_cache_hits;
    for (it = 0; it < 3; it++) {
        genie_tensor *res[2][4];
        char what[80];
        uint64_t g0 = genie_get_stats(cs[0]).fused_groups, n0 = genie_get_stats(cs[0]).fused_nodes;
        for (k = 0; k < 2; k++) {
            int64_t s[2] = {9, 130}, L = 130, d0 = 0, s3[3] = {3, 5, 40}, d02[2] = {0, 2};
            genie_tensor *x = genie_randn(cs[k], GENIE_F32, 2, s, 20), *m = genie_randn(cs[k], GENIE_F32, 2, s, 21);
            genie_tensor *w = genie_randn(cs[k], GENIE_F32, 1, &L, 22), *x3 = genie_randn(cs[k], GENIE_F32, 3, s3, 23), *all[4];
            all[0] = x; all[1] = m; all[2] = w; all[3] = x3;
            genie_realize(cs[k], 4, all);
            genie_pool_push(cs[k]);
            res[k][0] = genie_mul(cs[k], genie_softmax(cs[k], genie_add(cs[k], genie_mul_scalar(cs[k], x, 0.5 + it), m), -1), w);
            res[k][1] = genie_add_scalar(cs[k], genie_layer_norm(cs[k], genie_add(cs[k], x, m), 1, &L, w, NULL, 1e-5 + 0.5 * it), (double)it);
            /* a column group, its scalars changed each iteration */
            res[k][2] = genie_mul_scalar(cs[k], genie_sum(cs[k], genie_add(cs[k], genie_mul_scalar(cs[k], x, 0.5 + it), m), 1, &d0, 0),
                                         1.0 + it);
            /* a segmented group: var over dims 0 and 2 of [3, 5, 40], keeping 5 */
            res[k][3] = genie_mul_scalar(cs[k], genie_var(cs[k], genie_square(cs[k], genie_add_scalar(cs[k], x3, 0.5 + it)), 2, d02, 1, 0),
                                         1.0 + it);
            genie_retain(res[k][0]);
            genie_retain(res[k][1]);
            genie_retain(res[k][2]);
            genie_retain(res[k][3]);
            genie_pool_pop(cs[k]);
            genie_realize(cs[k], 4, res[k]);
            genie_release(x); genie_release(m); genie_release(w); genie_release(x3);
        }
        snprintf(what, sizeof what, "tape cache, iteration %d", it);
        RCHECK(genie_get_stats(cs[0]).fused_groups - g0 == 4 && genie_get_stats(cs[0]).fused_nodes - n0 == 15,
               "%s: %llu groups of %llu nodes, expected 4 of 15", what, (unsigned long long)(genie_get_stats(cs[0]).fused_groups - g0),
               (unsigned long long)(genie_get_stats(cs[0]).fused_nodes - n0));
        compare(cs[0], res[0][0], cs[1], res[1][0], what, 1e-4);
        compare(cs[0], res[0][1], cs[1], res[1][1], what, 1e-4);
        compare(cs[0], res[0][2], cs[1], res[1][2], what, 0.0); /* bit for bit */
        compare(cs[0], res[0][3], cs[1], res[1][3], what, 1e-4);
        for (k = 0; k < 2; k++) { genie_release(res[k][0]); genie_release(res[k][1]); genie_release(res[k][2]); genie_release(res[k][3]); }
    }
    RCHECK(genie_get_stats(cs[0]).tape_cache_hits >= hits + 2, "tape cache: %llu hits for repeated row, column and segmented groups",
           (unsigned long long)(genie_get_stats(cs[0]).tape_cache_hits - hits));
    for (k = 0; k < 2; k++) genie_ctx_destroy(cs[k]);
}

void rfuse_tests(int *passed, int *failed) {
    int th, p0 = *passed, f0 = *failed;
    P = passed;
    F = failed;
    random_programs(1, GENIE_F16);
    random_programs(2, GENIE_BF16);
    for (th = 1; th <= 2; th++) {
        random_programs(th, GENIE_F32);
        inplace_cases(th);
        long_cases(th);
        stream_cases(th);
    }
    empty_cases();
    cache_cases();
    printf("  row groups (fused against the reference kernels): %d checks, %d failed\n", *passed - p0, *failed - f0);
}
