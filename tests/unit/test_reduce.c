/* test_reduce.c - the fast row kernels (reductions over the last
   dims, softmax, log_softmax, layer_norm of contiguous f32) against a
   GENIE_CPU_REFERENCE context, on every CPU path this machine runs, on 1 and
   2 threads. Tolerances are the ones genie.h states at "fast reductions,
   softmax, layer_norm" (u = 2^-24, n = the row's length):
     sum, mean          |f - r| <= 2u |r| + n 2^-50 sum|x|   (mean: / n)
     var, std           |f - r| <= 4u |r|
     amax, amin, prod, argmax, argmin, max/min values: exact (sign of zero included)
     logsumexp          |f - r| <= 2u |r| + 16u
     softmax            |f - r| <= u (24 + |x - max|) |r| + 1e-44
     log_softmax        |f - r| <= 4u |r| + 16u
     layer_norm         |f - r| <= 2u (|r| + |t w|) + n 2^-48 |mean| rstd |w| + 1e-30, t = (x - mean) rstd
   and NaN where the reference has NaN, the same infinity where it has one.
   f32 views that are not contiguous (variant 2: a transpose) run as gathered rows
   within the same bounds (sum, mean, var and logsumexp over every dim of a dense
   view in memory order); layer_norm over two strided dims, the reference. The
   gathered rows (softmax and the rest over any dim, strided and sliced views) are
   also checked bit for bit against the same rows made contiguous first (logsumexp within
   its bound: over dims whose kept ones end in a unit-stride run it is a column group).
   f16 and bf16 (inputs, weight and bias of that dtype; rows converted to f32, computed
   and rounded once): the bound above plus one ulp of the dtype at the reference's
   value (the f32 result may round the other way), exact ops still exact. */
#include "../../genie.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static int *r_pass, *r_fail, r_shown;
#define U24 (1.0 / 16777216.0)

enum { T_SUM, T_SUM_KEEP, T_SUM_ALL, T_MEAN, T_MEAN_ALL, T_AMAX, T_AMIN, T_PROD, T_VAR0, T_VAR1, T_STD1_KEEP,
       T_STD0, T_LSE, T_VAR_ALL, T_LSE_ALL, T_ARGMAX, T_ARGMIN, T_ARGMAX_ALL, T_MAXV, T_MINI, T_SOFTMAX, T_LOGSOFTMAX,
       T_LN, T_LN_W, T_LN_B, T_LN_WB, T_LN2_WB, T_COUNT };
static const char *const t_names[T_COUNT] = {
    "sum", "sum keepdim", "sum all", "mean", "mean all", "amax", "amin", "prod", "var c=0", "var c=1",
    "std c=1 keepdim", "std c=0", "logsumexp", "var all", "logsumexp all", "argmax", "argmin", "argmax all", "max values", "min indices",
    "softmax", "log_softmax", "layer_norm", "layer_norm w", "layer_norm b", "layer_norm w b", "layer_norm 2 dims w b"};

static genie_tensor *apply(genie_ctx *c, int op, genie_tensor *x, genie_tensor *w, genie_tensor *b,
                           genie_tensor *w2, genie_tensor *b2) {
    int64_t last = -1, ns[2];
    genie_tuple *tu;
    genie_tensor *r;
    ns[0] = genie_shape(x)[0];
    ns[1] = genie_shape(x)[1];
    switch (op) {
    case T_SUM: return genie_sum(c, x, 1, &last, 0);
    case T_SUM_KEEP: return genie_sum(c, x, 1, &last, 1);
    case T_SUM_ALL: return genie_sum(c, x, 0, NULL, 0);
    case T_MEAN: return genie_mean(c, x, 1, &last, 0);
    case T_MEAN_ALL: return genie_mean(c, x, 0, NULL, 1);
    case T_AMAX: return genie_amax(c, x, 1, &last, 0);
    case T_AMIN: return genie_amin(c, x, 1, &last, 1);
    case T_PROD: return genie_prod(c, x, 1, &last, 0);
    case T_VAR0: return genie_var(c, x, 1, &last, 0, 0);
    case T_VAR1: return genie_var(c, x, 1, &last, 1, 0);
    case T_STD1_KEEP: return genie_std(c, x, 1, &last, 1, 1);
    case T_STD0: return genie_std(c, x, 1, &last, 0, 0);
    case T_LSE: return genie_logsumexp(c, x, 1, &last, 0);
    case T_VAR_ALL: return genie_var(c, x, 0, NULL, 1, 0);
    case T_LSE_ALL: return genie_logsumexp(c, x, 0, NULL, 0);
    case T_ARGMAX: return genie_argmax(c, x, -1, 0);
    case T_ARGMIN: return genie_argmin(c, x, -1, 1);
    case T_ARGMAX_ALL: return genie_argmax(c, x, GENIE_DIM_NONE, 0);
    case T_MAXV: case T_MINI:
        tu = op == T_MAXV ? genie_max_dim(c, x, -1, 0) : genie_min_dim(c, x, -1, 1);
        r = genie_tuple_get(tu, op == T_MAXV ? 0 : 1);
        genie_retain(r);
        genie_tuple_release(tu);
        return r;
    case T_SOFTMAX: return genie_softmax(c, x, -1);
    case T_LOGSOFTMAX: return genie_log_softmax(c, x, -1);
    case T_LN: return genie_layer_norm(c, x, 1, ns + 1, NULL, NULL, 1e-5);
    case T_LN_W: return genie_layer_norm(c, x, 1, ns + 1, w, NULL, 1e-5);
    case T_LN_B: return genie_layer_norm(c, x, 1, ns + 1, NULL, b, 1e-5);
    case T_LN_WB: return genie_layer_norm(c, x, 1, ns + 1, w, b, 1e-3);
    default: return genie_layer_norm(c, x, 2, ns, w2, b2, 1e-5);
    }
}

/* The row an output element e of op reads, its length, and for row-shaped
   outputs (softmax, layer_norm) the element's position j in it. */
