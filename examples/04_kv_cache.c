/* 04_kv_cache.c - a KV cache as transformers keep it: one preallocated cache
   tensor [T, Dh]; each decode step writes its key/value row through a narrow
   view (in place, lazily), and attention reads the filled prefix of the cache
   through views. Nothing is copied to build the prefix; the writes are new
   versions of the cache storage, so results captured earlier keep theirs.
     step t: K[t] = k_t; V[t] = v_t; out_t = softmax(q_t K[:t+1]^T / sqrt(Dh)) V[:t+1] */
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include <math.h>

enum { T = 6, DH = 4 };

int main(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    int64_t cs[2] = {T, DH}, rs[2] = {1, DH};
    genie_tensor *K = genie_zeros(ctx, GENIE_F32, 2, cs), *V = genie_zeros(ctx, GENIE_F32, 2, cs);
    genie_tensor *outs[T];
    float q[T][DH], k[T][DH], v[T][DH], got[DH];
    int t, i, j, ok = 1;

    genie_read(ctx, genie_randn(ctx, GENIE_F32, 2, cs, 11), GENIE_F32, q, sizeof q);
    genie_read(ctx, genie_randn(ctx, GENIE_F32, 2, cs, 12), GENIE_F32, k, sizeof k);
    genie_read(ctx, genie_randn(ctx, GENIE_F32, 2, cs, 13), GENIE_F32, v, sizeof v);
    genie_set_phase(ctx, "decode");
    for (t = 0; t < T; t++) {
        genie_tensor *qt, *kt, *vt, *Kp, *Vp, *scores, *w;
        genie_pool_push(ctx); /* each step's temporaries go at pop */
        genie_scope_push(ctx, "attn");
        qt = genie_from_data(ctx, GENIE_F32, 2, rs, q[t]);
        kt = genie_from_data(ctx, GENIE_F32, 2, rs, k[t]);
        vt = genie_from_data(ctx, GENIE_F32, 2, rs, v[t]);
        genie_copy_(ctx, genie_narrow(ctx, K, 0, t, 1), kt); /* K[t] = k_t, in place */
        genie_copy_(ctx, genie_narrow(ctx, V, 0, t, 1), vt);
        Kp = genie_narrow(ctx, K, 0, 0, t + 1); /* views of the filled prefix */
        Vp = genie_narrow(ctx, V, 0, 0, t + 1);
        scores = genie_mul_scalar(ctx, genie_matmul(ctx, qt, genie_t(ctx, Kp)), 1.0 / sqrt((double)DH));
        w = genie_softmax(ctx, scores, -1);
        outs[t] = genie_matmul(ctx, w, Vp); /* [1, DH], still lazy */
        genie_retain(outs[t]);
        genie_scope_pop(ctx);
        genie_pool_pop(ctx);
    }
    printf("cache materialized before any read: %d\n", genie_is_materialized(K));
    for (t = 0; t < T; t++) { /* reference: attention over rows 0..t */
        double sc[T], mx = -1e30, sum = 0;
        genie_read(ctx, outs[t], GENIE_F32, got, sizeof got);
        for (j = 0; j <= t; j++) {
            sc[j] = 0;
            for (i = 0; i < DH; i++) sc[j] += (double)q[t][i] * k[j][i];
            sc[j] /= sqrt((double)DH);
            mx = sc[j] > mx ? sc[j] : mx;
        }
        for (j = 0; j <= t; j++) sum += exp(sc[j] - mx);
        for (i = 0; i < DH; i++) {
            double ref = 0;
            for (j = 0; j <= t; j++) ref += exp(sc[j] - mx) / sum * v[j][i];
            ok &= fabs(got[i] - ref) < 1e-5;
        }
        printf("step %d: out[0] = %+.5f\n", t, got[0]);
        genie_release(outs[t]);
    }
    printf("in-place writes: %llu (reused the old buffer %llu times, copied %llu)\n",
           (unsigned long long)genie_get_stats(ctx).inplace_writes, (unsigned long long)genie_get_stats(ctx).inplace_reused,
           (unsigned long long)genie_get_stats(ctx).inplace_copied);
    ok &= genie_get_stats(ctx).inplace_copied == 0; /* the cache is never copied */
    genie_ctx_destroy(ctx);
    printf("%s\n", ok ? "ok" : "FAILED");
    return !ok;
}
