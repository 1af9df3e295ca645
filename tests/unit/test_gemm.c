/* test_gemm.c - every CPU kernel path this machine runs (generic, avx2, avx512),
   at 1 and 2 threads, against the plain strided reference kernel
   (GENIE_CPU_REFERENCE, which accumulates in double): matmul, linear and conv2d
   over sizes around the micro-kernel and cache-block edges, the four float
   dtypes, strided / transposed / offset / stride-0 / negative-stride / broadcast
   operands, biases, activations and residual adds after the product (main's
   GEMM epilogue), conv2d's strides, paddings, dilations, groups and layouts.

   Each case is built twice from the same recipe (genie_randn with the same seed,
   then the same views): once in a reference context, once in each fast context.
   Checked per case and fast context: no error, the result's shape, strides and
   offset equal the reference's, every element within the bound below, and, at 2
   threads, the result is bitwise the 1-thread result of the same path (the
   accumulation order of the GEMM must not depend on the thread count).

   ERROR BOUND, per output element, with S = sum_k |a_ik||b_kj| (+ |bias|)
   (+ |r|) summed in double on the host from the operands read back as f64 (not
   through genie), and K' = K (+ 1 for a bias, + 1 for a residual r):
     f32:  |fast - ref| <= K' * 2^-22 * S + 2^-140
           (the fast path's f32 sum is within ~K*2^-24*S of the exact value, the
           reference's double sum rounded once to f32 within 2^-24*S + K*2^-53*S:
           the sum is below (K+1)*2^-24*S, a margin of ~4)
     f64:  |fast - ref| <= K' * 2^-51 * S + 2^-1070
           (both sums are within K*2^-53*S of the exact value)
     f16:  the f32 bound + 2^-10*|ref| + 2^-24
     bf16: the f32 bound + 2^-7*|ref| + 2^-133
           (inputs widen exactly to f32 and their products are exact, so the f32
           sum is as above; then both sides round to the output dtype. Two values
           close together on either side of a rounding midpoint round one ulp
           apart, so the output term is one ulp, not half: 2^-10 (f16), 2^-7 (bf16)
           relative to |ref| is at least one ulp at |ref|; 2^-24 is f16's
           smallest subnormal, its ulp near zero.)
   A residual add after the product (p + r, which a fused epilogue computes
   before rounding p, while the reference rounds p first) adds one more ulp of
   the product: 2^-10*S (f16), 2^-7*S (bf16); K' covers it in f32/f64.
   relu changes nothing: it is exact and 1-Lipschitz. Other activations (gelu,
   gelu_tanh, silu, sigmoid, tanh: slopes below 1.2) scale the product's bound
   by 1.2 and add four ulps for their own rounding and evaluation (a fused
   epilogue may use a vector math routine): 2^-21*(|ref| + 1) (f32),
   2^-50*(|ref| + 1) (f64); f16/bf16 add 1.2 ulp of p and one of act(p) (at
   most max(S, 1)), as the reference rounds both.

   ENVIRONMENT
     GENIE_GEMM_QUICK=1     a small budget (make valgrind sets it)
     GENIE_GEMM_SEED=n      another seeded selection of sizes (default 1)
     GENIE_GEMM_PERTURB=1   developer check that the checks can fail: the fast
                            contexts at 2 threads scale operand 0 by 1.0625, so
                            value and bitwise checks there must fail
   Linked into build/test_main; main() calls gemm_tests(). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime: wall time beside CPU time */
#include "../../genie.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

void gemm_tests(int *passed, int *failed, int *skipped);

static int g_pass, g_fail, g_skip, g_quick, g_perturb, g_quiet;
static double g_ref_macs; /* multiply-adds run by the reference kernel */

/* where a check failed: the case and the context it ran in */
static char g_where[320];
#define GCHECK(cond) gcheck_((cond) != 0, #cond, __LINE__)
static void gcheck_(int ok, const char *what, int line) {
    if (ok) g_pass++;
    else { g_fail++; printf("FAIL tests/unit/test_gemm.c:%d: %s [%s]\n", line, what, g_where); }
}

/* ---- the contexts: one reference, and one per (path, thread count) ---- */
static const genie_cpu g_paths[3] = {GENIE_CPU_GENERIC, GENIE_CPU_AVX2, GENIE_CPU_AVX512};
typedef struct { genie_ctx *ctx; genie_cpu path; int nt; } fastctx;
static genie_ctx *g_ref;
static fastctx g_fc[6];
static int g_nfc;

/* ---- recipes ---- */
enum { K_MATMUL, K_LINEAR, K_CONV };
/* layouts of a 2-D (or the last two dims of an N-D) operand of logical shape [R, C] */
enum { L_CONTIG, L_T, L_STEP, L_STEPROW, L_OFFSET, L_EXPROW, L_EXPCOL, L_FLIP, L_FLIPCOL, L_TSTEP, L_COUNT };
static const char *const g_lnames[L_COUNT] = {"contig", "t", "step2", "steprow2", "offset", "expand-row",
                                              "expand-col", "flip", "flip-col", "t-step2"};
/* matmul forms: which operand ranks and batch dims */
enum { F_2D, F_BCAST4, F_B3_2D, F_1D_B3, F_1D_1D, F_2D_1D, F_2D_B3, F_1D_2D, F_PERMB, F_EXPB, F_COUNT };
static const char *const g_fnames[F_COUNT] = {"[M,K]@[K,N]", "[2,1,M,K]@[1,3,K,N]", "[B,M,K]@[K,N]", "[K]@[B,K,N]",
                                              "[K]@[K]", "[M,K]@[K]", "[M,K]@[B,K,N]", "[K]@[K,N]",
                                              "permute([M,B,K])@[B,K,N]", "expand([1,M,K])@[B,K,N]"};
/* what follows the product p (main fuses act(p), p + r and act(p) + r into the
   GEMM's epilogue for f32/f64 when nothing else reads p) */
enum { E_NONE, E_ACT, E_ADD, E_ADD_ACT, E_ACT_ADD };
static const char *const g_enames[5] = {"", "act(p)", "p + r", "act(p + r)", "act(p) + r"};
static genie_tensor *(*const g_acts[6])(genie_ctx *, genie_tensor *) = {genie_relu, genie_gelu, genie_gelu_tanh,
                                                                          genie_silu, genie_sigmoid, genie_tanh};
static const char *const g_anames[6] = {"relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh"};
static const char *const g_rnames[4] = {"r[N]", "r[M,1]", "r full", "r full transposed"};

typedef struct gcase {
    int kind, form, la, lb, bias, epi;
    genie_dtype dt;
    int64_t M, N, K, B;
    /* conv: x [B, C, H, W] (xl: 0 contiguous, 1 channels-last view, 2 W stepped, 3 unbatched),
       w [O, C/g, kh, kw] (wl: 0 contiguous, 1 permuted view) */
    int64_t C, H, W, O, kh, kw, stride[2], pad[2], dil[2], groups;
    int xl, wl;
    int act;  /* E_ACT...: index into g_acts (0 relu) */
    int res;  /* residual r: 0 [N], 1 [M, 1], 2 the product's shape, 3 that shape as a transposed view */
    int swap; /* r + p instead of p + r */
    int keep; /* keep a handle on the product, so it is read twice and not fused */
    int lazy; /* inputs drawn by genie_randn in each context (see randn below) */
    uint64_t seed;
} gcase;

/* Inputs: a case's random arrays are drawn once (genie_randn in a generator
   context), kept on the host in their dtype, and given to every context with
   genie_from_data, so 7 contexts cost one draw. Cases marked lazy call
   genie_randn in each context instead: the inputs are then computed in the same
   tape as the product (values are the same: randn depends on the seed only). */
typedef struct { genie_dtype dt; int nd; int64_t shape[8]; uint64_t seed; void *data; } gdraw;
static gdraw g_draws[8];
static int g_ndraws, g_lazy;
static genie_ctx *g_gen;
static void draws_clear(void) {
    while (g_ndraws > 0) free(g_draws[--g_ndraws].data);
}
static genie_tensor *randn(genie_ctx *ctx, genie_dtype dt, int nd, const int64_t *shape, uint64_t seed) {
    int i;
    gdraw *d;
    if (g_lazy) return genie_randn(ctx, dt, nd, shape, seed);
    for (i = 0; i < g_ndraws; i++) {
        d = &g_draws[i];
        if (d->dt == dt && d->nd == nd && d->seed == seed && memcmp(d->shape, shape, (size_t)nd * 8) == 0)
            return genie_from_data(ctx, dt, nd, shape, d->data);
    }
    if (g_ndraws == 8) return NULL;
    d = &g_draws[g_ndraws];
    d->dt = dt;
    d->nd = nd;
    memcpy(d->shape, shape, (size_t)nd * 8);
    d->seed = seed;
    {
        genie_tensor *t;
        size_t bytes;
        genie_pool_push(g_gen);
        t = genie_randn(g_gen, dt, nd, shape, seed);
        bytes = (size_t)genie_numel(t) * genie_dtype_size(dt);
        d->data = malloc(bytes ? bytes : 1);
        if (!d->data || genie_read(g_gen, t, dt, d->data, bytes) != GENIE_OK) {
            free(d->data);
            genie_clear_error(g_gen);
            genie_pool_pop(g_gen);
            return NULL;
        }
        genie_pool_pop(g_gen);
    }
    g_ndraws++;
    return genie_from_data(ctx, dt, nd, shape, d->data);
}

/* An operand of logical shape (nd, shape) in layout l (on its last two dims; a
   1-D operand is laid out as its only dim). Same recipe, same values, any ctx. */