static int rowwise_out(int op) { return op >= T_SOFTMAX; }
static void row_of(int op, int64_t R, int64_t L, int64_t e, int64_t *r0, int64_t *n, int64_t *j) {
    if (op == T_SUM_ALL || op == T_MEAN_ALL || op == T_VAR_ALL || op == T_LSE_ALL || op == T_ARGMAX_ALL || op == T_LN2_WB) { *r0 = 0; *n = R * L; *j = e; return; }
    *n = L;
    *r0 = rowwise_out(op) ? e / L : e;
    *j = rowwise_out(op) ? e % L : 0;
}
static double tol_of(int op, const float *x, int64_t R, int64_t L, int64_t e, double ref, const float *w, const float *w2) {
    static const float *c_x; /* the row statistics, computed once per row */
    static int64_t c_r0 = -1, c_n;
    static double c_mean, c_var, c_mx;
    int64_t r0, n, j, k;
    const float *row;
    double s = 0, mean, var, mx, t, wj;
    row_of(op, R, L, e, &r0, &n, &j);
    row = x + r0 * L;
    if (e == 0 || c_x != row || c_r0 != r0 || c_n != n || !rowwise_out(op)) {
        c_x = row; c_r0 = r0; c_n = n; c_mean = 0; c_var = 0; c_mx = -INFINITY;
        for (k = 0; k < n; k++) c_mean += row[k];
        c_mean /= (double)n;
        for (k = 0; k < n; k++) c_var += (row[k] - c_mean) * (row[k] - c_mean);
        c_var /= (double)n;
        for (k = 0; k < n; k++) if (row[k] > c_mx) c_mx = row[k];
    }
    mean = c_mean;
    var = c_var;
    mx = c_mx;
    switch (op) {
    case T_SUM: case T_SUM_KEEP: case T_SUM_ALL: case T_MEAN: case T_MEAN_ALL:
        for (k = 0; k < n; k++) if (isfinite(row[k])) s += fabs(row[k]);
        if (op == T_MEAN || op == T_MEAN_ALL) s /= (double)n;
        return 2 * U24 * fabs(ref) + (double)n * ldexp(1, -50) * s;
    case T_VAR0: case T_VAR1: case T_STD1_KEEP: case T_STD0: case T_VAR_ALL: return 4 * U24 * fabs(ref);
    case T_LSE: case T_LSE_ALL: return 2 * U24 * fabs(ref) + 16 * U24;
    case T_SOFTMAX:
        t = fabs(row[j] - mx); /* inf or NaN where the output is 0 or NaN */
        return U24 * (24 + (t < 1e30 ? t : 0)) * fabs(ref) + 1e-44;
    case T_LOGSOFTMAX: return 4 * U24 * fabs(ref) + 16 * U24;
    case T_LN: case T_LN_W: case T_LN_B: case T_LN_WB: case T_LN2_WB:
        var = 1.0 / sqrt(var + (op == T_LN_WB ? 1e-3 : 1e-5)); /* rstd */
        t = (row[j] - mean) * var;
        wj = op == T_LN2_WB ? w2[j] : (op == T_LN_W || op == T_LN_WB) ? w[j] : 1.0;
        return 2 * U24 * (fabs(ref) + fabs(t * wj)) + (double)n * ldexp(1, -48) * fabs(mean) * var * fabs(wj) + 1e-30;
    default: return 0; /* exact */
    }
}
/* One ulp of f16/bf16 at |r| (the spacing below it; the smallest subnormal near 0). */
static double ulp_dt(genie_dtype dt, double r) {
    int e;
    if (dt == GENIE_F32) return 0;
    r = fabs(r);
    if (!(r > 0)) return dt == GENIE_F16 ? ldexp(1, -24) : ldexp(1, -133);
    frexp(r, &e); /* r in [2^(e-1), 2^e) */
    if (dt == GENIE_F16) return ldexp(1, (e - 1 < -14 ? -14 : e - 1) - 10);
    return ldexp(1, (e - 1 < -126 ? -126 : e - 1) - 7);
}
static int agree(double f, double r, double tol) {
    if (r != r) return f != f;
    if (isinf(r) || tol == 0) return f == r && signbit(f) == signbit(r);
    return fabs(f - r) <= tol;
}

static uint64_t rng_state;
static double urand(void) { /* [0, 1) */
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 40) / 16777216.0;
}
/* Patterns: 0 uniform, 1 large magnitudes, 2 +-inf and NaN in rows, 3 all-equal
   rows (-0, 1.5, -1e30, -inf), 4 a large mean (cancellation), 5 many ties, 6 a large mean
   and a first element 0, 10, 20, 31, 33 or 10^4 deviations out (the one pass about x[0] of
   layer_norm, var and std, and for 10^4 their two passes: the shift is over 32 deviations). */
static void fill(float *x, int64_t R, int64_t L, int pat) {
    int64_t r, j;
    for (r = 0; r < R; r++)
        for (j = 0; j < L; j++) {
            double u = urand();
            float v;
            switch (pat) {
            case 0: v = (float)(8 * u - 4); break;
            case 1:
                v = (float)((2 * u - 1) * 1e37);
                if (u < 0.01) v = 3.4028234e38f;
                if (u > 0.99) v = -3.4028234e38f;
                if (u > 0.5 && u < 0.51) v = 1e-30f;
                break;
            case 2: v = (float)(40 * u - 20); break;
            case 3: { static const float c[4] = {-0.0f, 1.5f, -1e30f, -INFINITY}; v = c[r % 4]; break; }
            case 4: v = (float)(1000 + 0.02 * u - 0.01); break;
            case 6: { /* deviation 0.02 / sqrt(12) */
                static const double k[6] = {0, 10, 20, 31, 33, 1e4};
                v = (float)(1000 + (j ? 0.02 * u - 0.01 : k[r % 6] * 0.0057735));
                break;
            }
            default: { static const float c[5] = {-1, 0, -0.0f, 1, 2}; v = c[(int)(u * 5)]; break; }
            }
            x[r * L + j] = v;
        }
    if (pat == 2)
        for (r = 0; r < R; r++) {
            int64_t p = (int64_t)(urand() * (double)L), q = (int64_t)(urand() * (double)L);
            if (r % 5 == 0) x[r * L + p] = NAN;
            if (r % 5 == 1 || r % 5 == 3) x[r * L + p] = INFINITY;
            if (r % 5 == 2 || r % 5 == 3) x[r * L + q] = -INFINITY;
        }
}

/* data of dtype dt (f32 values that dt holds exactly), realized */
static genie_tensor *data_as(genie_ctx *c, genie_dtype dt, int nd, const int64_t *sh, const float *v) {
    genie_tensor *t = genie_from_data(c, GENIE_F32, nd, sh, v);
    if (dt != GENIE_F32) {
        t = genie_to_dtype(c, t, dt);
        genie_realize(c, 1, &t);
    }
    return t;
}
/* Run every op on x [R, L] of dtype dt (variant 0: as is; 1: rows 1.. of it, a view
   with an offset; 2: the transpose of an [L, R] tensor, not contiguous) in context
   c; outputs read as doubles into out[op] (allocated here). */
