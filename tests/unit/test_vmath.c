/* test_vmath.c - the array kernels of the elementwise operations (genie.h,
   >>cpu, genie__vops) against the reference kernels, through the public API:
   for every CPU path this machine runs (generic, avx2, avx512), each operation
   on a sweep of inputs is computed in a context on that path and in a
   GENIE_CPU_REFERENCE context, and compared here: bit for bit for the exact
   operations (a NaN only as a NaN), within each transcendental op's stated
   bound (tests/unit/vmath_bounds.h; tests/unit/vmath_all.c checks the same bounds over
   every f32 input). Also odd lengths (tails, threads), scalar and broadcast operands,
   in-place writes, f16/bf16 conversions (all 65536 inputs one way) and strided
   inputs, which must fall back to the reference kernels. */
#include "../../genie.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vmath_bounds.h"

void test_vmath(int *passed, int *failed, int *skipped);


static int *vm_passed, *vm_failed;
static int vm_check(int ok, const char *what, const char *path, const char *op, int line) {
    if (ok) (*vm_passed)++;
    else { (*vm_failed)++; printf("FAIL tests/unit/test_vmath.c:%d: %s [%s %s]\n", line, what, path, op); }
    return ok;
}
#define VCHECK(cond, path, op) vm_check((cond) != 0, #cond, path, op, __LINE__)

static uint32_t vm_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float vm_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
/* ulp distance on the ordered integer line (+0 and -0 are one point) */
static int64_t vm_ulp(float a, float b) {
    int64_t ia = (int32_t)vm_bits(a), ib = (int32_t)vm_bits(b), d;
    if (ia < 0) ia = (int64_t)INT32_MIN - ia;
    if (ib < 0) ib = (int64_t)INT32_MIN - ib;
    d = ia - ib;
    return d < 0 ? -d : d;
}

/* The inputs: specials, denormals, every binade at a few mantissas, a dense
   sweep of [-20, 20], the neighbourhoods of exp's overflow and underflow
   thresholds, and pseudo-random bit patterns (every float is a candidate). */
static int64_t vm_sweep(float *v, int64_t cap) {
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX,
                               1e-45f, -1e-45f, 1e-40f, -1e-40f, 1.1754942e-38f, -1.1754942e-38f, 1.0f, -1.0f,
                               0.5f, -0.5f, 2.5f, -2.5f, 3.5f, -3.5f, 1e30f, -1e30f, 88.72283935546875f};
    static const float th[] = {88.72283935546875f, 88.0f, -87.33654f, -103.27893f, -103.97208f, -104.0f,
                               -88.72283935546875f, 0.3465736f, -0.3465736f, 0.5f, -0.5f, 10.5f, 9.0f, -9.0f,
                               0.03125f, -0.03125f, 0.00390625f, -0.00390625f, 14.85f, -14.85f,
                               /* the f32 kernels' clamps, switches and piece boundaries */
                               110.0f, -110.0f, 14.75f, -14.75f, 20.0f, -20.0f, 64.0f, -30.0f, 89.0f, 10.0f,
                               -10.0f, 4.0f, -4.0f, 4.25f, 1.0f, 2.0f, -3.0f, 5.0f, -7.0f, 11.0f, -11.0f,
                               1.41421354f, 0.70710677f, -0.99999994f, -0.5f, 87.0f, -87.0f, 100.0f, 3.92f,
                               -95.0f, -105.0f, -108.5f, -13.5f, -14.3f};
    int64_t n = 0, i;
    int e, j;
    uint32_t r = 12345u;
    for (i = 0; i < (int64_t)(sizeof sp / sizeof sp[0]); i++) v[n++] = sp[i];
    for (e = -149; e <= 127; e++)
        for (j = 0; j < 6; j++) {
            float m = ldexpf(1.0f + 0.1617f * (float)j, e);
            v[n++] = m;
            v[n++] = -m;
        }
    for (i = -20 * 1024; i <= 20 * 1024; i++) v[n++] = (float)i / 1024.0f + 1.0f / 4096.0f;
    for (i = 0; i < (int64_t)(sizeof th / sizeof th[0]); i++) {
        float x = th[i];
        for (j = 0; j < 64; j++) x = nextafterf(x, -INFINITY);
        for (j = 0; j < 128; j++) { v[n++] = x; x = nextafterf(x, INFINITY); }
    }
    while (n < cap) { /* xorshift32 bit patterns */
        r ^= r << 13; r ^= r >> 17; r ^= r << 5;
        v[n++] = vm_float(r);
    }
    return n;
}