static genie_tensor *operand(genie_ctx *ctx, genie_dtype dt, int nd, const int64_t *shape, int l, uint64_t seed) {
    int64_t s[8], d1 = nd - 1, d0 = nd >= 2 ? nd - 2 : -1;
    genie_tensor *t;
    memcpy(s, shape, (size_t)nd * 8);
    switch (l) {
    case L_T: case L_TSTEP:
        if (d0 < 0) return operand(ctx, dt, nd, shape, l == L_T ? L_CONTIG : L_STEP, seed);
        s[d0] = shape[d1];
        s[d1] = shape[d0] * (l == L_TSTEP ? 2 : 1);
        t = randn(ctx, dt, nd, s, seed);
        if (l == L_TSTEP) t = genie_slice(ctx, t, d1, 1, s[d1], 2);
        return genie_transpose(ctx, t, d0, d1);
    case L_STEP:
        s[d1] *= 2;
        return genie_slice(ctx, randn(ctx, dt, nd, s, seed), d1, 0, s[d1], 2);
    case L_STEPROW:
        if (d0 < 0) return operand(ctx, dt, nd, shape, L_STEP, seed);
        s[d0] *= 2;
        return genie_slice(ctx, randn(ctx, dt, nd, s, seed), d0, 1, s[d0], 2);
    case L_OFFSET: { /* every dim narrowed from a larger storage: offset > 0, padded rows */
        int i;
        for (i = 0; i < nd; i++) s[i] += i == d1 ? 5 : 3;
        t = randn(ctx, dt, nd, s, seed);
        for (i = 0; i < nd; i++) t = genie_narrow(ctx, t, i, i == d1 ? 2 : 1, shape[i]);
        return t;
    }
    case L_EXPROW: case L_EXPCOL: /* stride 0 */
        if (d0 < 0 || l == L_EXPCOL) s[d1] = 1;
        else s[d0] = 1;
        return genie_expand(ctx, randn(ctx, dt, nd, s, seed), nd, shape);
    case L_FLIP: case L_FLIPCOL: { /* negative strides, read through genie's internal flip */
        int64_t dims[2];
        int n = 0;
        if (l == L_FLIP && d0 >= 0) dims[n++] = d0;
        dims[n++] = d1;
        return genie_flip(ctx, randn(ctx, dt, nd, s, seed), n, dims);
    }
    default: return randn(ctx, dt, nd, shape, seed);
    }
}

/* the logical operand shapes of a matmul form */
static void mm_shapes(const gcase *c, int *an, int64_t *as, int *bn, int64_t *bs) {
    int64_t M = c->M, N = c->N, K = c->K, B = c->B;
    switch (c->form) {
    case F_BCAST4: *an = 4; as[0] = 2; as[1] = 1; as[2] = M; as[3] = K; *bn = 4; bs[0] = 1; bs[1] = 3; bs[2] = K; bs[3] = N; break;
    case F_B3_2D: *an = 3; as[0] = B; as[1] = M; as[2] = K; *bn = 2; bs[0] = K; bs[1] = N; break;
    case F_1D_B3: *an = 1; as[0] = K; *bn = 3; bs[0] = B; bs[1] = K; bs[2] = N; break;
    case F_1D_1D: *an = 1; as[0] = K; *bn = 1; bs[0] = K; break;
    case F_2D_1D: *an = 2; as[0] = M; as[1] = K; *bn = 1; bs[0] = K; break;
    case F_2D_B3: *an = 2; as[0] = M; as[1] = K; *bn = 3; bs[0] = B; bs[1] = K; bs[2] = N; break;
    case F_1D_2D: *an = 1; as[0] = K; *bn = 2; bs[0] = K; bs[1] = N; break;
    case F_PERMB: case F_EXPB: *an = 3; as[0] = B; as[1] = M; as[2] = K; *bn = 3; bs[0] = B; bs[1] = K; bs[2] = N; break;
    default: *an = 2; as[0] = M; as[1] = K; *bn = 2; bs[0] = K; bs[1] = N; break;
    }
}

/* handles kept past build's inner pool; released by unhold() after the case */
static genie_tensor *g_held[4];
static int g_nheld;
static void hold(genie_tensor *t) {
    if (t && g_nheld < 4) { genie_retain(t); g_held[g_nheld++] = t; }
}
static void unhold(void) {
    while (g_nheld > 0) genie_release(g_held[--g_nheld]);
}

/* Build case c in ctx: ins[0..1] get the operands as passed, ins[2] the bias
   (or NULL), ins[3] the residual of an epilogue (or NULL); returns the result. */
static genie_tensor *build(genie_ctx *ctx, const gcase *c, genie_tensor **ins, int perturb) {
    genie_tensor *r = NULL;
    genie_dtype dt = c->dt;
    ins[2] = ins[3] = NULL;
    if (c->kind == K_MATMUL) {
        int an, bn;
        int64_t as[4], bs[4];
        mm_shapes(c, &an, as, &bn, bs);
        if (c->form == F_PERMB) { /* [M, B, K] stored, permuted to [B, M, K] */
            int64_t st[3] = {c->M, c->B, c->K}, perm[3] = {1, 0, 2};
            ins[0] = genie_permute(ctx, operand(ctx, dt, 3, st, c->la, c->seed), 3, perm);
        } else if (c->form == F_EXPB) { /* batch stride 0 */
            int64_t st[3] = {1, c->M, c->K};
            ins[0] = genie_expand(ctx, operand(ctx, dt, 3, st, c->la, c->seed), 3, as);
        } else {
            ins[0] = operand(ctx, dt, an, as, c->la, c->seed);
        }
        ins[1] = operand(ctx, dt, bn, bs, c->lb, c->seed + 1);
        if (perturb) ins[0] = genie_mul_scalar(ctx, ins[0], 1.0625);
        genie_pool_push(ctx);
        r = genie_matmul(ctx, ins[0], ins[1]);
    } else if (c->kind == K_LINEAR) {
        /* x [B, M, K] (B = 0: [M, K]; M = 0: [K]), w [N, K] in layout lb, bias
           0 none, 1 [N], 2 [M, 1] broadcast, 3 [N] stepped */
        int64_t xs[3], ws[2] = {c->N, c->K}, bs[2];
        int xn = 0;
        if (c->B) xs[xn++] = c->B;
        if (c->M) xs[xn++] = c->M;
        xs[xn++] = c->K;
        ins[0] = operand(ctx, dt, xn, xs, c->la, c->seed);
        ins[1] = operand(ctx, dt, 2, ws, c->lb, c->seed + 1);
        if (c->bias == 1) { bs[0] = c->N; ins[2] = randn(ctx, dt, 1, bs, c->seed + 2); }
        if (c->bias == 2) { bs[0] = c->M; bs[1] = 1; ins[2] = randn(ctx, dt, 2, bs, c->seed + 2); }
        if (c->bias == 3) { bs[0] = 2 * c->N; ins[2] = genie_slice(ctx, randn(ctx, dt, 1, bs, c->seed + 2), 0, 1, 2 * c->N, 2); }
        if (perturb) ins[0] = genie_mul_scalar(ctx, ins[0], 1.0625);
        genie_pool_push(ctx);
        r = genie_linear(ctx, ins[0], ins[1], ins[2]);
    } else {
        int64_t xs[4], ws[4], bs[1] = {c->O}, cg = c->C / c->groups;
        if (c->xl == 1) { /* channels-last storage [B, H, W, C], viewed as [B, C, H, W] */
            int64_t perm[4] = {0, 3, 1, 2};
            xs[0] = c->B; xs[1] = c->H; xs[2] = c->W; xs[3] = c->C;
            ins[0] = genie_permute(ctx, randn(ctx, dt, 4, xs, c->seed), 4, perm);
        } else if (c->xl == 2) { /* W stepped by 2, offset 1 */
            xs[0] = c->B; xs[1] = c->C; xs[2] = c->H; xs[3] = 2 * c->W + 1;
            ins[0] = genie_slice(ctx, randn(ctx, dt, 4, xs, c->seed), 3, 1, xs[3], 2);
        } else if (c->xl == 3) { /* unbatched [C, H, W] */
            xs[0] = c->C; xs[1] = c->H; xs[2] = c->W;
            ins[0] = randn(ctx, dt, 3, xs, c->seed);
        } else {
            xs[0] = c->B; xs[1] = c->C; xs[2] = c->H; xs[3] = c->W;
            ins[0] = randn(ctx, dt, 4, xs, c->seed);
        }
        if (c->wl == 1) { /* weight stored [O, kh, kw, C/g] */
            int64_t perm[4] = {0, 3, 1, 2};
            ws[0] = c->O; ws[1] = c->kh; ws[2] = c->kw; ws[3] = cg;
            ins[1] = genie_permute(ctx, randn(ctx, dt, 4, ws, c->seed + 1), 4, perm);
        } else {
            ws[0] = c->O; ws[1] = cg; ws[2] = c->kh; ws[3] = c->kw;
            ins[1] = randn(ctx, dt, 4, ws, c->seed + 1);
        }
        if (c->bias) ins[2] = randn(ctx, dt, 1, bs, c->seed + 2);
        if (perturb) ins[0] = genie_mul_scalar(ctx, ins[0], 1.0625);
        genie_pool_push(ctx);
        r = genie_conv2d(ctx, ins[0], ins[1], ins[2], c->stride, c->pad, c->dil, c->groups);
    }
    /* The product and what follows it live in an inner pool, so that at the
       pop no handle is left on the product: only then may the executor fuse
       the epilogue. The result (and r, the product with keep) are held. */
    if (r && c->epi != E_NONE) {
        genie_tensor *p = r, *(*act)(genie_ctx *, genie_tensor *) = g_acts[c->act];
        if (c->keep) hold(p);
        if (c->epi >= E_ADD) {
            int nd = genie_ndim(p), i;
            int64_t rs[8];
            const int64_t *ps = genie_shape(p);
            if (c->res == 1 && nd >= 2) { rs[0] = ps[nd - 2]; rs[1] = 1; ins[3] = randn(ctx, dt, 2, rs, c->seed + 3); }
            else if (c->res >= 2 && nd >= 2) {
                memcpy(rs, ps, (size_t)nd * 8);
                if (c->res == 3) { rs[nd - 2] = ps[nd - 1]; rs[nd - 1] = ps[nd - 2]; }
                ins[3] = randn(ctx, dt, nd, rs, c->seed + 3);
                if (c->res == 3) ins[3] = genie_transpose(ctx, ins[3], nd - 2, nd - 1);
            } else {
                for (i = 0; i < nd; i++) rs[i] = ps[i];
                if (c->res != 2 && nd) { rs[0] = ps[nd - 1]; nd = 1; }
                ins[3] = randn(ctx, dt, nd, rs, c->seed + 3);
            }
            hold(ins[3]);
        }
        switch (c->epi) {
        case E_ACT: r = act(ctx, p); break;
        case E_ADD: r = c->swap ? genie_add(ctx, ins[3], p) : genie_add(ctx, p, ins[3]); break;
        case E_ADD_ACT: r = act(ctx, genie_add(ctx, p, ins[3])); break;
        default: r = c->swap ? genie_add(ctx, ins[3], act(ctx, p)) : genie_add(ctx, act(ctx, p), ins[3]); break;
        }
    }
    hold(r);
    genie_pool_pop(ctx);
    return r;
}