static void run_all(genie_ctx *c, genie_dtype dt, const float *x, const float *wd, const float *bd, int64_t R, int64_t L,
                    int variant, unsigned long ops, double **out, int64_t *numel) {
    int64_t sh[2], nsh[2];
    genie_tensor *X, *w, *b, *w2, *b2;
    int op;
    genie_pool_push(c);
    if (variant == 2) {
        sh[0] = L; sh[1] = R;
        X = genie_t(c, data_as(c, dt, 2, sh, x));
    } else {
        sh[0] = R + (variant == 1); sh[1] = L;
        X = data_as(c, dt, 2, sh, x);
        if (variant == 1) X = genie_narrow(c, X, 0, 1, R);
    }
    nsh[0] = R; nsh[1] = L;
    w = data_as(c, dt, 1, &L, wd);
    b = data_as(c, dt, 1, &L, bd);
    w2 = data_as(c, dt, 2, nsh, wd);
    b2 = data_as(c, dt, 2, nsh, bd);
    for (op = 0; op < T_COUNT; op++) {
        genie_tensor *r = (ops >> op) & 1 ? apply(c, op, X, w, b, w2, b2) : NULL;
        numel[op] = r ? genie_numel(r) : -1;
        out[op] = (double *)malloc((size_t)(numel[op] > 0 ? numel[op] : 1) * sizeof(double));
        if (!r || genie_read(c, r, GENIE_F64, out[op], (size_t)numel[op] * sizeof(double)) != GENIE_OK) numel[op] = -1;
        if (op == T_MAXV || op == T_MINI) genie_release(r);
    }
    genie_pool_pop(c);
}

/* x[0, n) rounded to what dt holds (through a reference context's conversion) */
static void round_to_dt(genie_ctx *ref, genie_dtype dt, float *x, int64_t n) {
    genie_tensor *t;
    if (dt == GENIE_F32 || n == 0) return;
    genie_pool_push(ref);
    t = genie_to_dtype(ref, genie_to_dtype(ref, genie_from_data(ref, GENIE_F32, 1, &n, x), dt), GENIE_F32);
    if (genie_read(ref, t, GENIE_F32, x, (size_t)n * sizeof(float)) != GENIE_OK) (*r_fail)++;
    genie_pool_pop(ref);
}
static void check_case(genie_ctx *ref, genie_ctx **fast, const char *const *fname, int nfast, genie_dtype dt, int64_t R,
                       int64_t L, int pat, int variant, unsigned long ops) {
    int64_t rows = R + (variant == 1), total = rows * L, n_ref[T_COUNT], n_f[T_COUNT], e;
    float *x = (float *)malloc((size_t)total * sizeof(float));
    float *wd = (float *)malloc((size_t)(R * L) * sizeof(float)), *bd = (float *)malloc((size_t)(R * L) * sizeof(float));
    double *o_ref[T_COUNT], *o_f[T_COUNT];
    float *xt = variant == 2 ? (float *)malloc((size_t)total * sizeof(float)) : NULL;
    const float *xr = variant == 1 ? x + L : variant == 2 ? xt : x; /* the rows the ops see, row-major */
    int op, k;
    rng_state = (uint64_t)(R * 1000003 + L * 7919 + pat * 31 + variant);
    fill(x, rows, L, pat);
    for (e = 0; e < R * L; e++) { wd[e] = (float)(4 * urand() - 2); bd[e] = (float)(4 * urand() - 2); }
    round_to_dt(ref, dt, x, total); /* the values the ops see, for the bounds */
    round_to_dt(ref, dt, wd, R * L);
    round_to_dt(ref, dt, bd, R * L);
    for (e = 0; xt && e < total; e++) xt[e] = x[e % L * R + e / L]; /* variant 2: X[r][l] = x[l R + r] */
    run_all(ref, dt, x, wd, bd, R, L, variant, ops, o_ref, n_ref);
    for (k = 0; k < nfast; k++) {
        run_all(fast[k], dt, x, wd, bd, R, L, variant, ops, o_f, n_f);
        for (op = 0; op < T_COUNT; op++) {
            int ok = n_ref[op] >= 0 && n_f[op] == n_ref[op];
            if (!((ops >> op) & 1)) { free(o_f[op]); continue; }
            int64_t bad = -1;
            for (e = 0; ok && e < n_ref[op]; e++) {
                double tol = tol_of(op, xr, R, L, e, o_ref[op][e], wd, wd);
                if (tol > 0) tol += ulp_dt(dt, o_ref[op][e]);
                if (!agree(o_f[op][e], o_ref[op][e], tol)) { ok = 0; bad = e; }
            }
            if (ok) (*r_pass)++;
            else {
                (*r_fail)++;
                if (r_shown++ < 20)
                    printf("FAIL reduce %s %s [%lld, %lld] pattern %d variant %d on %s: element %lld: %.9g, reference %.9g\n",
                           genie_dtype_name(dt), t_names[op], (long long)R, (long long)L, pat, variant, fname[k], (long long)bad,
                           bad >= 0 ? o_f[op][bad] : 0.0, bad >= 0 ? o_ref[op][bad] : 0.0);
            }
            free(o_f[op]);
        }
    }
    for (op = 0; op < T_COUNT; op++) free(o_ref[op]);
    free(xt);
    free(x);
    free(wd);
    free(bd);
}

/* Gathered rows: op over dim d of x (any view) equals op over the last dim of x with d
   moved last and made contiguous first (realized: the contiguous row kernel), bit for
   bit, for the row-shaped outputs moved back too. */
enum { G_SOFTMAX, G_LOGSOFTMAX, G_VAR, G_STD, G_PROD, G_LSE, G_ARGMAX, G_ARGMIN, G_MAXV, G_SUM, G_AMIN, G_LN, G_RMS, G_COUNT };
static const char *const g_names[G_COUNT] = {"softmax", "log_softmax", "var", "std", "prod", "logsumexp", "argmax",
                                             "argmin", "max values", "sum", "amin", "layer_norm w b", "rms_norm w"};
