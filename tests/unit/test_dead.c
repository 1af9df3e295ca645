/* test_dead.c - every public function of genie.h that takes a tensor or tuple handle,
   called with a dead one (its last reference released, or the tuple released), one
   handle position at a time, the others live and fitting. A function with a context
   must refuse it: NULL (or the error code) and GENIE_ERR_INVALID_ARG in the context,
   with a message naming the function and the dead handle; one without a context
   returns its documented "nothing" ("", NULL, 0) and reads nothing of the handle but
   its liveness. Under ASan (`make asan`) dead handles are quarantined and poisoned,
   so any other read of one stops the test. The dead tensor is an alias of a live
   attention output (its storage and role live on), so a function that skips the
   liveness check returns a real answer (a role, a shape) and fails here too.

   The table must name every such function: the test reads genie.h's API section
   (argv[1], default "genie.h") and fails for a function taking a handle that the
   table lacks, or a table entry the header no longer declares. */
#define GENIE_IMPLEMENTATION
#include "../../genie.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, ...)                              \
    do {                                              \
        if (cond) passed++;                           \
        else {                                        \
            failed++;                                 \
            printf("FAIL test_dead: " __VA_ARGS__);   \
            printf("\n");                             \
        }                                             \
    } while (0)

/* What a call returned. */
typedef struct {
    const void *p; /* a tensor, tuple, shape or string */
    genie_result r;
    int64_t i;
} dead_out;
/* Return kinds: P a handle or tuple (NULL + error), R a genie_result (INVALID_ARG + error),
   S a string (""), N a pointer without a context (NULL), I an integer without a context
   (the entry's value), V void (nothing to check but ASan's). */
enum { K_P, K_R, K_S, K_N, K_I, K_V };
#define SET_K_P(e) o->p = (const void *)(e)
#define SET_K_R(e) o->r = (e)
#define SET_K_S(e) o->p = (const void *)(e)
#define SET_K_N(e) o->p = (const void *)(e)
#define SET_K_I(e) o->i = (int64_t)(e)
#define SET_K_V(e) (e)

static FILE *devnull;
static const char *save_path = "test_dead_never_written.safetensors"; /* never written: the save is refused */
static const int64_t z2[2] = {1, 1}, zp[2] = {0, 0}, sh44[2] = {4, 4}, perm[2] = {1, 0}, d1[1] = {1}, n4[1] = {4};
static const int64_t str41[2] = {4, 1};
static const char *const names2[2] = {"a", "b"}, *const mkeys[1] = {"k"}, *const mvals[1] = {"v"};

/* X(name, handle kinds, return kind, expected int (K_I), the call): handle kinds, one a
   handle parameter: f f32 [4, 4]; i i64 [4] (0..3); b bool [4, 4]; x f32 [1, 1, 4, 4];
   k f32 [1, 1, 1, 1]; v f32 [4]; u a tuple. h[j] is dead for the position tried, live else. */