/* ---- the host side: read back as f64, S = sum |a||b| in double ---- */
static double *read64(genie_ctx *ctx, genie_tensor *t) {
    int64_t n = genie_numel(t);
    double *p = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (p && genie_read(ctx, t, GENIE_F64, p, (size_t)n * sizeof(double)) != GENIE_OK) { free(p); p = NULL; }
    return p;
}
/* the linear index into a contiguous (snd, ssh) that broadcasts to (tnd, tsh) at target index ti */
static int64_t bidx(int snd, const int64_t *ssh, int tnd, const int64_t *tsh, int64_t ti) {
    int64_t si = 0, mul = 1;
    int d;
    for (d = tnd - 1; d >= 0; d--) {
        int64_t i = ti % tsh[d];
        int sd = d - (tnd - snd);
        ti /= tsh[d];
        if (sd >= 0) {
            if (ssh[sd] != 1) si += i * mul;
            mul *= ssh[sd];
        }
    }
    return si;
}

/* S per output element (contiguous, in the result's logical order); *Kp: the
   number of rounded terms K'. NULL on a failed read. */
static double *host_abs_sum(genie_ctx *ctx, const gcase *c, genie_tensor *const *ins, genie_tensor *r, int64_t *Kp) {
    int64_t nout = genie_numel(r), i, j, k;
    double *S = (double *)calloc((size_t)(nout > 0 ? nout : 1), sizeof(double));
    double *A = read64(ctx, ins[0]), *Bv = read64(ctx, ins[1]), *Cv = ins[2] ? read64(ctx, ins[2]) : NULL;
    if (!S || !A || !Bv || (ins[2] && !Cv)) { free(S); S = NULL; goto done; }
    if (c->kind == K_MATMUL) {
        int an = genie_ndim(ins[0]), bn = genie_ndim(ins[1]), nba = an > 2 ? an - 2 : 0, nbb = bn > 2 ? bn - 2 : 0, nb, d;
        const int64_t *ash = genie_shape(ins[0]), *bsh = genie_shape(ins[1]);
        int64_t M = an == 1 ? 1 : ash[an - 2], K = ash[an - 1], N = bn == 1 ? 1 : bsh[bn - 1], bshp[8], nbat = 1, ob;
        nb = nba > nbb ? nba : nbb;
        for (d = 0; d < nb; d++) { /* broadcast batch shape */
            int da = d - (nb - nba), db = d - (nb - nbb);
            int64_t x = da >= 0 ? ash[da] : 1, y = db >= 0 ? bsh[db] : 1;
            bshp[d] = x == 1 ? y : x;
            nbat *= bshp[d];
        }
        for (ob = 0; ob < nbat; ob++) {
            int64_t ai = nba ? bidx(nba, ash, nb, bshp, ob) : 0, bi = nbb ? bidx(nbb, bsh, nb, bshp, ob) : 0;
            const double *a = A + ai * M * K, *b = Bv + bi * K * N;
            for (i = 0; i < M; i++)
                for (j = 0; j < N; j++) {
                    double s = 0;
                    for (k = 0; k < K; k++) s += fabs(a[i * K + k]) * fabs(b[k * N + j]);
                    S[(ob * M + i) * N + j] = s;
                }
        }
        *Kp = K;
    } else if (c->kind == K_LINEAR) {
        int xn = genie_ndim(ins[0]);
        int64_t K = genie_shape(ins[0])[xn - 1], N = genie_shape(ins[1])[0], R = K ? genie_numel(ins[0]) / K : 0;
        for (i = 0; i < R; i++)
            for (j = 0; j < N; j++) {
                double s = 0;
                for (k = 0; k < K; k++) s += fabs(A[i * K + k]) * fabs(Bv[j * K + k]);
                S[i * N + j] = s;
            }
        *Kp = K;
    } else {
        const int64_t *xsh = genie_shape(ins[0]), *wsh = genie_shape(ins[1]), *osh = genie_shape(r);
        int unb = genie_ndim(ins[0]) == 3;
        int64_t Bn = unb ? 1 : xsh[0], C = xsh[1 - unb], H = xsh[2 - unb], W = xsh[3 - unb];
        int64_t O = wsh[0], Cg = wsh[1], KH = wsh[2], KW = wsh[3], Ho = osh[2 - unb], Wo = osh[3 - unb], og = O / c->groups;
        int64_t b, o, y, x, ch, ky, kx;
        for (b = 0; b < Bn; b++)
            for (o = 0; o < O; o++)
                for (y = 0; y < Ho; y++)
                    for (x = 0; x < Wo; x++) {
                        double s = 0;
                        for (ch = 0; ch < Cg; ch++)
                            for (ky = 0; ky < KH; ky++)
                                for (kx = 0; kx < KW; kx++) {
                                    int64_t iy = y * c->stride[0] - c->pad[0] + ky * c->dil[0], ix = x * c->stride[1] - c->pad[1] + kx * c->dil[1];
                                    if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                                    s += fabs(A[((b * C + (o / og) * Cg + ch) * H + iy) * W + ix]) * fabs(Bv[((o * Cg + ch) * KH + ky) * KW + kx]);
                                }
                        S[((b * O + o) * Ho + y) * Wo + x] = s;
                    }
        *Kp = Cg * KH * KW;
    }
    if (Cv) { /* bias or added tensor: one more term */
        int rn = genie_ndim(r), cn = genie_ndim(ins[2]);
        const int64_t *rsh = genie_shape(r), *csh = genie_shape(ins[2]);
        if (c->kind == K_CONV) { /* bias [O] along the channel dim */
            int unb = rn == 3;
            int64_t O = rsh[1 - unb], hw = rsh[2 - unb] * rsh[3 - unb];
            for (i = 0; i < nout; i++) S[i] += fabs(Cv[(i / hw) % O]);
        } else {
            for (i = 0; i < nout; i++) S[i] += fabs(Cv[bidx(cn, csh, rn, rsh, i)]);
        }
        *Kp += 1;
    }
    if (ins[3]) { /* the residual of an epilogue: one more term */
        double *R = read64(ctx, ins[3]);
        int rn = genie_ndim(r), qn = genie_ndim(ins[3]);
        if (!R) { free(S); S = NULL; goto done; }
        for (i = 0; i < nout; i++) S[i] += fabs(R[bidx(qn, genie_shape(ins[3]), rn, genie_shape(r), i)]);
        free(R);
        *Kp += 1;
    }
done:
    free(A);
    free(Bv);
    free(Cv);
    return S;
}

/* the bound for one element (see the top of the file) */
enum { B_ADDED = 1, B_ACT = 2 };
static double bound(genie_dtype dt, int64_t Kp, double S, double ref, int fl) {
    static const double u22 = 1.0 / 4194304.0, u51 = u22 / 536870912.0, u10 = 1.0 / 1024.0, u7 = 1.0 / 128.0, u24 = u10 / 16384.0;
    double L = fl & B_ACT ? 1.2 : 1.0, a = fabs(ref);
    double f32 = L * (double)Kp * u22 * S + 7.2e-43; /* 7.2e-43 ~ 2^-140 */
    switch (dt) {
    case GENIE_F64: return L * (double)Kp * u51 * S + 1e-322 + (fl & B_ACT ? u51 * 2 * (a + 1) : 0); /* 1e-322 ~ 2^-1070 */
    case GENIE_F16: return f32 + u10 * a + u24 + (fl & B_ADDED ? u10 * S : 0) + (fl & B_ACT ? L * u10 * S + u10 * (S + 1) : 0);
    case GENIE_BF16: /* 9.2e-41 ~ 2^-133 */
        return f32 + u7 * a + 9.2e-41 + (fl & B_ADDED ? u7 * S : 0) + (fl & B_ACT ? L * u7 * S + u7 * (S + 1) : 0);
    default: return f32 + (fl & B_ACT ? u22 * 2 * (a + 1) : 0);
    }
}

/* Compare fast values v with reference values ref: 1 when every element is in
   its bound. Prints the worst element otherwise. */
static int g_epi_runs, g_epi_fused; /* f32/f64 epilogue cases run on fast contexts, and those that ran a fused group */
static double g_ratio[4]; /* the largest |fast - ref| / bound seen per dtype (f32, f64, f16, bf16) */
static int within(genie_dtype dt, int64_t n, const double *v, const double *ref, const double *S, int64_t Kp, int fl) {
    int64_t i, worst = -1;
    double wr = 0, *gr = dt < 4 ? &g_ratio[dt] : NULL;
    for (i = 0; i < n; i++) {
        double b = bound(dt, Kp, S[i], ref[i], fl), d = fabs(v[i] - ref[i]);
        if (gr && !g_quiet && d / b > *gr) *gr = d / b;
        if (!(d <= b)) { /* NaN fails too */
            double rr = d != d ? INFINITY : d / b;
            if (worst < 0 || rr > wr) { worst = i; wr = rr; }
        }
    }
    if (worst >= 0 && !g_quiet)
        printf("  mismatch at element %lld of %lld: fast %.17g, reference %.17g, |diff| %.3g > bound %.3g (S %.6g, K' %lld)\n",
               (long long)worst, (long long)n, v[worst], ref[worst], fabs(v[worst] - ref[worst]),
               bound(dt, Kp, S[worst], ref[worst], fl), S[worst], (long long)Kp);
    return worst < 0;
}