static genie_tensor *g_apply(genie_ctx *c, int op, genie_tensor *x, int64_t d, genie_tensor *w, genie_tensor *b) {
    int64_t L = x ? genie_shape(x)[d] : 0;
    genie_tuple *tu;
    genie_tensor *r;
    switch (op) {
    case G_SOFTMAX: return genie_softmax(c, x, d);
    case G_LOGSOFTMAX: return genie_log_softmax(c, x, d);
    case G_VAR: return genie_var(c, x, 1, &d, 1, 0);
    case G_STD: return genie_std(c, x, 1, &d, 0, 1);
    case G_PROD: return genie_prod(c, x, 1, &d, 0);
    case G_LSE: return genie_logsumexp(c, x, 1, &d, 0);
    case G_ARGMAX: return genie_argmax(c, x, d, 0);
    case G_ARGMIN: return genie_argmin(c, x, d, 1);
    case G_SUM: return genie_sum(c, x, 1, &d, 0);
    case G_AMIN: return genie_amin(c, x, 1, &d, 0);
    case G_MAXV:
        tu = genie_max_dim(c, x, d, 0);
        r = genie_tuple_get(tu, 0);
        genie_retain(r);
        genie_tuple_release(tu);
        return r; /* the caller's: released after reading */
    case G_LN: return genie_layer_norm(c, x, 1, &L, w, b, 1e-5); /* d: the last dim */
    default: return genie_rms_norm(c, x, 1, &L, w, 1e-6);
    }
}
/* r and y (n elements) read as f64 hold the same bits, NaNs as NaNs (lse: or within logsumexp's
   bound of each other); *at: the first that differs (-1: none, or a read failed), its values in v[2] */
static int same_bits_or(genie_ctx *c, genie_tensor *r, genie_tensor *y, int64_t n, int64_t *at, double *v, int lse) {
    double *o1 = (double *)calloc((size_t)n + 1, sizeof(double)), *o2 = (double *)calloc((size_t)n + 1, sizeof(double));
    int64_t i;
    int ok = o1 && o2 && r && y && genie_numel(r) == n && genie_numel(y) == n &&
             genie_read(c, r, GENIE_F64, o1, (size_t)n * 8) == GENIE_OK && genie_read(c, y, GENIE_F64, o2, (size_t)n * 8) == GENIE_OK;
    *at = -1;
    v[0] = v[1] = 0;
    for (i = 0; ok && i < n; i++)
        if (!(memcmp(&o1[i], &o2[i], 8) == 0 || (o1[i] != o1[i] && o2[i] != o2[i]) ||
              (lse && fabs(o1[i] - o2[i]) <= 2 * U24 * fabs(o2[i]) + 16 * U24))) {
            ok = 0;
            *at = i, v[0] = o1[i], v[1] = o2[i];
        }
    free(o1);
    free(o2);
    return ok;
}
static int same_bits(genie_ctx *c, genie_tensor *r, genie_tensor *y, int64_t n, int64_t *at, double *v) {
    return same_bits_or(c, r, y, n, at, v, 0);
}
static int g_rowwise(int op) { return op == G_SOFTMAX || op == G_LOGSOFTMAX || op == G_LN || op == G_RMS; }
int test_shard_take(void); /* test_main.c: does this process run the next unit (GENIE_TEST_SHARD)? */
static void gathered_cases(genie_ctx **fast, const char *const *fname, int nfast, int *passed, int *failed) {
    /* x: a contiguous [A, B, C], or its transpose [C, B, A] (v 1), or a slice [A, B, C - 2] at C's
       offset 1 (v 2: rows of unit stride, not dense; [A, B - 2, C] where C is 2); over every dim */
    static const int64_t shapes[][3] = {{5, 37, 19}, {64, 40, 33}, {3, 300, 2}, {2, 1, 4097}, {17, 16, 16}};
    static const genie_dtype dts[3] = {GENIE_F32, GENIE_BF16, GENIE_F16}; /* f16/bf16: converted rows, rounded back */
    size_t s;
    int k, v, op, pat, di;
    for (di = 0; di < 3; di++)
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        if (!test_shard_take()) continue; /* a shard's unit: one dtype and shape */
        for (v = 0; v < 3; v++)
            for (pat = 0; pat < 6; pat += 2 + (s > 0) + 2 * (di > 0)) {
                const int64_t *sh = shapes[s], total = sh[0] * sh[1] * sh[2];
                const genie_dtype dt = dts[di];
                float *data = (float *)malloc((size_t)total * sizeof(float));
                rng_state = (uint64_t)(s * 131 + (size_t)v * 17 + (size_t)pat);
                fill(data, sh[0] * sh[1], sh[2], pat);
                for (k = 0; k < nfast; k++) {
                    genie_ctx *c = fast[k];
                    genie_tensor *x, *w, *b;
                    int64_t d, perm[3], back[3], L, i;
                    genie_pool_push(c);
                    x = genie_from_data(c, GENIE_F32, 3, sh, data);
                    if (dt != GENIE_F32) x = genie_to_dtype(c, x, dt);
                    if (v == 1) {
                        int64_t rev[3] = {2, 1, 0};
                        x = genie_permute(c, x, 3, rev);
                    }
                    if (v == 2) x = genie_narrow(c, x, sh[2] > 2 ? 2 : 1, 1, sh[sh[2] > 2 ? 2 : 1] - 2);
                    for (d = 0; d < 3; d++)
                        for (op = 0; op < G_COUNT; op++) {
                            genie_tensor *r, *y, *xc;
                            int64_t n, j = 0, at;
                            double v2[2];
                            int ok;
                            if ((op == G_LN || op == G_RMS) && d != 2) continue; /* normalized: the last dim */
                            for (i = 0; i < 3; i++)
                                if (i != d) perm[j++] = i;
                            perm[2] = d;
                            for (i = 0; i < 3; i++) back[perm[i]] = i;
                            L = genie_shape(x)[d];
                            w = genie_randn(c, dt, 1, &L, 7);
                            b = genie_randn(c, dt, 1, &L, 8);
                            r = g_apply(c, op, x, d, w, b);
                            xc = genie_contiguous(c, genie_permute(c, x, 3, perm));
                            genie_realize(c, 1, &xc);
                            y = g_apply(c, op, xc, 2, w, b);
                            if (y && g_rowwise(op)) y = genie_permute(c, y, 3, back);
                            n = r ? genie_numel(r) : 0;
                            /* logsumexp whose kept dims end in a unit-stride run: a column group, its f64 sum
                               of f32 exps in another order than the row kernel's */
                            ok = same_bits_or(c, r, y, n, &at, v2, op == G_LSE);
                            (*passed) += ok;
                            (*failed) += !ok;
                            if (!ok && r_shown++ < 20)
                                printf("FAIL reduce gathered %s %s over dim %lld of [%lld, %lld, %lld] variant %d pattern %d on %s: "
                                       "element %lld: %.9g, contiguous %.9g (%s)\n", genie_dtype_name(dt), g_names[op], (long long)d, (long long)sh[0],
                                       (long long)sh[1], (long long)sh[2], v, pat, fname[k], (long long)at, v2[0], v2[1],
                                       genie_last_error(c));
                            genie_clear_error(c);
                            if (op == G_MAXV) {
                                genie_release(r);
                                genie_release(y);
                            }
                        }
                    if (v == 0) { /* a row over two dims of one stride: logsumexp over (A, B) of x moved to [C, A, B]
                                     (its f32 exp tells the row kernel from the reference, which var may not) */
                        int64_t mv[3] = {2, 0, 1}, ab[2] = {1, 2}, flat[2] = {sh[2], sh[0] * sh[1]}, last = -1, at;
                        genie_tensor *xp = genie_permute(c, x, 3, mv), *xc = genie_contiguous(c, xp), *r, *y;
                        double v2[2];
                        int ok;
                        genie_realize(c, 1, &xc);
                        r = genie_logsumexp(c, xp, 2, ab, 0);
                        y = genie_logsumexp(c, genie_reshape(c, xc, 2, flat), 1, &last, 0);
                        ok = same_bits(c, r, y, sh[2], &at, v2);
                        (*passed) += ok;
                        (*failed) += !ok;
                        if (!ok && r_shown++ < 20)
                            printf("FAIL reduce gathered logsumexp over dims (1, 2) of [%lld, %lld, %lld] moved to [C, A, B] pattern %d on %s: "
                                   "element %lld: %.9g, contiguous %.9g\n", (long long)sh[0], (long long)sh[1], (long long)sh[2], pat,
                                   fname[k], (long long)at, v2[0], v2[1]);
                        genie_clear_error(c);
                    }
                    if (v == 0 && sh[1] > 2) { /* layer_norm over the last two dims of a slice [A, B - 2, C]: one run
                                                  of unit stride, in place (its f32 FMA tells it from the reference) */
                        int64_t ns[2] = {sh[1] - 2, sh[2]}, at;
                        genie_tensor *xs = genie_narrow(c, x, 1, 1, sh[1] - 2), *xc = genie_contiguous(c, xs), *r, *y;
                        genie_tensor *w2 = genie_randn(c, dt, 2, ns, 11), *b2 = genie_randn(c, dt, 2, ns, 12);
                        double v2[2];
                        int ok;
                        genie_realize(c, 1, &xc);
                        r = genie_layer_norm(c, xs, 2, ns, w2, b2, 1e-5);
                        y = genie_layer_norm(c, xc, 2, ns, w2, b2, 1e-5);
                        ok = same_bits(c, r, y, sh[0] * ns[0] * ns[1], &at, v2);
                        (*passed) += ok;
                        (*failed) += !ok;
                        if (!ok && r_shown++ < 20)
                            printf("FAIL reduce gathered layer_norm over the last two dims of a slice of [%lld, %lld, %lld] pattern %d on %s: "
                                   "element %lld: %.9g, contiguous %.9g\n", (long long)sh[0], (long long)sh[1], (long long)sh[2], pat,
                                   fname[k], (long long)at, v2[0], v2[1]);
                        genie_clear_error(c);
                    }
                    genie_pool_pop(c);
                }
                free(data);
            }
    }
}