#define DEAD_API(X)                                                                                         \
    X(genie_retain, "f", K_V, 0, genie_retain(h[0]))                                                        \
    X(genie_release, "f", K_V, 0, genie_release(h[0]))                                                      \
    X(genie_ndim, "f", K_I, 0, genie_ndim(h[0]))                                                            \
    X(genie_shape, "f", K_N, 0, genie_shape(h[0]))                                                          \
    X(genie_strides, "f", K_N, 0, genie_strides(h[0]))                                                      \
    X(genie_storage_offset, "f", K_I, 0, genie_storage_offset(h[0]))                                        \
    X(genie_numel, "f", K_I, 0, genie_numel(h[0]))                                                          \
    X(genie_dtype_of, "f", K_I, GENIE_F32, genie_dtype_of(h[0]))                                            \
    X(genie_compute_dtype, "f", K_I, GENIE_F32, genie_compute_dtype(h[0]))                                  \
    X(genie_is_contiguous, "f", K_I, 0, genie_is_contiguous(h[0]))                                          \
    X(genie_is_materialized, "f", K_I, 0, genie_is_materialized(h[0]))                                      \
    X(genie_shares_storage, "ff", K_I, 0, genie_shares_storage(h[0], h[1]))                                 \
    X(genie_realize, "ff", K_R, 0, genie_realize(c, 2, h))                                                  \
    X(genie_read, "f", K_R, 0, genie_read(c, h[0], GENIE_F32, buf, sizeof buf))                             \
    X(genie_item, "f", K_R, 0, genie_item(c, h[0], &dv))                                                    \
    X(genie_item_i64, "f", K_R, 0, genie_item_i64(c, h[0], &iv))                                            \
    X(genie_data, "f", K_R, 0, genie_data(c, h[0], &pv))                                                    \
    X(genie_where, "bff", K_P, 0, genie_where(c, h[0], h[1], h[2]))                                         \
    X(genie_clamp, "f", K_P, 0, genie_clamp(c, h[0], 0, 1))                                                 \
    X(genie_argmax, "f", K_P, 0, genie_argmax(c, h[0], 0, 0))                                               \
    X(genie_argmin, "f", K_P, 0, genie_argmin(c, h[0], 0, 0))                                               \
    X(genie_var, "f", K_P, 0, genie_var(c, h[0], 1, d1, 1, 0))                                              \
    X(genie_std, "f", K_P, 0, genie_std(c, h[0], 1, d1, 1, 0))                                              \
    X(genie_softmax, "f", K_P, 0, genie_softmax(c, h[0], -1))                                               \
    X(genie_log_softmax, "f", K_P, 0, genie_log_softmax(c, h[0], -1))                                       \
    X(genie_layer_norm, "fvv", K_P, 0, genie_layer_norm(c, h[0], 1, n4, h[1], h[2], 1e-5))                  \
    X(genie_matmul, "ff", K_P, 0, genie_matmul(c, h[0], h[1]))                                              \
    X(genie_linear, "ffv", K_P, 0, genie_linear(c, h[0], h[1], h[2]))                                       \
    X(genie_conv2d, "xkv", K_P, 0, genie_conv2d(c, h[0], h[1], h[2], z2, zp, z2, 1))                        \
    X(genie_to_dtype, "f", K_P, 0, genie_to_dtype(c, h[0], GENIE_F64))                                      \
    X(genie_contiguous, "f", K_P, 0, genie_contiguous(c, h[0]))                                             \
    X(genie_clone, "f", K_P, 0, genie_clone(c, h[0]))                                                       \
    X(genie_view, "f", K_P, 0, genie_view(c, h[0], 2, sh44))                                                \
    X(genie_reshape, "f", K_P, 0, genie_reshape(c, h[0], 2, sh44))                                          \
    X(genie_permute, "f", K_P, 0, genie_permute(c, h[0], 2, perm))                                          \
    X(genie_transpose, "f", K_P, 0, genie_transpose(c, h[0], 0, 1))                                         \
    X(genie_t, "f", K_P, 0, genie_t(c, h[0]))                                                               \
    X(genie_expand, "f", K_P, 0, genie_expand(c, h[0], 2, sh44))                                            \
    X(genie_squeeze, "f", K_P, 0, genie_squeeze(c, h[0], 0))                                                \
    X(genie_unsqueeze, "f", K_P, 0, genie_unsqueeze(c, h[0], 0))                                            \
    X(genie_slice, "f", K_P, 0, genie_slice(c, h[0], 0, 0, 2, 1))                                           \
    X(genie_select, "f", K_P, 0, genie_select(c, h[0], 0, 1))                                               \
    X(genie_narrow, "f", K_P, 0, genie_narrow(c, h[0], 0, 0, 2))                                            \
    X(genie_diagonal, "f", K_P, 0, genie_diagonal(c, h[0], 0, 0, 1))                                        \
    X(genie_as_strided, "f", K_P, 0, genie_as_strided(c, h[0], 2, sh44, str41, 0))                          \
    X(genie_flip, "f", K_P, 0, genie_flip(c, h[0], 1, d1))                                                  \
    X(genie_cat, "ff", K_P, 0, genie_cat(c, 2, h, 0))                                                       \
    X(genie_stack, "ff", K_P, 0, genie_stack(c, 2, h, 0))                                                   \
    X(genie_index_select, "fi", K_P, 0, genie_index_select(c, h[0], 0, h[1]))                               \
    X(genie_gather, "ff", K_P, 0, genie_gather(c, h[0], 0, h[1]))                                           \
    X(genie_embedding, "fi", K_P, 0, genie_embedding(c, h[0], h[1]))                                        \
    X(genie_masked_fill, "fb", K_P, 0, genie_masked_fill(c, h[0], h[1], 0))                                 \
    X(genie_tril, "f", K_P, 0, genie_tril(c, h[0], 0))                                                      \
    X(genie_triu, "f", K_P, 0, genie_triu(c, h[0], 0))                                                      \
    X(genie_split, "f", K_P, 0, genie_split(c, h[0], 2, 0))                                                 \
    X(genie_chunk, "f", K_P, 0, genie_chunk(c, h[0], 2, 0))                                                 \
    X(genie_unbind, "f", K_P, 0, genie_unbind(c, h[0], 0))                                                  \
    X(genie_topk, "f", K_P, 0, genie_topk(c, h[0], 2, -1, 1, 1))                                            \
    X(genie_sort, "f", K_P, 0, genie_sort(c, h[0], -1, 0))                                                  \
    X(genie_max_dim, "f", K_P, 0, genie_max_dim(c, h[0], -1, 0))                                            \
    X(genie_min_dim, "f", K_P, 0, genie_min_dim(c, h[0], -1, 0))                                            \
    X(genie_tuple_size, "u", K_I, 0, genie_tuple_size(tp))                                                  \
    X(genie_tuple_get, "u", K_P, 0, genie_tuple_get(tp, 0))                                                 \
    X(genie_tuple_release, "u", K_V, 0, genie_tuple_release(tp))                                            \
    X(genie_add_, "ff", K_P, 0, genie_add_(c, h[0], h[1]))                                                  \
    X(genie_sub_, "ff", K_P, 0, genie_sub_(c, h[0], h[1]))                                                  \
    X(genie_mul_, "ff", K_P, 0, genie_mul_(c, h[0], h[1]))                                                  \
    X(genie_div_, "ff", K_P, 0, genie_div_(c, h[0], h[1]))                                                  \
    X(genie_fill_, "f", K_P, 0, genie_fill_(c, h[0], 1))                                                    \
    X(genie_zero_, "f", K_P, 0, genie_zero_(c, h[0]))                                                       \
    X(genie_copy_, "ff", K_P, 0, genie_copy_(c, h[0], h[1]))                                                \
    X(genie_relu_, "f", K_P, 0, genie_relu_(c, h[0]))                                                       \
    X(genie_masked_fill_, "fb", K_P, 0, genie_masked_fill_(c, h[0], h[1], 0))                               \
    X(genie_rms_norm, "fv", K_P, 0, genie_rms_norm(c, h[0], 1, n4, h[1], 1e-6))                             \
    X(genie_rope, "fi", K_P, 0, genie_rope(c, h[0], h[1], 0, 10000, 0))                                     \
    X(genie_scaled_dot_product_attention, "ffff", K_P, 0,                                                   \
      genie_scaled_dot_product_attention(c, h[0], h[1], h[2], h[3], 0, 0.5))                                \
    X(genie_cumsum, "f", K_P, 0, genie_cumsum(c, h[0], 0))                                                  \
    X(genie_scatter, "fif", K_P, 0, genie_scatter(c, h[0], 0, h[1], h[2]))                                  \
    X(genie_scatter_add, "fif", K_P, 0, genie_scatter_add(c, h[0], 0, h[1], h[2]))                          \
    X(genie_index_copy_, "fif", K_P, 0, genie_index_copy_(c, h[0], 0, h[1], h[2]))                          \
    X(genie_module_path, "f", K_S, 0, genie_module_path(h[0]))                                              \
    X(genie_phase, "f", K_S, 0, genie_phase(h[0]))                                                          \
    X(genie_op_name, "f", K_S, 0, genie_op_name(h[0]))                                                      \
    X(genie_dump_dot, "ff", K_R, 0, genie_dump_dot(c, 2, h, devnull))                                       \
    X(genie_role, "f", K_S, 0, genie_role(h[0]))                                                            \
    X(genie_safetensors_save, "ff", K_R, 0, genie_safetensors_save(c, save_path, 2, names2, h))             \
    X(genie_safetensors_save_metadata, "ff", K_R, 0,                                                        \
      genie_safetensors_save_metadata(c, save_path, 2, names2, h, 1, mkeys, mvals))                         \
    DEAD_API_BINARY(X) DEAD_API_SCALAR(X) DEAD_API_UNARY(X) DEAD_API_REDUCE(X)
