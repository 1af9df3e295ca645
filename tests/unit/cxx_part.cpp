// cxx_part.cpp - genie.h used from C++ (a separate translation unit).
#include "../../genie.h"
#include <vector>

extern "C" int cxx_smoke(void);
int cxx_smoke(void) {
    genie_ctx *ctx = genie_ctx_create(nullptr);
    std::vector<float> v = {1, 2, 3, 4, 5, 6};
    int64_t shape[2] = {2, 3};
    genie_tensor *a = genie_from_data(ctx, GENIE_F32, 2, shape, v.data());
    genie_tensor *b = genie_matmul(ctx, a, genie_t(ctx, a));
    float out[4] = {0, 0, 0, 0};
    int bad = genie_read(ctx, b, GENIE_F32, out, sizeof out) != GENIE_OK || out[0] != 14 || out[3] != 77;
    genie_ctx_destroy(ctx);
    return bad;
}