/* Segmented rows: a reduction whose reduced dims are no one run (a channel's statistics
   over [N, C, H, W]) against the reference within the bounds above (its order differs:
   sum, mean, var and std add segment by segment in place, the rest gather the row);
   argmax/argmin over every dim of a slice. x: [A, B, C, D] reduced over dims (0, 2, 3),
   (0, 1, 3) (two dims of segments), or a slice [A, B, C, D - 2] over (0, 2, 3). Then the
   same with a prologue, neg(neg(x)) (exact: every value's bits kept), fused with the
   reduction into a segmented group (genie.h, >>fuse) where its runs are 16 elements or
   more; the argreductions read it transposed in dims 0 and 1 (runs of C x D). */
enum { S_SUM, S_MEAN, S_VAR, S_STD, S_AMAX, S_AMIN, S_PROD, S_LSE, S_ARGMAX, S_ARGMIN, S_COUNT };
#define S_MAXR 256 /* results (and sums of |x|) a case reads at most */
static const char *const s_names[S_COUNT] = {"sum", "mean", "var c=1", "std c=0", "amax", "amin", "prod", "logsumexp",
                                             "argmax all", "argmin all"};
static genie_tensor *s_apply(genie_ctx *c, int op, genie_tensor *x, int nd, const int64_t *dims) {
    switch (op) {
    case S_SUM: return genie_sum(c, x, nd, dims, 0);
    case S_MEAN: return genie_mean(c, x, nd, dims, 1);
    case S_VAR: return genie_var(c, x, nd, dims, 1, 0);
    case S_STD: return genie_std(c, x, nd, dims, 0, 0);
    case S_AMAX: return genie_amax(c, x, nd, dims, 0);
    case S_AMIN: return genie_amin(c, x, nd, dims, 0);
    case S_PROD: return genie_prod(c, x, nd, dims, 0);
    case S_LSE: return genie_logsumexp(c, x, nd, dims, 0);
    case S_ARGMAX: return genie_argmax(c, x, GENIE_DIM_NONE, 0);
    default: return genie_argmin(c, x, GENIE_DIM_NONE, 0);
    }
}
/* op over x (the case's view of data, in context c; pro: through the prologue) read as f64
   into out[n]; its sum of |x| over the same dims into sabs (the sum bound's scale); *fused:
   the nodes the realize fused; returns the count or -1 */
static int64_t s_run(genie_ctx *c, genie_dtype dt, const float *data, const int64_t *sh, int v, int pro, int op, double *out,
                     double *sabs, int64_t *fused) {
    static const int64_t d023[3] = {0, 2, 3}, d013[3] = {0, 1, 3};
    const int64_t *dims = v == 1 ? d013 : d023;
    genie_tensor *x, *r, *a;
    int64_t n = -1;
    uint64_t f0;
    genie_pool_push(c);
    x = data_as(c, dt, 4, sh, data);
    f0 = genie_get_stats(c).fused_nodes;
    if (v == 2) x = genie_narrow(c, x, 3, 1, sh[3] - 2);
    if (pro) x = genie_neg(c, genie_neg(c, x));
    if (pro && (op == S_ARGMAX || op == S_ARGMIN)) x = genie_transpose(c, x, 0, 1);
    r = s_apply(c, op, x, 3, dims);
    a = genie_sum(c, genie_abs(c, genie_to_dtype(c, x, GENIE_F64)), 3, dims, 0); /* inf where r is inf or NaN */
    if (r && genie_numel(r) <= S_MAXR && genie_read(c, r, GENIE_F64, out, (size_t)genie_numel(r) * 8) == GENIE_OK &&
        (!sabs || (genie_numel(a) <= S_MAXR && genie_read(c, a, GENIE_F64, sabs, (size_t)genie_numel(a) * 8) == GENIE_OK)))
        n = genie_numel(r);
    *fused = (int64_t)(genie_get_stats(c).fused_nodes - f0);
    genie_clear_error(c);
    genie_pool_pop(c);
    return n;
}
/* data [A, B, C, D] of pattern pat: fill's 0-5 over rows of D; 6, 7: zeros of both signs the
   largest (smallest) value; 8: by channel b (dim 1), every value -inf; one +inf late; a +inf
   early and a NaN late; -inf but one 3 */
