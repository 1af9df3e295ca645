/* tests/unit/testctx.h - a context on CPU path cpu with `threads` threads (0: the default), for
   genie's tests and benches that run one computation on several paths. Include after genie.h. */
#ifndef GENIE_TESTCTX_H
#define GENIE_TESTCTX_H
#include <string.h>
static inline genie_ctx *test_ctx(genie_cpu cpu, int threads) {
    genie_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.cpu = cpu;
    d.n_threads = threads;
    return genie_ctx_create(&d);
}
#endif