static int same_layout(const genie_tensor *a, const genie_tensor *b) {
    int n = genie_ndim(a);
    return a && b && n == genie_ndim(b) && memcmp(genie_shape(a), genie_shape(b), (size_t)n * 8) == 0 &&
           memcmp(genie_strides(a), genie_strides(b), (size_t)n * 8) == 0 &&
           genie_storage_offset(a) == genie_storage_offset(b) && genie_dtype_of(a) == genie_dtype_of(b);
}

static void describe(char *s, size_t cap, const gcase *c) {
    const char *dn = genie_dtype_name(c->dt);
    char e[96] = "";
    int n;
    if (c->epi != E_NONE)
        snprintf(e, sizeof e, "; %s%s%s%s%s%s%s", g_enames[c->epi], c->epi == E_ADD ? "" : ", act ",
                 c->epi == E_ADD ? "" : g_anames[c->act], c->epi >= E_ADD ? ", " : "", c->epi >= E_ADD ? g_rnames[c->res] : "",
                 c->swap ? ", r first" : "", c->keep ? ", product kept" : "");
    if (c->kind == K_MATMUL)
        n = snprintf(s, cap, "matmul %s %s M=%lld N=%lld K=%lld B=%lld a:%s b:%s", dn, g_fnames[c->form], (long long)c->M,
                     (long long)c->N, (long long)c->K, (long long)c->B, g_lnames[c->la], g_lnames[c->lb]);
    else if (c->kind == K_LINEAR)
        n = snprintf(s, cap, "linear %s x[%lld,%lld,%lld] w[N=%lld,K] x:%s w:%s bias:%s", dn, (long long)c->B, (long long)c->M,
                     (long long)c->K, (long long)c->N, g_lnames[c->la], g_lnames[c->lb],
                     c->bias == 0 ? "none" : c->bias == 1 ? "[N]" : c->bias == 2 ? "[M,1]" : "[N]step2");
    else
        n = snprintf(s, cap, "conv2d %s x[%lld,%lld,%lld,%lld]%s w[%lld,C/%lld,%lld,%lld]%s stride %lld,%lld pad %lld,%lld dil %lld,%lld%s",
                     dn, (long long)c->B, (long long)c->C, (long long)c->H, (long long)c->W,
                     c->xl == 1 ? " channels-last" : c->xl == 2 ? " W-step2" : c->xl == 3 ? " unbatched" : "", (long long)c->O,
                     (long long)c->groups, (long long)c->kh, (long long)c->kw, c->wl ? " permuted" : "", (long long)c->stride[0],
                     (long long)c->stride[1], (long long)c->pad[0], (long long)c->pad[1], (long long)c->dil[0], (long long)c->dil[1],
                     c->bias ? " bias" : "");
    if (n > 0 && (size_t)n < cap) snprintf(s + n, cap - (size_t)n, "%s", e);
}

static double macs(const gcase *c) {
    if (c->kind == K_CONV) {
        int64_t Ho = (c->H + 2 * c->pad[0] - c->dil[0] * (c->kh - 1) - 1) / c->stride[0] + 1;
        int64_t Wo = (c->W + 2 * c->pad[1] - c->dil[1] * (c->kw - 1) - 1) / c->stride[1] + 1;
        return (double)(c->B ? c->B : 1) * (double)c->O * (double)(Ho * Wo) * (double)(c->C / c->groups * c->kh * c->kw);
    }
    if (c->kind == K_MATMUL && c->form == F_BCAST4) return 6.0 * (double)c->M * (double)c->N * (double)c->K;
    return (double)(c->M ? c->M : 1) * (double)(c->N ? c->N : 1) * (double)c->K * (double)(c->B ? c->B : 1);
}

/* Run one case: reference once, then every fast context. */
static void run_case(const gcase *c) {
    genie_tensor *ins[4], *r, *ref_held[4];
    double *ref = NULL, *S = NULL, *first = NULL;
    int64_t n = 0, Kp = 0;
    char desc[256];
    int f, nref_held, fl = (c->epi >= E_ADD ? B_ADDED : 0) | (c->epi != E_NONE && c->epi != E_ADD && c->act != 0 ? B_ACT : 0);
    describe(desc, sizeof desc, c);
    g_ref_macs += macs(c);
    g_lazy = c->lazy;
    genie_pool_push(g_ref);
    r = build(g_ref, c, ins, 0);
    snprintf(g_where, sizeof g_where, "%s; reference", desc);
    GCHECK(r != NULL && genie_status(g_ref) == GENIE_OK);
    if (r) {
        n = genie_numel(r);
        ref = read64(g_ref, r);
        GCHECK(ref != NULL);
        S = host_abs_sum(g_ref, c, ins, r, &Kp);
        GCHECK(S != NULL);
    }
    memcpy(ref_held, g_held, sizeof g_held); /* kept until the fast results are compared with r */
    nref_held = g_nheld;
    g_nheld = 0;
    if (!ref || !S) {
        if (genie_status(g_ref)) printf("  %s\n", genie_last_error(g_ref));
        genie_clear_error(g_ref);
        while (nref_held > 0) genie_release(ref_held[--nref_held]);
        genie_pool_pop(g_ref);
        free(ref);
        free(S);
        draws_clear();
        return;
    }
    for (f = 0; f < g_nfc; f++) {
        genie_ctx *ctx = g_fc[f].ctx;
        genie_tensor *fr, *fins[4];
        double *v;
        uint64_t fused0;
        snprintf(g_where, sizeof g_where, "%s; path %s, %d thread%s", desc, genie_cpu_name(g_fc[f].path), g_fc[f].nt,
                 g_fc[f].nt > 1 ? "s" : "");
        genie_pool_push(ctx);
        fused0 = genie_get_stats(ctx).fused_groups;
        fr = build(ctx, c, fins, g_perturb && g_fc[f].nt == 2);
        v = fr ? read64(ctx, fr) : NULL;
        if (c->epi != E_NONE && (c->dt == GENIE_F32 || c->dt == GENIE_F64) && c->kind != K_CONV && !c->keep) {
            g_epi_runs++;
            g_epi_fused += genie_get_stats(ctx).fused_groups > fused0;
        }
        GCHECK(fr != NULL && v != NULL && genie_status(ctx) == GENIE_OK);
        if (genie_status(ctx)) printf("  %s\n", genie_last_error(ctx));
        if (v) {
            GCHECK(same_layout(fr, r));
            GCHECK(within(c->dt, n, v, ref, S, Kp, fl));
            if (g_fc[f].nt == 1) { free(first); first = v; v = NULL; }
            else if (first) GCHECK(memcmp(first, v, (size_t)n * sizeof(double)) == 0); /* bitwise: 1 thread == 2 threads */
        }
        free(v);
        genie_clear_error(ctx);
        unhold();
        genie_pool_pop(ctx);
        if (g_fc[f].nt == 2) { free(first); first = NULL; }
    }
    free(first);
    free(ref);
    free(S);
    while (nref_held > 0) genie_release(ref_held[--nref_held]);
    genie_pool_pop(g_ref);
    draws_clear();
}

/* ---- the cases ---- */
static uint64_t g_rng;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const genie_dtype g_dts[4] = {GENIE_F32, GENIE_F64, GENIE_F16, GENIE_BF16};
static uint64_t g_seed = 100;
static int g_lazy_cases; /* cases made now draw their inputs lazily in each context */

static gcase mm(genie_dtype dt, int form, int64_t M, int64_t N, int64_t K, int64_t B, int la, int lb, int epi, int res) {
    gcase c;
    memset(&c, 0, sizeof c);
    c.kind = K_MATMUL; c.dt = dt; c.form = form; c.M = M; c.N = N; c.K = K; c.B = B; c.la = la; c.lb = lb; c.epi = epi; c.res = res;
    c.lazy = g_lazy_cases;
    c.seed = g_seed += 10;
    return c;
}

/* sizes M, N, K from the brief's set, seeded, within a per-case and a total budget */
static void sweep_sizes(void) {
    static const int64_t sz[11] = {1, 2, 7, 15, 16, 17, 31, 33, 127, 255, 1000};
    /* fixed: every micro-kernel and cache-block edge with 1000 in each role */
    /* fixed: 1000 in each role, and across the block sizes of main's kernels
       (KC 256; MC 96-192; NC 2048 (generic f32, every f64) or 4096) */
    static const int64_t big[][3] = {
        {1000, 1000, 1}, {1, 1000, 1000}, {1000, 1, 1000}, {1000, 33, 127}, {33, 1000, 255}, {255, 255, 255},
        {1000, 1000, 17}, {17, 31, 1000}, {1000, 127, 300}, {33, 4200, 260}, {17, 2100, 260}};
    double cap = g_quick ? 3e4 : 3e6, total = g_quick ? 2e5 : 5e7, spent = 0;
    int d, i, tries;
    for (d = 0; d < 4; d++) {
        for (i = 0; i < (int)(sizeof big / sizeof big[0]); i++) {
            double m = (double)big[i][0] * (double)big[i][1] * (double)big[i][2];
            gcase c;
            if (g_quick || (d > 0 && m > 1e7 && big[i][1] != 2100) || (d == 0 && big[i][1] == 2100)) continue;
            c = mm(g_dts[d], F_2D, big[i][0], big[i][1], big[i][2], 0, L_CONTIG, L_CONTIG, E_NONE, 0);
            run_case(&c);
        }
        spent = 0;
        for (tries = 0; tries < 400 && spent < total / 4; tries++) {
            int64_t M = sz[rnd() % 11], N = sz[rnd() % 11], K = sz[rnd() % 11];
            gcase c;
            if ((double)M * (double)N * (double)K > cap) continue;
            c = mm(g_dts[d], F_2D, M, N, K, 0, (int)(rnd() % 3 == 0 ? L_T : L_CONTIG), (int)(rnd() % 3 == 0 ? L_T : L_CONTIG),
                   E_NONE, 0);
            spent += macs(&c);
            run_case(&c);
        }
    }
}

/* every layout of each operand, every batch form, epilogues */
/* (2-thread contexts share a product only from 2^18 multiply-adds on: the full
   sizes here are above that, the quick ones below, but for one case a dtype) */