static void seg_fill(float *data, const int64_t *sh, int pat) {
    const int64_t total = sh[0] * sh[1] * sh[2] * sh[3];
    int64_t e;
    if (pat < 6) fill(data, sh[0] * sh[1] * sh[2], sh[3], pat);
    for (e = 0; pat >= 6 && pat < 8 && e < total; e++) {
        static const float c[4] = {1, -0.0f, 0.0f, 2};
        data[e] = (pat == 6 ? -1.0f : 1.0f) * c[(int)(urand() * 4)];
    }
    for (e = 0; pat == 8 && e < total; e++) {
        const int64_t b = e / (sh[2] * sh[3]) % sh[1], at = e % (sh[2] * sh[3]) + e / (sh[1] * sh[2] * sh[3]) * sh[2] * sh[3];
        const int64_t last = sh[0] * sh[2] * sh[3] - 1; /* the channel's last element (at: its place) */
        data[e] = b % 4 == 0 || b % 4 == 3 ? -INFINITY : (float)(urand() * 4 - 2);
        if (b % 4 == 1 && at == last) data[e] = INFINITY;
        if (b % 4 == 2 && at == 1) data[e] = INFINITY;
        if (b % 4 == 2 && at == last - 1) data[e] = NAN;
        if (b % 4 == 3 && at == last / 2) data[e] = 3;
    }
}
static void segment_cases(genie_ctx *ref, genie_ctx **fast, const char *const *fname, int nfast, int *passed, int *failed) {
    /* the last two: over the 64K elements that share the work, with 3 channels (one block of rows),
       so the threads split the segments (in chunks merged in order: prod excepted); the last one's
       100 or 200 segments make 64 chunks of one to four, unequal */
    static const int64_t shapes[][4] = {{3, 5, 1, 16}, {2, 7, 3, 33}, {4, 3, 2, 1000}, {2, 2, 5, 18},
                                        {2, 21, 2, 17}, {8, 3, 4, 700}, {100, 3, 2, 120}};
    static const genie_dtype dts[3] = {GENIE_F32, GENIE_BF16, GENIE_F16};
    const int quick = getenv("GENIE_GEMM_QUICK") != NULL;
    size_t s;
    int di, v, pat, op, k;
    for (di = 0; di < 3; di++)
        for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            const int64_t *sh = shapes[s], total = sh[0] * sh[1] * sh[2] * sh[3];
            float *data;
            if (!test_shard_take()) continue; /* a shard's unit: one dtype and shape */
            if (total > 20000 && quick) continue; /* quick (valgrind): the short runs */
            data = (float *)malloc((size_t)total * sizeof(float));
            for (pat = 0; pat < 9; pat++) {
                rng_state = (uint64_t)(s * 977 + (size_t)pat * 13 + (size_t)di);
                seg_fill(data, sh, pat);
                round_to_dt(ref, dts[di], data, total);
                for (v = 0; v < 6; v++)
                    for (op = 0; op < S_COUNT; op++) {
                        if (v >= 3 && quick && pat != 2 && pat != 6 && pat != 8) continue; /* quick: the prologue with
                                                                                             the special values */
                        double r[S_MAXR], sabs[S_MAXR], f[S_MAXR], f1[S_MAXR]; /* f1: the path's 1-thread values */
                        int64_t nf1 = -1;
                        const int pro = v >= 3, w = v % 3, arg = op == S_ARGMAX || op == S_ARGMIN;
                        const int64_t d = w == 2 ? sh[3] - 2 : sh[3], run = w == 1 && !arg ? d : sh[2] * d;
                        /* without the prologue: runs of C x D, D (one run where C is 1) or D - 2; argreductions: v 2 only */
                        const int64_t run0 = w == 0 ? sh[2] * sh[3] : w == 1 && sh[2] == 1 ? 0 : d;
                        const int lone = op == S_PROD || op == S_LSE || ((op == S_ARGMAX || op == S_ARGMIN) && w == 2);
                        /* the segmented group's nodes, or the prologue's; alone, prod, logsumexp and the argreductions */
                        const int64_t want = pro ? 2 + (run >= 16) : lone && run0 >= 16;
                        int64_t nfused = 0;
                        const int64_t nr = s_run(ref, dts[di], data, sh, w, pro, op, r, sabs, &nfused);
                        const int64_t len = d * sh[0] * (w == 1 ? sh[1] : sh[2]);
                        if (nr < 0) { (*failed)++; printf("FAIL reduce segments: the reference failed\n"); continue; }
                        for (k = 0; k < nfast; k++) {
                            const int64_t nf = s_run(fast[k], dts[di], data, sh, w, pro, op, f, NULL, &nfused);
                            int64_t e, bad = -1;
                            /* 2 threads give the 1-thread values, bit for bit (a group of one block splits its
                               segments the same way on any number) */
                            const int same = !(k > 0 && strstr(fname[k], " x2") && strstr(fname[k - 1], " x1")) ||
                                             (nf == nf1 && nf >= 0 && memcmp(f, f1, (size_t)nf * sizeof f[0]) == 0);
                            if (nf >= 0) memcpy(f1, f, (size_t)nf * sizeof f[0]);
                            nf1 = nf;
                            for (e = 0; nf == nr && e < nr && bad < 0; e++) {
                                double tol = 0;
                                if (op == S_SUM || op == S_MEAN)
                                    tol = 2 * U24 * fabs(r[e]) + (double)len * ldexp(1, -50) * sabs[e] / (op == S_MEAN ? (double)len : 1.0);
                                if (op == S_VAR || op == S_STD) tol = 4 * U24 * fabs(r[e]);
                                if (op == S_LSE) tol = 2 * U24 * fabs(r[e]) + 16 * U24;
                                if (tol > 0) tol += ulp_dt(dts[di], r[e]);
                                if (!agree(f[e], r[e], tol)) bad = e;
                            }
                            if (nf == nr && bad < 0 && nfused == want && same) { (*passed)++; continue; }
                            (*failed)++;
                            if (r_shown++ < 20)
                                printf("FAIL reduce segments %s %s of [%lld, %lld, %lld, %lld] variant %d pattern %d on %s: "
                                       "element %lld: %.9g, reference %.9g (%lld vs %lld results; %lld nodes fused, %lld expected%s)\n",
                                       genie_dtype_name(dts[di]),
                                       s_names[op], (long long)sh[0], (long long)sh[1], (long long)sh[2], (long long)sh[3], v, pat,
                                       fname[k], (long long)bad, bad >= 0 ? f[bad] : 0.0, bad >= 0 ? r[bad] : 0.0, (long long)nf,
                                       (long long)nr, (long long)nfused, (long long)want, same ? "" : "; not the 1-thread values");
                        }
                    }
            }
            free(data);
        }
}

