/* 02_views.c - views share storage and report PyTorch's strides; an in-place
   write through one view is seen by every alias; values captured before it
   keep the old numbers. Expected strides are what PyTorch 1.13 prints. */
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include <string.h>

static int same(const int64_t *a, const int64_t *b, int n) { return memcmp(a, b, (size_t)n * 8) == 0; }

int main(void) {
    genie_ctx *ctx = genie_ctx_create(NULL);
    int64_t s43[2] = {4, 3}, s26[2] = {2, 6};
    genie_tensor *a = genie_view(ctx, genie_arange(ctx, GENIE_F32, 0, 12, 1), 2, s43); /* [4,3] */
    genie_tensor *at = genie_t(ctx, a);                                                /* [3,4] strides (1,3) */
    genie_tensor *sum = genie_add_scalar(ctx, at, 1);        /* TensorIterator keeps the layout: (1,3) */
    genie_tensor *col = genie_select(ctx, a, 1, 2);          /* [4] stride (3,), offset 2 */
    genie_tensor *r = genie_reshape(ctx, at, 2, s26);        /* not viewable: a copy */
    genie_tensor *before = genie_clone(ctx, a);
    float out[12];
    int ok = 1;

    ok &= same(genie_strides(at), (int64_t[]){1, 3}, 2);
    ok &= same(genie_strides(sum), (int64_t[]){1, 3}, 2);
    ok &= genie_strides(col)[0] == 3 && genie_storage_offset(col) == 2;
    ok &= genie_shares_storage(col, a) && !genie_shares_storage(r, a) && genie_is_contiguous(r);
    printf("a.t() strides (%lld,%lld); (a.t()+1) strides (%lld,%lld); a[:,2] stride %lld offset %lld\n",
           (long long)genie_strides(at)[0], (long long)genie_strides(at)[1], (long long)genie_strides(sum)[0],
           (long long)genie_strides(sum)[1], (long long)genie_strides(col)[0], (long long)genie_storage_offset(col));

    genie_fill_(ctx, col, -1); /* a[:, 2] = -1: a new version of the storage */
    genie_read(ctx, at, GENIE_F32, out, sizeof out);
    ok &= out[8] == -1 && out[11] == -1 && out[0] == 0; /* row 2 of a.t() is column 2 of a */
    genie_read(ctx, before, GENIE_F32, out, sizeof out);
    ok &= out[2] == 2 && out[11] == 11; /* captured before the write */
    genie_read(ctx, sum, GENIE_F32, out, sizeof out);
    ok &= out[8] == 3; /* also captured before: a.t()[2][0] + 1 = 2 + 1 */

    /* a view that PyTorch cannot express is an error, as there */
    ok &= genie_view(ctx, at, 1, (int64_t[]){12}) == NULL && genie_status(ctx) == GENIE_ERR_VIEW;
    printf("view of a.t() as [12]: %s\n", genie_last_error(ctx));
    genie_ctx_destroy(ctx);
    printf("%s\n", ok ? "ok" : "FAILED");
    return !ok;
}