typedef genie_tensor *(*vm_unary_fn)(genie_ctx *, genie_tensor *);
typedef genie_tensor *(*vm_binary_fn)(genie_ctx *, genie_tensor *, genie_tensor *);
typedef genie_tensor *(*vm_scalar_fn)(genie_ctx *, genie_tensor *, double);
typedef struct { const char *name; vm_unary_fn fn; int ulp; } vm_unary;
typedef struct { const char *name; vm_binary_fn fn; int bool_out; } vm_binary;

static genie_tensor *vm_vec(genie_ctx *ctx, genie_dtype dt, int64_t n, const void *data) {
    return genie_from_data(ctx, dt, 1, &n, data);
}
/* Read t (n elements) as f32 or bool; 0 on error. */
static int vm_get(genie_ctx *ctx, genie_tensor *t, int bool_out, int64_t n, void *out) {
    return t && genie_read(ctx, t, bool_out ? GENIE_BOOL : GENIE_F32, out, (size_t)n * (bool_out ? 1 : 4)) == GENIE_OK;
}
/* Compare n results: exact (bits, any NaN for a NaN) or within ulp; gelu's
   tails (tail = 1) may differ from the reference where the reference cancels
   (x < -5: 1 + erf, 1 + tanh in double), there by at most 1e-14. Returns the
   worst ulp distance, or -1 (and prints the first mismatches) on failure. */
static int64_t vm_compare(const float *x, const float *got, const float *ref, int64_t n, int ulp, int tail,
                          const char *path, const char *op) {
    int64_t i, worst = 0, bad = 0;
    for (i = 0; i < n; i++) {
        int gn = got[i] != got[i], rn = ref[i] != ref[i], ok;
        int64_t d = 0;
        if (gn || rn) ok = gn == rn;
        else if (ulp == 0) ok = vm_bits(got[i]) == vm_bits(ref[i]);
        else {
            d = vm_ulp(got[i], ref[i]);
            ok = d <= ulp || (tail && x && x[i] < -5.0f && fabs((double)got[i] - (double)ref[i]) <= 1e-14);
            if (d <= ulp && d > worst) worst = d;
        }
        if (!ok && bad++ < 3)
            printf("  %s %s: x = %.9g (%a): got %.9g (%a), reference %.9g (%a)\n", path, op, x ? x[i] : 0.0,
                   x ? x[i] : 0.0, got[i], got[i], ref[i], ref[i]);
    }
    return bad ? -1 : worst;
}
static int vm_compare_u8(const unsigned char *got, const unsigned char *ref, int64_t n, const char *path, const char *op) {
    int64_t i, bad = 0;
    for (i = 0; i < n; i++)
        if (got[i] != ref[i] && bad++ < 3) printf("  %s %s: element %lld: got %d, reference %d\n", path, op, (long long)i, got[i], ref[i]);
    return bad == 0;
}

static const vm_unary vm_unaries[] = {
    {"neg", genie_neg, 0}, {"abs", genie_abs, 0}, {"sqrt", genie_sqrt, 0}, {"rsqrt", genie_rsqrt, 0},
    {"sin", genie_sin, VM_ULP_TRIG}, {"cos", genie_cos, VM_ULP_TRIG}, {"relu", genie_relu, 0},
    {"reciprocal", genie_reciprocal, 0}, {"square", genie_square, 0}, {"floor", genie_floor, 0},
    {"ceil", genie_ceil, 0}, {"round", genie_round, 0}, {"sign", genie_sign, 0},
#define VM_ROW(name, fn, ulp) {#name, fn, ulp},
    VM_TRANSCENDENTALS(VM_ROW)
#undef VM_ROW
};
static const vm_binary vm_binaries[] = {
    {"add", genie_add, 0}, {"sub", genie_sub, 0}, {"mul", genie_mul, 0}, {"div", genie_div, 0},
    {"pow", genie_pow, 0}, {"maximum", genie_maximum, 0}, {"minimum", genie_minimum, 0},
    {"eq", genie_eq, 1}, {"ne", genie_ne, 1}, {"lt", genie_lt, 1}, {"le", genie_le, 1}, {"gt", genie_gt, 1},
    {"ge", genie_ge, 1}, {"logical_and", genie_logical_and, 1}, {"logical_or", genie_logical_or, 1},
};
#define VM_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define VM_NB 40000