/* The row kernels' exp, held to its stated bound through softmax (softmax's own bound,
   24 ulp and more, would hide an exp several ulp off): in a row [0, x1..x4096] with every x
   in [-103.97, -28], the sum rounds 1 / sum to 1 in f32, so each output is exp(x) as the
   kernel computes it: within 1.5 ulp of exp in double (the AVX-512 table exp: 1.07, the
   AVX2 polynomial 1.01, GENERIC's libm expf); rows [0, x], x in [-28, 0], add the scale's
   two roundings: within 3 ulp of e^x / (1 + e^x). */
static double exp_ulps(double got, double want) {
    const float w = (float)want;
    return fabs(got - want) / (w < ldexp(1, -126) ? ldexp(1, -149) : ldexp(1, ilogb(w) - 23));
}
static void exp_row_cases(genie_ctx **fast, const char *const *fname, int nfast, int *passed, int *failed) {
    enum { M = 4096, R = 8192 };
    static float a[M + 1], b[2 * R], ya[M + 1], yb[2 * R];
    const int64_t sa[2] = {1, M + 1}, sb[2] = {R, 2};
    int64_t i, k;
    a[0] = 0;
    for (i = 1; i <= M; i++) a[i] = (float)(-28.0 - 75.97 * (double)(i - 1) / (M - 1));
    for (i = 0; i < R; i++) b[2 * i] = 0, b[2 * i + 1] = (float)(-28.0 * (double)i / (R - 1));
    for (k = 0; k < nfast; k++) {
        genie_ctx *c = fast[k];
        double wa = 0, wb = 0;
        int ok;
        genie_pool_push(c);
        ok = genie_read(c, genie_softmax(c, data_as(c, GENIE_F32, 2, sa, a), -1), GENIE_F32, ya, sizeof ya) == GENIE_OK &&
             genie_read(c, genie_softmax(c, data_as(c, GENIE_F32, 2, sb, b), -1), GENIE_F32, yb, sizeof yb) == GENIE_OK;
        genie_pool_pop(c);
        for (i = 1; ok && i <= M; i++) wa = fmax(wa, exp_ulps(ya[i], exp((double)a[i])));
        for (i = 0; ok && i < R; i++) wb = fmax(wb, exp_ulps(yb[2 * i + 1], exp((double)b[2 * i + 1]) / (1 + exp((double)b[2 * i + 1]))));
        if (getenv("GENIE_EXP_ULPS")) printf("  exp through softmax rows on %s: %.3f / %.3f ulp\n", fname[k], wa, wb);
        if (ok && wa <= 1.5 && wb <= 3) { (*passed)++; continue; }
        (*failed)++;
        printf("FAIL reduce exp through softmax rows on %s: %s; worst %.3f ulp from exp (bound 1.5), %.3f from e^x / (1 + e^x) "
               "(bound 3)\n", fname[k], ok ? "computed" : genie_last_error(c), wa, wb);
    }
}

/* argmax/argmin over every dim of a permuted [A, B, C, D] (dense, not contiguous: the extreme
   found in memory order, then its least index; genie.h, genie__k_argdense), and of one laid
   out in runs of C x D (a segmented group of one), against the reference: the same index.
   78,000 elements, over the 64K that share the work among threads (quick, as under valgrind:
   7,800, and only the patterns with NaN and infinities). */
static void dense_arg_cases(genie_ctx *ref, genie_ctx **fast, const char *const *fname, int nfast, int *passed, int *failed) {
    static const int64_t perms[3][4] = {{0, 3, 1, 2}, {0, 1, 3, 2}, {1, 0, 2, 3}};
    static const int pats[5] = {0, 2, 5, 6, 8};
    static const genie_dtype dts[3] = {GENIE_F32, GENIE_BF16, GENIE_F16};
    const int64_t sh[4] = {2, 3, getenv("GENIE_GEMM_QUICK") ? 13 : 130, 100}, total = sh[0] * sh[1] * sh[2] * sh[3];
    float *data = (float *)malloc((size_t)total * sizeof(float));
    int di, pi, q, op, k;
    for (di = 0; di < 3; di++)
        for (pi = 0; pi < 5; pi++) {
            if (!test_shard_take()) continue; /* a shard's unit: one dtype and pattern */
            if (getenv("GENIE_GEMM_QUICK") && pats[pi] != 2 && pats[pi] != 8) continue; /* quick: NaN, infinities */
            rng_state = (uint64_t)(pi * 31 + di * 7 + 5);
            seg_fill(data, sh, pats[pi]);
            round_to_dt(ref, dts[di], data, total);
            for (q = 0; q < 3; q++)
                for (op = 0; op < 2; op++) {
                    int64_t want = -1, got = -1;
                    for (k = -1; k < nfast; k++) {
                        genie_ctx *c = k < 0 ? ref : fast[k];
                        genie_tensor *x, *r;
                        int64_t idx = -2;
                        genie_pool_push(c);
                        x = genie_permute(c, data_as(c, dts[di], 4, sh, data), 4, perms[q]);
                        r = op ? genie_argmin(c, x, GENIE_DIM_NONE, 0) : genie_argmax(c, x, GENIE_DIM_NONE, 0);
                        if (!r || genie_read(c, r, GENIE_I64, &idx, sizeof idx) != GENIE_OK) idx = -2;
                        genie_clear_error(c);
                        genie_pool_pop(c);
                        if (k < 0) {
                            want = idx;
                            continue;
                        }
                        got = idx;
                        if (want >= 0 && got == want) { (*passed)++; continue; }
                        (*failed)++;
                        if (r_shown++ < 20)
                            printf("FAIL reduce dense %s %s of [2, 3, %lld, 100] permuted (%lld, %lld, %lld, %lld) pattern %d on %s: "
                                   "%lld, reference %lld\n", genie_dtype_name(dts[di]), op ? "argmin" : "argmax", (long long)sh[2],
                                   (long long)perms[q][0], (long long)perms[q][1], (long long)perms[q][2], (long long)perms[q][3],
                                   pats[pi], fname[k], (long long)got, (long long)want);
                    }
                }
        }
    free(data);
}

