/* test_robust.c - valid-but-odd input: huge, empty and degenerate shapes, extreme
   arguments, NULLs and dead handles. Every case is a bug an outside fuzzer found
   (the "unbreakable" issue) or one tests/fuzz/fuzz_api.c found since. genie must
   answer each with a result or a sticky error of the right code, never a crash, a
   hang, undefined behaviour (run it under ASan + UBSan: `make asan`) or a wrong
   value. `build/test_robust NAME` runs one case. */
#define GENIE_IMPLEMENTATION
#include "../../genie.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        checks++;                                                              \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);             \
            printf(__VA_ARGS__);                                               \
            printf("\n");                                                      \
        }                                                                      \
    } while (0)
#define P62 ((int64_t)1 << 62)
#define P32 ((int64_t)1 << 32)
#define P40 ((int64_t)1 << 40)

/* The status is `code` with a non-empty message naming fn, and t is NULL. */
static void expect_err(genie_ctx *ctx, const void *t, genie_result code, const char *fn, const char *what) {
    CHECK(t == NULL, "%s: expected NULL", what);
    CHECK(genie_status(ctx) == code, "%s: status %s, expected %s (%s)", what, genie_result_string(genie_status(ctx)),
          genie_result_string(code), genie_last_error(ctx));
    CHECK(strstr(genie_last_error(ctx), fn) != NULL, "%s: message '%s' does not name %s", what, genie_last_error(ctx), fn);
    genie_clear_error(ctx);
}
/* t is a live handle of this shape and the context is fine. */
static void expect_shape(genie_ctx *ctx, genie_tensor *t, int nd, const int64_t *shape, const char *what) {
    CHECK(t != NULL && genie_status(ctx) == GENIE_OK, "%s: failed: %s", what, genie_last_error(ctx));
    if (!t) { genie_clear_error(ctx); return; }
    CHECK(genie_ndim(t) == nd && memcmp(genie_shape(t), shape, (size_t)nd * 8) == 0, "%s: wrong shape", what);
}