/* One path: fast (ctx on the path) against ref (the reference context). */
static void vm_path(genie_ctx *fast, genie_ctx *ref, const char *path, const float *x, const float *y, int64_t n,
                    float *o1, float *o2) {
    genie_ctx *cs[2];
    float *os[2];
    int k, c, i;
    char label[96];
    cs[0] = fast; cs[1] = ref;
    os[0] = o1; os[1] = o2;
    /* unary operations over the sweep */
    for (k = 0; k < VM_COUNT(vm_unaries); k++) {
        int64_t worst;
        for (c = 0; c < 2; c++) {
            genie_pool_push(cs[c]);
            VCHECK(vm_get(cs[c], vm_unaries[k].fn(cs[c], vm_vec(cs[c], GENIE_F32, n, x)), 0, n, os[c]), path, vm_unaries[k].name);
            genie_pool_pop(cs[c]);
        }
        worst = vm_compare(x, o1, o2, n, vm_unaries[k].ulp, strncmp(vm_unaries[k].name, "gelu", 4) == 0, path,
                           vm_unaries[k].name);
        VCHECK(worst >= 0, path, vm_unaries[k].name);
        if (vm_unaries[k].ulp) printf("    vmath %-7s %-10s max %lld ulp over %lld inputs\n", path, vm_unaries[k].name,
                                      (long long)worst, (long long)n);
    }
    /* The operations with two loops: a call whose elements all lie in [lo, hi] runs the cheaper
       form (gelu: x Phi(x) by pieces, no exp; silu, sigmoid: exp without masks; exp, expm1,
       gelu_tanh, log, log1p: the general form without the lanes outside), one with an element
       outside (or NaN) the general form. Both within the bound over the sweep's inputs in
       range and the forms' ends (lo, hi themselves included), then the same with every 64th
       outside (each call of the array kernel, a chunk of 512-element units, meets one). The
       forms that claim the general form's values (same) are held to them bit for bit: every
       element the second run did not move outside, against the first run */
    {
        static const float gelu_ends[] = {-1.0f, -0.75f, -0.5f, -0.25f, 0.0f, 0.5f, 1.0f, 1.5f, /* both tables' pieces */
                                          2.0f, 3.0f, 4.0f, 5.0f, 5.99999952f, 6.0f, 1e30f, 1e-38f};
        static const float logi_ends[] = {-80.0f, -40.0f, -1.0f, 0.0f, 1.0f, 40.0f, 80.0f, 89.0f, 1e30f, 1e-38f};
        static const float exp_ends[] = {-86.0f, -80.0f, -1.0f, 0.0f, 1e-38f, 1.0f, 88.0f, 88.3762589f, 88.7228394f, 89.0f, 1e30f};
        static const float expm1_ends[] = {-1e30f, -104.0f, -88.0f, -30.0f, -1.0f, -1e-38f, 0.0f, 1.0f, 44.0f, 63.0f, 64.0f};
        static const float gtanh_ends[] = {-9.0f, -8.0f, -5.0f, -1.0f, 0.0f, 1e-38f, 1.0f, 5.0f, 9.0f, 20.0f, 1e30f};
        static const float log_ends[] = {1.17549435e-38f, 1e-30f, 0.707106769f, 1.0f, 1.41421354f, 2.0f, 1e30f, 3.40282347e+38f};
        static const float log1p_ends[] = {-0.99999994f, -0.9f, -0.5f, -1e-38f, 0.0f, 1e-38f, 0.5f, 1.0f, 1e30f, 3.40282347e+38f};
        static const struct { const char *name; vm_unary_fn fn; float lo, hi, out; const float *ends; int nends, ulp, tail, same; } sp[] = {
            {"gelu", genie_gelu, -1.0f, INFINITY, -2.0f, gelu_ends, VM_COUNT(gelu_ends), VM_ULP_gelu, 1, 0},
            {"silu", genie_silu, -80.0f, INFINITY, -100.0f, logi_ends, VM_COUNT(logi_ends), VM_ULP_silu, 0, 0},
            {"sigmoid", genie_sigmoid, -80.0f, INFINITY, -100.0f, logi_ends, VM_COUNT(logi_ends), VM_ULP_sigmoid, 0, 0},
            {"exp", genie_exp, -86.0f, INFINITY, -90.0f, exp_ends, VM_COUNT(exp_ends), VM_ULP_exp, 0, 1},
            {"expm1", genie_expm1, -INFINITY, 64.0f, 65.0f, expm1_ends, VM_COUNT(expm1_ends), VM_ULP_expm1, 0, 1},
            {"gelu_tanh", genie_gelu_tanh, -9.0f, INFINITY, -9.5f, gtanh_ends, VM_COUNT(gtanh_ends), VM_ULP_gelu_tanh, 1, 1},
            {"log", genie_log, 1.17549435e-38f, 3.40282347e+38f, 0.0f, log_ends, VM_COUNT(log_ends), VM_ULP_log, 0, 1},
            {"log1p", genie_log1p, -0.99999994f, 3.40282347e+38f, -1.0f, log1p_ends, VM_COUNT(log1p_ends), VM_ULP_log1p, 0, 1},
        };
        const size_t cap = (size_t)n + 2 * 17 * 16 + 2; /* the sweep, two a step near each end (up to 16), infs */
        float *xg = (float *)malloc(cap * 4), *g[2], *g0 = (float *)malloc(cap * 4);
        int s;
        g[0] = (float *)malloc(cap * 4), g[1] = (float *)malloc(cap * 4);
        VCHECK(xg && g[0] && g[1] && g0, path, "two loops: malloc");
        for (s = 0; xg && g[0] && g[1] && g0 && s < VM_COUNT(sp); s++) {
            const float lo = sp[s].lo, hi = sp[s].hi;
            int64_t m = 0, e;
            for (i = 0; i < sp[s].nends && i < 16; i++) {
                float v = sp[s].ends[i];
                for (e = 0; e < 8; e++) v = nextafterf(v, -INFINITY);
                for (e = 0; e < 17; e++, v = nextafterf(v, INFINITY))
                    if (v >= lo && v <= hi) xg[m++] = v, xg[m++] = -v >= lo && -v <= hi ? -v : v;
            }
            for (e = 0; e < n; e++)
                if (x[e] >= lo && x[e] <= hi) xg[m++] = x[e];
            if (hi == INFINITY) xg[m++] = INFINITY;
            if (lo == -INFINITY) xg[m++] = -INFINITY;
            for (i = 0; i < 2; i++) {
                for (e = 0; i && e < m; e += 64) xg[e] = sp[s].out;
                for (c = 0; c < 2; c++) {
                    genie_pool_push(cs[c]);
                    VCHECK(vm_get(cs[c], sp[s].fn(cs[c], vm_vec(cs[c], GENIE_F32, m, xg)), 0, m, g[c]), path, sp[s].name);
                    genie_pool_pop(cs[c]);
                }
                snprintf(label, sizeof label, "%s of %lld inputs in [%g, %g]%s", sp[s].name, (long long)m, lo, hi,
                         i ? ", every 64th outside" : "");
                VCHECK(vm_compare(xg, g[0], g[1], m, sp[s].ulp, sp[s].tail, path, label) >= 0, path, label);
                if (!i) {
                    memcpy(g0, g[0], (size_t)m * 4);
                } else if (sp[s].same) {
                    int64_t bad = 0;
                    for (e = 0; e < m; e++)
                        if (e % 64 && memcmp(&g0[e], &g[0][e], 4)) bad++;
                    snprintf(label, sizeof label, "%s in [%g, %g]: the general form's values bit for bit", sp[s].name, lo, hi);
                    VCHECK(bad == 0, path, label);
                }
            }
        }
        free(xg), free(g[0]), free(g[1]), free(g0);
    }
    /* logical_not (bool out) */
    for (c = 0; c < 2; c++) {
        genie_pool_push(cs[c]);
        VCHECK(vm_get(cs[c], genie_logical_not(cs[c], vm_vec(cs[c], GENIE_F32, n, x)), 1, n, os[c]), path, "logical_not");
        genie_pool_pop(cs[c]);
    }
    VCHECK(vm_compare_u8((unsigned char *)o1, (unsigned char *)o2, n, path, "logical_not"), path, "logical_not");
    /* clamp with bounds of every kind (NaN: none; min > max) */
    {
        static const double lo[] = {-1.0, NAN, 0.25, 3.0, -INFINITY, 0.1, -1e300};
        static const double hi[] = {2.0, 0.5, NAN, -3.0, 1e30, 0.7, 1e300};
        for (i = 0; i < VM_COUNT(lo); i++) {
            for (c = 0; c < 2; c++) {
                genie_pool_push(cs[c]);
                VCHECK(vm_get(cs[c], genie_clamp(cs[c], vm_vec(cs[c], GENIE_F32, n, x), lo[i], hi[i]), 0, n, os[c]), path, "clamp");
                genie_pool_pop(cs[c]);
            }
            snprintf(label, sizeof label, "clamp(%g, %g)", lo[i], hi[i]);
            VCHECK(vm_compare(x, o1, o2, n, 0, 0, path, label) == 0, path, label);
        }
    }
    /* binary operations: array op array, array op scalar (an argument, and a
       one-element tensor broadcast), scalar op array; over the first nb inputs
       (the specials, every pair of them, the binades, part of the dense sweep) */
    n = n < VM_NB ? n : VM_NB;
    for (k = 0; k < VM_COUNT(vm_binaries); k++) {
        static const float ss[] = {0.1f, -0.0f, 1e-40f, INFINITY, NAN};
        const vm_binary *b = &vm_binaries[k];
        int form;
        for (form = 0; form < 1 + 2 * VM_COUNT(ss); form++) {
            float s = form ? ss[(form - 1) / 2] : 0.0f;
            for (c = 0; c < 2; c++) {
                genie_tensor *ta, *tb, *r;
                genie_pool_push(cs[c]);
                ta = vm_vec(cs[c], GENIE_F32, n, x);
                if (form == 0) tb = vm_vec(cs[c], GENIE_F32, n, y);
                else tb = genie_expand(cs[c], vm_vec(cs[c], GENIE_F32, 1, &s), 1, &n);
                r = form % 2 == 0 && form ? b->fn(cs[c], tb, ta) : b->fn(cs[c], ta, tb);
                VCHECK(vm_get(cs[c], r, b->bool_out, n, os[c]), path, b->name);
                genie_pool_pop(cs[c]);
            }
            snprintf(label, sizeof label, "%s form %d (s = %g)", b->name, form, s);
            if (b->bool_out) VCHECK(vm_compare_u8((unsigned char *)o1, (unsigned char *)o2, n, path, label), path, label);
            else VCHECK(vm_compare(x, o1, o2, n, 0, 0, path, label) == 0, path, label);
        }
    }
    {   /* pow with exponents where its f64 lanes run (the shuffled sweep's mostly leave f32's
           range): y mod 8 (NaN for an infinite y), and that rounded (negative bases) */
        float *e = (float *)malloc((size_t)n * 4);
        int form;
        VCHECK(e != NULL, path, "pow exponents");
        for (form = 0; e && form < 2; form++) {
            for (i = 0; i < n; i++) e[i] = form ? roundf(fmodf(y[i], 8.0f)) : fmodf(y[i], 8.0f);
            for (c = 0; c < 2; c++) {
                genie_pool_push(cs[c]);
                VCHECK(vm_get(cs[c], genie_pow(cs[c], vm_vec(cs[c], GENIE_F32, n, x), vm_vec(cs[c], GENIE_F32, n, e)), 0, n,
                              os[c]), path, "pow");
                genie_pool_pop(cs[c]);
            }
            snprintf(label, sizeof label, "pow (%s y in (-8, 8))", form ? "integer" : "any");
            VCHECK(vm_compare(x, o1, o2, n, 0, 0, path, label) == 0, path, label);
        }
        free(e);
    }
    {   /* the scalar argument forms (rounded to f32 by genie, as ATen does) */
        static const vm_scalar_fn sf[] = {genie_add_scalar, genie_sub_scalar, genie_mul_scalar, genie_div_scalar, genie_pow_scalar};
        static const char *const sn[] = {"add_scalar", "sub_scalar", "mul_scalar", "div_scalar", "pow_scalar"};
        static const double sv[] = {0.1, -0.0, 2.0, 0.5, -1.0, 3.0, 1e300, NAN};
        int s;
        for (k = 0; k < VM_COUNT(sf); k++)
            for (s = 0; s < VM_COUNT(sv); s++) {
                for (c = 0; c < 2; c++) {
                    genie_pool_push(cs[c]);
                    VCHECK(vm_get(cs[c], sf[k](cs[c], vm_vec(cs[c], GENIE_F32, n, x), sv[s]), 0, n, os[c]), path, sn[k]);
                    genie_pool_pop(cs[c]);
                }
                snprintf(label, sizeof label, "%s(%g)", sn[k], sv[s]);
                VCHECK(vm_compare(x, o1, o2, n, 0, 0, path, label) == 0, path, label);
            }
    }
}