static void layouts(void) {
    int64_t M = g_quick ? 9 : 49, N = g_quick ? 7 : 41, K = g_quick ? 17 : 131;
    int d, l, f, e;
    gcase c;
    for (d = 0; d < 4; d++) {
        genie_dtype dt = g_dts[d];
        g_lazy_cases = 1; /* these with inputs computed in the product's tape */
        for (l = 0; l < L_COUNT; l++) {
            c = mm(dt, F_2D, M, N, K, 0, l, L_CONTIG, E_NONE, 0); run_case(&c);
            c = mm(dt, F_2D, M, N, K, 0, L_CONTIG, l, E_NONE, 0); run_case(&c);
            c = mm(dt, F_2D, N, M, K, 0, l, (l + 3) % L_COUNT, E_NONE, 0); run_case(&c);
        }
        g_lazy_cases = 0;
        if (!g_quick) { /* a skinny side (M or N <= 16: main's unpacked dot/axpy kernels) with each layout,
                           over 2^18 multiply-adds so that 2 threads split the columns */
            for (l = 0; l < L_COUNT; l++) {
                c = mm(dt, F_2D, 5, 600, 129, 0, l, (l + 1) % L_COUNT, E_NONE, 0); run_case(&c);
                c = mm(dt, F_2D, 700, 3, 129, 0, (l + 2) % L_COUNT, l, E_NONE, 0); run_case(&c);
            }
            c = mm(dt, F_PERMB, 5, 600, 129, 3, L_CONTIG, L_T, E_NONE, 0); run_case(&c);     /* dot per batch */
            c = mm(dt, F_PERMB, 5, 600, 129, 3, L_CONTIG, L_CONTIG, E_NONE, 0); run_case(&c); /* axpy per batch */
            c = mm(dt, F_1D_B3, 1, 700, 129, 3, L_CONTIG, L_CONTIG, E_NONE, 0); run_case(&c);
            c = mm(dt, F_2D, 16, 1000, 33, 0, L_CONTIG, L_T, E_ACT_ADD, 1); run_case(&c);
            c = mm(dt, F_2D, 1000, 16, 33, 0, L_T, L_CONTIG, E_ADD_ACT, 0); run_case(&c);
            c = mm(dt, F_2D, 1000, 16, 33, 0, L_CONTIG, L_T, E_ACT_ADD, 3); c.act = 1; run_case(&c);
        }
        if (g_quick) { c = mm(dt, F_2D, 49, 41, 131, 0, L_T, L_STEP, E_NONE, 0); run_case(&c); }
        for (f = 0; f < F_COUNT; f++) { /* 3 batches: threads share each product; 5: they deal out products */
            c = mm(dt, f, M, N, K, 3, L_CONTIG, L_CONTIG, E_NONE, 0); run_case(&c);
            c = mm(dt, f, M, N, K, 5, L_T, L_STEP, E_NONE, 0); run_case(&c);
            c = mm(dt, f, N, M, K, 3, L_OFFSET, L_FLIP, E_NONE, 0); run_case(&c);
            c = mm(dt, f, M, N, K, 5, L_EXPROW, L_TSTEP, E_NONE, 0); run_case(&c);
        }
        /* empty products: K = 0 (zeros, or the bias alone), M = 0, no batches */
        c = mm(dt, F_2D, 3, 5, 0, 0, L_CONTIG, L_CONTIG, E_NONE, 0); run_case(&c);
        c = mm(dt, F_2D, 0, 5, 4, 0, L_T, L_CONTIG, E_NONE, 0); run_case(&c);
        c = mm(dt, F_2D_B3, 3, 5, 4, 0, L_CONTIG, L_CONTIG, E_NONE, 0); run_case(&c);
        c = mm(dt, F_1D_1D, 0, 0, 0, 0, L_CONTIG, L_CONTIG, E_NONE, 0); run_case(&c);
        /* epilogues: each form and residual layout (main fuses act(p), p + r and act(p) + r for f32/f64
           when nothing else reads p; kept products are not fused) */
        for (e = E_ACT; e <= E_ACT_ADD; e++) {
            c = mm(dt, F_2D, M, N, K, 0, L_CONTIG, L_CONTIG, e, 0); run_case(&c);
            c = mm(dt, F_B3_2D, M, N, K, 3, L_T, L_CONTIG, e, 1); run_case(&c);
            c = mm(dt, F_2D, 16, 17, 65, 0, L_CONTIG, L_T, e, 1); run_case(&c);
            c = mm(dt, F_2D, M, N, K, 0, L_T, L_STEP, e, 3); c.swap = 1; run_case(&c);
            c = mm(dt, F_PERMB, M, N, K, 3, L_CONTIG, L_CONTIG, e, 2); run_case(&c);
            c = mm(dt, F_2D, M, N, K, 0, L_CONTIG, L_CONTIG, e, 2); c.keep = 1; run_case(&c);
        }
        for (e = 1; e < 6; e++) { /* every other activation, alone and with a residual */
            c = mm(dt, F_2D, M, N, K, 0, L_CONTIG, L_CONTIG, E_ACT, 0); c.act = e; run_case(&c);
            c = mm(dt, F_B3_2D, M, N, K, 3, L_CONTIG, L_T, E_ACT_ADD, 2); c.act = e; c.swap = e & 1; run_case(&c);
        }
    }
}

static gcase lin(genie_dtype dt, int64_t B, int64_t M, int64_t N, int64_t K, int lx, int lw, int bias, int epi) {
    gcase c;
    memset(&c, 0, sizeof c);
    c.kind = K_LINEAR; c.dt = dt; c.B = B; c.M = M; c.N = N; c.K = K; c.la = lx; c.lb = lw; c.bias = bias; c.epi = epi;
    c.seed = g_seed += 10;
    return c;
}

static void linears(void) {
    int d, b;
    int64_t K = g_quick ? 33 : 129, N = g_quick ? 17 : 65, M = g_quick ? 7 : 33;
    gcase c;
    for (d = 0; d < 4; d++) {
        genie_dtype dt = g_dts[d];
        for (b = 0; b <= 3; b++) {
            c = lin(dt, 0, M, N, K, L_CONTIG, L_CONTIG, b, E_NONE); run_case(&c);      /* w stored [N, K] */
            c = lin(dt, 2, M, N, K, L_CONTIG, L_T, b, E_NONE); run_case(&c);           /* w = t(stored [K, N]) */
            c = lin(dt, 0, M, N, K, L_STEP, L_STEP, b, E_ACT); run_case(&c);           /* sliced w, relu after */
            c = lin(dt, 2, M, N, K, L_CONTIG, L_CONTIG, b, E_ADD); c.res = b; run_case(&c); /* linear + residual */
            c = lin(dt, 0, M, N, K, L_CONTIG, L_T, b, E_ACT_ADD); c.act = b + 1; c.res = 3 - b; run_case(&c);
            c = lin(dt, 0, 1, N, K, L_CONTIG, L_OFFSET, b, E_NONE); run_case(&c);      /* one row */
            c = lin(dt, 0, M, 3, K, L_T, L_FLIP, b, E_NONE); run_case(&c);             /* skinny N */
        }
        c = lin(dt, 0, 0, N, K, L_CONTIG, L_CONTIG, 1, E_NONE); run_case(&c);          /* 1-D x */
        c = lin(dt, 0, 0, N, K, L_STEP, L_TSTEP, 0, E_ACT); run_case(&c);
        c = lin(dt, 0, 0, N, K, L_CONTIG, L_CONTIG, 1, E_ACT); c.act = 2; run_case(&c);
        c = lin(dt, 3, M, N, K, L_OFFSET, L_EXPROW, 1, E_NONE); run_case(&c);          /* stride-0 w */
        c = lin(dt, 0, M, N, 0, L_CONTIG, L_CONTIG, 1, E_NONE); run_case(&c);          /* K = 0: the bias alone */
        if (!g_quick) {
            c = lin(dt, 0, 1000, 33, 255, L_CONTIG, L_CONTIG, 1, E_ACT); run_case(&c);
            c = lin(dt, 0, 4, 1000, 129, L_CONTIG, L_CONTIG, 1, E_ACT_ADD); c.act = 5; run_case(&c);  /* skinny + epilogue */
            c = lin(dt, 0, 0, 1000, 300, L_CONTIG, L_T, 1, E_ACT_ADD); c.act = 3; c.res = 2; run_case(&c);
            /* skinny (M <= 16), over 2^18 multiply-adds: 2 threads split the columns */
            for (b = 0; b <= 3; b++) {
                c = lin(dt, 0, 4, 1000, 129, L_CONTIG, L_CONTIG, b, E_NONE); run_case(&c);  /* dot: w rows as stored */
                c = lin(dt, 0, 4, 1000, 129, L_CONTIG, L_T, b, E_NONE); run_case(&c);       /* axpy */
            }
            /* axpy over more than 64 units of 16 columns: chunks of at most 64, as many for each
               thread; a ragged last unit, and chunks that end inside a batch's product */
            c = lin(dt, 0, 1, 3000, 100, L_CONTIG, L_T, 1, E_NONE); run_case(&c);
            c = mm(dt, F_PERMB, 1, 2100, 65, 3, L_CONTIG, L_CONTIG, E_NONE, 0); run_case(&c);
            c = lin(dt, 0, 6, 1003, 131, L_CONTIG, L_CONTIG, 1, E_ACT); run_case(&c);       /* four rows at once, then */
            c = lin(dt, 0, 11, 1001, 45, L_STEP, L_CONTIG, 0, E_ADD); run_case(&c);         /* leftover rows and columns */
            c = lin(dt, 0, 13, 1001, 67, L_CONTIG, L_CONTIG, 1, E_ACT); run_case(&c);       /* f16/bf16: groups of four rows over
                                                                                                strips, a leftover row, an odd K */
            c = lin(dt, 0, 0, 1000, 300, L_CONTIG, L_CONTIG, 1, E_NONE); run_case(&c);      /* decode step: 1-D x */
            c = lin(dt, 0, 0, 45, 1100, L_CONTIG, L_CONTIG, 1, E_NONE); run_case(&c);       /* rows over 1024: L2 prefetch only */
            c = lin(dt, 0, 2, 21, 4200, L_CONTIG, L_CONTIG, 1, E_ACT); run_case(&c);        /* f16/bf16 rows over 2048 (AVX2: in parts) */
            /* odd K over two blocks of k (AVX512_BF16's bf16 pairs: an odd last block ends in a half pair) */
            c = lin(dt, 0, 20, 45, 2049, L_CONTIG, L_CONTIG, 1, E_NONE); run_case(&c);
            c = mm(dt, F_2D, 27, 40, 1101, 0, L_CONTIG, L_CONTIG, E_NONE, 0); run_case(&c);
            c = mm(dt, F_2D, 27, 40, 1101, 0, L_OFFSET, L_T, E_NONE, 0); run_case(&c);
            /* M at and past AVX-512 f32's MC (132): B packed panel by panel just in time, three blocks of k */
            c = lin(dt, 0, 128, 70, 1100, L_CONTIG, L_CONTIG, 1, E_ACT); run_case(&c);
            c = lin(dt, 0, 132, 33, 600, L_CONTIG, L_T, 0, E_NONE); run_case(&c);
            c = lin(dt, 0, 133, 33, 600, L_STEP, L_CONTIG, 1, E_NONE); run_case(&c);
            c = lin(dt, 2, 3, 1000, 129, L_STEP, L_CONTIG, 1, E_NONE); run_case(&c);
            c = lin(dt, 0, 1000, 7, 129, L_CONTIG, L_CONTIG, 2, E_NONE); run_case(&c);      /* skinny N */
        }
    }
}