static void t_chunk_split_huge(genie_ctx *ctx) {
    int64_t s5 = 5;
    genie_tensor *z = genie_zeros(ctx, GENIE_F32, 1, &s5);
    genie_tuple *tp = genie_chunk(ctx, z, INT64_MAX, 0);
    CHECK(tp && genie_tuple_size(tp) == 5, "chunk(INT64_MAX): %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    tp = genie_split(ctx, z, INT64_MAX, 0);
    CHECK(tp && genie_tuple_size(tp) == 1 && genie_shape(genie_tuple_get(tp, 0))[0] == 5, "split(INT64_MAX): %s",
          genie_last_error(ctx));
    genie_clear_error(ctx);
    tp = genie_chunk(ctx, z, 0, 0);
    expect_err(ctx, tp, GENIE_ERR_INVALID_ARG, "chunk", "chunk(0)");
    tp = genie_split(ctx, z, -1, 0);
    expect_err(ctx, tp, GENIE_ERR_INVALID_ARG, "split", "split(-1)");
    tp = genie_chunk(ctx, z, INT64_MIN, 0);
    expect_err(ctx, tp, GENIE_ERR_INVALID_ARG, "chunk", "chunk(INT64_MIN)");
    tp = genie_chunk(ctx, z, 2, INT64_MIN);
    expect_err(ctx, tp, GENIE_ERR_INDEX, "chunk", "chunk dim INT64_MIN");
}
static void t_zeros_empty_huge_strides(genie_ctx *ctx) {
    int64_t s[3] = {0, P32, P32};
    genie_tensor *z = genie_zeros(ctx, GENIE_F32, 3, s);
    expect_err(ctx, z, GENIE_ERR_OVERFLOW, "genie_zeros", "zeros [0,2^32,2^32]");
    s[1] = P32 - 1; s[2] = 4; /* representable strides: fine, and realizes at once */
    z = genie_zeros(ctx, GENIE_F32, 3, s);
    expect_shape(ctx, z, 3, s, "zeros [0,2^32-1,4]");
    CHECK(genie_realize(ctx, 1, &z) == GENIE_OK, "realize empty: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
}
static void t_broadcast_numel_overflow(genie_ctx *ctx) {
    int64_t sa[2] = {P32, 1}, sb[2] = {1, P32};
    genie_tensor *a = genie_zeros(ctx, GENIE_U8, 2, sa), *b = genie_zeros(ctx, GENIE_U8, 2, sb);
    CHECK(a && b, "inputs: %s", genie_last_error(ctx));
    expect_err(ctx, genie_add(ctx, a, b), GENIE_ERR_OVERFLOW, "add", "add [2^32,1]+[1,2^32]");
    expect_err(ctx, genie_where(ctx, genie_gt(ctx, a, a), a, b), GENIE_ERR_OVERFLOW, "where", "where");
    expect_err(ctx, genie_expand(ctx, a, 2, (int64_t[]){P32, P32}), GENIE_ERR_OVERFLOW, "expand", "expand");
}
static void t_byte_count_overflow(genie_ctx *ctx) {
    int64_t s = P62;
    genie_tensor *a = genie_zeros(ctx, GENIE_F32, 1, &s); /* 2^64 bytes */
    expect_err(ctx, a, GENIE_ERR_OVERFLOW, "genie_zeros", "zeros f32 [2^62]");
    a = genie_zeros(ctx, GENIE_U8, 1, &s); /* 2^62 bytes: representable, cannot be allocated */
    expect_shape(ctx, a, 1, &s, "zeros u8 [2^62]");
    if (a) {
        CHECK(genie_realize(ctx, 1, &a) == GENIE_ERR_OOM, "realize 2^62 bytes: %s", genie_last_error(ctx));
        genie_clear_error(ctx);
        expect_err(ctx, genie_to_dtype(ctx, a, GENIE_F64), GENIE_ERR_OVERFLOW, "to", "to f64 of [2^62]");
    }
}
static void t_cat_overflow(genie_ctx *ctx) {
    int64_t s = P62;
    genie_tensor *two[2];
    two[0] = two[1] = genie_zeros(ctx, GENIE_U8, 1, &s);
    expect_err(ctx, genie_cat(ctx, 2, two, 0), GENIE_ERR_OVERFLOW, "cat", "cat two [2^62]");
    two[1] = genie_zeros(ctx, GENIE_U8, 1, (int64_t[]){P62 - 1}); /* 2^63 - 1 bytes: fine until realized */
    {
        genie_tensor *c = genie_cat(ctx, 2, two, 0);
        CHECK(c && genie_numel(c) == INT64_MAX, "cat [2^62] [2^62-1]: %s", genie_last_error(ctx));
        CHECK(c && genie_realize(ctx, 1, &c) == GENIE_ERR_OOM, "realize 2^63-1 bytes: %s", genie_last_error(ctx));
        genie_clear_error(ctx);
        two[1] = genie_zeros(ctx, GENIE_U8, 1, (int64_t[]){1});
        c = genie_cat(ctx, 2, two, 0);
        CHECK(c && genie_numel(c) == P62 + 1, "cat [2^62] [1]: %s", genie_last_error(ctx));
        genie_clear_error(ctx);
        two[1] = genie_zeros(ctx, GENIE_I16, 1, (int64_t[]){1}); /* promoted to i16: 2^63 + 2 bytes */
        expect_err(ctx, genie_cat(ctx, 2, two, 0), GENIE_ERR_OVERFLOW, "cat", "cat promoted to i16");
    }
    expect_err(ctx, genie_stack(ctx, 2, (genie_tensor *[]){two[0], two[0]}, 0), GENIE_ERR_OVERFLOW, "stack",
               "stack two [2^62]");
}
static void t_slice_step_max(genie_ctx *ctx) {
    int64_t s[2] = {5, 3}, one[2] = {1, 3};
    genie_tensor *z = genie_arange(ctx, GENIE_F32, 0, 15, 1), *v, *w;
    double x;
    z = genie_view(ctx, z, 2, s);
    v = genie_slice(ctx, z, 0, 0, 5, INT64_MAX);
    expect_shape(ctx, v, 2, one, "slice step INT64_MAX");
    w = genie_slice(ctx, z, 0, INT64_MIN, INT64_MAX, INT64_MAX);
    expect_shape(ctx, w, 2, one, "slice [MIN:MAX:MAX]");
    w = genie_slice(ctx, z, 1, 2, INT64_MAX, 1);
    CHECK(w && genie_shape(w)[1] == 1, "slice dim 1 [2:MAX]: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    CHECK(genie_item(ctx, genie_select(ctx, genie_select(ctx, v, 0, 0), 0, 2), &x) == GENIE_OK && x == 2.0,
          "value through the slice: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    { /* an empty slice moves the offset as ATen does; past a huge stride it stays readable */
        static float one[1] = {3};
        int64_t s1 = 1, big = INT64_MAX;
        const void *p;
        genie_tensor *b = genie_from_blob(ctx, GENIE_F32, 1, &s1, &big, one, NULL, NULL), *e;
        e = genie_slice(ctx, z, 0, 5, 5, 1);
        CHECK(e && genie_storage_offset(e) == 15 && genie_numel(e) == 0, "empty slice offset: %s", genie_last_error(ctx));
        e = genie_slice(ctx, b, 0, 1, 1, 1);
        CHECK(e && genie_numel(e) == 0, "empty slice of a huge stride: %s", genie_last_error(ctx));
        CHECK(e && genie_data(ctx, e, &p) == GENIE_OK, "its data: %s", genie_last_error(ctx));
        CHECK(genie_item(ctx, genie_sum(ctx, e, 0, NULL, 0), &x) == GENIE_OK && x == 0, "its sum: %s", genie_last_error(ctx));
        genie_clear_error(ctx);
    }
    expect_err(ctx, genie_slice(ctx, z, 0, 0, 5, 0), GENIE_ERR_INVALID_ARG, "slice", "slice step 0");
    expect_err(ctx, genie_slice(ctx, z, 0, 0, 5, -1), GENIE_ERR_INVALID_ARG, "slice", "slice step -1");
    expect_err(ctx, genie_narrow(ctx, z, 0, INT64_MAX, 2), GENIE_ERR_INDEX, "narrow", "narrow start MAX");
    expect_err(ctx, genie_narrow(ctx, z, 0, 1, INT64_MAX), GENIE_ERR_INDEX, "narrow", "narrow length MAX");
    expect_err(ctx, genie_select(ctx, z, 0, INT64_MIN), GENIE_ERR_INDEX, "select", "select INT64_MIN");
    w = genie_diagonal(ctx, z, INT64_MIN, 0, 1);
    CHECK(w && genie_shape(w)[0] == 0, "diagonal offset INT64_MIN: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    w = genie_diagonal(ctx, z, INT64_MAX, 0, 1);
    CHECK(w && genie_shape(w)[0] == 0, "diagonal offset INT64_MAX: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    w = genie_sum(ctx, genie_add(ctx, genie_tril(ctx, z, INT64_MIN), genie_triu(ctx, z, INT64_MAX)), 0, NULL, 0);
    CHECK(genie_item(ctx, w, &x) == GENIE_OK && x == 0, "tril MIN + triu MAX: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    w = genie_sum(ctx, genie_add(ctx, genie_tril(ctx, z, INT64_MAX), genie_triu(ctx, z, INT64_MIN)), 0, NULL, 0);
    CHECK(genie_item(ctx, w, &x) == GENIE_OK && x == 210, "tril MAX + triu MIN: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
}
static void t_from_blob_strides(genie_ctx *ctx) {
    static float buf[4];
    int64_t s2 = 2, s1 = 1, big = INT64_MAX;
    genie_tensor *t = genie_from_blob(ctx, GENIE_F32, 1, &s2, &big, buf, NULL, NULL);
    expect_err(ctx, t, GENIE_ERR_OVERFLOW, "genie_from_blob", "from_blob stride INT64_MAX");
    t = genie_from_blob(ctx, GENIE_F32, 1, &s1, &big, buf, NULL, NULL); /* one element: any stride */
    expect_shape(ctx, t, 1, &s1, "from_blob [1] stride INT64_MAX");
    t = genie_from_blob(ctx, GENIE_F32, 2, (int64_t[]){2, 2}, (int64_t[]){P62, 1}, buf, NULL, NULL);
    expect_err(ctx, t, GENIE_ERR_OVERFLOW, "genie_from_blob", "from_blob byte extent overflows");
}
static void t_from_blob_null_empty(genie_ctx *ctx) {
    int64_t s0 = 0, s3[2] = {3, 0};
    float out[1];
    const void *p;
    genie_tensor *t = genie_from_blob(ctx, GENIE_F32, 1, &s0, NULL, NULL, NULL, NULL), *u;
    expect_shape(ctx, t, 1, &s0, "from_blob NULL empty");
    if (!t) return;
    CHECK(genie_read(ctx, t, GENIE_F32, out, 0) == GENIE_OK, "read: %s", genie_last_error(ctx));
    CHECK(genie_read(ctx, t, GENIE_F32, NULL, 0) == GENIE_OK, "read NULL dst: %s", genie_last_error(ctx));
    CHECK(genie_data(ctx, t, &p) == GENIE_OK, "data: %s", genie_last_error(ctx));
    u = genie_cat(ctx, 2, (genie_tensor *[]){t, t}, 0);
    CHECK(genie_realize(ctx, 1, &u) == GENIE_OK, "cat of empties: %s", genie_last_error(ctx));
    u = genie_add_scalar(ctx, genie_from_blob(ctx, GENIE_F32, 2, s3, NULL, NULL, NULL, NULL), 1);
    CHECK(genie_read(ctx, u, GENIE_F32, out, 0) == GENIE_OK, "add on NULL [3,0]: %s", genie_last_error(ctx));
    genie_copy_(ctx, genie_from_blob(ctx, GENIE_F32, 1, &s0, NULL, NULL, NULL, NULL), genie_zeros(ctx, GENIE_F32, 1, &s0));
    CHECK(genie_status(ctx) == GENIE_OK, "copy_ into a NULL blob: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
}
/* fuzz_api: viewing an empty tensor as a shape whose strides overflow. */
static void t_fuzz_view_empty_huge(genie_ctx *ctx) {
    int64_t s0 = 0, big[3] = {0, ((int64_t)1 << 32) - 1, ((int64_t)1 << 32) - 1}, ok[3] = {0, 5, ((int64_t)1 << 40)};
    genie_tensor *z = genie_zeros(ctx, GENIE_F32, 1, &s0);
    expect_err(ctx, genie_view(ctx, z, 3, big), GENIE_ERR_OVERFLOW, "genie_view", "view [0] as [0,2^32-1,2^32-1]");
    expect_err(ctx, genie_reshape(ctx, z, 3, big), GENIE_ERR_OVERFLOW, "genie_reshape", "reshape of it");
    expect_shape(ctx, genie_view(ctx, z, 3, ok), 3, ok, "view [0] as [0,5,2^40]");
}
/* fuzz_api: gather's offset of an out-of-range index overflowed before the range check. */
static void t_fuzz_gather_huge_index(genie_ctx *ctx) {
    int64_t s[2] = {2, 3}, is[2] = {1, 1}, idx[1] = {(int64_t)1 << 62};
    genie_tensor *a = genie_ones(ctx, GENIE_F32, 2, s), *r;
    r = genie_gather(ctx, a, 0, genie_from_data(ctx, GENIE_I64, 2, is, idx));
    CHECK(r && genie_realize(ctx, 1, &r) == GENIE_ERR_INDEX, "gather index 2^62: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
}
/* fuzz_api: the exact self-overlap walk stepped one stride past a huge-strided size-1 dim. */
static void t_fuzz_self_overlap_huge_stride(genie_ctx *ctx) {
    static float buf[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int64_t s[2] = {1, 4}, st[2] = {INT64_MAX - 1, 2};
    float out[3];
    genie_tensor *b = genie_narrow(ctx, genie_from_blob(ctx, GENIE_F32, 2, s, st, buf, NULL, NULL), 1, 1, 3), *r;
    r = genie_add_(ctx, b, genie_ones(ctx, GENIE_F32, 0, NULL)); /* not dense: checked exactly, no overlap */
    CHECK(r && genie_read(ctx, b, GENIE_F32, out, sizeof out) == GENIE_OK && out[0] == 3 && out[1] == 5 && out[2] == 7,
          "add_ through a huge-strided size-1 dim: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
}
/* fuzz_api: an empty blob's strides may be anything (the extent must not multiply them). */
static void t_fuzz_empty_blob_huge_strides(genie_ctx *ctx) {
    static float buf[1];
    int64_t s[3] = {3, 2, 0}, st[3] = {INT64_MAX, INT64_MAX, 1};
    genie_tensor *t = genie_from_blob(ctx, GENIE_F32, 3, s, st, buf, NULL, NULL), *c;
    expect_shape(ctx, t, 3, s, "empty blob with strides INT64_MAX");
    c = genie_contiguous(ctx, genie_transpose(ctx, t, 0, 2));
    CHECK(c && genie_realize(ctx, 1, &c) == GENIE_OK, "a copy of it: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
}
/* An in-place write into a huge self-overlapping window: the exact overlap check needs
   8 bytes per element, which cannot be allocated (its size must not wrap around). */
static void t_self_overlap_check_huge(genie_ctx *ctx) {
    int64_t big = (int64_t)1 << 33;
    genie_tensor *s = genie_zeros(ctx, GENIE_U8, 1, &big), *v, *r;
    v = genie_as_strided(ctx, s, 2, (int64_t[]){(int64_t)1 << 31, (int64_t)1 << 31}, (int64_t[]){1, 1}, 0);
    CHECK(v && genie_numel(v) == (int64_t)1 << 62, "the window: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    r = genie_add_(ctx, v, genie_ones(ctx, GENIE_U8, 0, NULL));
    CHECK(r == NULL && (genie_status(ctx) == GENIE_ERR_OOM || genie_status(ctx) == GENIE_ERR_UNSUPPORTED),
          "add_ into it: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    v = genie_as_strided(ctx, s, 2, (int64_t[]){3, 3}, (int64_t[]){1, 1}, 0); /* small: checked exactly */
    expect_err(ctx, genie_mul_(ctx, v, v), GENIE_ERR_UNSUPPORTED, "mul_", "mul_ into an overlapping window");
}
static void t_conv_padding_huge(genie_ctx *ctx) {
    int64_t sx[4] = {1, 1, 3, 3}, sw[4] = {1, 1, 2, 2};
    int64_t st[2] = {1, 1}, pad[2] = {P62, P62}, dil[2] = {1, 1};
    genie_tensor *x = genie_zeros(ctx, GENIE_F32, 4, sx), *w = genie_zeros(ctx, GENIE_F32, 4, sw);
    expect_err(ctx, genie_conv2d(ctx, x, w, NULL, st, pad, dil, 1), GENIE_ERR_OVERFLOW, "conv2d", "conv2d padding 2^62");
    pad[0] = pad[1] = 0;
    dil[0] = INT64_MAX;
    expect_err(ctx, genie_conv2d(ctx, x, w, NULL, st, pad, dil, 1), GENIE_ERR_OVERFLOW, "conv2d", "conv2d dilation MAX");
    dil[0] = 1;
    st[0] = INT64_MAX; /* one output row */
    {
        genie_tensor *y = genie_conv2d(ctx, x, w, NULL, st, pad, dil, 1);
        CHECK(y && genie_shape(y)[2] == 1, "conv2d stride MAX: %s", genie_last_error(ctx));
        genie_clear_error(ctx);
    }
    st[0] = 1;
    expect_err(ctx, genie_conv2d(ctx, x, w, NULL, st, pad, dil, INT64_MAX), GENIE_ERR_SHAPE, "conv2d", "conv2d groups MAX");
    expect_err(ctx, genie_conv2d(ctx, x, w, NULL, st, pad, dil, INT64_MIN), GENIE_ERR_INVALID_ARG, "conv2d", "conv2d groups MIN");
}
static void t_as_strided_huge(genie_ctx *ctx) {
    int64_t s = 16;
    genie_tensor *a = genie_zeros(ctx, GENIE_F32, 1, &s);
    expect_err(ctx, genie_as_strided(ctx, a, 2, (int64_t[]){P62, P62}, (int64_t[]){0, 0}, 0), GENIE_ERR_OVERFLOW,
               "as_strided", "as_strided numel overflows");
    expect_err(ctx, genie_as_strided(ctx, a, 1, (int64_t[]){P40}, (int64_t[]){P40}, 0), GENIE_ERR_OVERFLOW, "as_strided",
               "as_strided extent overflows");
    expect_err(ctx, genie_as_strided(ctx, a, 1, (int64_t[]){2}, (int64_t[]){1}, INT64_MAX), GENIE_ERR_OVERFLOW,
               "as_strided", "as_strided offset MAX");
    expect_err(ctx, genie_as_strided(ctx, a, 1, (int64_t[]){4}, (int64_t[]){4}, 8), GENIE_ERR_INDEX, "as_strided",
               "as_strided out of the storage");
    {
        genie_tensor *v = genie_as_strided(ctx, a, 3, (int64_t[]){P62, P62, 0}, (int64_t[]){1, 1, 1}, 0);
        CHECK(v == NULL || genie_numel(v) == 0, "as_strided empty huge");
        genie_clear_error(ctx);
        v = genie_as_strided(ctx, a, 2, (int64_t[]){P62 / 4, 4}, (int64_t[]){0, 1}, 0); /* a huge broadcast window */
        CHECK(v && genie_numel(v) == P62, "as_strided stride-0 window: %s", genie_last_error(ctx));
        genie_clear_error(ctx);
        if (v) {
            genie_tensor *c = genie_contiguous(ctx, v); /* 2^64 floats: overflow at capture */
            expect_err(ctx, c, GENIE_ERR_OVERFLOW, "contiguous", "contiguous of a 2^64-element window");
            c = genie_sum(ctx, v, 0, NULL, 0); /* a sum over 2^64 elements: fine to capture */
            CHECK(c != NULL, "sum of a huge window: %s", genie_last_error(ctx));
            genie_clear_error(ctx);
            expect_err(ctx, genie_add_(ctx, v, v), GENIE_ERR_UNSUPPORTED, "add_", "add_ into an expanded window");
            expect_err(ctx, genie_reshape(ctx, v, 1, (int64_t[]){-1}), GENIE_ERR_OVERFLOW, "reshape",
                       "reshape of a 2^64-element window");
        }
    }
}
static void t_empty_kernels_do_not_loop(genie_ctx *ctx) {
    int64_t s1[4] = {0, 3, P32, 3}, s2[2] = {P40, 0}, s3[4] = {P32, 2, 0, 0};
    genie_tensor *a = genie_zeros(ctx, GENIE_F32, 4, s1), *b = genie_zeros(ctx, GENIE_F32, 2, s2);
    genie_tensor *c = genie_zeros(ctx, GENIE_F32, 4, s3), *r[12];
    int64_t d0 = 0, d1 = 1;
    int i, n = 0;
    r[n++] = genie_log_softmax(ctx, a, 0);
    r[n++] = genie_softmax(ctx, a, 2);
    r[n++] = genie_layer_norm(ctx, b, 1, &s2[1], NULL, NULL, 1e-5);
    r[n++] = genie_matmul(ctx, c, c);
    r[n++] = genie_sum(ctx, a, 1, &d1, 0);
    r[n++] = genie_amax(ctx, b, 1, &d0, 0);
    r[n++] = genie_var(ctx, b, 1, &d0, 1, 0);
    r[n++] = genie_argmax(ctx, a, 2, 0);
    r[n++] = genie_tril(ctx, c, 0);
    r[n++] = genie_flip(ctx, a, 1, &d1);
    r[n++] = genie_contiguous(ctx, genie_transpose(ctx, c, 0, 3));
    r[n++] = genie_topk(ctx, b, 0, 0, 1, 1) ? genie_tuple_get(genie_topk(ctx, b, 0, 0, 1, 1), 0) : NULL;
    for (i = 0; i < n; i++) {
        CHECK(r[i] != NULL, "capture %d: %s", i, genie_last_error(ctx));
        genie_clear_error(ctx);
        if (r[i]) CHECK(genie_realize(ctx, 1, &r[i]) == GENIE_OK, "realize %d (%s): %s", i, genie_op_name(r[i]),
                        genie_last_error(ctx));
        genie_clear_error(ctx);
    }
}
/* A handle used after its pool was popped or its last reference released. */
static void t_dead_handles(genie_ctx *ctx) {
    int64_t s = 4;
    float out[4];
    genie_tensor *a, *b, *c;
    genie_pool_push(ctx);
    a = genie_ones(ctx, GENIE_F32, 1, &s);
    genie_pool_pop(ctx);
    expect_err(ctx, genie_add(ctx, a, a), GENIE_ERR_INVALID_ARG, "genie_add", "add of a dead handle");
    CHECK(genie_read(ctx, a, GENIE_F32, out, sizeof out) == GENIE_ERR_INVALID_ARG, "read of a dead handle");
    CHECK(strstr(genie_last_error(ctx), "genie_read") != NULL, "message: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    CHECK(genie_realize(ctx, 1, &a) == GENIE_ERR_INVALID_ARG, "realize of a dead handle");
    genie_clear_error(ctx);
    expect_err(ctx, genie_view(ctx, a, 1, &s), GENIE_ERR_INVALID_ARG, "genie_view", "view of a dead handle");
    CHECK(genie_ndim(a) == 0 && genie_shape(a) == NULL && genie_numel(a) == 0, "inspection of a dead handle");
    genie_release(a); /* a no-op */
    genie_retain(a);  /* a no-op */
    genie_pool_push(ctx);
    b = genie_ones(ctx, GENIE_F32, 1, &s);
    genie_retain(b);
    genie_pool_pop(ctx); /* b lives on: the caller's reference */
    CHECK(genie_numel(b) == 4, "retained handle");
    genie_release(b); /* b is dead now */
    c = genie_zeros(ctx, GENIE_F32, 1, &s);
    if (c != b) { /* its slot was not handed out again (always so with GENIE_DEBUG / ASan) */
        expect_err(ctx, genie_neg(ctx, b), GENIE_ERR_INVALID_ARG, "genie_neg", "neg of a released handle");
    }
    CHECK(genie_read(ctx, c, GENIE_F32, out, sizeof out) == GENIE_OK && out[0] == 0, "the context works on: %s",
          genie_last_error(ctx));
    genie_clear_error(ctx);
}
/* Dead tuples: used after their pool was popped, or after a release in a no_pool context, the
   tuple API reports it (the shell's slot is not handed out again before the next tuple). */
static void t_dead_tuples(genie_ctx *ctx) {
    int64_t s = 4;
    genie_tensor *a = genie_ones(ctx, GENIE_F32, 1, &s);
    genie_ctx_desc d;
    genie_ctx *np;
    genie_tuple *tp;
    genie_pool_push(ctx);
    tp = genie_chunk(ctx, a, 2, 0);
    CHECK(tp && genie_tuple_size(tp) == 2, "chunk: %s", genie_last_error(ctx));
    genie_pool_pop(ctx);
    expect_err(ctx, genie_tuple_get(tp, 0), GENIE_ERR_INVALID_ARG, "genie_tuple_get", "get of a popped tuple");
    CHECK(genie_tuple_size(tp) == 0, "size of a popped tuple");
    genie_tuple_release(tp); /* a no-op */
    memset(&d, 0, sizeof d);
    d.no_pool = 1;
    np = genie_ctx_create(&d);
    a = genie_ones(np, GENIE_F32, 1, &s);
    tp = genie_split(np, a, 1, 0);
    CHECK(tp && genie_tuple_size(tp) == 4, "split: %s", genie_last_error(np));
    genie_tuple_release(tp);
    expect_err(np, genie_tuple_get(tp, 1), GENIE_ERR_INVALID_ARG, "genie_tuple_get", "get of a released no_pool tuple");
    genie_tuple_release(tp); /* a no-op */
    tp = genie_split(np, a, 2, 0); /* the context works on */
    CHECK(tp && genie_tuple_size(tp) == 2 && genie_numel(genie_tuple_get(tp, 1)) == 2, "split after: %s",
          genie_last_error(np));
    genie_tuple_release(tp);
    genie_release(a);
    genie_ctx_destroy(np);
}
/* NULL everywhere: no crash, an error (or nothing) and the context works on. */
static void t_nulls(genie_ctx *ctx) {
    int64_t s = 3, d = 0;
    float out[3];
    const void *p;
    double x;
    genie_tensor *a = genie_ones(ctx, GENIE_F32, 1, &s);
    CHECK(genie_add(NULL, a, a) == NULL, "NULL ctx");
    CHECK(genie_realize(NULL, 1, &a) != GENIE_OK, "realize NULL ctx");
    CHECK(genie_read(NULL, a, GENIE_F32, out, sizeof out) != GENIE_OK, "read NULL ctx");
    CHECK(genie_realize(ctx, 1, NULL) != GENIE_OK, "realize NULL list");
    genie_clear_error(ctx);
    CHECK(genie_realize(ctx, -1, &a) != GENIE_OK, "realize n -1");
    genie_clear_error(ctx);
    CHECK(genie_read(ctx, a, GENIE_F32, NULL, 12) != GENIE_OK, "read into NULL");
    genie_clear_error(ctx);
    CHECK(genie_item(ctx, a, &x) != GENIE_OK, "item of 3 elements");
    genie_clear_error(ctx);
    CHECK(genie_item(ctx, genie_sum(ctx, a, 0, NULL, 0), NULL) != GENIE_OK, "item into NULL");
    genie_clear_error(ctx);
    CHECK(genie_data(ctx, a, NULL) != GENIE_OK, "data into NULL");
    genie_clear_error(ctx);
    CHECK(genie_data(ctx, NULL, &p) != GENIE_OK, "data of NULL");
    genie_clear_error(ctx);
    expect_err(ctx, genie_sum(ctx, a, 1, NULL, 0), GENIE_ERR_INVALID_ARG, "sum", "sum dims NULL");
    expect_err(ctx, genie_sum(ctx, a, -1, &d, 0), GENIE_ERR_INVALID_ARG, "sum", "sum ndims -1");
    expect_err(ctx, genie_cat(ctx, 2, NULL, 0), GENIE_ERR_INVALID_ARG, "cat", "cat NULL list");
    expect_err(ctx, genie_cat(ctx, -1, &a, 0), GENIE_ERR_INVALID_ARG, "cat", "cat n -1");
    expect_err(ctx, genie_permute(ctx, a, 1, NULL), GENIE_ERR_SHAPE, "permute", "permute NULL");
    expect_err(ctx, genie_conv2d(ctx, a, a, NULL, NULL, NULL, NULL, 1), GENIE_ERR_INVALID_ARG, "conv2d", "conv2d NULLs");
    CHECK(genie_tuple_get(NULL, 0) == NULL && genie_tuple_size(NULL) == 0, "tuple NULL");
    genie_tuple_release(NULL);
    genie_release(NULL);
    genie_retain(NULL);
    genie_pool_pop(ctx); /* unbalanced: nothing happens */
    genie_scope_pop(ctx);
    genie_scope_push(ctx, NULL);
    genie_scope_pop(ctx);
    genie_set_phase(ctx, NULL);
    CHECK(genie_dump_dot(ctx, 1, &a, NULL) != GENIE_OK, "dump to NULL file");
    genie_clear_error(ctx);
    CHECK(genie_read(ctx, a, GENIE_F32, out, sizeof out) == GENIE_OK && out[2] == 1, "works on: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
}
/* Every public function with a NULL context, and with NULL tensors: no crash, NULL or an error. */
static void every_call(genie_ctx *c, genie_tensor *t, genie_tensor *u) {
    int64_t s[2] = {2, 2}, d = 0, one[2] = {1, 1}, zero[2] = {0, 0};
    float buf[4];
    double x;
    int64_t xi;
    const void *p;
    genie_tensor *ts[2];
    ts[0] = t;
    ts[1] = u;
    genie_set_num_threads(c, 1);
    (void)genie_cpu_path(c);
    (void)genie_status(c);
    (void)genie_last_error(c);
    genie_pool_push(c);
    genie_pool_pop(c);
    (void)genie_from_data(c, GENIE_F32, 2, s, buf);
    (void)genie_from_blob(c, GENIE_F32, 2, s, NULL, buf, NULL, NULL);
    (void)genie_empty(c, GENIE_F32, 2, s);
    (void)genie_zeros(c, GENIE_F32, 2, s);
    (void)genie_ones(c, GENIE_F32, 2, s);
    (void)genie_full(c, GENIE_F32, 2, s, 1);
    (void)genie_arange(c, GENIE_F32, 0, 4, 1);
    (void)genie_rand(c, GENIE_F32, 2, s, 1);
    (void)genie_randn(c, GENIE_F32, 2, s, 1);
    (void)genie_ndim(t); (void)genie_shape(t); (void)genie_strides(t); (void)genie_storage_offset(t);
    (void)genie_numel(t); (void)genie_dtype_of(t); (void)genie_is_contiguous(t); (void)genie_is_materialized(t);
    (void)genie_shares_storage(t, u);
    (void)genie_realize(c, 2, ts);
    (void)genie_read(c, t, GENIE_F32, buf, sizeof buf);
    (void)genie_item(c, t, &x);
    (void)genie_item_i64(c, t, &xi);
    (void)genie_data(c, t, &p);
    (void)genie_add(c, t, u); (void)genie_sub(c, t, u); (void)genie_mul(c, t, u); (void)genie_div(c, t, u);
    (void)genie_pow(c, t, u); (void)genie_maximum(c, t, u); (void)genie_eq(c, t, u); (void)genie_logical_or(c, t, u);
    (void)genie_add_scalar(c, t, 1); (void)genie_pow_scalar(c, t, 2);
    (void)genie_neg(c, t); (void)genie_exp(c, t); (void)genie_gelu(c, t); (void)genie_logical_not(c, t);
    (void)genie_where(c, t, t, u);
    (void)genie_clamp(c, t, 0, 1);
    (void)genie_sum(c, t, 1, &d, 0); (void)genie_mean(c, t, 0, NULL, 1); (void)genie_logsumexp(c, t, 1, &d, 0);
    (void)genie_argmax(c, t, 0, 0); (void)genie_argmin(c, t, GENIE_DIM_NONE, 0);
    (void)genie_var(c, t, 1, &d, 1, 0); (void)genie_std(c, t, 1, &d, 1, 0);
    (void)genie_softmax(c, t, 0); (void)genie_log_softmax(c, t, 0);
    (void)genie_layer_norm(c, t, 1, s, u, u, 1e-5);
    (void)genie_matmul(c, t, u); (void)genie_linear(c, t, u, u);
    (void)genie_conv2d(c, t, u, u, one, zero, one, 1);
    (void)genie_to_dtype(c, t, GENIE_F64); (void)genie_contiguous(c, t); (void)genie_clone(c, t);
    (void)genie_view(c, t, 2, s); (void)genie_reshape(c, t, 2, s); (void)genie_permute(c, t, 2, one);
    (void)genie_transpose(c, t, 0, 1); (void)genie_t(c, t); (void)genie_expand(c, t, 2, s);
    (void)genie_squeeze(c, t, 0); (void)genie_unsqueeze(c, t, 0); (void)genie_slice(c, t, 0, 0, 1, 1);
    (void)genie_select(c, t, 0, 0); (void)genie_narrow(c, t, 0, 0, 1); (void)genie_diagonal(c, t, 0, 0, 1);
    (void)genie_as_strided(c, t, 2, s, one, 0); (void)genie_flip(c, t, 1, &d);
    (void)genie_cat(c, 2, ts, 0); (void)genie_stack(c, 2, ts, 0);
    (void)genie_index_select(c, t, 0, u); (void)genie_gather(c, t, 0, u); (void)genie_embedding(c, t, u);
    (void)genie_masked_fill(c, t, u, 1); (void)genie_tril(c, t, 0); (void)genie_triu(c, t, 0);
    genie_tuple_release(genie_split(c, t, 1, 0)); genie_tuple_release(genie_chunk(c, t, 2, 0));
    genie_tuple_release(genie_unbind(c, t, 0)); genie_tuple_release(genie_topk(c, t, 1, 0, 1, 1));
    genie_tuple_release(genie_sort(c, t, 0, 0)); genie_tuple_release(genie_max_dim(c, t, 0, 0));
    genie_tuple_release(genie_min_dim(c, t, 0, 0));
    (void)genie_add_(c, t, u); (void)genie_sub_(c, t, u); (void)genie_mul_(c, t, u); (void)genie_div_(c, t, u);
    (void)genie_fill_(c, t, 1); (void)genie_zero_(c, t); (void)genie_copy_(c, t, u); (void)genie_relu_(c, t);
    (void)genie_masked_fill_(c, t, u, 1);
    genie_scope_push(c, "s");
    genie_scope_pop(c);
    genie_set_phase(c, "p");
    (void)genie_module_path(t); (void)genie_phase(t); (void)genie_op_name(t);
    (void)genie_dump_dot(c, 2, ts, stdout == NULL ? stdout : NULL);
    (void)genie_get_stats(c);
    genie_clear_error(c);
}
static void t_null_everywhere(genie_ctx *ctx) {
    int64_t s[2] = {2, 2};
    genie_tensor *a = genie_ones(ctx, GENIE_F32, 2, s);
    every_call(NULL, NULL, NULL);
    every_call(NULL, a, a);
    every_call(ctx, NULL, NULL);
    every_call(ctx, a, NULL);
    every_call(ctx, NULL, a);
    { /* dead handles and another context's handles everywhere */
        genie_ctx *other = genie_ctx_create(NULL);
        genie_tensor *dead, *foreign = genie_ones(other, GENIE_F32, 2, s);
        genie_pool_push(ctx);
        dead = genie_zeros(ctx, GENIE_F32, 2, s);
        genie_pool_pop(ctx);
        every_call(ctx, dead, a);
        every_call(ctx, a, dead);
        every_call(ctx, foreign, a);
        every_call(ctx, a, foreign);
        genie_ctx_destroy(other);
    }
    genie_ctx_destroy(NULL);
    CHECK(genie_status(NULL) != GENIE_OK && genie_last_error(NULL) != NULL, "NULL context status");
    CHECK(genie_numel(a) == 4, "a lives on");
}
/* A thread count nobody can have: capped, and the products still right. */
static void t_threads_huge(genie_ctx *ctx) {
    int64_t s[2] = {96, 96};
    float out[4];
    genie_tensor *a, *m;
    CHECK(genie_set_num_threads(ctx, 0x7fffffff) == GENIE_OK, "set_num_threads(INT_MAX)");
    a = genie_ones(ctx, GENIE_F32, 2, s);
    m = genie_narrow(ctx, genie_view(ctx, genie_matmul(ctx, a, a), 1, (int64_t[]){96 * 96}), 0, 96 * 96 - 4, 4);
    CHECK(genie_read(ctx, m, GENIE_F32, out, sizeof out) == GENIE_OK && out[3] == 96.0f, "matmul on many threads: %s",
          genie_last_error(ctx));
    genie_clear_error(ctx);
    genie_set_num_threads(ctx, 1);
}
/* Dims and indices: negative, out of range, extreme. */
static void t_dims(genie_ctx *ctx) {
    int64_t s[2] = {2, 3}, bad = INT64_MIN, idx[2] = {0, 5};
    genie_tensor *a = genie_ones(ctx, GENIE_F32, 2, s), *i5 = genie_from_data(ctx, GENIE_I64, 1, &s[0], idx), *r;
    expect_err(ctx, genie_sum(ctx, a, 1, &bad, 0), GENIE_ERR_INDEX, "sum", "sum dim MIN");
    expect_err(ctx, genie_softmax(ctx, a, INT64_MAX), GENIE_ERR_INDEX, "softmax", "softmax dim MAX");
    expect_err(ctx, genie_transpose(ctx, a, 0, INT64_MIN), GENIE_ERR_INDEX, "transpose", "transpose MIN");
    expect_err(ctx, genie_unsqueeze(ctx, a, INT64_MIN), GENIE_ERR_INDEX, "unsqueeze", "unsqueeze MIN");
    expect_err(ctx, genie_argmax(ctx, a, INT64_MIN + 1, 0), GENIE_ERR_INDEX, "argmax", "argmax MIN+1");
    expect_err(ctx, genie_flip(ctx, a, 1, &bad), GENIE_ERR_INDEX, "flip", "flip MIN");
    expect_err(ctx, genie_topk(ctx, a, INT64_MAX, 1, 1, 1), GENIE_ERR_INDEX, "topk", "topk k MAX");
    expect_err(ctx, genie_topk(ctx, a, -1, 1, 1, 1), GENIE_ERR_INDEX, "topk", "topk k -1");
    r = genie_index_select(ctx, a, 1, i5); /* index 5 of 3: data-dependent, at realize */
    CHECK(r == NULL || genie_realize(ctx, 1, &r) == GENIE_ERR_INDEX, "index_select out of range: %s",
          genie_last_error(ctx));
    genie_clear_error(ctx);
    r = genie_embedding(ctx, a, genie_from_data(ctx, GENIE_I64, 1, (int64_t[]){1}, (int64_t[]){INT64_MIN}));
    CHECK(r == NULL || genie_realize(ctx, 1, &r) == GENIE_ERR_INDEX, "embedding INT64_MIN: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    expect_err(ctx, genie_zeros(ctx, GENIE_F32, -1, s), GENIE_ERR_INVALID_ARG, "genie_zeros", "ndim -1");
    expect_err(ctx, genie_zeros(ctx, GENIE_F32, 9, s), GENIE_ERR_INVALID_ARG, "genie_zeros", "ndim 9");
    expect_err(ctx, genie_zeros(ctx, (genie_dtype)77, 1, s), GENIE_ERR_DTYPE, "genie_zeros", "dtype 77");
    expect_err(ctx, genie_zeros(ctx, GENIE_F32, 1, &bad), GENIE_ERR_SHAPE, "genie_zeros", "negative size");
    expect_err(ctx, genie_view(ctx, a, 2, (int64_t[]){-1, -1}), GENIE_ERR_SHAPE, "view", "view -1 -1");
    expect_err(ctx, genie_view(ctx, a, 1, &bad), GENIE_ERR_SHAPE, "view", "view MIN");
    expect_err(ctx, genie_arange(ctx, GENIE_F32, 0, 1e300, 1e-300), GENIE_ERR_OVERFLOW, "arange", "arange huge");
}

/* ---- six defects an outside differential fuzzer found (reference vs fast paths) ---- */
/* A context on path cpu with nth threads (NULL where this CPU does not run the path). */
static genie_ctx *path_ctx(genie_cpu cpu, int nth) {
    genie_ctx_desc d;
    if (!genie_cpu_supported(cpu)) return NULL;
    memset(&d, 0, sizeof d);
    d.cpu = cpu;
    d.n_threads = nth;
    return genie_ctx_create(&d);
}
/* conv2d of an empty kernel (kW = 0) over 2^32 channels: every element is an empty sum
   (it looped over the channels for each output element). */
static void t_conv_empty_kernel_huge_channels(genie_ctx *ctx) {
    int64_t s[4] = {2, P32, 1, 0}, st[2] = {1, 1}, pad[2] = {1, 1}, dil[2] = {1, 1};
    genie_tensor *x = genie_zeros(ctx, GENIE_F32, 4, s), *w = genie_ones(ctx, GENIE_F32, 4, s), *y;
    float out[36];
    int cpu, i;
    y = genie_conv2d(ctx, x, w, NULL, st, pad, dil, 1);
    CHECK(y && genie_ndim(y) == 4 && genie_shape(y)[1] == 2 && genie_shape(y)[2] == 3 && genie_shape(y)[3] == 3,
          "conv2d [2,2^32,1,0] * [2,2^32,1,0], padding 1: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    for (cpu = GENIE_CPU_REFERENCE; cpu < GENIE_CPU_COUNT; cpu++) {
        genie_ctx *c = path_ctx((genie_cpu)cpu, 2);
        if (!c) continue;
        x = genie_zeros(c, GENIE_F32, 4, s), w = genie_ones(c, GENIE_F32, 4, s);
        y = genie_conv2d(c, x, w, NULL, st, pad, dil, 1);
        CHECK(y && genie_read(c, y, GENIE_F32, out, sizeof out) == GENIE_OK, "%s: read: %s", genie_cpu_name((genie_cpu)cpu),
              genie_last_error(c));
        for (i = 0; i < 36 && y; i++) CHECK(out[i] == 0, "%s: element %d is %g, not an empty sum", genie_cpu_name((genie_cpu)cpu), i, out[i]);
        genie_ctx_destroy(c);
    }
}
/* In-place read-modify-writes through views that are neither dense nor expanded: decided
   from the strides at capture, with no allocation per element (a step-2 slice of a
   [16384, 16384] tensor sorted 2^27 offsets; a 2^36-element window asked for 512 GiB). */
static void t_self_overlap_from_strides(genie_ctx *ctx) {
    int64_t big[2] = {16384, 16384}, n = (int64_t)1 << 37;
    genie_tensor *a = genie_zeros(ctx, GENIE_F32, 2, big), *s, *u, *v, *r;
    float out[9];
    s = genie_slice(ctx, a, 1, 0, 16384, 2);
    r = genie_add_(ctx, s, genie_ones(ctx, GENIE_F32, 0, NULL));
    CHECK(r != NULL, "add_ into a step-2 slice of [16384, 16384]: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    u = genie_zeros(ctx, GENIE_U8, 1, &n); /* lazy: never allocated */
    v = genie_as_strided(ctx, u, 2, (int64_t[]){(int64_t)1 << 18, (int64_t)1 << 18}, (int64_t[]){(int64_t)1 << 19, 2}, 0);
    r = genie_add_(ctx, v, genie_ones(ctx, GENIE_U8, 0, NULL));
    CHECK(r != NULL, "add_ into a disjoint 2^36-element window: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    v = genie_as_strided(ctx, u, 2, (int64_t[]){(int64_t)1 << 18, (int64_t)1 << 18}, (int64_t[]){3, 2}, 0); /* overlaps; too big to sort */
    expect_err(ctx, genie_mul_(ctx, v, v), GENIE_ERR_UNSUPPORTED, "mul_", "mul_ into an undecidable 2^36-element window");
    /* [3, 3] with strides [2, 3]: the strides alone do not decide; the offsets 0..10 are distinct */
    u = genie_arange(ctx, GENIE_F32, 0, 11, 1);
    v = genie_as_strided(ctx, u, 2, (int64_t[]){3, 3}, (int64_t[]){2, 3}, 0);
    r = genie_add_(ctx, v, genie_ones(ctx, GENIE_F32, 0, NULL));
    CHECK(r && genie_read(ctx, v, GENIE_F32, out, sizeof out) == GENIE_OK && out[0] == 1 && out[1] == 4 && out[8] == 11,
          "add_ into [3,3] strides [2,3]: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    v = genie_as_strided(ctx, u, 2, (int64_t[]){3, 3}, (int64_t[]){1, 2}, 0); /* 2 = 0*1 + 1*2 = 2*1 + 0*2 */
    expect_err(ctx, genie_sub_(ctx, v, genie_ones(ctx, GENIE_F32, 0, NULL)), GENIE_ERR_UNSUPPORTED, "sub_",
               "sub_ into [3,3] strides [1,2]");
}
/* genie_safetensors_save and genie_role with a dead handle: liveness is checked before the
   handle's context is read (under ASan the slot is poisoned). */
static void t_dead_handle_save_role(genie_ctx *ctx) {
    int64_t s = 4;
    const char *name = "a";
    genie_tensor *a;
    genie_pool_push(ctx);
    a = genie_ones(ctx, GENIE_F32, 1, &s);
    genie_pool_pop(ctx);
    CHECK(genie_safetensors_save(ctx, "build/robust_dead.safetensors", 1, &name, &a) == GENIE_ERR_INVALID_ARG,
          "save of a dead handle");
    CHECK(strstr(genie_last_error(ctx), "genie_safetensors_save") != NULL && strstr(genie_last_error(ctx), "dead") != NULL,
          "message: %s", genie_last_error(ctx));
    genie_clear_error(ctx);
    CHECK(strcmp(genie_role(a), "") == 0, "role of a dead handle");
    CHECK(strcmp(genie_op_name(a), "") == 0 && strcmp(genie_module_path(a), "") == 0, "op and module of a dead handle");
}
/* r = x * 2 and y = r + scatter(...) with an index out of range run as one fused group on the
   fast paths: y fails, r (which does not depend on the scatter) is computed, on every path. */
static void t_group_failure_spares_independent_values(genie_ctx *ctx) {
    int cpu, th;
    (void)ctx;
    for (cpu = GENIE_CPU_REFERENCE; cpu < GENIE_CPU_COUNT; cpu++)
        for (th = 1; th <= 2; th++) {
            genie_ctx *c = path_ctx((genie_cpu)cpu, th);
            float xv[4] = {1, -2, 3, -4}, one = 1, out[4];
            long long idx = 1;
            int64_t s4 = 4, s1 = 1;
            genie_tensor *x, *r, *s, *y;
            if (!c) continue;
            x = genie_from_blob(c, GENIE_F32, 1, &s4, NULL, xv, NULL, NULL);
            r = genie_mul_scalar(c, x, 2);
            s = genie_scatter(c, genie_zeros(c, GENIE_F32, 1, &s1), 0, genie_from_blob(c, GENIE_I64, 1, &s1, NULL, &idx, NULL, NULL),
                              genie_from_blob(c, GENIE_F32, 1, &s1, NULL, &one, NULL, NULL));
            y = genie_add(c, r, s);
            CHECK(genie_read(c, y, GENIE_F32, out, sizeof out) == GENIE_ERR_INDEX, "%s/%d: y should fail", genie_cpu_name((genie_cpu)cpu), th);
            genie_clear_error(c);
            CHECK(genie_read(c, r, GENIE_F32, out, sizeof out) == GENIE_OK && out[0] == 2 && out[1] == -4 && out[2] == 6 && out[3] == -8,
                  "%s/%d: r = x * 2 lost: %s", genie_cpu_name((genie_cpu)cpu), th, genie_last_error(c));
            genie_clear_error(c);
            CHECK(genie_read(c, y, GENIE_F32, out, sizeof out) == GENIE_ERR_INDEX, "%s/%d: y stays failed", genie_cpu_name((genie_cpu)cpu), th);
            genie_ctx_destroy(c);
        }
}
/* Pure writes through a view whose elements share memory (ATen's TOO_HARD): copy_ and
   masked_fill_ take the last writer in row-major order on every path and thread count;
   index_copy_, whose kernels write in different orders, is refused. */
static void t_overlapping_pure_writes(genie_ctx *ctx) {
    enum { R = 64, C = 20000 };
    static float ref[2][R + C], out[R + C];
    int64_t n = R + C, sh[2] = {R, C}, st[2] = {1, 1}, s9 = 9, s4 = 4, s24[2] = {2, 4};
    long long idx[4] = {0, 1, 2, 3};
    float src[8] = {10, 11, 12, 13, 20, 21, 22, 23};
    int cpu, th, kind, i, bad;
    genie_tensor *t = genie_zeros(ctx, GENIE_F32, 1, &s9), *v;
    v = genie_as_strided(ctx, t, 2, s24, (int64_t[]){1, 1}, 3);
    expect_err(ctx, genie_index_copy_(ctx, v, 1, genie_from_blob(ctx, GENIE_I64, 1, &s4, NULL, idx, NULL, NULL),
                                      genie_from_blob(ctx, GENIE_F32, 2, s24, NULL, src, NULL, NULL)),
               GENIE_ERR_UNSUPPORTED, "index_copy_", "index_copy_ into elements sharing memory");
    for (kind = 0; kind < 2; kind++)
        for (cpu = GENIE_CPU_REFERENCE; cpu < GENIE_CPU_COUNT; cpu++)
            for (th = 1; th <= 2; th++) {
                genie_ctx *c = path_ctx((genie_cpu)cpu, th);
                genie_tensor *a, *w, *x;
                if (!c) continue;
                a = genie_zeros(c, GENIE_F32, 1, &n);
                w = genie_as_strided(c, a, 2, sh, st, 0);
                x = genie_reshape(c, genie_arange(c, GENIE_F32, 0, (double)R * C, 1), 2, sh);
                if (kind == 0) genie_copy_(c, w, x);
                else genie_masked_fill_(c, w, genie_gt(c, genie_sin(c, x), genie_zeros(c, GENIE_F32, 0, NULL)), 5);
                CHECK(genie_read(c, a, GENIE_F32, cpu == GENIE_CPU_REFERENCE && th == 1 ? ref[kind] : out, sizeof out) == GENIE_OK,
                      "%s: %s", kind ? "masked_fill_" : "copy_", genie_last_error(c));
                if (cpu != GENIE_CPU_REFERENCE || th != 1) {
                    for (i = 0, bad = 0; i < R + C; i++) bad += ref[kind][i] != out[i];
                    CHECK(bad == 0, "%s through an overlapping view on %s with %d threads: %d elements differ from the reference",
                          kind ? "masked_fill_" : "copy_", genie_cpu_name((genie_cpu)cpu), th, bad);
                } else {
                    CHECK(kind || (ref[0][R + C - 2] == (float)R * C - 1 && ref[0][R] == (float)C * (R - 1) + 1),
                          "copy_: the last row-major writer wins: %g %g", ref[0][R + C - 2], ref[0][R]);
                }
                genie_ctx_destroy(c);
            }
}
/* A bool byte other than 0 or 1 (undefined in PyTorch): copied in as 1 by genie_from_data
   (a clone gave 1 on the reference kernels and the byte itself on the fast ones), refused by
   genie_from_blob, made 1 by a safetensors load. */
static void t_bool_bytes_other_than_0_or_1(genie_ctx *ctx) {
    uint8_t in[5] = {0, 11, 1, 255, 2}, out[5];
    int64_t s5 = 5, s3 = 3;
    int cpu, th, i;
    const char *name = "m";
    genie_safetensors *st;
    for (cpu = GENIE_CPU_REFERENCE; cpu < GENIE_CPU_COUNT; cpu++)
        for (th = 1; th <= 2; th++) {
            genie_ctx *c = path_ctx((genie_cpu)cpu, th);
            genie_tensor *b, *y;
            if (!c) continue;
            b = genie_from_data(c, GENIE_BOOL, 1, &s5, in);
            y = genie_cat(c, 2, (genie_tensor *const[]){genie_contiguous(c, genie_flip(c, b, 1, (int64_t[]){0})), genie_clone(c, b)}, 0);
            CHECK(genie_read(c, genie_slice(c, y, 0, 5, 10, 1), GENIE_BOOL, out, sizeof out) == GENIE_OK, "%s", genie_last_error(c));
            for (i = 0; i < 5; i++) CHECK(out[i] == (in[i] != 0), "%s/%d: element %d is %d", genie_cpu_name((genie_cpu)cpu), th, i, out[i]);
            CHECK(genie_read(c, genie_slice(c, y, 0, 0, 5, 1), GENIE_BOOL, out, sizeof out) == GENIE_OK, "%s", genie_last_error(c));
            for (i = 0; i < 5; i++) CHECK(out[i] == (in[4 - i] != 0), "%s/%d: flipped %d is %d", genie_cpu_name((genie_cpu)cpu), th, i, out[i]);
            genie_ctx_destroy(c);
        }
    expect_err(ctx, genie_from_blob(ctx, GENIE_BOOL, 1, &s5, NULL, in, NULL, NULL), GENIE_ERR_INVALID_ARG, "from_blob", "bool byte 11");
    CHECK(genie_from_blob(ctx, GENIE_BOOL, 1, &s3, (int64_t[]){2}, (uint8_t[]){1, 7, 0, 7, 1}, NULL, NULL) == NULL,
          "from_blob checks the bytes its strides span");
    genie_clear_error(ctx);
    {   /* a file's bool bytes: written raw by hand, loaded as 0 and 1 */
        static const char hdr[] = "{\"m\":{\"dtype\":\"BOOL\",\"shape\":[5],\"data_offsets\":[0,5]}}";
        uint64_t hl = sizeof hdr - 1;
        FILE *f = fopen("build/robust_bool.safetensors", "wb");
        genie_tensor *m;
        CHECK(f != NULL, "cannot write build/robust_bool.safetensors");
        if (!f) return;
        fwrite(&hl, 8, 1, f); fwrite(hdr, 1, (size_t)hl, f); fwrite(in, 1, 5, f);
        fclose(f);
        st = NULL;
        genie_safetensors_open(ctx, "build/robust_bool.safetensors", &st);
        m = st ? genie_safetensors_get(st, name) : NULL;
        CHECK(m && genie_read(ctx, genie_clone(ctx, m), GENIE_BOOL, out, sizeof out) == GENIE_OK, "%s", genie_last_error(ctx));
        for (i = 0; i < 5 && m; i++) CHECK(out[i] == (in[i] != 0), "safetensors bool element %d is %d", i, out[i]);
        if (st) genie_safetensors_close(st);
        genie_clear_error(ctx);
    }
}
/* Attention scores that are not finite as f32: a score overflowing f32, or a float mask of
   +inf, makes its row NaN on every path (exp(inf - inf), PyTorch's math backend); a row whose
   every score is -inf is 0 everywhere; a scale that is not finite is refused; E = 0 with the
   default scale: every score is 0, the row is the mean of v. */
static void t_attention_scores_not_finite(genie_ctx *ctx) {
    int cpu, th, d;
    int64_t s14[3] = {1, 1, 2}, s24[3] = {1, 2, 2}, s0[3] = {1, 2, 0}, m24[3] = {1, 1, 2};
    float q[2] = {1e20f, 3}, k[4] = {1e20f, 3, 1, 1}, v[4] = {1, 2, 3, 4}, out[4];
    float mask[2] = {INFINITY, 0}, neg[2] = {-INFINITY, -INFINITY};
    genie_tensor *x = genie_from_blob(ctx, GENIE_F32, 3, s14, NULL, q, NULL, NULL);
    expect_err(ctx, genie_scaled_dot_product_attention(ctx, x, x, x, NULL, 0, INFINITY), GENIE_ERR_INVALID_ARG, "scaled_dot_product_attention",
               "an infinite scale");
    expect_err(ctx, genie_scaled_dot_product_attention(ctx, x, x, x, NULL, 0, -INFINITY), GENIE_ERR_INVALID_ARG, "scaled_dot_product_attention",
               "a -inf scale");
    for (d = 0; d < 3; d++) /* f32, bf16, f16 */
        for (cpu = GENIE_CPU_REFERENCE; cpu < GENIE_CPU_COUNT; cpu++)
            for (th = 1; th <= 2; th++) {
                genie_ctx *c = path_ctx((genie_cpu)cpu, th);
                genie_dtype dt = d == 0 ? GENIE_F32 : d == 1 ? GENIE_BF16 : GENIE_F16;
                genie_tensor *Q, *K, *V, *M, *y;
                const char *p = genie_cpu_name((genie_cpu)cpu);
                if (!c) continue;
                Q = genie_to_dtype(c, genie_from_blob(c, GENIE_F32, 3, s14, NULL, q, NULL, NULL), dt);
                K = genie_to_dtype(c, genie_from_blob(c, GENIE_F32, 3, s24, NULL, k, NULL, NULL), dt);
                V = genie_to_dtype(c, genie_from_blob(c, GENIE_F32, 3, s24, NULL, v, NULL, NULL), dt);
                if (d != 2) { /* 1e20 is beyond f16 */
                    y = genie_to_dtype(c, genie_scaled_dot_product_attention(c, Q, K, V, NULL, 0, NAN), GENIE_F32);
                    CHECK(genie_read(c, y, GENIE_F32, out, 2 * sizeof(float)) == GENIE_OK, "%s", genie_last_error(c));
                    CHECK(out[0] != out[0] && out[1] != out[1], "%s/%d dtype %d: a score overflowing f32: %g %g, not NaN", p, th, d, out[0], out[1]);
                }
                Q = genie_to_dtype(c, genie_ones(c, GENIE_F32, 3, s14), dt);
                M = genie_from_blob(c, GENIE_F32, 3, m24, NULL, mask, NULL, NULL);
                y = genie_to_dtype(c, genie_scaled_dot_product_attention(c, Q, genie_ones(c, dt, 3, s24), V, M, 0, NAN), GENIE_F32);
                CHECK(genie_read(c, y, GENIE_F32, out, 2 * sizeof(float)) == GENIE_OK, "%s", genie_last_error(c));
                CHECK(out[0] != out[0] && out[1] != out[1], "%s/%d dtype %d: a +inf mask: %g %g, not NaN", p, th, d, out[0], out[1]);
                M = genie_from_blob(c, GENIE_F32, 3, m24, NULL, neg, NULL, NULL);
                y = genie_to_dtype(c, genie_scaled_dot_product_attention(c, Q, genie_ones(c, dt, 3, s24), V, M, 0, NAN), GENIE_F32);
                CHECK(genie_read(c, y, GENIE_F32, out, 2 * sizeof(float)) == GENIE_OK && out[0] == 0 && out[1] == 0,
                      "%s/%d dtype %d: every score -inf: %g %g, not 0", p, th, d, out[0], out[1]);
                y = genie_to_dtype(c, genie_scaled_dot_product_attention(c, genie_zeros(c, dt, 3, (int64_t[]){1, 1, 0}), genie_zeros(c, dt, 3, s0),
                                                                         V, NULL, 0, NAN), GENIE_F32);
                CHECK(genie_read(c, y, GENIE_F32, out, 2 * sizeof(float)) == GENIE_OK && out[0] == 2 && out[1] == 3,
                      "%s/%d dtype %d: E = 0: %g %g, not the mean of v (2 3): %s", p, th, d, out[0], out[1], genie_last_error(c));
                genie_ctx_destroy(c);
            }
}
typedef struct { const char *name; void (*fn)(genie_ctx *); } tcase;
static const tcase cases[] = {
    {"chunk_split_huge", t_chunk_split_huge},
    {"zeros_empty_huge_strides", t_zeros_empty_huge_strides},
    {"broadcast_numel_overflow", t_broadcast_numel_overflow},
    {"byte_count_overflow", t_byte_count_overflow},
    {"cat_overflow", t_cat_overflow},
    {"slice_step_max", t_slice_step_max},
    {"from_blob_strides", t_from_blob_strides},
    {"from_blob_null_empty", t_from_blob_null_empty},
    {"conv_padding_huge", t_conv_padding_huge},
    {"self_overlap_check_huge", t_self_overlap_check_huge},
    {"fuzz_empty_blob_huge_strides", t_fuzz_empty_blob_huge_strides},
    {"fuzz_view_empty_huge", t_fuzz_view_empty_huge},
    {"fuzz_gather_huge_index", t_fuzz_gather_huge_index},
    {"fuzz_self_overlap_huge_stride", t_fuzz_self_overlap_huge_stride},
    {"as_strided_huge", t_as_strided_huge},
    {"empty_kernels_do_not_loop", t_empty_kernels_do_not_loop},
    {"dead_handles", t_dead_handles},
    {"dead_tuples", t_dead_tuples},
    {"nulls", t_nulls},
    {"null_everywhere", t_null_everywhere},
    {"threads_huge", t_threads_huge},
    {"dims", t_dims},
    {"conv_empty_kernel_huge_channels", t_conv_empty_kernel_huge_channels},
    {"self_overlap_from_strides", t_self_overlap_from_strides},
    {"dead_handle_save_role", t_dead_handle_save_role},
    {"group_failure_spares_independent_values", t_group_failure_spares_independent_values},
    {"overlapping_pure_writes", t_overlapping_pure_writes},
    {"bool_bytes_other_than_0_or_1", t_bool_bytes_other_than_0_or_1},
    {"attention_scores_not_finite", t_attention_scores_not_finite},
};

int main(int argc, char **argv) {
    size_t i;
    int ran = 0;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        genie_ctx *ctx;
        int before = failures;
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0) continue;
        ctx = genie_ctx_create(NULL);
        cases[i].fn(ctx);
        CHECK(genie_status(ctx) == GENIE_OK, "%s left an error: %s", cases[i].name, genie_last_error(ctx));
        genie_ctx_destroy(ctx);
        if (failures != before) printf("  case %s: %d failures\n", cases[i].name, failures - before);
        ran++;
    }
    printf("test_robust: %d cases, %d checks, %d failed\n", ran, checks, failures);
    return failures != 0;
}