/* Odd lengths (vector tails, and threads at 1000003), in place, strided views. */
static void vm_shapes(genie_ctx *fast, genie_ctx *ref, const char *path, const float *x, const float *y, float *o1, float *o2) {
    static const int64_t lens[] = {1, 15, 17, 1000003};
    genie_ctx *cs[2];
    float *os[2];
    int L, c;
    cs[0] = fast; cs[1] = ref;
    os[0] = o1; os[1] = o2;
    for (L = 0; L < VM_COUNT(lens); L++) {
        int64_t n = lens[L];
        const float *xs = x + 3; /* not vector aligned */
        for (c = 0; c < 2; c++) {
            genie_tensor *a, *b, *r[4];
            genie_pool_push(cs[c]);
            a = vm_vec(cs[c], GENIE_F32, n, xs);
            b = vm_vec(cs[c], GENIE_F32, n, y);
            r[0] = genie_tanh(cs[c], a);
            r[1] = genie_add(cs[c], a, b);
            r[2] = genie_gt(cs[c], a, b);
            r[3] = genie_to_dtype(cs[c], genie_to_dtype(cs[c], genie_clamp(cs[c], a, -1e4, 1e4), GENIE_F16), GENIE_F32);
            VCHECK(vm_get(cs[c], r[0], 0, n, os[c]) && vm_get(cs[c], r[1], 0, n, os[c] + n) &&
                   vm_get(cs[c], r[2], 1, n, os[c] + 2 * n) && vm_get(cs[c], r[3], 0, n, os[c] + 3 * n), path, "lengths");
            genie_pool_pop(cs[c]);
        }
        VCHECK(vm_compare(xs, o1, o2, n, VM_ULP_tanh, 0, path, "tanh (length)") >= 0, path, "tanh length");
        VCHECK(vm_compare(xs, o1 + n, o2 + n, n, 0, 0, path, "add (length)") == 0, path, "add length");
        VCHECK(vm_compare_u8((unsigned char *)(o1 + 2 * n), (unsigned char *)(o2 + 2 * n), n, path, "gt (length)"), path, "gt length");
        VCHECK(vm_compare(xs, o1 + 3 * n, o2 + 3 * n, n, 0, 0, path, "to f16 (length)") == 0, path, "f16 length");
    }
    /* in place: relu_ and add_ on a computed contiguous tensor (its buffer reused) */
    for (c = 0; c < 2; c++) {
        genie_tensor *a, *b;
        int64_t n = 1000;
        genie_pool_push(cs[c]);
        a = genie_mul_scalar(cs[c], vm_vec(cs[c], GENIE_F32, n, x + 100), 1.0);
        b = vm_vec(cs[c], GENIE_F32, n, y);
        genie_relu_(cs[c], genie_add_(cs[c], a, b));
        VCHECK(vm_get(cs[c], a, 0, n, os[c]), path, "in place");
        genie_pool_pop(cs[c]);
    }
    VCHECK(vm_compare(x + 100, o1, o2, 1000, 0, 0, path, "add_, relu_") == 0, path, "in place");
    /* in place through a strided view, read through the same strides (the out
       view is not dense: falls back), then the whole base read back */
    for (c = 0; c < 2; c++) {
        int64_t sh[2] = {61, 67};
        genie_tensor *a, *s, *h;
        genie_pool_push(cs[c]);
        a = genie_from_data(cs[c], GENIE_F32, 2, sh, x + 200);
        h = genie_to_dtype(cs[c], genie_from_data(cs[c], GENIE_F32, 2, sh, y), GENIE_F16);
        s = genie_slice(cs[c], a, 1, 1, 67, 3);
        genie_relu_(cs[c], s);
        genie_copy_(cs[c], genie_slice(cs[c], a, 0, 0, 61, 2), genie_slice(cs[c], h, 0, 0, 61, 2));
        VCHECK(vm_get(cs[c], a, 0, 61 * 67, os[c]), path, "strided in place");
        genie_pool_pop(cs[c]);
    }
    VCHECK(vm_compare(NULL, o1, o2, 61 * 67, 0, 0, path, "relu_, copy_ on strided views") == 0, path, "strided in place");
    /* strided inputs: a [317, 331] matrix read every other column (a fused group of one,
       on the array kernels: within their bounds, and on avx2 and avx512 1 ulp off at the
       probes, as for dense inputs), transposed (dense in another order: array kernels
       again), and broadcast along rows (a group: exact for sub) */
    {
        /* inputs where erf, gelu and gelu_tanh all differ from the reference on avx2 and avx512 */
        static const float probes[] = {-0x1.53225p-3f, -0x1.ab95b4p-3f, -0x1.5822ep-2f};
        int64_t sh[2] = {317, 331}, n = 317 * 331, m = 317 * 166, row[2] = {1, 331};
        float *xm = (float *)malloc((size_t)n * 4);
        int p;
        if (!xm) { VCHECK(0, path, "malloc"); return; }
        memcpy(xm, x, (size_t)n * 4);
        for (p = 0; p < 3; p++) xm[2 * p] = probes[p]; /* columns 0, 2, 4 of row 0: read by the slice */
        for (c = 0; c < 2; c++) {
            genie_tensor *a, *s, *r[5];
            genie_pool_push(cs[c]);
            a = genie_from_data(cs[c], GENIE_F32, 2, sh, xm);
            s = genie_slice(cs[c], a, 1, 0, 331, 2);
            r[0] = genie_erf(cs[c], s);
            r[1] = genie_gelu(cs[c], s);
            r[2] = genie_gelu_tanh(cs[c], s);
            r[3] = genie_exp(cs[c], genie_t(cs[c], a));
            r[4] = genie_sub(cs[c], a, genie_expand(cs[c], genie_from_data(cs[c], GENIE_F32, 2, row, y), 2, sh));
            VCHECK(vm_get(cs[c], r[0], 0, m, os[c]) && vm_get(cs[c], r[1], 0, m, os[c] + m) &&
                   vm_get(cs[c], r[2], 0, m, os[c] + 2 * m) && vm_get(cs[c], r[3], 0, n, os[c] + 3 * m) &&
                   vm_get(cs[c], r[4], 0, n, os[c] + 3 * m + n), path, "strided");
            genie_pool_pop(cs[c]);
        }
        {
            float *sx = (float *)malloc((size_t)m * 4); /* the inputs the slice reads, for gelu's tail rule */
            int64_t i;
            for (i = 0; sx && i < m; i++) sx[i] = xm[i / 166 * 331 + i % 166 * 2];
            VCHECK(sx && vm_compare(sx, o1, o2, m, VM_ULP_erf, 0, path, "erf of a strided view") >= 0, path, "strided erf");
            VCHECK(sx && vm_compare(sx, o1 + m, o2 + m, m, VM_ULP_gelu, 1, path, "gelu of a strided view") >= 0, path, "strided gelu");
            VCHECK(sx && vm_compare(sx, o1 + 2 * m, o2 + 2 * m, m, VM_ULP_gelu_tanh, 1, path, "gelu_tanh of a strided view") >= 0,
                   path, "strided gelu_tanh");
            if (strcmp(path, "generic") != 0) /* the array kernels ran, not the reference */
                VCHECK(o1[0] != o2[0] && o1[m + 1] != o2[m + 1] && o1[2 * m + 2] != o2[2 * m + 2], path, "strided on the array kernels");
            free(sx);
        }
        VCHECK(vm_compare(NULL, o1 + 3 * m, o2 + 3 * m, n, VM_ULP_exp, 0, path, "exp of a transposed view") >= 0, path, "transposed");
        VCHECK(vm_compare(NULL, o1 + 3 * m + n, o2 + 3 * m + n, n, 0, 0, path, "sub with a row broadcast") == 0, path, "row broadcast");
        free(xm);
    }
}

