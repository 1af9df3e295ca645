/* test_threads.c - independent contexts used from different threads at once. TT_THREADS
   threads each create their own context with a pool of 2 kernel threads and run TT_ROUNDS
   programs big enough that every kernel family shares its work between the pool's threads: a
   product with a bias and GELU epilogue (4 M multiply-adds), a fused elementwise group and a
   row softmax over 65,536 elements, a row reduction, an in-place write through a view. The
   main thread then builds each program again in one context on GENIE_CPU_REFERENCE (one
   thread, every node on its reference kernel) and compares. Linked into test_main and into
   tests/programs/smoke.c, the driver `make matrix` builds with each compiler (and ThreadSanitizer). */
#include "../../genie.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <pthread.h>
#endif

#define TT_THREADS 3
#define TT_ROUNDS 2
#define TT_R 256 /* rows of every [R, C] result */
#define TT_C 256
#define TT_K 64  /* the product's depth */

typedef struct tt_out {
    float *soft, *sums, *z; /* [R, C], [R], [R, C] */
    genie_result status;
    char err[256];
} tt_out;

/* One program from seed into o: returns 0, or -1 if a result could not be allocated. */
static int tt_program(genie_ctx *c, uint64_t seed, tt_out *o) {
    int64_t sx[2] = {TT_R, TT_K}, sw[2] = {TT_C, TT_K}, sb = TT_C, dim1 = 1;
    genie_tensor *x, *w, *b, *y, *z, *soft, *sums, *win;
    size_t rc = sizeof(float) * TT_R * TT_C;
    if (!(o->soft = (float *)malloc(rc)) || !(o->z = (float *)malloc(rc)) || !(o->sums = (float *)malloc(sizeof(float) * TT_R)))
        return -1;
    genie_pool_push(c);
    x = genie_randn(c, GENIE_F32, 2, sx, seed);
    w = genie_randn(c, GENIE_F32, 2, sw, seed + 1);
    b = genie_randn(c, GENIE_F32, 1, &sb, seed + 2);
    y = genie_gelu(c, genie_linear(c, x, w, b));                                /* product + epilogue */
    z = genie_add(c, genie_mul(c, y, y), genie_mul_scalar(c, genie_tanh(c, y), 0.5)); /* a fused group */
    soft = genie_softmax(c, z, -1);                                             /* row kernel */
    sums = genie_sum(c, z, 1, &dim1, 0);                                        /* reduction */
    win = genie_narrow(c, genie_t(c, z), 0, 3, 100);                            /* a strided view of z */
    genie_add_(c, win, genie_ones(c, GENIE_F32, genie_ndim(win), genie_shape(win)));
    genie_read(c, soft, GENIE_F32, o->soft, rc);
    genie_read(c, sums, GENIE_F32, o->sums, sizeof(float) * TT_R);
    genie_read(c, z, GENIE_F32, o->z, rc);
    o->status = genie_status(c);
    snprintf(o->err, sizeof o->err, "%s", genie_last_error(c));
    genie_pool_pop(c);
    return 0;
}

typedef struct tt_job {
    int id;
    tt_out out[TT_ROUNDS];
    int oom;
} tt_job;

static void tt_run(tt_job *j) {
    genie_ctx_desc d;
    genie_ctx *c;
    int r;
    memset(&d, 0, sizeof d);
    d.n_threads = 2;
    if (!(c = genie_ctx_create(&d))) { j->oom = 1; return; }
    for (r = 0; r < TT_ROUNDS; r++)
        if (tt_program(c, 1000u * (uint64_t)(j->id + 1) + (uint64_t)r * 10u, &j->out[r]) != 0) j->oom = 1;
    genie_ctx_destroy(c);
}

#ifdef _WIN32
typedef HANDLE tt_thread;
static DWORD WINAPI tt_entry(LPVOID p) { tt_run((tt_job *)p); return 0; }
static int tt_start(tt_thread *t, tt_job *j) { return (*t = CreateThread(NULL, 0, tt_entry, j, 0, NULL)) != NULL; }
static void tt_join(tt_thread t) { WaitForSingleObject(t, INFINITE); CloseHandle(t); }
#else
typedef pthread_t tt_thread;
static void *tt_entry(void *p) { tt_run((tt_job *)p); return NULL; }
static int tt_start(tt_thread *t, tt_job *j) { return pthread_create(t, NULL, tt_entry, j) == 0; }
static void tt_join(tt_thread t) { pthread_join(t, NULL); }
#endif

/* Elements of got beyond want's tolerance (f32 products of depth 64 against the reference). */
static int64_t tt_bad(const float *got, const float *want, int64_t n, const char *what, int id, int round) {
    int64_t i, bad = 0;
    for (i = 0; i < n; i++) {
        double g = got[i], e = want[i];
        if (!(fabs(g - e) <= 1e-4 * (1.0 + fabs(e)))) {
            if (bad++ == 0) printf("FAIL test_threads: thread %d round %d %s[%lld]: got %.9g, reference %.9g\n", id, round,
                                   what, (long long)i, g, e);
        }
    }
    return bad;
}

static void tt_free(tt_out *o) { free(o->soft); free(o->sums); free(o->z); }

void threads_tests(int *passed, int *failed) {
    static tt_job jobs[TT_THREADS];
    tt_thread th[TT_THREADS];
    int started[TT_THREADS], i, r;
    genie_ctx_desc d;
    genie_ctx *ref;
    memset(jobs, 0, sizeof jobs);
    for (i = 0; i < TT_THREADS; i++) {
        jobs[i].id = i;
        started[i] = tt_start(&th[i], &jobs[i]);
        if (!started[i]) { printf("FAIL test_threads: cannot start thread %d\n", i); (*failed)++; }
    }
    for (i = 0; i < TT_THREADS; i++)
        if (started[i]) tt_join(th[i]);
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    d.cpu = GENIE_CPU_REFERENCE;
    ref = genie_ctx_create(&d);
    for (i = 0; i < TT_THREADS; i++) {
        if (!started[i]) continue;
        for (r = 0; r < TT_ROUNDS; r++) {
            tt_out want, *got = &jobs[i].out[r];
            int64_t bad;
            memset(&want, 0, sizeof want);
            if (jobs[i].oom || !ref || tt_program(ref, 1000u * (uint64_t)(i + 1) + (uint64_t)r * 10u, &want) != 0) {
                printf("FAIL test_threads: out of memory\n");
                (*failed)++;
            } else if (got->status != GENIE_OK || want.status != GENIE_OK) {
                printf("FAIL test_threads: thread %d round %d: %s / reference: %s\n", i, r, got->err, want.err);
                (*failed)++;
            } else {
                bad = tt_bad(got->soft, want.soft, TT_R * TT_C, "softmax", i, r) +
                      tt_bad(got->sums, want.sums, TT_R, "row sums", i, r) +
                      tt_bad(got->z, want.z, TT_R * TT_C, "z after add_", i, r);
                if (bad) (*failed)++;
                else (*passed)++;
            }
            tt_free(&want);
            tt_free(got);
        }
    }
    genie_ctx_destroy(ref);
    printf("  independent contexts on %d threads at once (2 kernel threads each): %d programs checked\n", TT_THREADS,
           TT_THREADS * TT_ROUNDS);
}