static gcase conv(genie_dtype dt, int64_t B, int64_t C, int64_t H, int64_t W, int64_t O, int64_t kh, int64_t kw, int64_t s0, int64_t s1,
                  int64_t p0, int64_t p1, int64_t d0, int64_t d1, int64_t g, int bias, int xl, int wl, int epi) {
    gcase c;
    memset(&c, 0, sizeof c);
    c.kind = K_CONV; c.dt = dt; c.B = B; c.C = C; c.H = H; c.W = W; c.O = O; c.kh = kh; c.kw = kw;
    c.stride[0] = s0; c.stride[1] = s1; c.pad[0] = p0; c.pad[1] = p1; c.dil[0] = d0; c.dil[1] = d1; c.groups = g;
    c.bias = bias; c.xl = xl; c.wl = wl; c.epi = epi;
    c.seed = g_seed += 10;
    return c;
}

static void convs(void) {
    int d;
    gcase c;
    for (d = 0; d < 4; d++) {
        genie_dtype dt = g_dts[d];
        c = conv(dt, 2, 3, 9, 9, 4, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, E_NONE); run_case(&c);
        c = conv(dt, 1, 4, 8, 11, 6, 3, 2, 2, 1, 1, 2, 1, 1, 2, 0, 1, 0, E_NONE); run_case(&c);   /* groups, channels-last */
        c = conv(dt, 2, 6, 10, 10, 6, 3, 3, 1, 1, 2, 2, 2, 2, 3, 1, 1, 1, E_ACT); run_case(&c);  /* dilation, permuted w */
        c = conv(dt, 1, 8, 9, 9, 8, 3, 3, 2, 2, 1, 1, 1, 1, 8, 1, 2, 0, E_NONE); run_case(&c);    /* depthwise, W stepped */
        c = conv(dt, 2, 16, 7, 7, 32, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, E_NONE); run_case(&c);  /* 1x1: a plain GEMM */
        c = conv(dt, 0, 5, 7, 6, 7, 2, 3, 1, 2, 1, 0, 1, 2, 1, 0, 3, 0, E_NONE); run_case(&c);    /* unbatched */
        c = conv(dt, 1, 3, 5, 5, 2, 5, 5, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, E_NONE); run_case(&c);    /* kernel = input */
        if (!g_quick) {
            c = conv(dt, 2, 16, 15, 15, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, E_ACT); run_case(&c);
            c = conv(dt, 1, 33, 20, 17, 17, 3, 3, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, E_NONE); run_case(&c);
            /* depth 64*3*3 = 576 > KC: the im2col packing resumes mid (c, ky, kx); wide rows (W 40 > NR) */
            c = conv(dt, 1, 64, 9, 40, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, E_NONE); run_case(&c);
            c = conv(dt, 2, 64, 8, 8, 24, 3, 3, 2, 2, 3, 2, 2, 1, 2, 1, 1, 0, E_NONE); run_case(&c);
        }
        {   /* a seeded sweep of small convolutions: strides, paddings past the kernel's reach, dilations, 1-pixel inputs */
            static const int64_t ks[4] = {1, 2, 3, 5};
            int n = 0, tries;
            for (tries = 0; tries < 2000 && n < (g_quick ? 4 : 40); tries++) {
                int64_t g = 1 + (int64_t)(rnd() % 3), C = g * (1 + (int64_t)(rnd() % 4)), O = g * (1 + (int64_t)(rnd() % 5));
                int64_t H = 1 + (int64_t)(rnd() % 20), W = 1 + (int64_t)(rnd() % 24), kh = ks[rnd() % 4], kw = ks[rnd() % 4];
                int64_t s0 = 1 + (int64_t)(rnd() % 3), s1 = 1 + (int64_t)(rnd() % 3), p0 = (int64_t)(rnd() % 4), p1 = (int64_t)(rnd() % 4);
                int64_t d0 = 1 + (int64_t)(rnd() % 2), d1 = 1 + (int64_t)(rnd() % 3), B = 1 + (int64_t)(rnd() % 2);
                int xl = (int)(rnd() % 4), wl = (int)(rnd() % 4 == 0), bias = (int)(rnd() % 2);
                if (d0 * (kh - 1) + 1 > H + 2 * p0 || d1 * (kw - 1) + 1 > W + 2 * p1) continue;
                c = conv(dt, xl == 3 ? 0 : B, C, H, W, O, kh, kw, s0, s1, p0, p1, d0, d1, g, bias, xl, wl, E_NONE);
                if (macs(&c) > (g_quick ? 2e4 : 3e5)) continue;
                run_case(&c);
                n++;
            }
        }
    }
}

/* the comparison itself can fail: a value one bound away, and one bit apart */
static void self_check(void) {
    double ref[2] = {1.0, -3.0}, S[2] = {4.0, 4.0}, v[2];
    int d;
    snprintf(g_where, sizeof g_where, "self-check of the comparison");
    for (d = 0; d < 4; d++) {
        v[0] = ref[0];
        v[1] = ref[1] + 2 * bound(g_dts[d], 100, S[1], ref[1], 0);
        g_quiet = 1;
        GCHECK(!within(g_dts[d], 2, v, ref, S, 100, 0));
        g_quiet = 0;
        v[1] = ref[1] + 0.5 * bound(g_dts[d], 100, S[1], ref[1], 0);
        g_quiet = 1; /* (not counted in the largest ratios) */
        GCHECK(within(g_dts[d], 2, v, ref, S, 100, 0));
        g_quiet = 0;
    }
    v[0] = ref[0];
    v[1] = nextafter(ref[1], 0);
    GCHECK(memcmp(v, ref, sizeof v) != 0);
    {   /* the layout check sees a transpose and an offset */
        int64_t s[2] = {2, 3};
        genie_tensor *a = genie_zeros(g_ref, GENIE_F32, 2, s);
        GCHECK(same_layout(a, genie_t(g_ref, genie_t(g_ref, a))));
        GCHECK(!same_layout(a, genie_t(g_ref, a)) && !same_layout(a, genie_to_dtype(g_ref, a, GENIE_F64)));
        GCHECK(!same_layout(genie_narrow(g_ref, a, 1, 0, 2), genie_narrow(g_ref, a, 1, 1, 2)));
        GCHECK(genie_status(g_ref) == GENIE_OK);
    }
}

/* ---- the pack cache (genie_set_pack_cache) ----
   A weight read as B by products of one block of A is marked the first time, packed the
   second and read from the cache from then on. Each product here runs in a context with
   the cache and in one without it, on the same host data: the panels are the same, so
   the results must be bitwise equal, before and after the weight's buffer is written in
   place or freed and handed out to a new weight, and for a weight an earlier tape computed. */