/* f16 / bf16 <-> f32 through genie_to_dtype: bits compared (genie_data). */
static void vm_convert(genie_ctx *fast, genie_ctx *ref, const char *path, const float *x, int64_t n) {
    static uint16_t h[65536];
    genie_dtype dts[2] = {GENIE_F16, GENIE_BF16};
    int d, c;
    int64_t i;
    for (i = 0; i < 65536; i++) h[i] = (uint16_t)i;
    for (d = 0; d < 2; d++) {
        const void *p[2][2];
        genie_ctx *cs[2];
        cs[0] = fast; cs[1] = ref;
        for (c = 0; c < 2; c++) {
            genie_tensor *up, *down;
            genie_pool_push(cs[c]);
            up = genie_to_dtype(cs[c], vm_vec(cs[c], dts[d], 65536, h), GENIE_F32);
            down = genie_to_dtype(cs[c], vm_vec(cs[c], GENIE_F32, n, x), dts[d]);
            VCHECK(genie_data(cs[c], up, &p[c][0]) == GENIE_OK && genie_data(cs[c], down, &p[c][1]) == GENIE_OK,
                   path, "convert");
            if (c == 0) continue; /* the fast context's pool stays until both are compared */
            VCHECK(memcmp(p[0][0], p[1][0], 65536 * 4) == 0, path, d ? "bf16 -> f32 bits" : "f16 -> f32 bits");
            VCHECK(memcmp(p[0][1], p[1][1], (size_t)n * 2) == 0, path, d ? "f32 -> bf16 bits" : "f32 -> f16 bits");
            genie_pool_pop(cs[1]);
            genie_pool_pop(cs[0]);
        }
    }
    /* f16/bf16 values held in a group's f32 registers (the RH, RBF kernels), over the sweep,
       bit for bit: a narrowing conversion read by a widening one, f16/bf16 ops read by others */
    for (d = 0; d < 2; d++) {
        float *o[2][2];
        genie_ctx *cs[2];
        cs[0] = fast; cs[1] = ref;
        for (c = 0; c < 2; c++) {
            genie_tensor *h16;
            o[c][0] = (float *)malloc((size_t)n * 4), o[c][1] = (float *)malloc((size_t)n * 4);
            genie_pool_push(cs[c]);
            h16 = genie_to_dtype(cs[c], vm_vec(cs[c], GENIE_F32, n, x), dts[d]);
            VCHECK(o[c][0] && o[c][1] && vm_get(cs[c], genie_to_dtype(cs[c], h16, GENIE_F32), 0, n, o[c][0]) &&
                   vm_get(cs[c], genie_to_dtype(cs[c], genie_add_scalar(cs[c], genie_mul_scalar(cs[c], h16, 3.0), 0.0), GENIE_F32),
                          0, n, o[c][1]), path, "held f16/bf16");
            genie_pool_pop(cs[c]);
        }
        VCHECK(vm_compare(x, o[0][0], o[1][0], n, 0, 0, path, d ? "f32 -> bf16 -> f32" : "f32 -> f16 -> f32") == 0, path,
               d ? "bf16 round trip" : "f16 round trip");
        VCHECK(vm_compare(x, o[0][1], o[1][1], n, 0, 0, path, d ? "bf16 x * 3 + 0" : "f16 x * 3 + 0") == 0, path,
               d ? "bf16 ops held" : "f16 ops held");
        for (c = 0; c < 2; c++) free(o[c][0]), free(o[c][1]);
    }
}