#define DEAD_BIN(X, n) X(genie_##n, "ff", K_P, 0, genie_##n(c, h[0], h[1]))
#define DEAD_SCA(X, n) X(genie_##n##_scalar, "f", K_P, 0, genie_##n##_scalar(c, h[0], 2.0))
#define DEAD_UN(X, n) X(genie_##n, "f", K_P, 0, genie_##n(c, h[0]))
#define DEAD_RED(X, n) X(genie_##n, "f", K_P, 0, genie_##n(c, h[0], 1, d1, 0))
#define DEAD_API_BINARY(X)                                                                                  \
    DEAD_BIN(X, add) DEAD_BIN(X, sub) DEAD_BIN(X, mul) DEAD_BIN(X, div) DEAD_BIN(X, pow) DEAD_BIN(X, maximum) \
    DEAD_BIN(X, minimum) DEAD_BIN(X, eq) DEAD_BIN(X, ne) DEAD_BIN(X, lt) DEAD_BIN(X, le) DEAD_BIN(X, gt)     \
    DEAD_BIN(X, ge) DEAD_BIN(X, logical_and) DEAD_BIN(X, logical_or) DEAD_BIN(X, bitwise_and)               \
    DEAD_BIN(X, bitwise_or) DEAD_BIN(X, bitwise_xor)