static float *pk_prod(genie_ctx *ctx, genie_tensor *x, genie_tensor *w, int lin, int64_t *n) {
    genie_tensor *y;
    float *v = NULL;
    genie_pool_push(ctx);
    y = lin ? genie_linear(ctx, x, w, NULL) : genie_matmul(ctx, x, w);
    *n = y ? genie_numel(y) : 0;
    if (y && (v = (float *)malloc((size_t)*n * sizeof(float) + 4)) != NULL &&
        genie_read(ctx, y, GENIE_F32, v, (size_t)*n * sizeof(float)) != GENIE_OK) {
        free(v);
        v = NULL;
    }
    genie_pool_pop(ctx);
    return v;
}
/* products of x and w in both contexts, k times; 1 when all were equal */
static int pk_same(genie_ctx *const *c, genie_tensor *const *x, genie_tensor *const *w, int lin, int k) {
    int ok = 1;
    while (k-- > 0) {
        int64_t n0 = 0, n1 = 0;
        float *a = pk_prod(c[0], x[0], w[0], lin, &n0), *b = pk_prod(c[1], x[1], w[1], lin, &n1);
        ok &= a && b && n0 == n1 && n0 > 0 && memcmp(a, b, (size_t)n0 * sizeof(float)) == 0;
        free(a);
        free(b);
    }
    return ok;
}
/* one more weight packed and one more product read it since *s (then *s: now) */
static int pk_hit(genie_ctx *ctx, genie_stats *s) {
    genie_stats n = genie_get_stats(ctx);
    int ok = n.pack_cache_packs == s->pack_cache_packs + 1 && n.pack_cache_hits == s->pack_cache_hits + 1;
    *s = n;
    return ok;
}
static void pack_cache(void) {
    /* M > 16 (not skinny) and <= 96 (one block of A on every path); K past one k-block;
       N not a multiple of the panels, and past NC (2048: column blocks of B, on contiguous
       and transposed B alone); M = 300, past one block of A on every path (blocks of A read
       the kept panels; 2 threads: split by rows, sharing them), on contiguous and transposed
       B alone. Quick (valgrind, TSan): the first three, under a million multiply-adds (the
       third, two blocks of k, on contiguous B alone) */
    static const int64_t shapes[][3] = {{17, 33, 7}, {40, 64, 64}, {17, 33, 513}, {64, 100, 513}, {96, 250, 1100}, {17, 2100, 520},
                                        {300, 70, 600}};
    static const int lays[] = {L_CONTIG, L_T, L_OFFSET, L_STEPROW};
    int f, si, li, lin;
    g_lazy = 0;
    for (f = 0; f < g_nfc; f++)
        for (si = 0; si < (g_quick ? 3 : 7); si++)
            for (li = 0; li < (si >= 5 ? 2 : g_quick && si == 2 ? 1 : 4); li++)
                for (lin = 0; lin < 2; lin++) {
                    const int64_t M = shapes[si][0], N = shapes[si][1], K = shapes[si][2];
                    const int64_t xs[2] = {M, K}, ws[2] = {lin ? N : K, lin ? K : N};
                    genie_ctx_desc d = {.n_threads = g_fc[f].nt, .cpu = g_fc[f].path};
                    genie_ctx *c[2];
                    genie_tensor *x[2], *w[2], *t[2];
                    genie_stats s0, s1;
                    uint64_t seed = 7000 + (uint64_t)(si * 8 + li * 2 + lin) * 4;
                    int i, ok;
                    c[0] = genie_ctx_create(&d), c[1] = genie_ctx_create(&d);
                    snprintf(g_where, sizeof g_where, "pack cache: %s [%lld,%lld] by %s [%lld,%lld] %s; path %s, %d thread%s",
                             lin ? "linear" : "matmul", (long long)M, (long long)K, lin ? "weight" : "B", (long long)ws[0],
                             (long long)ws[1], g_lnames[lays[li]], genie_cpu_name(g_fc[f].path), g_fc[f].nt, g_fc[f].nt > 1 ? "s" : "");
                    GCHECK(c[0] && c[1] && genie_set_pack_cache(c[1], 0) == GENIE_OK);
                    if (!c[0] || !c[1]) { genie_ctx_destroy(c[0]); genie_ctx_destroy(c[1]); continue; }
                    for (i = 0; i < 2; i++) { /* held by these handles alone: releasing them frees them */
                        genie_pool_push(c[i]);
                        x[i] = operand(c[i], GENIE_F32, 2, xs, L_CONTIG, seed);
                        w[i] = operand(c[i], GENIE_F32, 2, ws, lays[li], seed + 1);
                        genie_retain(x[i]);
                        genie_retain(w[i]);
                        genie_pool_pop(c[i]);
                    }
                    s0 = genie_get_stats(c[0]);
                    GCHECK(pk_same(c, x, w, lin, 3)); /* marked, packed, read from the cache */
                    s1 = genie_get_stats(c[0]);
                    GCHECK(s1.pack_cache_packs == s0.pack_cache_packs + 1 && s1.pack_cache_hits == s0.pack_cache_hits + 1);
                    GCHECK(s1.pack_cache_bytes >= (uint64_t)(N * K * 4) && genie_get_stats(c[1]).pack_cache_packs == 0);
                    /* written in place: the old version's buffer holds the new one (the entry must go) */
                    for (i = 0; i < 2; i++) {
                        genie_pool_push(c[i]);
                        genie_add_(c[i], w[i], operand(c[i], GENIE_F32, 2, ws, L_CONTIG, seed + 2));
                        genie_realize(c[i], 1, &w[i]);
                        genie_pool_pop(c[i]);
                    }
                    GCHECK(genie_get_stats(c[0]).inplace_reused > s1.inplace_reused || lays[li] != L_CONTIG);
                    GCHECK(pk_same(c, x, w, lin, 3) && pk_hit(c[0], &s1));
                    /* computed: B is a value an earlier tape computed (w dies there) */
                    for (i = 0; i < 2; i++) {
                        genie_pool_push(c[i]);
                        t[i] = genie_tril(c[i], w[i], 3);
                        genie_retain(t[i]);
                        genie_pool_pop(c[i]);
                        genie_release(w[i]);
                        genie_realize(c[i], 1, &t[i]);
                        w[i] = t[i];
                    }
                    GCHECK(pk_same(c, x, w, lin, 3) && pk_hit(c[0], &s1));
                    /* freed: a new weight of the same size takes the freed block */
                    for (i = 0; i < 2; i++) {
                        genie_release(w[i]);
                        genie_pool_push(c[i]);
                        w[i] = operand(c[i], GENIE_F32, 2, ws, lays[li], seed + 3);
                        genie_retain(w[i]);
                        genie_pool_pop(c[i]);
                    }
                    GCHECK(pk_same(c, x, w, lin, 3) && pk_hit(c[0], &s1));
                    ok = genie_status(c[0]) == GENIE_OK && genie_status(c[1]) == GENIE_OK;
                    GCHECK(ok);
                    if (!ok) printf("  %s / %s\n", genie_last_error(c[0]), genie_last_error(c[1]));
                    /* the budget: 0 drops every packed weight */
                    GCHECK(genie_set_pack_cache(c[0], 0) == GENIE_OK && genie_get_stats(c[0]).pack_cache_bytes == 0);
                    GCHECK(pk_same(c, x, w, lin, 2));
                    for (i = 0; i < 2; i++) {
                        genie_release(x[i]);
                        genie_release(w[i]);
                        genie_ctx_destroy(c[i]);
                    }
                    draws_clear();
                }
    snprintf(g_where, sizeof g_where, "pack cache");
    GCHECK(genie_set_pack_cache(NULL, 1) == GENIE_ERR_INVALID_ARG);
}

/* Keys of one buffer: q, k and v sliced from one weight (three keys), one weight read
   by matmul and by linear (two layouts), five slices (more than GENIE__PK_KEYS: marked
   in turn, never packed) and a weight read twice a step and written in place after
   (marked and dropped each step, never packed). A round's products run in one tape, in
   a context with the cache and one without; 3 rounds; bitwise equal, and the counts. */
enum { PKS_QKV, PKS_TWO, PKS_FIVE, PKS_INPLACE, PKS_COUNT };
static const char *const g_pks_names[PKS_COUNT] = {"q, k, v slices", "matmul and linear", "five slices", "written in place"};
#define PK_M 20
#define PK_N 70
#define PK_K 300
/* one round of scenario sc on x [M, K], x2 [M, N] and w: its products' values in out, and
   how many (0 on an error) */
static int64_t pk_round(genie_ctx *ctx, int sc, genie_tensor *x, genie_tensor *x2, genie_tensor *w, float *out) {
    genie_tensor *y[5];
    int n = 0, i, ok = 1;
    int64_t off = 0;
    genie_pool_push(ctx);
    if (sc == PKS_QKV || sc == PKS_FIVE)
        for (; n < (sc == PKS_QKV ? 3 : 5); n++) y[n] = genie_matmul(ctx, x, genie_narrow(ctx, w, 1, n * PK_N, PK_N));
    else {
        y[n++] = genie_matmul(ctx, x, w);
        y[n++] = sc == PKS_TWO ? genie_linear(ctx, x2, w, NULL) : genie_matmul(ctx, genie_neg(ctx, x), w);
    }
    ok = genie_realize(ctx, n, y) == GENIE_OK;
    for (i = 0; i < n && ok; i++) {
        int64_t k = genie_numel(y[i]);
        ok = genie_read(ctx, y[i], GENIE_F32, out + off, (size_t)k * sizeof(float)) == GENIE_OK;
        off += k;
    }
    if (ok && sc == PKS_INPLACE) { /* the step's update */
        int64_t ws[2] = {PK_K, PK_N};
        genie_add_(ctx, w, genie_mul_scalar(ctx, genie_randn(ctx, GENIE_F32, 2, ws, 91), 0.01));
        ok = genie_realize(ctx, 1, &w) == GENIE_OK;
    }
    genie_pool_pop(ctx);
    return ok ? off : 0;
}
static void pack_cache_keys(void) {
    float *out[2];
    int f, sc, i, r;
    out[0] = (float *)malloc((size_t)(5 * PK_M * PK_K) * sizeof(float)); /* the most a round makes: linear's [M, K] and more */
    out[1] = (float *)malloc((size_t)(5 * PK_M * PK_K) * sizeof(float));
    g_lazy = 0;
    for (f = 0; f < g_nfc && out[0] && out[1]; f++)
        for (sc = 0; sc < PKS_COUNT; sc++) {
            genie_ctx_desc d = {.n_threads = g_fc[f].nt, .cpu = g_fc[f].path};
            const int64_t xs[2] = {PK_M, PK_K}, x2s[2] = {PK_M, PK_N}, ws[2] = {PK_K, sc == PKS_QKV ? 3 * PK_N : sc == PKS_FIVE ? 5 * PK_N : PK_N};
            genie_ctx *c[2];
            genie_tensor *x[2], *x2[2], *w[2];
            genie_stats st;
            int same = 1;
            c[0] = genie_ctx_create(&d), c[1] = genie_ctx_create(&d);
            snprintf(g_where, sizeof g_where, "pack cache keys: %s; path %s, %d thread%s", g_pks_names[sc],
                     genie_cpu_name(g_fc[f].path), g_fc[f].nt, g_fc[f].nt > 1 ? "s" : "");
            GCHECK(c[0] && c[1] && genie_set_pack_cache(c[1], 0) == GENIE_OK);
            if (!c[0] || !c[1]) { genie_ctx_destroy(c[0]); genie_ctx_destroy(c[1]); continue; }
            for (i = 0; i < 2; i++) { /* genie-owned constants, alive across the rounds */
                x[i] = operand(c[i], GENIE_F32, 2, xs, L_CONTIG, 8100);
                x2[i] = operand(c[i], GENIE_F32, 2, x2s, L_CONTIG, 8101);
                w[i] = operand(c[i], GENIE_F32, 2, ws, L_CONTIG, 8102);
                genie_realize(c[i], 1, &w[i]);
            }
            for (r = 0; r < 3; r++) {
                const int64_t n0 = pk_round(c[0], sc, x[0], x2[0], w[0], out[0]), n1 = pk_round(c[1], sc, x[1], x2[1], w[1], out[1]);
                same &= n0 > 0 && n0 == n1 && memcmp(out[0], out[1], (size_t)n0 * sizeof(float)) == 0;
            }
            GCHECK(same);
            st = genie_get_stats(c[0]);
            if (sc == PKS_QKV || sc == PKS_TWO) { /* round 1 marks each key, round 2 packs it, round 3 reads it */
                const uint64_t keys = sc == PKS_QKV ? 3 : 2;
                GCHECK(st.pack_cache_packs == keys && st.pack_cache_hits == keys);
                GCHECK(st.pack_cache_bytes >= keys * (uint64_t)(PK_N * PK_K) * 4);
            } else {
                GCHECK(st.pack_cache_packs == 0 && st.pack_cache_hits == 0 && st.pack_cache_bytes == 0);
                if (sc == PKS_INPLACE) GCHECK(st.inplace_reused >= 3); /* the update wrote w's own buffer */
            }
            GCHECK(genie_status(c[0]) == GENIE_OK && genie_status(c[1]) == GENIE_OK);
            for (i = 0; i < 2; i++) genie_ctx_destroy(c[i]);
            draws_clear();
        }
    free(out[0]);
    free(out[1]);
}