void test_vmath(int *passed, int *failed, int *skipped) {
    static const genie_cpu paths[] = {GENIE_CPU_GENERIC, GENIE_CPU_AVX2, GENIE_CPU_AVX512};
    /* quick (valgrind): the structured sweep (about 51,000 values) and some 9,000 random patterns */
    const int64_t cap = getenv("GENIE_GEMM_QUICK") && atoi(getenv("GENIE_GEMM_QUICK")) != 0 ? 60000 : 200000;
    float *x = (float *)malloc(4 * 1000100), *y = (float *)malloc(4 * 1000100);
    float *o1 = (float *)malloc(4 * 4 * 1000100), *o2 = (float *)malloc(4 * 4 * 1000100);
    genie_ctx_desc rd;
    genie_ctx *ref;
    int64_t n, i;
    int p;
    vm_passed = passed;
    vm_failed = failed;
    memset(&rd, 0, sizeof rd);
    rd.cpu = GENIE_CPU_REFERENCE;
    ref = genie_ctx_create(&rd);
    if (!x || !y || !o1 || !o2 || !ref) {
        VCHECK(0, "-", "setup");
        free(x); free(y); free(o1); free(o2);
        genie_ctx_destroy(ref);
        return;
    }
    VCHECK(genie_cpu_path(ref) == GENIE_CPU_REFERENCE, "reference", "path");
    n = vm_sweep(x, cap);
    for (i = 0; i < n; i++) y[i] = x[(i * 7919 + 13) % n]; /* second operands: the sweep, shuffled */
    for (i = 0; i < 27 * 27; i++) { /* every pair of the 27 specials, after them */
        y[27 + i] = x[i % 27];
        x[27 + i] = x[i / 27];
    }
    for (i = n; i < 1000100; i++) { x[i] = x[i % n]; y[i] = y[(i * 31) % n]; }
    for (p = 0; p < VM_COUNT(paths); p++) {
        const char *name = genie_cpu_name(paths[p]);
        genie_ctx_desc fd;
        genie_ctx *fast;
        if (!genie_cpu_supported(paths[p])) {
            printf("  skip: vmath %s path: this CPU does not run it\n", name);
            (*skipped)++;
            continue;
        }
        memset(&fd, 0, sizeof fd);
        fd.cpu = paths[p];
        fast = genie_ctx_create(&fd);
        if (!VCHECK(fast && genie_cpu_path(fast) == paths[p], name, "path")) { genie_ctx_destroy(fast); continue; }
        vm_path(fast, ref, name, x, y, n, o1, o2);
        vm_shapes(fast, ref, name, x, y, o1, o2);
        vm_convert(fast, ref, name, x, n);
        VCHECK(genie_status(fast) == GENIE_OK && genie_status(ref) == GENIE_OK, name, "no error");
        genie_ctx_destroy(fast);
    }
    genie_ctx_destroy(ref);
    free(x); free(y); free(o1); free(o2);
}