void test_reduce_run(int *passed, int *failed, int *skipped);
void test_reduce_run(int *passed, int *failed, int *skipped) {
    static const int64_t shapes[][2] = {{1, 1}, {3, 3}, {300, 1}, {2, 15}, {5, 16}, {7, 17}, {300, 17}, {1, 1000},
                                        {70, 1000}, {1, 4097}, {17, 4097}};
    static const genie_cpu paths[3] = {GENIE_CPU_GENERIC, GENIE_CPU_AVX2, GENIE_CPU_AVX512};
    genie_ctx *fast[6], *ref;
    const char *fname[6];
    static char names[6][32];
    genie_ctx_desc d;
    int nfast = 0, i, t, pat, v, p0 = *passed, f0 = *failed;
    size_t s;
    r_pass = passed;
    r_fail = failed;
    memset(&d, 0, sizeof d);
    d.cpu = GENIE_CPU_REFERENCE;
    d.n_threads = 1;
    ref = genie_ctx_create(&d);
    for (i = 0; i < 3; i++) {
        if (!genie_cpu_supported(paths[i])) {
            printf("  skip: reduce fast kernels on %s (this CPU does not run it)\n", genie_cpu_name(paths[i]));
            (*skipped)++;
            continue;
        }
        for (t = 1; t <= 2; t++) {
            d.cpu = paths[i];
            d.n_threads = t;
            fast[nfast] = genie_ctx_create(&d);
            if (genie_cpu_path(fast[nfast]) != paths[i]) { (*failed)++; genie_ctx_destroy(fast[nfast]); continue; }
            snprintf(names[nfast], sizeof names[nfast], "%s x%d", genie_cpu_name(paths[i]), t);
            fname[nfast] = names[nfast];
            nfast++;
        }
    }
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (pat = 0; pat < 6; pat++) {
            if (!test_shard_take()) continue; /* a shard's unit: one shape and pattern */
            for (v = 0; v < 3; v++) {
                if (v == 1 && shapes[s][0] < 2) continue;
                if (shapes[s][0] * shapes[s][1] > 20000 && (pat == 1 || pat == 3 || pat == 5) && v) continue; /* keep it short */
                check_case(ref, fast, fname, nfast, GENIE_F32, shapes[s][0] - (v == 1), shapes[s][1], pat, v, ~0ul);
                /* f16 and bf16: the shapes up to 70 x 1000 (quick, valgrind: up to 300 x 17), one of them
                   per pattern and variant */
                if (shapes[s][0] * shapes[s][1] <= (getenv("GENIE_GEMM_QUICK") ? 5100 : 70000))
                    check_case(ref, fast, fname, nfast, (s + pat + v) % 2 ? GENIE_F16 : GENIE_BF16, shapes[s][0] - (v == 1),
                               shapes[s][1], pat, v, ~0ul);
            }
        }
    /* layer_norm's, var's and std's first element far out (pattern 6) */
    if (test_shard_take())
        check_case(ref, fast, fname, nfast, GENIE_F32, 36, 3001, 6, 0,
                   1ul << T_LN | 1ul << T_LN_WB | 1ul << T_VAR0 | 1ul << T_VAR1 | 1ul << T_STD0);
    /* outputs of 8 MiB and more: softmax and layer_norm stream their stores (rows of 4097: every alignment) */
    if (test_shard_take())
        check_case(ref, fast, fname, nfast, GENIE_F32, 520, 4097, 2, 1,
                   1ul << T_SOFTMAX | 1ul << T_LOGSOFTMAX | 1ul << T_LN | 1ul << T_LN_WB | 1ul << T_SUM);
    /* f16/bf16 rows longer than 64K (a vocabulary's logits): through f32 rows in the workspace too */
    if (test_shard_take())
        check_case(ref, fast, fname, nfast, GENIE_BF16, 2, 70001, 2, 0,
                   1ul << T_SOFTMAX | 1ul << T_LOGSOFTMAX | 1ul << T_LN_WB | 1ul << T_SUM | 1ul << T_AMAX);
    if (test_shard_take())
        check_case(ref, fast, fname, nfast, GENIE_F16, 1, 131075, 3, 0, 1ul << T_SOFTMAX | 1ul << T_LOGSOFTMAX | 1ul << T_MEAN);
    /* softmax rows up to 4096 stream from a stack row: rows of 2047 (odd alignments) and 4096 */
    if (!getenv("GENIE_GEMM_QUICK")) { /* quick (valgrind): the 8 MiB case above is enough */
        if (test_shard_take()) check_case(ref, fast, fname, nfast, GENIE_F32, 1030, 2047, 2, 1, 1ul << T_SOFTMAX);
        if (test_shard_take()) check_case(ref, fast, fname, nfast, GENIE_F32, 513, 4096, 3, 0, 1ul << T_SOFTMAX);
    }
    gathered_cases(fast, fname, nfast, passed, failed); /* its dtypes and shapes are units */
    segment_cases(ref, fast, fname, nfast, passed, failed);
    dense_arg_cases(ref, fast, fname, nfast, passed, failed);
    if (test_shard_take()) exp_row_cases(fast, fname, nfast, passed, failed);
    /* errors stay errors: the fast paths change no message */
    for (i = 0, t = test_shard_take(); t && i < nfast; i++) {
        int64_t sh[2] = {2, 0}, last = -1;
        genie_tensor *z = genie_zeros(fast[i], GENIE_F32, 2, sh);
        genie_tensor *r = genie_amax(fast[i], z, 1, &last, 0);
        (*passed) += r == NULL && genie_status(fast[i]) == GENIE_ERR_SHAPE;
        (*failed) += !(r == NULL && genie_status(fast[i]) == GENIE_ERR_SHAPE);
        genie_clear_error(fast[i]);
        r = genie_sum(fast[i], z, 1, &last, 0); /* empty rows: the reference's 0 */
        {
            double out[2] = {1, 1};
            int ok = r && genie_read(fast[i], r, GENIE_F64, out, sizeof out) == GENIE_OK && out[0] == 0 && out[1] == 0;
            (*passed) += ok;
            (*failed) += !ok;
        }
    }
    for (i = 0; i < nfast; i++) genie_ctx_destroy(fast[i]);
    genie_ctx_destroy(ref);
    printf("  reduce fast kernels (%d configurations): %d passed, %d failed\n", nfast, *passed - p0, *failed - f0);
}