#define DEAD_API_SCALAR(X) DEAD_SCA(X, add) DEAD_SCA(X, sub) DEAD_SCA(X, mul) DEAD_SCA(X, div) DEAD_SCA(X, pow)
#define DEAD_API_UNARY(X)                                                                                   \
    DEAD_UN(X, neg) DEAD_UN(X, abs) DEAD_UN(X, exp) DEAD_UN(X, log) DEAD_UN(X, sqrt) DEAD_UN(X, rsqrt)      \
    DEAD_UN(X, sin) DEAD_UN(X, cos) DEAD_UN(X, tanh) DEAD_UN(X, sigmoid) DEAD_UN(X, relu) DEAD_UN(X, gelu)  \
    DEAD_UN(X, gelu_tanh) DEAD_UN(X, silu) DEAD_UN(X, reciprocal) DEAD_UN(X, square) DEAD_UN(X, floor)      \
    DEAD_UN(X, ceil) DEAD_UN(X, round) DEAD_UN(X, sign) DEAD_UN(X, erf) DEAD_UN(X, log1p) DEAD_UN(X, expm1) \
    DEAD_UN(X, logical_not) DEAD_UN(X, bitwise_not)
#define DEAD_API_REDUCE(X)                                                                                  \
    DEAD_RED(X, sum) DEAD_RED(X, mean) DEAD_RED(X, amax) DEAD_RED(X, amin) DEAD_RED(X, prod) DEAD_RED(X, logsumexp)

typedef void (*dead_call)(genie_ctx *c, genie_tensor **h, genie_tuple *tp, dead_out *o);
typedef struct {
    const char *name, *kinds;
    int ret;
    int64_t want;
    dead_call call;
} dead_entry;
#define DEAD_FN(name, kinds, ret, want, expr)                                               \
    static void dead_call_##name(genie_ctx *c, genie_tensor **h, genie_tuple *tp, dead_out *o) { \
        static unsigned char buf[256];                                                      \
        double dv;                                                                          \
        int64_t iv;                                                                         \
        const void *pv;                                                                     \
        (void)c; (void)h; (void)tp; (void)o; (void)buf; (void)dv; (void)iv; (void)pv;        \
        SET_##ret(expr);                                                                    \
    }
DEAD_API(DEAD_FN)
#define DEAD_ROW(name, kinds, ret, want, expr) {#name, kinds, ret, want, dead_call_##name},
static const dead_entry dead_table[] = {DEAD_API(DEAD_ROW)};
#define DEAD_N ((int)(sizeof dead_table / sizeof dead_table[0]))

