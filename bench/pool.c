/* bench/pool.c - the thread pool's cost per job (>>threads: genie__tpool_run) beside the same
   work on the caller alone. A job of w microseconds of arithmetic is cut into nth shares;
   each row times many jobs in a row, the caller first spending `gap` microseconds alone
   between two jobs (a tape's small nodes, which run on the caller), so the workers are
   spinning (small gaps), yielding or asleep (large ones) when the job opens. Prints per job:
   1 thread's time, 2 threads' time, their ratio, and the pool's overhead (2 threads' time
   minus half of 1 thread's work). On a machine shared with other processes the 2-thread
   times include waiting for a worker the scheduler has not run: run it on a quiet machine,
   or read the medians. */
#define GENIE_IMPLEMENTATION
#include "genie.h"
#include "bench_util.h"

static volatile double sink;
static int64_t iters_per_us = 1;
/* n iterations of a dependent multiply-add chain (~constant time per iteration) */
static void spin_work(int64_t n) {
    double x = 1.0;
    int64_t i;
    for (i = 0; i < n; i++) x = x * 0.9999999 + 1e-9;
    sink = x;
}
static void calibrate(void) { /* the fastest of 9 runs: the others lost the core for a while */
    int64_t n = 1 << 18;
    double best = 1e9, t;
    int r;
    for (r = 0; r < 9; r++) {
        t = bench_now();
        spin_work(n);
        t = bench_now() - t;
        if (t < best) best = t;
    }
    iters_per_us = (int64_t)((double)n / (best * 1e6));
    if (iters_per_us < 1) iters_per_us = 1;
}

static int64_t job_iters; /* a job's whole work, cut into nth shares */
static genie_result share_kernel(genie__kparams *p, int ith, int nth) {
    (void)p;
    spin_work(job_iters * (ith + 1) / nth - job_iters * ith / nth);
    return GENIE_OK;
}

/* median over reps of the time per job of `jobs` jobs, each after gap_us alone on the caller */
static double per_job(struct genie__tpool *pool, int nth, double work_us, double gap_us, int jobs) {
    double t[7];
    genie__kparams p;
    int r, j;
    memset(&p, 0, sizeof p);
    job_iters = (int64_t)(work_us * (double)iters_per_us);
    for (r = 0; r < 7; r++) {
        double total, alone = 0;
        total = bench_now();
        for (j = 0; j < jobs; j++) {
            double g = bench_now();
            spin_work((int64_t)(gap_us * (double)iters_per_us));
            alone += bench_now() - g;
            genie__tpool_run(pool, share_kernel, &p, nth);
        }
        t[r] = (bench_now() - total - alone) / jobs;
    }
    return bench_median(t, 7);
}

int main(void) {
    static const double works[] = {0, 2, 5, 10, 25, 100};
    static const double gaps[] = {0, 20, 200, 2000};
    genie_ctx *ctx;
    struct genie__tpool *pool;
    size_t w, g;
    ctx = genie_ctx_create(NULL);
    pool = genie__tpool_get(ctx, 2);
    if (!ctx || !pool) {
        printf("skip: no thread pool (GENIE_NO_THREADS, or threads cannot be started)\n");
        genie_ctx_destroy(ctx);
        return 0;
    }
    calibrate();
    printf("thread pool: a job of w us cut in 2 shares, after `gap` us alone on the caller; us per job (median of 7)\n");
    printf("%8s %8s %10s %10s %7s %12s\n", "work us", "gap us", "1 thread", "2 threads", "ratio", "overhead us");
    for (g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        for (w = 0; w < sizeof works / sizeof works[0]; w++) {
            int jobs = gaps[g] >= 2000 ? 100 : 1000;
            double t1 = per_job(NULL, 1, works[w], gaps[g], jobs), t2 = per_job(pool, 2, works[w], gaps[g], jobs);
            printf("%8.0f %8.0f %10.2f %10.2f %7.2f %12.2f\n", works[w], gaps[g], t1 * 1e6, t2 * 1e6,
                   t1 > 0 ? t2 / t1 : 0.0, (t2 - t1 / 2) * 1e6);
        }
    }
    genie_ctx_destroy(ctx);
    return 0;
}