/* ---- blocks of k, or of columns, of unequal size under an N split ----
   M past one block of A, N wide enough that each thread packs and reads only its own panels
   of B (no barrier between blocks), K one past a multiple of KC: blocks of k+1 and k packed
   steps. A thread that ran ahead into the next block of k once packed its panels over the
   tail of the last panel another thread was still reading (slots kp apart, kp changing
   between blocks); and into a last block of columns a panel short, over a slot another
   thread still read (the shares of the panels moved). The product runs 4 times on 2
   threads, bitwise equal to 1 thread's each time; a timing the race needs is not certain,
   but TSan (make matrix) flags it on any run. */
static void uneven_blocks(void) {
    /* {M, N, K}: K = 513 splits AVX2 and AVX-512 f32's KC 512 into 257 + 256, K = 257 the
       generic path's and every f64 KC of 256 into 129 + 128. Then column blocks of unequal
       panel counts (N past NC = 2048, the last block a panel short), which once moved the
       threads' shares of the panels between blocks: N = 2090 is 66 + 65 panels of 16
       (generic, AVX2 f32), 4040 is 64 + 63 of 32 (AVX-512 f32), 2066 is 130 + 129 of 8 (f64
       on AVX2). The reference checks the first three (the fourth's 325 M multiply-adds would
       double the suite's reference work). Then M within one block of A (every path's MC), so the
       threads claim runs of panels as they come free, with several blocks of k (and of columns):
       a run's claim in block k + 1 waits for the same run's block k, whoever computes it (100 x
       2090 x 1100: 3 blocks of k of 367 and 2 of columns; 40 x 2090 x 600; 60 x 530 x 1030).
       Quick (valgrind, TSan): the first three and the last two, without the reference */
    static const int64_t shapes[][3] = {{140, 528, 513}, {140, 528, 257}, {140, 2090, 16},
                                        {300, 2112, 513}, {140, 2090, 64}, {140, 4040, 64}, {140, 2066, 64},
                                        {100, 2090, 1100}, {40, 2090, 600}, {60, 530, 1030}};
    const int nshapes = 10, reps = g_quick ? 1 : 4;
    int d, si, f, r;
    g_lazy_cases = 0; /* inputs from host data: the same values in every context */
    for (d = 0; d < 2; d++)
        for (si = 0; si < nshapes; si++) {
            const int64_t M = shapes[si][0], N = shapes[si][1], K = shapes[si][2], as[2] = {M, K}, bs[2] = {K, N};
            gcase c = mm(g_dts[d], F_2D, M, N, K, 0, L_CONTIG, L_CONTIG, E_NONE, 0);
            if (g_quick && si >= 3 && si < 8) continue;
            if (!g_quick && si < 3) run_case(&c); /* against the reference, and 2 threads against 1 once */
            g_lazy = 0;
            for (f = 0; f + 1 < g_nfc; f++) {
                double *one = NULL;
                if (g_fc[f].nt != 1 || g_fc[f + 1].nt != 2 || g_fc[f + 1].path != g_fc[f].path) continue;
                for (r = 0; r <= reps; r++) {
                    genie_ctx *ctx = g_fc[r == 0 ? f : f + 1].ctx;
                    genie_tensor *y;
                    double *v;
                    snprintf(g_where, sizeof g_where, "uneven blocks: %s [%lld,%lld]@[%lld,%lld]; path %s, %d thread%s, run %d",
                             genie_dtype_name(g_dts[d]), (long long)M, (long long)K, (long long)K, (long long)N,
                             genie_cpu_name(g_fc[f].path), r ? 2 : 1, r ? "s" : "", r);
                    genie_pool_push(ctx);
                    y = genie_matmul(ctx, operand(ctx, g_dts[d], 2, as, L_CONTIG, c.seed),
                                     operand(ctx, g_dts[d], 2, bs, L_CONTIG, c.seed + 1));
                    v = y ? read64(ctx, y) : NULL;
                    GCHECK(v != NULL && genie_status(ctx) == GENIE_OK);
                    if (r == 0) one = v, v = NULL;
                    else GCHECK(one && v && memcmp(one, v, (size_t)(M * N) * sizeof(double)) == 0);
                    free(v);
                    genie_clear_error(ctx);
                    genie_pool_pop(ctx);
                }
                free(one);
                draws_clear();
            }
        }
}

void gemm_tests(int *passed, int *failed, int *skipped) {
    genie_ctx_desc rd = {.n_threads = 1, .cpu = GENIE_CPU_REFERENCE};
    clock_t c0 = clock();
    struct timespec w0, w1;
    int p, nt, np = 0;
    char names[128] = "";
    g_pass = g_fail = g_skip = g_nfc = 0;
    g_ref_macs = 0;
    g_epi_runs = g_epi_fused = 0;
    memset(g_ratio, 0, sizeof g_ratio);
    clock_gettime(CLOCK_MONOTONIC, &w0);
    g_quick = getenv("GENIE_GEMM_QUICK") && atoi(getenv("GENIE_GEMM_QUICK")) != 0;
    g_perturb = getenv("GENIE_GEMM_PERTURB") && atoi(getenv("GENIE_GEMM_PERTURB")) != 0;
    g_rng = getenv("GENIE_GEMM_SEED") ? strtoull(getenv("GENIE_GEMM_SEED"), NULL, 10) : 1;
    g_ref = genie_ctx_create(&rd);
    g_gen = genie_ctx_create(&rd);
    snprintf(g_where, sizeof g_where, "contexts");
    GCHECK(g_ref && genie_cpu_path(g_ref) == GENIE_CPU_REFERENCE);
    GCHECK(genie_cpu_supported(GENIE_CPU_REFERENCE) && genie_cpu_supported(GENIE_CPU_GENERIC));
    GCHECK(!genie_cpu_supported(GENIE_CPU_AUTO) && strcmp(genie_cpu_name(GENIE_CPU_AVX512), "avx512") == 0);
    for (p = 0; p < 3; p++) {
        if (!genie_cpu_supported(g_paths[p])) {
            printf("  skip: gemm path %s (this CPU, or valgrind, lacks it)\n", genie_cpu_name(g_paths[p]));
            g_skip++;
            continue;
        }
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", np++ ? ", " : "", genie_cpu_name(g_paths[p]));
        for (nt = 1; nt <= 2; nt++) {
            genie_ctx_desc d = {.n_threads = nt, .cpu = g_paths[p]};
            fastctx *f = &g_fc[g_nfc++];
            f->ctx = genie_ctx_create(&d);
            f->path = g_paths[p];
            f->nt = nt;
            GCHECK(f->ctx && genie_cpu_path(f->ctx) == g_paths[p]);
        }
    }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    /* the avx512 contexts' bf16 x bf16 products run the AVX512_BF16 kernel (pairs, vdpbf16ps) where the CPU has it */
    if (genie_cpu_supported(GENIE_CPU_AVX512) && __builtin_cpu_supports("avx512bf16"))
        snprintf(names + strlen(names), sizeof names - strlen(names), " (bf16 products: AVX512_BF16)");
    else if (genie_cpu_supported(GENIE_CPU_AVX512)) {
        printf("  skip: gemm path avx512's AVX512_BF16 kernel for bf16 products (this CPU lacks it)\n");
        g_skip++;
    }
#endif
    if (g_perturb) printf("  GENIE_GEMM_PERTURB: 2-thread fast contexts scale operand 0 by 1.0625; their checks must fail\n");
    self_check();
    sweep_sizes();
    layouts();
    linears();
    convs();
    pack_cache();
    pack_cache_keys();
    uneven_blocks();
    for (p = 0; p < g_nfc; p++) genie_ctx_destroy(g_fc[p].ctx);
    genie_ctx_destroy(g_ref);
    genie_ctx_destroy(g_gen);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    printf("  gemm paths (%s; 1 and 2 threads; %s): %d passed, %d failed, %d skipped; reference %.0f M MAC; %.1f s (%.1f s CPU)\n",
           names, g_quick ? "quick" : "full", g_pass, g_fail, g_skip, g_ref_macs / 1e6,
           (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec), (double)(clock() - c0) / CLOCKS_PER_SEC);
    printf("  gemm paths: largest |fast - reference| / bound: f32 %.3g, f64 %.3g, f16 %.3g, bf16 %.3g; "
           "f32/f64 product epilogues run fused: %d of %d\n", g_ratio[0], g_ratio[1], g_ratio[2], g_ratio[3], g_epi_fused, g_epi_runs);
    *passed += g_pass;
    *failed += g_fail;
    *skipped += g_skip;
}