/* A live tensor of kind k (see DEAD_API). */
static genie_tensor *live_of(genie_ctx *c, char k) {
    int64_t s4[4] = {1, 1, 4, 4}, s1[4] = {1, 1, 1, 1};
    int64_t idx[4] = {0, 1, 2, 3};
    switch (k) {
    case 'i': return genie_from_data(c, GENIE_I64, 1, n4, idx);
    case 'b': return genie_gt(c, genie_randn(c, GENIE_F32, 2, sh44, 3), genie_zeros(c, GENIE_F32, 0, NULL));
    case 'x': return genie_randn(c, GENIE_F32, 4, s4, 4);
    case 'k': return genie_randn(c, GENIE_F32, 4, s1, 5);
    case 'v': return genie_randn(c, GENIE_F32, 1, n4, 6);
    default: return genie_randn(c, GENIE_F32, 2, sh44, 7);
    }
}

/* 1 if msg starts with the function name fn ("genie_add: ..."). */
static int names_fn(const char *msg, const char *fn) {
    size_t n = fn ? strlen(fn) : 0;
    return fn && strncmp(msg, fn, n) == 0 && (msg[n] == ':' || msg[n] == ' ');
}
/* The function a documented wrapper's messages may name: zero_ is "fill_ with 0", save_metadata
   "save, with __metadata__". */
static const char *alias_of(const char *fn) {
    if (strcmp(fn, "genie_zero_") == 0) return "genie_fill_";
    if (strcmp(fn, "genie_safetensors_save_metadata") == 0) return "genie_safetensors_save";
    return NULL;
}

/* One entry with the handle at position pos dead. */
static void sweep_one(const dead_entry *e, int pos) {
    genie_ctx_desc d;
    genie_ctx *c;
    genie_tensor *h[4] = {NULL, NULL, NULL, NULL}, *q, *k, *v, *s, *p, *o, *dead;
    genie_tuple *tp = NULL;
    dead_out out;
    int n = (int)strlen(e->kinds), j;
    memset(&d, 0, sizeof d);
    d.no_pool = 1; /* the caller owns every result: a release kills a handle at once */
    d.n_threads = 1;
    c = genie_ctx_create(&d);
    if (!c) { CHECK(0, "%s: genie_ctx_create", e->name); return; }
    q = genie_randn(c, GENIE_F32, 2, sh44, 1);
    k = genie_randn(c, GENIE_F32, 2, sh44, 2);
    v = genie_randn(c, GENIE_F32, 2, sh44, 8);
    s = genie_div_scalar(c, genie_matmul(c, q, genie_t(c, k)), 2.0); /* softmax(q k^T / sqrt(4)) v */
    p = genie_softmax(c, s, -1);
    o = genie_matmul(c, p, v);
    dead = genie_view(c, o, 2, sh44);
    /* the dead handle: an alias of the live attention output o, its last reference released below */
    CHECK(dead && o && strcmp(genie_role(dead), "attention") == 0, "%s: the alias of an attention output has its role (%s)",
          e->name, dead ? genie_role(dead) : "NULL");
    for (j = 0; j < n; j++) h[j] = e->kinds[j] == 'u' ? NULL : j == pos ? dead : live_of(c, e->kinds[j]);
    if (e->kinds[0] == 'u') { /* a dead tuple: released in a no_pool context */
        tp = genie_split(c, live_of(c, 'f'), 2, 0);
        genie_tuple_release(tp);
    }
    CHECK(genie_status(c) == GENIE_OK, "%s: setting up: %s", e->name, genie_last_error(c));
    genie_release(dead); /* dead from here: its storage lives on in p */
    memset(&out, 0, sizeof out);
    out.r = GENIE_OK;
    out.i = -12345;
    e->call(c, h, tp, &out);
    switch (e->ret) {
    case K_P:
    case K_R: {
        const char *msg = genie_last_error(c);
        int refused = e->ret == K_P ? out.p == NULL : out.r == GENIE_ERR_INVALID_ARG;
        CHECK(refused && genie_status(c) == GENIE_ERR_INVALID_ARG && (names_fn(msg, e->name) || names_fn(msg, alias_of(e->name))) &&
                  strstr(msg, "dead"),
              "%s with a dead handle at position %d: %s, status %s, message \"%s\" (want NULL or GENIE_ERR_INVALID_ARG, "
              "and a message naming %s and the dead handle)",
              e->name, pos, refused ? "refused" : "NOT refused", genie_result_string(genie_status(c)), msg, e->name);
        break;
    }
    case K_S:
        CHECK(out.p && ((const char *)out.p)[0] == 0, "%s of a dead handle: \"%s\" (want \"\")", e->name,
              out.p ? (const char *)out.p : "NULL");
        break;
    case K_N: CHECK(out.p == NULL, "%s of a dead handle: not NULL", e->name); break;
    case K_I:
        CHECK(out.i == e->want, "%s with a dead handle at position %d: %lld (want %lld)", e->name, pos, (long long)out.i,
              (long long)e->want);
        break;
    default: passed++; break; /* void: ASan's to judge */
    }
    genie_ctx_destroy(c); /* frees every result, the leaks of a failing entry too */
    remove(save_path);
}

/* The header's functions that take a handle, from its API section; 0 when it cannot be read. */
static int header_names(const char *path, char names[][64], int max) {
    static char text[1 << 20];
    static const char *const macros[4] = {"GENIE__DECL_BINARY(", "GENIE__DECL_SCALAR(", "GENIE__DECL_UNARY(", "GENIE__DECL_REDUCE("};
    FILE *f = fopen(path, "rb");
    size_t len;
    char *api, *end, *line;
    int n = 0, m;
    if (!f) return 0;
    len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    api = strstr(text, "#ifndef GENIE_H");
    end = api ? strstr(api, "#endif /* GENIE_H */") : NULL;
    if (!api || !end) return 0;
    *end = 0;
    for (line = api; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, "GENIEDEF", 8) == 0) { /* a declaration, up to its ';' */
            char *semi = strchr(line, ';'), *paren, *nm;
            if (!semi) break;
            *semi = 0;
            paren = strchr(line, '(');
            if (paren && (strstr(paren, "genie_tensor") || strstr(paren, "genie_tuple")) && n < max) {
                for (nm = paren; nm > line && (nm[-1] == '_' || (nm[-1] >= 'a' && nm[-1] <= 'z') || (nm[-1] >= '0' && nm[-1] <= '9')); nm--) {}
                snprintf(names[n++], 64, "%.*s", (int)(paren - nm), nm);
            }
            *semi = ';';
        } else if (strncmp(line, "#define", 7) != 0) { /* GENIE__DECL_UNARY(neg) ...: genie_neg ... */
            char *eol = strchr(line, '\n');
            if (eol) *eol = 0;
            for (m = 0; m < 4; m++) {
                char *at = line;
                while ((at = strstr(at, macros[m])) != NULL && n < max) {
                    char *a = at + strlen(macros[m]), *close = strchr(a, ')');
                    if (!close) break;
                    snprintf(names[n++], 64, "genie_%.*s%s", (int)(close - a), a, m == 1 ? "_scalar" : "");
                    at = close;
                }
            }
            if (eol) *eol = '\n';
        }
    }
    return n;
}

int main(int argc, char **argv) {
    static char names[512][64];
    const char *hdr = argc > 1 ? argv[1] : "genie.h";
    int nh = header_names(hdr, names, 512), i, j, pos, tried = 0;
    devnull = fopen(
#ifdef _WIN32
        "NUL",
#else
        "/dev/null",
#endif
        "w");
    CHECK(nh > 100, "read the public API from %s: %d functions taking a handle", hdr, nh);
    for (i = 0; i < nh; i++) { /* the table names every function the header declares ... */
        int found = 0;
        for (j = 0; j < DEAD_N && !found; j++) found = strcmp(dead_table[j].name, names[i]) == 0;
        CHECK(found, "%s takes a handle but is missing from test_dead.c's table (DEAD_API)", names[i]);
    }
    for (j = 0; j < DEAD_N; j++) { /* ... and no other */
        int found = 0;
        for (i = 0; i < nh && !found; i++) found = strcmp(dead_table[j].name, names[i]) == 0;
        CHECK(found, "test_dead.c's table names %s, which %s does not declare with a handle", dead_table[j].name, hdr);
    }
    for (j = 0; j < DEAD_N; j++)
        for (pos = 0; pos < (int)strlen(dead_table[j].kinds); pos++) {
            if (dead_table[j].kinds[pos] == 'u' && pos > 0) continue;
            sweep_one(&dead_table[j], pos);
            tried++;
        }
    if (devnull) fclose(devnull);
    printf("  test_dead: %d functions taking a handle, %d calls with a dead one: %d passed, %d failed\n", DEAD_N, tried, passed,
           failed);
    return failed ? 1 : 0;
}
