/* genie-server - runs genie tapes for remote clients over UCX active messages
 * (docs/remote.md; the client is genie_remote.c).
 *
 *   genie-server --listen HOST:PORT [--port-file F] [--key-file F] [--cache-mb N]
 *                [--threads N] [--backend cpu|cuda] [--client-mb N] [--max-payload-mb N]
 *                [--queue-mb N] [--hash-threads N] [--run-threads N] [--inline-work N] [--hash-hold-ms N]
 *                [--max-run-work N] [--pool-mb N] [--part-copy loop|thread] [--reply-timeout-ms N]
 *
 * One thread owns the UCX worker, whose callbacks queue messages (genie_remote_ucx.h),
 * and a loop that hands each client's messages over in order and sleeps on the
 * worker's event fd (or a job's wake pipe) when there is nothing to do. The loop
 * handles all but big RUNs itself; a RUN of at least --inline-work (flops plus elements
 * written, estimated from the tape's declared shapes) runs on a pool thread (at most
 * --run-threads at once) while that client's next messages wait and its replies are
 * kept, sent by the loop in order when it ends. Each client has its own state: a genie context and a
 * table of buffers named by the client's ids. Tensors a client uploads (PUT) live
 * in a cache shared by all clients, addressed by the BLAKE2b-256 hash of their
 * bytes that the server computes itself on its hash thread after the bytes are the
 * client's buffer (HAS finds them only once hashed); a buffer bound to a cached tensor reads
 * it and is copied before anything writes it, so no client can change what
 * another reads. Unbound cached tensors are evicted least recently used first
 * beyond --cache-mb. Ops are replayed through genie's public API on views of the
 * buffers, so genie infers and checks every shape and dtype, and a result whose
 * shape or dtype differs from what the client declared is an error.
 *
 * --backend cuda needs the server built with genie_cuda.c (-DGENIE_SERVER_CUDA, linked
 * with genie_cuda.o: build/genie-server-cuda) and a GPU: each client's context then
 * runs on it. Without either the server refuses at startup with one line, exit 1.
 *
 * Logs one line per connection when it ends (address, messages, bytes, why),
 * never a client's data. SIGTERM or SIGINT: exits 0. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <arpa/inet.h>
#include <sodium.h>
#include "genie.h"
#include "genie_remote_ucx.h"
#ifdef GENIE_SERVER_CUDA
#include "genie_cuda.h"
#endif

#define SV_BUCKETS 1024
#define SV_WORK_UNKNOWN UINT64_MAX
#define SV_INLINE_WORK 4194304 /* --inline-work's default: gr_run_cost (~50 us on one core) */
#define SV_MAX_RUN_WORK 1e13   /* --max-run-work's default: a few minutes of one core at most (gr_run_cost) */

typedef struct sv_entry { /* a PUT's bytes: a cached tensor under their hash once it is computed */
    uint8_t hash[GR_HASH_BYTES]; /* written by the hash thread while !cached, then fixed */
    uint8_t *block;       /* what to free: the PUT's payload, which data points into */
    size_t block_cap;     /* block's bytes when it is upload memory (sv_upload_alloc), which goes
                             back to the pool (sv_pool_give); 0: plain malloc memory */
    uint8_t *data;
    size_t size;
    int64_t refs;         /* buffers bound to it, and its hash job while it runs (pinned while > 0; under sv.mu) */
    int cached;           /* 1: in the hash table and the LRU list (HAS finds it; evicted at refs 0);
                             0: private to the buffer that PUT it, freed when refs drops to 0 (under sv.mu) */
    struct sv_entry *hnext, *older, *newer;
} sv_entry;

/* A PUT's bytes hashed on the hash thread: the entry (one ref held) enters the cache when its
   hash is done and is the claimed one (or none was claimed). */
typedef struct sv_hjob {
    sv_entry *e;
    struct sv_client *c;  /* the PUT's client; NULL once it is gone (set by the loop) */
    uint64_t buf, req;    /* the buffer id and the PUT's request id (its HASHED or ERROR carries it) */
    int claimed, oom;     /* claimed: want holds the client's hash; oom: the hash could not be computed */
    uint8_t want[GR_HASH_BYTES];
    int state;            /* 0 queued, 1 hashing, 2 done (under sv.mu) */
    struct sv_hjob *next;
} sv_hjob;
#define SV_HASH_INLINE ((uint64_t)64 << 10) /* PUTs up to this size are hashed on the loop at once */
#define SV_HASH_NICE 10 /* the hash thread's nice value above the server's */
#define SV_POOL_SLOTS 32  /* freed upload blocks kept at most (their bytes bounded by --pool-mb) */
#define SV_POOL_IDLE_S 5.0 /* a kept block unused this long is given back to the OS */
#define SV_SPIN_S 100e-6   /* the loop, idle, polls at most this long (grx_spin) before it sleeps */
#define SV_SEND_COPY (((size_t)4 << 20) - GR_HDR_BYTES) /* a reply this size or less (sent eagerly, as
                                                          GRX_RNDV_THRESH has it) is copied and left going */
#define SV_SENDING_MAX ((uint64_t)64 << 20)  /* one client's replies going at once, at most (bytes) */
#define SV_SENDING_ALL ((uint64_t)256 << 20) /* all clients' (past it, the client holding most is dropped) */
#define SV_SEND_WAIT_S 30.0 /* the least time the loop waits for a bigger reply to go */

typedef struct sv_buf { /* a client's buffer */
    uint64_t id;
    uint8_t *data;        /* its bytes (entry->data while bound) */
    size_t size;          /* bytes readable */
    sv_entry *entry;      /* bound to a cached tensor (read-only), or NULL: owned */
    char *err;            /* the value failed: why (a GET or a RUN reading it gets this) */
    genie_tensor *gt;     /* bound: the tensor as a 1-D genie tensor of its own (kept across RUNs,
                             so genie's pack cache keeps a weight packed), or NULL */
    struct sv_buf *next;
} sv_buf;

typedef struct sv_stat { /* a client's work under one (module path, phase, role) */
    char *module, *phase;  /* terminated copies */
    int role;
    genie_work w;
    struct sv_stat *next;
} sv_stat;
#define SV_STAT_BUCKETS 256

/* Where a decoded tape names a buffer: op's output (k -1) or its source k, by slot */
typedef struct sv_slot_ref {
    uint32_t op, slot;
    int k;
} sv_slot_ref;
#define SV_DECODED_BYTES ((size_t)32 << 20) /* a connection's tapes kept decoded (sv_tape_bind) */
typedef struct sv_client {
    ucp_ep_h ep;
    int id, state;        /* 0: waiting for HELLO, 1: for AUTH, 2: ready, 3: closing */
    int failed;           /* the endpoint reported an error */
    int ep_closed;        /* grx_wait closed the endpoint by force (a send the client never took): nothing left to close */
    uint8_t challenge[GR_NONCE_BYTES], nonce[GR_NONCE_BYTES];
    genie_ctx *g;
    sv_buf *bufs[SV_BUCKETS];
    uint64_t nbufs, owned_bytes, bound_bytes; /* its computed buffers' bytes; cached tensors it binds (pinned) */
    uint64_t msgs_in, msgs_out, bytes_in, bytes_out, errors;
    /* its RUNs' sources read as an earlier op's lazy result (sv_src_of_op), and the segments
       stored and realized before an op for a buffer it reads (written by its one RUN at a time) */
    uint64_t lazy_reads, mid_stores;
    uint64_t dead_skipped; /* results of ops flagged dead neither realized nor stored (sv_dead_last) */
    char peer[80];
    sv_stat *stats[SV_STAT_BUCKETS]; /* its work by module, phase and role (STATS) */
    uint32_t nstats;
    struct sv_tape {
        uint8_t hash[GR_HASH_BYTES];
        uint8_t *bytes;
        size_t len;
        uint64_t work;    /* sv_tape_work's, SV_WORK_UNKNOWN until asked */
        int decoded;      /* 0 not yet, 1 dec and refs hold it (sv_tape_bind), -1 decoded each time */
        gr_run dec;       /* its ops, buffer references as slots until bound */
        sv_slot_ref *refs;
        uint32_t nrefs;
        size_t dec_bytes;
    } tapes[GR_TAPES];    /* for RUN_CACHED */
    size_t dec_bytes;     /* the tapes' decoded bytes (at most SV_DECODED_BYTES) */
    int ntapes, tape_first;
    size_t tape_bytes;
    struct {              /* a PUT arriving in parts (PUT_PART, then the PUT that ends it) */
        uint64_t id, cap, got;   /* got: the bytes received, whole leaves */
        uint8_t *data;           /* cap bytes */
        size_t data_cap;         /* data's own bytes (its pool class, sv_upload_alloc) */
        /* the last part, copied into data on a thread of its own while the loop receives the
           next (sv_upload_wait): its message, kept until then */
        pthread_t th;
        int busy;
        grx_msg *held;
        struct sv_part { uint8_t *dst; const uint8_t *src; size_t n; } job;
    } up;
    uint64_t up_failed;   /* the buffer of an upload in parts that failed (0: none): the PUT ending it fails too */
    uint64_t queued;      /* bytes of its messages received and not yet handled (grx.queued) */
    uint64_t put_taken, put_told; /* its PUT and PUT_PART payload bytes handled; the count its last CREDIT gave */
    /* a RUN handled on a pool thread (sv_job_main): while busy only that thread touches
       this client (apart from `failed`, set by UCX's error callback); its replies wait in
       out, and the loop keeps the client's next messages in wait, in order */
    int busy, job_done;   /* job_done: under sv.mu */
    grx_msg *job_msg, *wait_head, *wait_tail;
    const grx_msg *work_msg; uint64_t work; /* sv_msg_work of wait_head, kept while it waits for a pool thread */
    struct sv_client *job_next; /* in sv.qhead's queue of jobs not yet taken */
    struct sv_out { int type; uint64_t id; size_t n; struct sv_out *next; uint8_t p[1]; } *out_head, *out_tail;
    /* replies UCX is still sending, oldest first (each owns its header and a copy of its payload) */
    struct sv_sending { ucs_status_ptr_t r; size_t n; struct sv_sending *next; uint8_t hdr[GR_HDR_BYTES]; uint8_t p[1]; } *sending, *sending_tail;
    uint64_t sending_bytes; /* their payloads' bytes */
    double sent_at;         /* when the last of them went (or the first began, when none had gone since) */
    const char *why;      /* why it ended */
    struct sv_client *next;
} sv_client;

typedef struct sv {
    grx x;
    ucp_listener_h listener;
    sv_client *clients;
    int next_client;
    int has_key, threads, hash_threads;
    double reply_timeout; /* seconds a client may leave its replies untaken (--reply-timeout-ms) */
    uint64_t sending_bytes; /* all clients' replies going (sv_client.sending), bytes */
    struct sv_sending *orphans; /* replies of freed clients that UCX still held at their end */
    int part_thread; /* a PUT_PART is copied into place on a thread of its own (1) or on the loop (0) */
    const char *backend; /* each client's context's backend: NULL (the CPU) or "cuda" */
    uint8_t key[crypto_auth_KEYBYTES];
    sv_entry *cache[SV_BUCKETS];
    sv_entry *oldest, *newest;
    uint64_t cache_bytes, cache_budget, client_budget;
    pthread_mutex_t mu;   /* a cached tensor's refs, the eviction that reads them, job_done,
                             the job queue, stopping */
    pthread_cond_t cv;    /* a job queued, or stopping */
    sv_client *qhead, *qtail; /* busy clients whose RUN no pool thread has taken yet */
    pthread_t pool[256];
    int npool, stopping;
    int jobs, max_jobs, peak_jobs; /* RUNs given to the pool now, its threads (--run-threads), the most at once */
    uint64_t inline_work;  /* a RUN of less work (sv_tape_work) runs on the loop (--inline-work) */
    unsigned long long runs_loop, runs_pool; /* RUNs handled on the loop, on the pool */
    unsigned long long moved; /* buffers moved to the cached copy of their bytes once hashed (sv_hash_done) */
    int wake[2];          /* a job writes a byte here when done: the loop's poll wakes */
    /* PUTs over SV_HASH_INLINE hashed in the background, oldest first: the loop adds and removes
       jobs, the hash thread takes the oldest queued one (the list and states under mu) */
    sv_hjob *hjobs, *hjobs_tail;
    pthread_cond_t hcv;   /* a hash job queued, or stopping */
    pthread_t hasher;
    int has_hasher, hash_hold_ms; /* --hash-hold-ms (tests): the hash thread waits this long before each hash */
    uint64_t max_run_work; /* a RUN of more work (gr_run_cost) is refused, ERROR 5 (--max-run-work) */
    uint64_t put_window;   /* the PUT bytes a client may have in flight (its WELCOME): half the queue cap, at most GR_MAX_WINDOW */
    /* freed upload memory kept for the next upload of its class (sv_upload_alloc; under mu):
       at most pool_budget bytes (--pool-mb), counted with the cache against --cache-mb */
    struct sv_pooled { uint8_t *p; size_t cap; double since; } pooled[SV_POOL_SLOTS];
    int npooled;
    uint64_t pool_bytes, pool_budget, pool_peak;
    unsigned long long pool_fresh, pool_reused; /* uploads into fresh memory, into recycled */
} sv;

static volatile sig_atomic_t sv_stop;
static void sv_on_signal(int sig) { (void)sig; sv_stop = 1; }

/* ---- recycled upload memory ----
   An upload of 4 MiB or more lands in memory aligned to 2 MiB and advised to be backed by huge
   pages (Linux THP), of its size rounded up to 2 MiB (its class). Freed, such a block is kept
   for the next upload of its class (at most SV_POOL_SLOTS blocks and s->pool_budget bytes,
   given back to the OS after SV_POOL_IDLE_S unused and when the cache needs the room) rather
   than given back at once, which would make the next upload fault and zero fresh pages. Only
   an upload takes a kept block, and a buffer reads upload memory only from the PUT that ends
   the upload, once that upload has written every byte it can read ([0, size): parts in order
   from 0, the PUT's rest last), so no client reads bytes another wrote. An upload that fails
   gives its block back unread. */
#define SV_HUGE ((size_t)2 << 20)
static size_t sv_upload_class(size_t n) { return n < 2 * SV_HUGE || n > SIZE_MAX - SV_HUGE ? 0 : (n + SV_HUGE - 1) & ~(SV_HUGE - 1); }
/* The bytes a tensor of `size` bytes in a block of block_cap bytes (0: malloc memory of its
   size) holds resident, as charged to the cache and the client: upload memory in whole 2 MiB
   pages (a huge page is faulted whole; a block's tail past them is given back, sv_upload_shrink) */
static uint64_t sv_charge(uint64_t size, size_t block_cap) {
    return block_cap ? (size + SV_HUGE - 1) & ~(uint64_t)(SV_HUGE - 1) : size;
}
static uint64_t sv_entry_charge(const sv_entry *e) { return sv_charge(e->size, e->block_cap); }
/* Upload block p of cap bytes now holding `size` bytes: its pages past sv_charge(size) given
   back to the OS (a recycled block is resident whole; read as zeros if touched again, and only
   an upload writing them first reads them), so it holds what it is charged. */
static void sv_upload_shrink(uint8_t *p, size_t cap, uint64_t size) {
#ifdef MADV_DONTNEED
    uint64_t keep = sv_charge(size, cap);
    if (cap && keep < cap) (void)madvise(p + keep, cap - (size_t)keep, MADV_DONTNEED);
#else
    (void)p, (void)cap, (void)size;
#endif
}
/* Under s->mu: takes kept blocks out, oldest first, while the pool's bytes and `more` pass
   `budget`, while a block more would not find a slot (more > 0), or while the oldest was kept
   before `before`; into out[] (at most SV_POOL_SLOTS), for the caller to free after unlocking. */
static int sv_pool_shed(sv *s, uint64_t budget, uint64_t more, double before, uint8_t **out) {
    int n = 0;
    while (s->npooled > 0) {
        int k, old = 0;
        for (k = 1; k < s->npooled; k++)
            if (s->pooled[k].since < s->pooled[old].since) old = k;
        if (s->pool_bytes + more <= budget && s->pooled[old].since >= before && (more == 0 || s->npooled < SV_POOL_SLOTS)) break;
        out[n++] = s->pooled[old].p;
        s->pool_bytes -= s->pooled[old].cap;
        s->pooled[old] = s->pooled[--s->npooled];
    }
    return n;
}
/* Gives kept blocks back to the OS: those kept before `before`, then the oldest while the pool
   holds more than `budget` bytes. */
static void sv_pool_trim(sv *s, uint64_t budget, double before) {
    uint8_t *out[SV_POOL_SLOTS];
    int n;
    pthread_mutex_lock(&s->mu);
    n = sv_pool_shed(s, budget, 0, before, out);
    pthread_mutex_unlock(&s->mu);
    while (n > 0) free(out[--n]);
}
/* Block p, read no more: upload memory of cap bytes (sv_upload_alloc's class) is kept for the
   next upload of its class, making room by giving back the oldest kept, within the pool's
   budget and what the cache leaves of --cache-mb (this runs on any thread, where no sv_evict
   follows); cap 0 (malloc memory, or a class over that room): freed. */
static void sv_pool_give(sv *s, uint8_t *p, size_t cap) {
    uint8_t *out[SV_POOL_SLOTS + 1];
    uint64_t budget;
    int n = 0;
    if (!p) return;
    pthread_mutex_lock(&s->mu);
    budget = s->cache_bytes < s->cache_budget ? s->cache_budget - s->cache_bytes : 0;
    if (budget > s->pool_budget) budget = s->pool_budget;
    if (cap == 0 || cap > budget) {
        out[n++] = p;
    } else {
        n = sv_pool_shed(s, budget, cap, 0, out);
        s->pooled[s->npooled].p = p, s->pooled[s->npooled].cap = cap, s->pooled[s->npooled].since = grx_now();
        s->npooled++;
        s->pool_bytes += cap;
        if (s->pool_bytes > s->pool_peak) s->pool_peak = s->pool_bytes;
    }
    pthread_mutex_unlock(&s->mu);
    while (n > 0) free(out[--n]);
}
/* n bytes for an upload in parts, freed by sv_pool_give(p, *cap): under 4 MiB malloc memory
   (*cap 0); else a kept block of n's class, or a fresh one (the kept ones given back first
   when there is no memory for it). */
static uint8_t *sv_upload_alloc(sv *s, size_t n, size_t *cap) {
    size_t want = sv_upload_class(n);
    void *p = NULL;
    int k;
    *cap = 0;
    if (!want) return (uint8_t *)malloc(n ? n : 1);
    pthread_mutex_lock(&s->mu);
    for (k = s->npooled - 1; k >= 0 && s->pooled[k].cap != want; k--) {}
    if (k >= 0) {
        p = s->pooled[k].p;
        s->pool_bytes -= want;
        s->pooled[k] = s->pooled[--s->npooled];
        s->pool_reused++;
    }
    pthread_mutex_unlock(&s->mu);
    if (!p) {
        if (posix_memalign(&p, SV_HUGE, want) != 0) {
            sv_pool_trim(s, 0, 0);
            p = NULL;
            if (posix_memalign(&p, SV_HUGE, want) != 0) return NULL;
        }
#ifdef MADV_HUGEPAGE
        (void)madvise(p, want, MADV_HUGEPAGE); /* advice: without THP the pages are 4 KiB */
#endif
        pthread_mutex_lock(&s->mu);
        s->pool_fresh++;
        pthread_mutex_unlock(&s->mu);
    }
    *cap = want;
    return (uint8_t *)p;
}

/* ---- the cache ---- */
static unsigned sv_hslot(const uint8_t *h) { return (unsigned)(h[0] | h[1] << 8) % SV_BUCKETS; }
static sv_entry *sv_find(sv *s, const uint8_t *hash) {
    sv_entry *e;
    for (e = s->cache[sv_hslot(hash)]; e; e = e->hnext)
        if (memcmp(e->hash, hash, GR_HASH_BYTES) == 0) return e;
    return NULL;
}
static void sv_lru_unlink(sv *s, sv_entry *e) {
    if (e->older) e->older->newer = e->newer;
    else s->oldest = e->newer;
    if (e->newer) e->newer->older = e->older;
    else s->newest = e->older;
    e->older = e->newer = NULL;
}
static void sv_touch(sv *s, sv_entry *e) {
    sv_lru_unlink(s, e);
    e->older = s->newest;
    if (s->newest) s->newest->newer = e;
    else s->oldest = e;
    s->newest = e;
}
/* The cache within --cache-mb with the kept upload blocks: the pool gives way first, then
   unpinned entries go, oldest first (their blocks to the pool where there is room left). */
static uint64_t sv_cache_room(const sv *s) { return s->cache_bytes < s->cache_budget ? s->cache_budget - s->cache_bytes : 0; }
static void sv_evict(sv *s) {
    sv_entry *e, *next, *gone = NULL;
    sv_pool_trim(s, sv_cache_room(s), 0);
    pthread_mutex_lock(&s->mu);
    e = s->oldest;
    for (; e && s->cache_bytes > s->cache_budget; e = next) {
        sv_entry **pp;
        next = e->newer;
        if (e->refs > 0) continue;
        for (pp = &s->cache[sv_hslot(e->hash)]; *pp != e; pp = &(*pp)->hnext) {}
        *pp = e->hnext;
        sv_lru_unlink(s, e);
        s->cache_bytes -= sv_entry_charge(e);
        e->hnext = gone;
        gone = e;
    }
    pthread_mutex_unlock(&s->mu);
    if (!gone) return;
    for (; gone; gone = next) {
        next = gone->hnext;
        sv_pool_give(s, gone->block, gone->block_cap);
        free(gone);
    }
    sv_pool_trim(s, sv_cache_room(s), 0);
}

/* Drops one ref of e: a private entry (not cached) is freed at 0; a cached one stays for sv_evict. */
static void sv_entry_unref(sv *s, sv_entry *e) {
    int gone;
    pthread_mutex_lock(&s->mu);
    gone = --e->refs == 0 && !e->cached;
    pthread_mutex_unlock(&s->mu);
    if (gone) {
        sv_pool_give(s, e->block, e->block_cap);
        free(e);
    }
}

/* ---- a client's buffers ---- */
static sv_buf *sv_buf_find(sv_client *c, uint64_t id) {
    sv_buf *b;
    for (b = c->bufs[id % SV_BUCKETS]; b; b = b->next)
        if (b->id == id) return b;
    return NULL;
}
static void sv_buf_clear(sv *s, sv_client *c, sv_buf *b) {
    genie_release(b->gt);
    b->gt = NULL;
    if (b->entry) {
        c->bound_bytes -= sv_entry_charge(b->entry);
        sv_entry_unref(s, b->entry);
        b->entry = NULL;
    } else {
        c->owned_bytes -= b->size;
        free(b->data);
    }
    b->data = NULL;
    b->size = 0;
    free(b->err);
    b->err = NULL;
}
static void sv_buf_free(sv *s, sv_client *c, uint64_t id) {
    sv_buf **pp = &c->bufs[id % SV_BUCKETS], *b;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->id == id) break;
    if (!(b = *pp)) return;
    *pp = b->next;
    sv_buf_clear(s, c, b);
    free(b);
    c->nbufs--;
}
/* The buffer id, made empty if new (NULL: out of memory or over the count limit). */
static sv_buf *sv_buf_get(sv_client *c, uint64_t id) {
    sv_buf *b = sv_buf_find(c, id);
    if (b) return b;
    if (c->nbufs >= ((uint64_t)1 << 20) || !(b = (sv_buf *)calloc(1, sizeof *b))) return NULL;
    b->id = id;
    b->next = c->bufs[id % SV_BUCKETS];
    c->bufs[id % SV_BUCKETS] = b;
    c->nbufs++;
    return b;
}
/* b reads the cached tensor e from now on (its bytes pinned, counted against the client) */
static void sv_bind(sv *s, sv_client *c, sv_buf *b, sv_entry *e) {
    sv_buf_clear(s, c, b);
    b->entry = e;
    pthread_mutex_lock(&s->mu);
    e->refs++;
    pthread_mutex_unlock(&s->mu);
    b->data = e->data;
    b->size = e->size;
    c->bound_bytes += sv_entry_charge(e);
    if (e->cached) sv_touch(s, e);
}
static void sv_buf_fail(sv *s, sv_client *c, sv_buf *b, const char *why) {
    sv_buf_clear(s, c, b);
    b->err = (char *)malloc(strlen(why) + 1);
    if (b->err) strcpy(b->err, why);
}

/* The part being hashed (if any) done, its message freed. */
static void sv_upload_wait(sv *s, sv_client *c) {
    if (!c->up.busy) return;
    pthread_join(c->up.th, NULL);
    c->up.busy = 0;
    grx_msg_free(&s->x, c->up.held);
    c->up.held = NULL;
}
static void *sv_part_main(void *arg) {
    const struct sv_part *j = (const struct sv_part *)arg;
    memcpy(j->dst, j->src, j->n);
    return NULL;
}
/* drops c's upload in parts (its buffer, when told why, fails with that) */
static void sv_upload_drop(sv *s, sv_client *c, const char *why) {
    sv_buf *b;
    sv_upload_wait(s, c);
    if (why && c->up.data && (b = sv_buf_find(c, c->up.id))) sv_buf_fail(s, c, b, why);
    if (why && c->up.data) c->up_failed = c->up.id;
    sv_pool_give(s, c->up.data, c->up.data_cap); /* unread: no buffer read it */
    memset(&c->up, 0, sizeof c->up);
}
/* The counter of bytes queued for ep's client (grx.queued), or NULL. */
static uint64_t *sv_queued(void *arg, ucp_ep_h ep) {
    sv_client *c;
    for (c = ((sv *)arg)->clients; c; c = c->next)
        if (c->ep == ep) return &c->queued;
    return NULL;
}

/* ---- sending ---- */
static void sv_send(sv *s, sv_client *c, int type, uint64_t id, const void *p, size_t n) {
    ucs_status_t st;
    if (c->failed || c->state == 3) return;
    if (c->busy) { /* on a job's thread: sent by the loop when the job is done (sv_reap) */
        struct sv_out *o = (struct sv_out *)malloc(sizeof *o + n);
        if (!o) {
            c->failed = 1;
            c->why = "out of memory for a reply";
            return;
        }
        o->type = type, o->id = id, o->n = n, o->next = NULL;
        if (n) memcpy(o->p, p, n);
        if (c->out_tail) c->out_tail->next = o;
        else c->out_head = o;
        c->out_tail = o;
        return;
    }
    if (n <= SV_SEND_COPY) { /* copied, and left going: a client that stops reading holds no other client up */
        struct sv_sending *q = (struct sv_sending *)malloc(sizeof *q + n);
        ucp_dt_iov_t iov[2];
        if (!q) {
            c->failed = 1;
            c->why = "out of memory for a reply";
            return;
        }
        if (n) memcpy(q->p, p, n);
        q->next = NULL, q->n = n;
        q->r = grx_start2(c->ep, type, id, q->p, n, NULL, 0, q->hdr, iov);
        if (UCS_PTR_IS_ERR(q->r)) {
            free(q);
            c->failed = 1;
            c->why = "a send failed";
            return;
        }
        if (q->r == NULL) { /* gone already */
            c->msgs_out++;
            c->bytes_out += GR_HDR_BYTES + n;
            free(q);
            return;
        }
        if (!c->sending) c->sent_at = grx_now();
        if (c->sending_tail) c->sending_tail->next = q;
        else c->sending = q;
        c->sending_tail = q;
        c->sending_bytes += n;
        s->sending_bytes += n;
        if (c->sending_bytes > SV_SENDING_MAX) {
            c->failed = 1;
            c->why = "its replies not taken (64 MiB of them waiting)";
        } else if (s->sending_bytes > SV_SENDING_ALL) { /* the client holding most goes */
            sv_client *most = c, *o;
            for (o = s->clients; o; o = o->next)
                if (!o->failed && o->sending_bytes > most->sending_bytes) most = o;
            most->failed = 1;
            most->why = "its replies not taken (the server's 256 MiB of replies waiting)";
        }
        return;
    }
    st = grx_send(&s->x, c->ep, type, id, p, n, grx_now() + (s->reply_timeout > SV_SEND_WAIT_S ? s->reply_timeout : SV_SEND_WAIT_S),
                  &c->failed);
    if (s->x.forced == c->ep) { /* this client's endpoint is gone: its own mark, so another client's forced close cannot overwrite it */
        s->x.forced = NULL;
        c->ep_closed = 1;
    }
    if (st != UCS_OK) {
        c->failed = 1;
        c->why = "a send failed";
        return;
    }
    c->msgs_out++;
    c->bytes_out += GR_HDR_BYTES + n;
}
/* Frees c's replies that UCX has finished sending (counted as sent when they went whole); a
   client none of whose replies went for --reply-timeout-ms has stopped reading: it fails (and
   its endpoint is closed by force). 1 if any finished. */
static int sv_sending_reap(sv *s, sv_client *c) {
    int any = 0;
    while (c->sending && ucp_request_check_status(c->sending->r) != UCS_INPROGRESS) {
        struct sv_sending *q = c->sending;
        if (ucp_request_check_status(q->r) == UCS_OK) c->msgs_out++, c->bytes_out += GR_HDR_BYTES + q->n;
        else if (!c->failed) c->failed = 1, c->why = "a send failed";
        ucp_request_free(q->r);
        c->sending = q->next;
        c->sending_bytes -= q->n;
        s->sending_bytes -= q->n;
        free(q);
        any = 1;
    }
    if (!c->sending) c->sending_tail = NULL;
    if (any) c->sent_at = grx_now();
    else if (c->sending && !c->failed && grx_now() - c->sent_at > s->reply_timeout) {
        c->failed = 1;
        c->why = "it stopped taking its replies (--reply-timeout-ms)";
    }
    return any;
}
/* The freed clients' replies that UCX has finished: freed. */
static void sv_orphans_reap(sv *s) {
    struct sv_sending **pp = &s->orphans;
    while (*pp) {
        struct sv_sending *q = *pp;
        if (ucp_request_check_status(q->r) == UCS_INPROGRESS) {
            pp = &q->next;
            continue;
        }
        ucp_request_free(q->r);
        *pp = q->next;
        s->sending_bytes -= q->n;
        free(q);
    }
}
/* At c's end, after its endpoint closed (by force, or flushed once its replies went): its
   replies UCX finished are freed, any it still holds move to the server's orphans. */
static void sv_sending_end(sv *s, sv_client *c) {
    while (c->sending) {
        struct sv_sending *q = c->sending;
        c->sending = q->next;
        c->sending_bytes -= q->n;
        q->next = s->orphans;
        s->orphans = q;
    }
    c->sending_tail = NULL;
    sv_orphans_reap(s);
}
static void sv_error(sv *s, sv_client *c, uint64_t id, int code, const char *text) {
    gr_wr w;
    size_t len = strlen(text);
    if (len > GR_MAX_MSG_LEN) len = GR_MAX_MSG_LEN;
    memset(&w, 0, sizeof w);
    gr_w32(&w, (uint32_t)code);
    gr_w32(&w, (uint32_t)len);
    gr_wbytes(&w, text, len);
    c->errors++;
    if (!w.oom) sv_send(s, c, GR_ERROR, id, w.p, w.n);
    gr_wr_free(&w);
}
static void sv_close(sv *s, sv_client *c, const char *why) {
    if (c->state != 3) {
        c->state = 3;
        c->why = why;
    }
    (void)s;
}

/* ---- PUTs hashed in the background ----
   A PUT's bytes are its buffer's at once (a private entry, sv_entry.cached 0: the client's RUNs
   and GETs read it, no HAS finds it); the hash thread computes their content hash, and the loop
   then (sv_hash_done) puts the entry in the shared cache if the hash is the one claimed (or
   none was), answers HASHED for a PUT that claimed none, or ERROR 6 (and fails the buffer if it
   still reads these bytes) for one whose claim is wrong. A buffer freed or rewritten meanwhile
   drops its ref; the job's ref keeps the bytes until the hash is done. */
static void sv_cache_insert(sv *s, sv_entry *e) { /* e private, its hash computed, none cached under it */
    e->hnext = s->cache[sv_hslot(e->hash)];
    s->cache[sv_hslot(e->hash)] = e;
    e->older = s->newest;
    e->newer = NULL;
    if (s->newest) s->newest->newer = e;
    else s->oldest = e;
    s->newest = e;
    pthread_mutex_lock(&s->mu); /* cache_bytes: sv_pool_give reads it on any thread */
    s->cache_bytes += sv_entry_charge(e);
    e->cached = 1;
    pthread_mutex_unlock(&s->mu);
}
/* The loop's end of a job whose hash is computed (j->e->hash): the reply, the cache, the job's ref. */
static void sv_hash_done(sv *s, sv_hjob *j) {
    sv_entry *e = j->e;
    int ok = !j->oom && (!j->claimed || sodium_memcmp(e->hash, j->want, GR_HASH_BYTES) == 0);
    if (j->c) {
        sv_buf *b = sv_buf_find(j->c, j->buf);
        if (!ok) {
            const char *why = j->oom ? "PUT: out of memory for its hash" : "PUT: the bytes' hash is not the one claimed";
            if (b && b->entry == e) sv_buf_fail(s, j->c, b, why);
            sv_error(s, j->c, j->req, j->oom ? GR_E_MEMORY : GR_E_HASH, why);
        } else if (!j->claimed) {
            uint8_t p[GR_HASHED_BYTES];
            gr_hashed_encode(p, j->buf, e->hash);
            sv_send(s, j->c, GR_HASHED, j->req, p, sizeof p);
        }
    }
    if (ok) {
        sv_entry *have = sv_find(s, e->hash);
        sv_buf *b = j->c ? sv_buf_find(j->c, j->buf) : NULL;
        if (!have) sv_cache_insert(s, e);
        else if (b && b->entry == e) sv_bind(s, j->c, b, have), s->moved++; /* the same bytes cached already: read those, these go */
    }
    sv_entry_unref(s, e);
}
static void *sv_hash_main(void *arg) {
    sv *s = (sv *)arg;
    sv_hjob *j;
    { /* below the loop and the RUNs, so a background hash never delays a reply or a RUN on a
         busy machine; the threads it starts inherit it */
        const id_t tid = (id_t)syscall(SYS_gettid);
        int nice_now;
        errno = 0;
        nice_now = getpriority(PRIO_PROCESS, tid);
        if (errno == 0) (void)setpriority(PRIO_PROCESS, tid, nice_now + SV_HASH_NICE > 19 ? 19 : nice_now + SV_HASH_NICE);
    }
    pthread_mutex_lock(&s->mu);
    for (;;) {
        for (j = s->hjobs; j && j->state != 0; j = j->next) {}
        if (s->stopping) break;
        if (!j) {
            pthread_cond_wait(&s->hcv, &s->mu);
            continue;
        }
        j->state = 1;
        pthread_mutex_unlock(&s->mu);
        if (s->hash_hold_ms > 0) {
            struct timespec ts;
            ts.tv_sec = s->hash_hold_ms / 1000, ts.tv_nsec = (long)(s->hash_hold_ms % 1000) * 1000000L;
            nanosleep(&ts, NULL);
        }
        j->oom = gr_content_hash(j->e->data, j->e->size, j->e->hash, s->hash_threads) != 0;
        pthread_mutex_lock(&s->mu);
        j->state = 2;
        pthread_mutex_unlock(&s->mu);
        {
            char one = 1;
            if (write(s->wake[1], &one, 1) < 0) {} /* the pipe full: the loop is awake anyway */
        }
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}
/* The bytes of c's hash jobs that no buffer of c reads any more (rewritten or freed while their
   hash waits): held by the job alone until it ends. (The job list is the loop's: it alone adds
   and removes jobs; e and buf of a job do not change.) */
static uint64_t sv_hash_orphaned(const sv *s, sv_client *c) {
    const sv_hjob *j;
    uint64_t n = 0;
    for (j = s->hjobs; j; j = j->next) {
        const sv_buf *b = j->c == c ? sv_buf_find(c, j->buf) : NULL;
        if (j->c == c && (!b || b->entry != j->e)) n += sv_entry_charge(j->e);
    }
    return n;
}
/* Hashes b's new bytes (entry e, bound to b; want: the PUT's hash field): at once for a small
   PUT or without a hash thread, else queued for the hash thread (the job holds a ref of e).
   Bytes waiting for their hash count against the client's budget: when its bound tensors and
   its orphaned jobs' bytes (sv_hash_orphaned) pass it, the PUT is hashed at once on the loop,
   so a client rewriting a buffer faster than the hash thread keeps up holds at most about its
   budget twice over. */
static void sv_hash_start(sv *s, sv_client *c, sv_buf *b, sv_entry *e, uint64_t req, const uint8_t *want) {
    sv_hjob one, *j = &one;
    int inline_ = e->size <= SV_HASH_INLINE || !s->has_hasher || c->bound_bytes + sv_hash_orphaned(s, c) > s->client_budget;
    if (!inline_ && !(j = (sv_hjob *)calloc(1, sizeof *j))) j = &one, inline_ = 1;
    memset(j, 0, sizeof *j);
    j->e = e, j->c = c, j->buf = b->id, j->req = req;
    j->claimed = !gr_hash_unclaimed(want);
    memcpy(j->want, want, GR_HASH_BYTES);
    pthread_mutex_lock(&s->mu);
    e->refs++;
    if (!inline_) {
        if (s->hjobs_tail) s->hjobs_tail->next = j;
        else s->hjobs = j;
        s->hjobs_tail = j;
        pthread_cond_signal(&s->hcv);
    }
    pthread_mutex_unlock(&s->mu);
    if (inline_) {
        j->oom = gr_content_hash(e->data, e->size, e->hash, s->hash_threads) != 0;
        sv_hash_done(s, j);
    }
}
/* Ends the jobs whose hash is done (a busy client's wait until its RUN ends: its replies are
   the pool thread's until then). 1 if it ended any. The wake pipe is emptied before the jobs'
   states are read, so a job done after that read leaves its byte there (the loop wakes for it);
   the pipe holds the pool jobs' bytes too: the loop checks those right after. */
static int sv_hash_reap(sv *s) {
    sv_hjob **pp = &s->hjobs, *j, *prev = NULL;
    int took = 0;
    pthread_mutex_lock(&s->mu);
    for (j = s->hjobs; j && j->state != 2; j = j->next) {}
    pthread_mutex_unlock(&s->mu);
    if (!j) return 0;
    {
        char drop[64];
        while (read(s->wake[0], drop, sizeof drop) > 0) {}
    }
    while ((j = *pp)) {
        int state;
        pthread_mutex_lock(&s->mu);
        state = j->state;
        pthread_mutex_unlock(&s->mu);
        if (state != 2 || (j->c && j->c->busy)) {
            prev = j;
            pp = &j->next;
            continue;
        }
        pthread_mutex_lock(&s->mu);
        *pp = j->next;
        if (s->hjobs_tail == j) s->hjobs_tail = prev;
        pthread_mutex_unlock(&s->mu);
        sv_hash_done(s, j);
        free(j);
        took = 1;
    }
    if (took) sv_evict(s);
    return took;
}

/* ---- RUN: ops replayed through genie's public API ---- */
static const char *sv_dt_name(int dt) { return genie_dtype_name((genie_dtype)dt); }

static void sv_scatter(uint8_t *dst, const gr_view *v, const uint8_t *src, const int64_t *sst, size_t es);
/* index_copy_'s sources against its written view: index i64 and at most 1-D, the source of
   the view's dtype and rank, equal to it but along dim i[0], where it has one slice per index. */
static int sv_index_copy_fits(const gr_op *o) {
    const gr_view *x = &o->in[0].v, *c = &o->in[1].v;
    int64_t ni = gr_view_numel(x);
    int d = (int)o->i[0], k;
    if (o->in[0].dtype != GENIE_I64 || x->ndim > 1 || o->in[1].dtype != o->dtype || c->ndim != o->out.ndim || o->i[0] < 0 ||
        o->i[0] >= o->out.ndim)
        return 0;
    for (k = 0; k < c->ndim; k++)
        if (k == d ? c->shape[k] != ni : c->shape[k] != o->out.shape[k]) return 0;
    return 1;
}
/* index_copy_ stored: slice j of src (its bytes at sp, strides sst) to slice idx[j] along dim
   i[0] of the op's view in dst. Every index is checked before anything is written. */
static int sv_index_copy_store(uint8_t *dst, const gr_op *o, const int64_t *idx, const uint8_t *sp, const int64_t *sst,
                               char *why, size_t wsz) {
    const gr_view *v = &o->out;
    int d = (int)o->i[0];
    int64_t ni = gr_view_numel(&o->in[0].v), j;
    size_t es = gr_dtype_size[o->dtype];
    gr_view slice = *v;
    for (j = 0; j < ni; j++)
        if (idx[j] < 0 || idx[j] >= v->shape[d]) {
            snprintf(why, wsz, "genie_index_copy_: index %lld is out of bounds for dimension %d with size %lld", /* genie's words */
                     (long long)idx[j], d, (long long)v->shape[d]);
            return GR_E_INDEX;
        }
    slice.shape[d] = 1;
    for (j = 0; j < ni; j++) {
        slice.off = v->off + idx[j] * v->strides[d];
        sv_scatter(dst, &slice, sp + (size_t)(j * sst[d]) * es, sst, es);
    }
    return 0;
}

/* "[a, b, c]" of nd sizes (or strides) into buf */
static const char *sv_dims_str(char *buf, size_t n, int nd, const int64_t *x) {
    size_t at = 0;
    int d;
    buf[0] = 0;
    at += (size_t)snprintf(buf, n, "[");
    for (d = 0; d < nd && at < n; d++) at += (size_t)snprintf(buf + at, n - at, d ? ", %lld" : "%lld", (long long)x[d]);
    if (at < n) snprintf(buf + at, n - at, "]");
    return buf;
}
static const char *sv_shape_str(char *buf, size_t n, const gr_view *v) { return sv_dims_str(buf, n, v->ndim, v->shape); }
/* A quantized linear's weight (source 1 of op i, a block dtype) against its buffer of size bytes:
   its view [N, K] reads whole blocks along K (K a multiple of the block, unit stride along K,
   the offset and the row stride in whole blocks), all inside the buffer: 0, or a gr_err and why. */
static int sv_qweight_bad(const gr_op *o, uint32_t i, uint64_t size, char *why, size_t wsz) {
    const gr_view *w = &o->in[1].v;
    const int dt = o->in[1].dtype;
    const int64_t B = gr_blk_elems[dt - GR_DTYPE_COUNT], BB = gr_blk_bytes[dt - GR_DTYPE_COUNT], N = w->shape[0], K = w->shape[1];
    uint64_t need;
    char xs[160];
    if (K % B != 0 || (K > 1 && w->strides[1] != 1) || w->off % B != 0 || (N > 1 && w->strides[0] % B != 0)) {
        snprintf(why, wsz, "RUN op %u (QLINEAR): a %s weight [%lld, %lld] of input %s (strides [%lld, %lld], offset %lld): the weight "
                 "must be read along whole blocks of %lld (its in-features a multiple of %lld)", i, sv_dt_name(dt), (long long)N, (long long)K,
                 sv_shape_str(xs, sizeof xs, &o->in[0].v), (long long)w->strides[0], (long long)w->strides[1], (long long)w->off,
                 (long long)B, (long long)B);
        return GR_E_OP;
    }
    need = gr_dt_bytes(dt, (uint64_t)gr_view_extent(w)); /* a multiple of B: whole blocks */
    if (need > size) {
        snprintf(why, wsz, "RUN op %u (QLINEAR): a %s weight [%lld, %lld] reads %llu bytes (%lld rows x %lld blocks of %lld bytes, "
                 "from element %lld); its buffer holds %llu", i, sv_dt_name(dt), (long long)N, (long long)K, (unsigned long long)need,
                 (long long)N, (long long)(K / B), (long long)BB, (long long)w->off, (unsigned long long)size);
        return GR_E_BUFFER;
    }
    return 0;
}
/* Source 0 of an embedding (rows of a block weight) or a to (dequantized), of a block dtype,
   against its buffer of size bytes: its view keeps whole blocks (gr_blk_view_ok) and they lie
   inside the buffer: 0, or a gr_err and why. genie checks the rest (an embedding's 2-D weight
   of block rows) and refuses with its own message. */
static int sv_qsource_bad(const gr_op *o, uint32_t i, uint64_t size, char *why, size_t wsz) {
    const gr_view *v = &o->in[0].v;
    const int dt = o->in[0].dtype;
    const int64_t B = gr_blk_elems[dt - GR_DTYPE_COUNT];
    uint64_t need;
    char vs[160], ss[160];
    if (!gr_blk_view_ok(dt, v)) {
        snprintf(why, wsz, "RUN op %u (%s): a %s source %s (strides %s, offset %lld) must keep whole blocks of %lld (one dim of unit "
                 "stride and a multiple of %lld, the offset and the other strides multiples of it)", i, gr_op_names[o->op], sv_dt_name(dt),
                 sv_shape_str(vs, sizeof vs, v), sv_dims_str(ss, sizeof ss, v->ndim, v->strides), (long long)v->off, (long long)B, (long long)B);
        return GR_E_OP;
    }
    need = gr_dt_bytes(dt, (uint64_t)gr_view_extent(v)); /* whole blocks */
    if (need > size) {
        snprintf(why, wsz, "RUN op %u (%s): a %s source %s (strides %s, offset %lld) reads %llu bytes (whole blocks of %lld elements, "
                 "%d bytes); its buffer holds %llu", i, gr_op_names[o->op], sv_dt_name(dt), sv_shape_str(vs, sizeof vs, v),
                 sv_dims_str(ss, sizeof ss, v->ndim, v->strides), (long long)v->off, (unsigned long long)need, (long long)B,
                 gr_blk_bytes[dt - GR_DTYPE_COUNT], (unsigned long long)size);
        return GR_E_BUFFER;
    }
    return 0;
}
/* A block source's view over buffer b (its check passed): a cached buffer's block tensor is kept
   as b->gt while the buffer reads it (it wraps the entry's bytes, alive while bound). */
static genie_tensor *sv_qweight(sv_client *c, sv_buf *b, const gr_src *src) {
    const int dt = src->dtype;
    int64_t n = (int64_t)(b->size / gr_blk_bytes[dt - GR_DTYPE_COUNT]) * gr_blk_elems[dt - GR_DTYPE_COUNT];
    genie_tensor *base;
    if (b->entry && b->gt && (int)genie_dtype_of(b->gt) == dt) base = b->gt;
    else {
        base = genie_from_blocks(c->g, (genie_dtype)dt, 1, &n, b->data, NULL, NULL);
        if (b->entry && base) {
            genie_release(b->gt);
            genie_retain(b->gt = base);
        }
    }
    return base ? genie_as_strided(c->g, base, src->v.ndim, src->v.shape, src->v.strides, src->v.off) : NULL;
}

/* genie's call for op o on its sources t[] (NULL on error, genie's message in the context) */
/* The rank genie is given source k in: 0 for a source flagged 0-dim (its view reads one
   element, which genie broadcasts itself and promotes as a 0-dim tensor), else its view's. */
#define SV_SRC_NDIM(o, k) (((o)->zero >> (k)) & 1 ? 0 : (o)->in[k].v.ndim)
static genie_tensor *sv_call(genie_ctx *g, const gr_op *o, genie_tensor **t) {
    int64_t dims[GR_MAX_DIMS];
    int k, nd;
    switch (o->op) {
#define SV_U(ID, fn) case GR_OP_##ID: return genie_##fn(g, t[0]);
    SV_U(NEG, neg) SV_U(ABS, abs) SV_U(EXP, exp) SV_U(LOG, log) SV_U(SQRT, sqrt) SV_U(RSQRT, rsqrt) SV_U(SIN, sin)
    SV_U(COS, cos) SV_U(TANH, tanh) SV_U(SIGMOID, sigmoid) SV_U(RELU, relu) SV_U(GELU, gelu) SV_U(GELU_TANH, gelu_tanh)
    SV_U(SILU, silu) SV_U(RECIPROCAL, reciprocal) SV_U(SQUARE, square) SV_U(FLOOR, floor) SV_U(CEIL, ceil)
    SV_U(ROUND, round) SV_U(SIGN, sign) SV_U(ERF, erf) SV_U(LOG1P, log1p) SV_U(EXPM1, expm1) SV_U(LOGICAL_NOT, logical_not)
    SV_U(CONTIGUOUS, contiguous) SV_U(CLONE, clone)
#undef SV_U
    case GR_OP_CLAMP: return genie_clamp(g, t[0], o->f[0], o->f[1]);
#define SV_B(ID, fn) case GR_OP_##ID: return o->has_scalar ? genie_##fn##_scalar(g, t[0], o->f[0]) : genie_##fn(g, t[0], t[1]);
    SV_B(ADD, add) SV_B(SUB, sub) SV_B(MUL, mul) SV_B(DIV, div) SV_B(POW, pow)
#undef SV_B
#define SV_B(ID, fn) case GR_OP_##ID: return genie_##fn(g, t[0], t[1]);
    SV_B(MAXIMUM, maximum) SV_B(MINIMUM, minimum) SV_B(EQ, eq) SV_B(NE, ne) SV_B(LT, lt) SV_B(LE, le) SV_B(GT, gt)
    SV_B(GE, ge) SV_B(LOGICAL_AND, logical_and) SV_B(LOGICAL_OR, logical_or) SV_B(MATMUL, matmul)
#undef SV_B
    case GR_OP_WHERE: return genie_where(g, t[0], t[1], t[2]);
    case GR_OP_SOFTMAX: return genie_softmax(g, t[0], o->i[0]);
    case GR_OP_LOG_SOFTMAX: return genie_log_softmax(g, t[0], o->i[0]);
    case GR_OP_TO: return genie_to_dtype(g, t[0], (genie_dtype)o->dtype);
    case GR_OP_SUM: case GR_OP_MEAN: case GR_OP_AMAX: case GR_OP_AMIN: case GR_OP_PROD:
    case GR_OP_VAR: case GR_OP_STD: case GR_OP_LOGSUMEXP: {
        /* the source is laid out kept dims first (i[0] of them), then the reduced ones; var and
           std: i[1] the correction */
        genie_tensor *r = NULL;
        nd = genie_ndim(t[0]);
        if (o->i[0] < 0 || o->i[0] >= nd) return NULL;
        for (k = 0; k < nd - (int)o->i[0]; k++) dims[k] = o->i[0] + k;
        switch (o->op) {
        case GR_OP_SUM: r = genie_sum(g, t[0], k, dims, 0); break;
        case GR_OP_MEAN: r = genie_mean(g, t[0], k, dims, 0); break;
        case GR_OP_AMAX: r = genie_amax(g, t[0], k, dims, 0); break;
        case GR_OP_AMIN: r = genie_amin(g, t[0], k, dims, 0); break;
        case GR_OP_PROD: r = genie_prod(g, t[0], k, dims, 0); break;
        case GR_OP_VAR: r = genie_var(g, t[0], k, dims, o->i[1], 0); break;
        case GR_OP_STD: r = genie_std(g, t[0], k, dims, o->i[1], 0); break;
        default: r = genie_logsumexp(g, t[0], k, dims, 0); break;
        }
        return r ? genie_reshape(g, r, o->out.ndim, o->out.shape) : NULL; /* keepdim's 1s */
    }
    case GR_OP_ARGMAX: case GR_OP_ARGMIN: case GR_OP_MAX_DIM: case GR_OP_MIN_DIM: {
        /* i[0] kept dims first, then one reduced dim (or, i[0] 0, all of them: argmax/argmin);
           i[1] 1: the indices, 0: the values */
        genie_tensor *r;
        int64_t dim;
        nd = genie_ndim(t[0]);
        if (o->i[0] < 0 || o->i[0] > nd || (nd - o->i[0] != 1 && o->i[0] != 0)) return NULL;
        dim = nd - o->i[0] == 1 ? o->i[0] : GENIE_DIM_NONE;
        if (o->op == GR_OP_ARGMAX || o->op == GR_OP_ARGMIN)
            r = o->op == GR_OP_ARGMAX ? genie_argmax(g, t[0], dim, 0) : genie_argmin(g, t[0], dim, 0);
        else if (dim == GENIE_DIM_NONE && nd > 0)
            return NULL; /* max/min along a dim: one dim */
        else
            r = genie_tuple_get(o->op == GR_OP_MAX_DIM ? genie_max_dim(g, t[0], nd ? dim : 0, 0) : genie_min_dim(g, t[0], nd ? dim : 0, 0),
                                o->i[1] != 0);
        return r ? genie_reshape(g, r, o->out.ndim, o->out.shape) : NULL; /* keepdim's 1s */
    }
    case GR_OP_CAT: /* the sources in the result's rank (a stack comes as a cat of unsqueezed views) */
        return genie_cat(g, o->nin, t, o->i[0]);
    case GR_OP_INDEX_SELECT: return genie_index_select(g, t[0], o->i[0], t[1]);
    case GR_OP_GATHER: return genie_gather(g, t[0], o->i[0], t[1]);
    case GR_OP_MASKED_FILL: return genie_masked_fill(g, t[0], t[1], o->f[0]);
    case GR_OP_TRIL: return genie_tril(g, t[0], o->i[0]);
    case GR_OP_TRIU: return genie_triu(g, t[0], o->i[0]);
    case GR_OP_CUMSUM: return genie_cumsum(g, t[0], o->i[0]);
    case GR_OP_FULL: return genie_full(g, (genie_dtype)o->dtype, o->out.ndim, o->out.shape, o->f[0]);
    case GR_OP_RAND: return genie_rand(g, (genie_dtype)o->dtype, o->out.ndim, o->out.shape, (uint64_t)o->i[0]); /* i[0]: the seed */
    case GR_OP_RANDN: return genie_randn(g, (genie_dtype)o->dtype, o->out.ndim, o->out.shape, (uint64_t)o->i[0]);
    case GR_OP_ARANGE: { /* n elements: genie counts exactly n from this end (the decoder found one) */
        double end;
        return gr_arange_end(o->dtype, o->f[0], o->f[1], o->out.shape[0], &end) ? genie_arange(g, (genie_dtype)o->dtype, o->f[0], end, o->f[1]) : NULL;
    }
    case GR_OP_SCATTER: return genie_scatter(g, t[0], o->i[0], t[1], t[2]);
    case GR_OP_SCATTER_ADD: return genie_scatter_add(g, t[0], o->i[0], t[1], t[2]);
    case GR_OP_TOPK: return genie_tuple_get(genie_topk(g, t[0], o->i[2], o->i[0], o->i[1] != 0, 1), o->i[3] != 0);
    case GR_OP_SORT: return genie_tuple_get(genie_sort(g, t[0], o->i[0], o->i[1] != 0), o->i[3] != 0);
    case GR_OP_CONV2D: { /* x [N, C, H, W], w [O, C / groups, kh, kw]; an unbatched result comes as its 3 dims */
        const int64_t *xs = genie_shape(t[0]), *ws = genie_shape(t[1]);
        genie_tensor *r;
        if (ws[1] < 1 || xs[1] % ws[1]) return NULL;
        r = genie_conv2d(g, t[0], t[1], o->nin > 2 ? t[2] : NULL, o->i, o->i + 2, o->i + 4, xs[1] / ws[1]);
        return r && o->out.ndim == 3 ? genie_reshape(g, r, 3, o->out.shape) : r;
    }
    case GR_OP_FLIP: /* the source as it is; i[0]: the dims to flip, a bit each */
        for (nd = 0, k = 0; k < genie_ndim(t[0]); k++)
            if (o->i[0] >> k & 1) dims[nd++] = k;
        return genie_flip(g, t[0], nd, dims);
    case GR_OP_QLINEAR: return genie_linear(g, t[0], t[1], NULL);
    case GR_OP_LINEAR: {
        /* sources as genie keeps them: x [.., M, K], w as [.., K, N] (w^T, batch strides 0),
           bias [.., M, N] broadcast (1-D [N] when only its last stride moves) */
        const gr_view *wv = &o->in[1].v;
        genie_tensor *w, *b = NULL;
        int64_t ws[2], wst[2];
        nd = wv->ndim;
        if (nd < 2) return NULL;
        for (k = 0; k < nd - 2; k++)
            if (wv->strides[k] != 0) return NULL;
        ws[0] = wv->shape[nd - 1], ws[1] = wv->shape[nd - 2];
        wst[0] = wv->strides[nd - 1], wst[1] = wv->strides[nd - 2];
        if (!(w = genie_as_strided(g, t[1], 2, ws, wst, wv->off))) return NULL;
        if (o->nin == 3) {
            const gr_view *bv = &o->in[2].v;
            int only_last = bv->ndim >= 1;
            for (k = 0; k + 1 < bv->ndim; k++) only_last &= bv->strides[k] == 0;
            if (only_last) b = genie_as_strided(g, t[2], 1, &bv->shape[bv->ndim - 1], &bv->strides[bv->ndim - 1], bv->off);
            else b = t[2];
            if (!b) return NULL;
        }
        return genie_linear(g, t[0], w, b);
    }
    case GR_OP_LAYER_NORM: case GR_OP_RMS_NORM: {
        /* i[0] leading dims (the rest normalized), i[1] a weight, i[2] a bias (layer_norm), f[0] eps */
        int has_w = o->i[1] != 0, has_b = o->op == GR_OP_LAYER_NORM && o->i[2] != 0;
        nd = genie_ndim(t[0]);
        if (o->i[0] < 0 || o->i[0] >= nd || o->nin != 1 + has_w + has_b) return NULL;
        if (o->op == GR_OP_RMS_NORM)
            return genie_rms_norm(g, t[0], nd - (int)o->i[0], genie_shape(t[0]) + o->i[0], has_w ? t[1] : NULL, o->f[0]);
        return genie_layer_norm(g, t[0], nd - (int)o->i[0], genie_shape(t[0]) + o->i[0], has_w ? t[1] : NULL,
                                has_b ? t[1 + has_w] : NULL, o->f[0]);
    }
    case GR_OP_SDPA: /* q, k, v (and a mask) as genie keeps them: broadcast to one rank; i[1] causal, f[0] scale */
        return genie_scaled_dot_product_attention(g, t[0], t[1], t[2], o->nin > 3 ? t[3] : NULL, o->i[1] != 0, o->f[0]);
    case GR_OP_ROPE: return genie_rope(g, t[0], t[1], o->i[0], o->f[0], o->i[1] != 0);
    case GR_OP_EMBEDDING: return genie_embedding(g, t[0], t[1]);
    case GR_OP_RESHAPE_COPY: /* a fresh contiguous copy, as the client's node (never a view of a buffer) */
        return genie_clone(g, genie_reshape(g, t[0], o->out.ndim, o->out.shape));
    case GR_OP_COPY: /* in place: the source broadcast to the written view, converted to its dtype */
        return genie_to_dtype(g, t[0], (genie_dtype)o->dtype);
    case GR_OP_INDEX_COPY: /* in place: the source's slices, stored at the rows the index names (sv_store) */
        return sv_index_copy_fits(o) ? t[1] : NULL;
    default: return NULL;
    }
}

/* dst (dst's layout v, element size es) = src (genie's result r, read through its strides) */
static void sv_scatter(uint8_t *dst, const gr_view *v, const uint8_t *src, const int64_t *sst, size_t es) {
    int64_t idx[GR_MAX_DIMS], n = gr_view_numel(v), i, run = 1, rows, slo = 0, shi = 0, dlo = v->off, dhi = v->off;
    int d, nd = v->ndim, od;
    if (n <= 0) return;
    /* dims [od, nd) are row-major in both layouts (size-1 dims aside): a row of `run` elements
       is one copy, and the rows are the index tuples of dims [0, od) */
    for (od = nd; od > 0; od--) {
        d = od - 1;
        if (v->shape[d] != 1 && (v->strides[d] != run || sst[d] != run)) break;
        run *= v->shape[d];
    }
    if (od == 0) { /* one row: both dense (a result may be the bytes it is stored over: memmove) */
        memmove(dst + (size_t)v->off * es, src, (size_t)n * es);
        return;
    }
    for (d = 0; d < nd; d++) { /* the element spans each side reads or writes (signed strides) */
        int64_t a = (v->shape[d] - 1) * sst[d], b = (v->shape[d] - 1) * v->strides[d];
        if (a < 0) slo += a; else shi += a;
        if (b < 0) dlo += b; else dhi += b;
    }
    if ((uintptr_t)(src + (size_t)slo * es) < (uintptr_t)(dst + (size_t)(dhi + 1) * es) &&
        (uintptr_t)(dst + (size_t)dlo * es) < (uintptr_t)(src + (size_t)(shi + 1) * es)) {
        run = 1, od = nd; /* the two overlap: element by element in row-major order */
    }
    rows = n / run;
    memset(idx, 0, sizeof idx);
    for (i = 0; i < rows; i++) {
        int64_t so = 0, dof = v->off;
        for (d = 0; d < od; d++) so += idx[d] * sst[d], dof += idx[d] * v->strides[d];
        memcpy(dst + (size_t)dof * es, src + (size_t)so * es, (size_t)run * es);
        for (d = od - 1; d >= 0; d--) {
            if (++idx[d] < v->shape[d]) break;
            idx[d] = 0;
        }
    }
}

static int sv_same_shape(genie_tensor *r, const gr_view *v) {
    return genie_ndim(r) == v->ndim && memcmp(genie_shape(r), v->shape, (size_t)v->ndim * 8) == 0;
}
/* 1 if strides lay the shape out row-major from its first element (size-1 dims aside) */
static int sv_dense(int nd, const int64_t *shape, const int64_t *strides) {
    int64_t run = 1;
    int d;
    for (d = nd - 1; d >= 0; d--) {
        if (shape[d] != 1 && strides[d] != run) return 0;
        run *= shape[d];
    }
    return 1;
}
/* Source src (of rank nd: 0 for a source flagged 0-dim) reads a buffer that op p of the same
   RUN wrote last, with result pr: the source as a view of pr, so the op reads p's result as
   genie holds it rather than the bytes p stores, and p's segment need not be stored and
   realized before it. NULL (read the stored bytes) unless p writes a dense view wholly (not in
   place, not index_copy), pr is dense from its first element, the dtypes agree and every
   element src reads lies inside p's view: then element e of the buffer is element
   e - p->out.off of pr. And unless pr is still to be computed: genie computes it into memory
   of its own, whereas a result that is materialized already may be a view of a buffer's bytes
   (an op genie answers with its source, a to() of the same dtype), which a store earlier in
   the segment may overwrite before this op's result is stored. */
static genie_tensor *sv_src_of_op(genie_ctx *g, const gr_op *p, genie_tensor *pr, const gr_src *src, int nd) {
    int64_t hi = src->v.off, n = gr_view_numel(&p->out);
    int d;
    if (!pr || genie_is_materialized(pr) || p->inplace || p->op == GR_OP_INDEX_COPY || src->dtype != p->dtype || GR_DT_BLOCK(src->dtype) ||
        !sv_dense(p->out.ndim, p->out.shape, p->out.strides) || genie_storage_offset(pr) != 0 ||
        !sv_dense(genie_ndim(pr), genie_shape(pr), genie_strides(pr)))
        return NULL;
    for (d = 0; d < nd; d++) { /* the last element src reads (views' strides are not negative) */
        if (src->v.shape[d] == 0) return NULL;
        hi += (src->v.shape[d] - 1) * src->v.strides[d];
    }
    if (src->v.off < p->out.off || hi >= p->out.off + n) return NULL;
    return genie_as_strided(g, pr, nd, src->v.shape, src->v.strides, src->v.off - p->out.off);
}

/* ---- work by module, phase and role ---- */
/* The row of (module, phase, role) (the strings not terminated), made if new; past
   GR_MAX_STATS rows, the row ("(other)", "", 0); NULL when out of memory. */
static sv_stat *sv_stat_row(sv_client *c, const char *mod, size_t ml, const char *ph, size_t pl, int role) {
    uint32_t hsh = 2166136261u, b;
    size_t k;
    sv_stat *st;
    if (c->nstats >= GR_MAX_STATS - 1) mod = "(other)", ml = 7, ph = "", pl = 0, role = 0;
    for (k = 0; k < ml; k++) hsh = (hsh ^ (uint8_t)mod[k]) * 16777619u;
    for (k = 0; k < pl; k++) hsh = (hsh ^ (uint8_t)ph[k]) * 16777619u;
    hsh = (hsh ^ (uint32_t)role) * 16777619u;
    b = hsh % SV_STAT_BUCKETS;
    for (st = c->stats[b]; st; st = st->next)
        if (st->role == role && strlen(st->module) == ml && strlen(st->phase) == pl && memcmp(st->module, mod, ml) == 0 &&
            memcmp(st->phase, ph, pl) == 0)
            return st;
    if (!(st = (sv_stat *)calloc(1, sizeof *st)) || !(st->module = (char *)malloc(ml + 1)) || !(st->phase = (char *)malloc(pl + 1))) {
        if (st) free(st->module);
        free(st);
        return NULL;
    }
    memcpy(st->module, mod, ml);
    st->module[ml] = 0;
    memcpy(st->phase, ph, pl);
    st->phase[pl] = 0;
    st->role = role;
    st->next = c->stats[b];
    c->stats[b] = st;
    c->nstats++;
    return st;
}
/* Elements a view reads at most once each: its sizes along the dims that move (0 if empty). */
static uint64_t sv_distinct(const gr_view *v) {
    uint64_t n = 1;
    int d;
    for (d = 0; d < v->ndim; d++)
        if (v->shape[d] == 0) return 0;
        else if (v->strides[d]) n *= (uint64_t)v->shape[d];
    return n;
}
/* Ops [from, to) of a RUN were computed and stored in ns: each counted in its client's row,
   with its flops, its bytes (the distinct elements it reads, its result) and a share of ns
   in proportion to its flops (to its count where the ops have none). */
static void sv_account(sv_client *c, const gr_run *run, uint32_t from, uint32_t to, uint64_t ns) {
    uint64_t total = 0, left = ns;
    uint32_t i;
    for (i = from; i < to; i++) total += gr_op_flops(&run->ops[i]);
    for (i = from; i < to; i++) {
        const gr_op *o = &run->ops[i];
        sv_stat *st = sv_stat_row(c, o->module, o->module_len, o->phase, o->phase_len, o->role < GENIE_ROLE_COUNT ? o->role : 0);
        uint64_t f = gr_op_flops(o), by = (uint64_t)gr_view_numel(&o->out) * gr_dtype_size[o->dtype], share;
        int k;
        for (k = 0; k < o->nin; k++) by += gr_dt_bytes(o->in[k].dtype, sv_distinct(&o->in[k].v));
        share = i + 1 == to ? left : total ? (uint64_t)((double)ns * (double)f / (double)total) : ns / (to - from);
        if (share > left) share = left;
        left -= share;
        if (!st) continue;
        st->w.nodes++, st->w.flops += f, st->w.bytes += by, st->w.ns += share;
    }
}

/* The bytes [*lo, *hi) of its buffer that op o writes (its view's span). */
static void sv_out_span(const gr_op *o, uint64_t *lo, uint64_t *hi) {
    const uint64_t es = gr_dtype_size[o->dtype];
    *lo = (uint64_t)o->out.off * es;
    *hi = (uint64_t)gr_view_extent(&o->out) * es;
    if (*hi < *lo) *hi = *lo; /* an empty view */
}
/* For each op p flagged dead (64): the last op of the RUN that needs p's result realized or its
   bytes stored, or 0 when none does (ops after p that read it as an op; that read p's buffer,
   or write it in place over p's bytes, before an op not in place rewrites a dense span holding
   all p wrote: an in-place write counts as run->nops, since it stores over the bytes). Other
   ops: run->nops. A store of ops [from, to) keeps p when last[p] >= to. The forward scans visit
   at most SV_DEAD_SCAN sources and ops in all (a hostile RUN of 4096 flagged ops writing one
   buffer at disjoint offsets would visit ~4096^2 * 8): past that budget the flagged ops left are
   kept as if unflagged (stored: what the flag saves, never what it costs). */
#define SV_DEAD_SCAN ((uint64_t)1 << 20)
static void sv_dead_last(const gr_run *run, uint32_t *last) {
    uint32_t p, j;
    uint64_t budget = SV_DEAD_SCAN;
    int k;
    for (p = 0; p < run->nops; p++) last[p] = run->ops[p].dead ? 0 : run->nops;
    for (j = 0; j < run->nops; j++) /* reads by op index (within a fused group: near) */
        for (k = 0; k < run->ops[j].nin; k++)
            if (run->ops[j].in[k].kind == GR_SRC_OP && j > last[run->ops[j].in[k].ref]) last[run->ops[j].in[k].ref] = j;
    for (p = 0; p < run->nops; p++) {
        const gr_op *o = &run->ops[p];
        uint64_t lo, hi;
        if (!o->dead) continue;
        sv_out_span(o, &lo, &hi);
        for (j = p + 1; j < run->nops && last[p] < run->nops; j++) {
            const gr_op *q = &run->ops[j];
            if (budget < (uint64_t)q->nin + 1) { last[p] = run->nops; break; }
            budget -= (uint64_t)q->nin + 1;
            for (k = 0; k < q->nin; k++)
                if (q->in[k].kind == GR_SRC_BUF && q->in[k].ref == o->out_buf && j > last[p]) last[p] = j;
            if (q->written && q->out_buf == o->out_buf) {
                uint64_t qlo, qhi;
                if (q->inplace) { last[p] = run->nops; break; }
                sv_out_span(q, &qlo, &qhi);
                if (sv_dense(q->out.ndim, q->out.shape, q->out.strides) && qlo <= lo && qhi >= hi) break;
            }
        }
    }
}
/* Ops [from, to) of a RUN: every result realized (a lazy one could read a buffer about to be
   overwritten), then the written ones stored into their buffers in op order; but an op whose
   result nothing needs from `to` on (last[i] < to: flagged dead, sv_dead_last) is neither
   realized nor stored: the ops of [from, to) that read it took its lazy result. 0 or a gr_err. */
static int sv_store_into(sv *s, sv_client *c, const gr_run *run, genie_tensor **res, genie_tensor **aux,
                         genie_tensor **scratch, const uint32_t *last, uint32_t from, uint32_t to, sv_buf *parked,
                         uint32_t *nparked, char *why, size_t wsz) {
    uint32_t i;
    int n = 0, code;
    double t0 = grx_now();
    for (i = from; i < to; i++) {
        if (last[i] < to) { c->dead_skipped++; continue; }
        if (res[i]) scratch[n++] = res[i];
        if (aux[i]) scratch[n++] = aux[i];
    }
    if (n && genie_realize(c->g, n, scratch) != GENIE_OK) { /* an index out of range: genie's own words */
        int index = genie_status(c->g) == GENIE_ERR_INDEX;
        snprintf(why, wsz, "%s%s", index ? "" : "RUN: ", genie_last_error(c->g));
        return index ? GR_E_INDEX : GR_E_OP;
    }
    for (i = from; i < to; i++) {
        const gr_op *o = &run->ops[i];
        sv_buf *b;
        const void *ptr;
        if (!o->written || last[i] < to) continue;
        if (!(b = sv_buf_get(c, o->out_buf))) { snprintf(why, wsz, "RUN: too many buffers"); return GR_E_LIMIT; }
        if (o->inplace && (b->err || !b->data)) { /* it writes over the value the buffer holds */
            snprintf(why, wsz, "RUN: an in-place %s into buffer %llu, which holds no value", gr_op_names[o->op],
                     (unsigned long long)o->out_buf);
            return GR_E_BUFFER;
        }
        if (b->err) sv_buf_clear(s, c, b);
        if (b->entry || !b->data || b->size != o->out_cap) { /* new, resized, or a cached tensor's: its own bytes */
            uint8_t *nd;
            if (!b->entry && c->owned_bytes - b->size + o->out_cap > s->client_budget) {
                snprintf(why, wsz, "RUN: the client's buffers would exceed %llu MiB", (unsigned long long)(s->client_budget >> 20));
                return GR_E_LIMIT;
            }
            if (!(nd = (uint8_t *)calloc(1, o->out_cap ? (size_t)o->out_cap : 1))) { snprintf(why, wsz, "RUN: out of memory"); return GR_E_MEMORY; }
            if (b->data) memcpy(nd, b->data, b->size < o->out_cap ? b->size : (size_t)o->out_cap);
            parked[(*nparked)++] = *b; /* freed after the segment: its results may alias these bytes */
            b->entry = NULL, b->gt = NULL;
            b->data = nd;
            b->size = (size_t)o->out_cap;
            c->owned_bytes += b->size;
        }
        if (genie_data(c->g, res[i], &ptr) != GENIE_OK) { snprintf(why, wsz, "RUN: %s", genie_last_error(c->g)); return GR_E_OP; }
        if (o->op == GR_OP_INDEX_COPY) { /* aux[i]: the index */
            const void *ip;
            int64_t ni = gr_view_numel(&o->in[0].v), j, *idx, ist = genie_ndim(aux[i]) ? genie_strides(aux[i])[0] : 0;
            if (genie_data(c->g, aux[i], &ip) != GENIE_OK) { snprintf(why, wsz, "RUN: %s", genie_last_error(c->g)); return GR_E_OP; }
            if (!(idx = (int64_t *)malloc((size_t)(ni ? ni : 1) * sizeof *idx))) { snprintf(why, wsz, "RUN: out of memory"); return GR_E_MEMORY; }
            for (j = 0; j < ni; j++) memcpy(&idx[j], (const int64_t *)ip + j * ist, sizeof *idx);
            code = sv_index_copy_store(b->data, o, idx, (const uint8_t *)ptr, genie_strides(res[i]), why, wsz);
            free(idx);
            if (code) return code;
        } else {
            sv_scatter(b->data, &o->out, (const uint8_t *)ptr, genie_strides(res[i]), gr_dtype_size[o->dtype]);
        }
    }
    sv_account(c, run, from, to, (uint64_t)((grx_now() - t0) * 1e9));
    return 0;
}
/* Stores the written results of ops [from, to) into their buffers. A buffer given new bytes keeps
   its old ones (and its cache entry's reference) until every result of the segment is stored,
   since a result may be a view of them (genie_contiguous of a contiguous view, a copy onto its
   own source). */
static int sv_store(sv *s, sv_client *c, const gr_run *run, genie_tensor **res, genie_tensor **aux, genie_tensor **scratch,
                    const uint32_t *last, uint32_t from, uint32_t to, char *why, size_t wsz) {
    sv_buf *parked = (sv_buf *)calloc(to > from ? to - from : 1, sizeof *parked);
    uint32_t n = 0, k;
    int code;
    if (!parked) { snprintf(why, wsz, "RUN: out of memory"); return GR_E_MEMORY; }
    code = sv_store_into(s, c, run, res, aux, scratch, last, from, to, parked, &n, why, wsz);
    for (k = 0; k < n; k++) sv_buf_clear(s, c, &parked[k]);
    free(parked);
    return code;
}

static void sv_run(sv *s, sv_client *c, uint64_t req, gr_run *run) {
    genie_tensor **res = NULL, **aux = NULL, **outs = NULL;
    uint32_t *last = NULL;
    char why[640];
    uint32_t i, seg = 0; /* ops [seg, i) are computed lazily, not yet stored */
    int code = 0;
    why[0] = 0;
    if (!c->g) {
        genie_ctx_desc d;
        memset(&d, 0, sizeof d);
        d.n_threads = s->threads;
        d.backend = s->backend;
        if (!(c->g = genie_ctx_create(&d))) { /* its outputs fail: nothing reads their old bytes */
            sv_buf *b;
            for (i = 0; i < run->nops; i++)
                if (run->ops[i].written && (b = sv_buf_get(c, run->ops[i].out_buf))) sv_buf_fail(s, c, b, "RUN: out of memory for a context");
            sv_error(s, c, req, GR_E_MEMORY, "RUN: out of memory for a context");
            return;
        }
    }
    genie_clear_error(c->g);
    genie_pool_push(c->g);
    res = (genie_tensor **)calloc(run->nops ? run->nops : 1, sizeof *res);
    aux = (genie_tensor **)calloc(run->nops ? run->nops : 1, sizeof *aux);
    outs = (genie_tensor **)calloc(run->nops ? 2 * (size_t)run->nops : 1, sizeof *outs);
    last = (uint32_t *)malloc((run->nops ? run->nops : 1) * sizeof *last);
    if (!res || !aux || !outs || !last) { code = GR_E_MEMORY; snprintf(why, sizeof why, "RUN: out of memory"); goto done; }
    for (i = 0; i < run->nops; i++) { /* any result may be materialized (a RAND, a FULL): each within the client's
                                         budget (genie frees intermediates as their last readers run) */
        const gr_op *o = &run->ops[i];
        const uint64_t bytes = (uint64_t)gr_view_numel(&o->out) * gr_dtype_size[o->dtype]; /* <= 2^43 */
        if (bytes > s->client_budget) {
            code = GR_E_LIMIT;
            snprintf(why, sizeof why, "RUN op %u (%s): its result would take %llu MiB, past the client's %llu MiB (--client-mb)", i,
                     gr_op_names[o->op], (unsigned long long)(bytes >> 20), (unsigned long long)(s->client_budget >> 20));
            goto done;
        }
    }
    if (gr_run_cost(run) > s->max_run_work) { /* a pool thread busy for minutes: refused before anything runs */
        code = GR_E_LIMIT;
        snprintf(why, sizeof why, "RUN: its work, %llu (flops plus 256 per element read or written, over its %u ops), is past the "
                 "server's limit of %llu per RUN (--max-run-work)", (unsigned long long)gr_run_cost(run), run->nops,
                 (unsigned long long)s->max_run_work);
        goto done;
    }
    sv_dead_last(run, last);
    for (i = 0; i < run->nops && !code; i++) {
        const gr_op *o = &run->ops[i];
        genie_tensor *t[GR_MAX_IN], *r, *from_op[GR_MAX_IN];
        int k;
        uint32_t p;
        for (k = 0; k < o->nin; k++) { /* a buffer an op of this segment wrote last: read that op's result
                                          where it holds what the source reads (sv_src_of_op), else store
                                          the segment first */
            from_op[k] = NULL;
            for (p = i; p-- > seg && o->in[k].kind == GR_SRC_BUF;)
                if (run->ops[p].written && run->ops[p].out_buf == o->in[k].ref) {
                    if ((from_op[k] = sv_src_of_op(c->g, &run->ops[p], res[p], &o->in[k], SV_SRC_NDIM(o, k))) != NULL) {
                        c->lazy_reads++;
                        break;
                    }
                    c->mid_stores++;
                    if ((code = sv_store(s, c, run, res, aux, outs, last, seg, i, why, sizeof why)) != 0) goto done;
                    seg = i;
                    break;
                }
        }
        for (k = 0; k < o->nin && !code; k++) {
            const gr_src *src = &o->in[k];
            if (from_op[k]) {
                t[k] = from_op[k];
                continue;
            }
            size_t es = GR_DT_BLOCK(src->dtype) ? 1 : gr_dtype_size[src->dtype];
            int64_t ext = (o->zero >> k & 1) ? src->v.off + 1 : gr_view_extent(&src->v); /* 0-dim: the element at its offset */
            if (src->kind == GR_SRC_BUF) {
                sv_buf *b = sv_buf_find(c, src->ref);
                int64_t n;
                genie_tensor *base;
                if (!b || (!b->data && !b->err)) {
                    code = GR_E_BUFFER;
                    snprintf(why, sizeof why, "RUN op %u (%s): source %d names buffer %llu, which the server does not hold", i,
                             gr_op_names[o->op], k, (unsigned long long)src->ref);
                    break;
                }
                if (b->err) { code = GR_E_BUFFER; snprintf(why, sizeof why, "RUN op %u (%s): source %d failed: %s", i, gr_op_names[o->op], k, b->err); break; }
                if (GR_DT_BLOCK(src->dtype)) { /* a quantized linear's weight, or an embedding's or to's source */
                    if ((code = o->op == GR_OP_QLINEAR ? sv_qweight_bad(o, i, b->size, why, sizeof why)
                                                       : sv_qsource_bad(o, i, b->size, why, sizeof why)) != 0)
                        break;
                    if ((t[k] = sv_qweight(c, b, src)) == NULL) {
                        code = GR_E_OP;
                        snprintf(why, sizeof why, "RUN op %u (%s): source %d: %s", i, gr_op_names[o->op], k, genie_last_error(c->g));
                    }
                    continue;
                }
                n = (int64_t)(b->size / es);
                if (ext > n) {
                    code = GR_E_BUFFER;
                    snprintf(why, sizeof why, "RUN op %u (%s): source %d reads %lld elements of %s; its buffer holds %lld", i,
                             gr_op_names[o->op], k, (long long)ext, sv_dt_name(src->dtype), (long long)n);
                    break;
                }
                if (b->entry && (!b->gt || (int)genie_dtype_of(b->gt) != src->dtype) && n > 0) {
                    /* a cached tensor (a weight): a copy genie owns, kept while the buffer reads it */
                    genie_release(b->gt);
                    if ((b->gt = genie_from_data(c->g, (genie_dtype)src->dtype, 1, &n, b->data))) genie_retain(b->gt);
                }
                if (b->entry && b->gt && (int)genie_dtype_of(b->gt) == src->dtype) base = b->gt;
                else if (src->dtype == GENIE_BOOL) /* bytes outside its views are the buffer's old contents: u8, then != 0 */
                    base = genie_to_dtype(c->g, genie_from_blob(c->g, GENIE_U8, 1, &n, NULL, b->data, NULL, NULL), GENIE_BOOL);
                else base = genie_from_blob(c->g, (genie_dtype)src->dtype, 1, &n, NULL, b->data, NULL, NULL);
                t[k] = base ? genie_as_strided(c->g, base, SV_SRC_NDIM(o, k), src->v.shape, src->v.strides, src->v.off) : NULL;
            } else { /* an earlier op's result, laid out as that op declared */
                const gr_op *p = &run->ops[src->ref];
                genie_tensor *pr = res[src->ref];
                if (genie_storage_offset(pr) != p->out.off ||
                    memcmp(genie_strides(pr), p->out.strides, (size_t)p->out.ndim * 8) != 0) {
                    code = GR_E_OP;
                    snprintf(why, sizeof why, "RUN op %u (%s): source %d: op %llu's layout is not the one declared", i,
                             gr_op_names[o->op], k, (unsigned long long)src->ref);
                    break;
                }
                if (ext > gr_view_numel(&p->out)) {
                    code = GR_E_BUFFER;
                    snprintf(why, sizeof why, "RUN op %u (%s): source %d reads past op %llu's result", i, gr_op_names[o->op], k,
                             (unsigned long long)src->ref);
                    break;
                }
                t[k] = genie_as_strided(c->g, pr, SV_SRC_NDIM(o, k), src->v.shape, src->v.strides, src->v.off);
            }
            if (!code && !t[k]) {
                code = GR_E_OP;
                snprintf(why, sizeof why, "RUN op %u (%s): source %d: %s", i, gr_op_names[o->op], k, genie_last_error(c->g));
            }
        }
        if (code) break;
        r = sv_call(c->g, o, t);
        if (!r) {
            code = GR_E_OP;
            snprintf(why, sizeof why, "RUN op %u (%s): %s", i, gr_op_names[o->op],
                     genie_status(c->g) ? genie_last_error(c->g) : "sources not in the layout genie keeps for this op");
            break;
        }
        if (GR_OP_MIXED(o->op) && (int)genie_compute_dtype(r) != o->cdt) {
            code = GR_E_OP;
            snprintf(why, sizeof why, "RUN op %u (%s): genie computes it in %s; the client declared %s", i, gr_op_names[o->op],
                     sv_dt_name(genie_compute_dtype(r)), sv_dt_name(o->cdt));
            break;
        }
        if (o->inplace && GR_OP_MIXED(o->op) && (int)genie_dtype_of(r) != o->dtype) {
            /* an in-place write keeps its destination's dtype (f16 *= bf16 computes in f32): genie's
               result converted to it, as genie stores it, where it casts so (no float into an
               integer, nothing but bool into bool) */
            int from = (int)genie_dtype_of(r), to = o->dtype;
            if ((from <= GENIE_BF16 && to > GENIE_BF16) || (to == GENIE_BOOL && from != GENIE_BOOL)) {
                code = GR_E_OP;
                snprintf(why, sizeof why, "RUN op %u (%s): an in-place result of %s can't be cast to the destination's %s", i,
                         gr_op_names[o->op], sv_dt_name(from), sv_dt_name(to));
                break;
            }
            if (!(r = genie_to_dtype(c->g, r, (genie_dtype)to))) {
                code = GR_E_OP;
                snprintf(why, sizeof why, "RUN op %u (%s): %s", i, gr_op_names[o->op], genie_last_error(c->g));
                break;
            }
        }
        if ((int)genie_dtype_of(r) != o->dtype || (o->op != GR_OP_INDEX_COPY && !sv_same_shape(r, &o->out))) {
            code = GR_E_OP;
            char gs[160], cs[160];
            snprintf(why, sizeof why, "RUN op %u (%s): genie infers a %s result of shape %s; the client declared %s of shape %s", i,
                     gr_op_names[o->op], sv_dt_name(genie_dtype_of(r)), sv_dims_str(gs, sizeof gs, genie_ndim(r), genie_shape(r)),
                     sv_dt_name(o->dtype), sv_shape_str(cs, sizeof cs, &o->out));
            break;
        }
        res[i] = r;
        if (o->op == GR_OP_INDEX_COPY) aux[i] = t[0];
    }
    if (!code) code = sv_store(s, c, run, res, aux, outs, last, seg, run->nops, why, sizeof why);
done:
    if (code) { /* every output of this RUN failed: later reads say why */
        for (i = 0; i < run->nops; i++) {
            sv_buf *b;
            if (run->ops[i].written && (b = sv_buf_get(c, run->ops[i].out_buf))) sv_buf_fail(s, c, b, why);
        }
        sv_error(s, c, req, code, why);
    }
    genie_pool_pop(c->g);
    free(res);
    free(aux);
    free(outs);
    free(last);
}

/* Kept tape k's decoded form dropped */
static void sv_tape_undecode(sv_client *c, int k);
/* Every tape c keeps dropped (a RUN_CACHED of one it does not hold: its client drops its list too) */
static void sv_tapes_forget(sv_client *c) {
    int i;
    for (i = 0; i < c->ntapes; i++) {
        int k = (c->tape_first + i) % GR_TAPES;
        free(c->tapes[k].bytes);
        c->tapes[k].bytes = NULL;
        sv_tape_undecode(c, k);
    }
    c->ntapes = c->tape_first = 0;
    c->tape_bytes = 0;
}
/* Kept tape k's decoded form dropped */
static void sv_tape_undecode(sv_client *c, int k) {
    if (c->tapes[k].decoded == 1) {
        gr_run_free(&c->tapes[k].dec);
        free(c->tapes[k].refs);
        c->tapes[k].refs = NULL;
        c->dec_bytes -= c->tapes[k].dec_bytes;
    }
    c->tapes[k].decoded = 0;
}
/* Kept tape k (c->tapes[k]) bound to a RUN_CACHED's buffer table: *out, its ops with each buffer
   reference the table's id. The tape is decoded once, against a table of the slots themselves
   (slot i as id i + 1, the table's size), and kept so within SV_DECODED_BYTES a connection; the
   binding then checks each slot against the table in gr_tape_decode's order, with its message.
   0; a gr_err with why[] (a slot past the table); -1 when the tape is not kept decoded (then
   gr_tape_decode it with the table, as it came). */
static int sv_tape_bind(sv_client *c, int k, const gr_run *table, gr_run **out, char *why) {
    uint32_t i;
    int j;
    if (c->tapes[k].decoded == 0) { /* decoded once: as -1 unless all of it fits */
        gr_run run;
        sv_slot_ref *refs = NULL;
        uint32_t n = 0, cap = 0;
        char drop[256];
        size_t bytes;
        c->tapes[k].decoded = -1;
        memset(&run, 0, sizeof run);
        if (!(run.ids = (uint64_t *)malloc((size_t)(table->nslots ? table->nslots : 1) * 8))) return -1;
        run.nslots = table->nslots;
        for (i = 0; i < run.nslots; i++) run.ids[i] = (uint64_t)i + 1;
        if (gr_tape_decode(c->tapes[k].bytes, c->tapes[k].len, &run, drop) != 0) return -1; /* (it freed ids) */
        free(run.ids), run.ids = NULL, run.nslots = 0;
        for (i = 0; i < run.nops; i++) cap += 1 + (uint32_t)run.ops[i].nin;
        bytes = (size_t)run.nops * sizeof(gr_op) + (size_t)cap * sizeof *refs;
        if (c->dec_bytes + bytes > SV_DECODED_BYTES || !(refs = (sv_slot_ref *)malloc((size_t)(cap ? cap : 1) * sizeof *refs))) {
            gr_run_free(&run);
            return -1;
        }
        for (i = 0; i < run.nops; i++) { /* gr_tape_decode's order: the output, then the sources */
            const gr_op *o = &run.ops[i];
            if (o->written) refs[n].op = i, refs[n].k = -1, refs[n++].slot = (uint32_t)(o->out_buf - 1);
            for (j = 0; j < o->nin; j++)
                if (o->in[j].kind == GR_SRC_BUF) refs[n].op = i, refs[n].k = j, refs[n++].slot = (uint32_t)(o->in[j].ref - 1);
        }
        c->tapes[k].dec = run;
        c->tapes[k].refs = refs;
        c->tapes[k].nrefs = n;
        c->tapes[k].dec_bytes = bytes;
        c->dec_bytes += bytes;
        c->tapes[k].decoded = 1;
    }
    if (c->tapes[k].decoded != 1) return -1;
    for (i = 0; i < c->tapes[k].nrefs; i++) {
        const sv_slot_ref *f = &c->tapes[k].refs[i];
        gr_op *o = &c->tapes[k].dec.ops[f->op];
        if (f->slot >= table->nslots) {
            strcpy(why, f->k < 0 ? "RUN: an output slot past the buffer table" : "RUN: a source slot past the buffer table");
            return GR_E_MALFORMED;
        }
        if (f->k < 0) o->out_buf = table->ids[f->slot];
        else o->in[f->k].ref = table->ids[f->slot];
    }
    *out = &c->tapes[k].dec;
    return 0;
}
/* A RUN's tape kept under its BLAKE2b-256 hash for RUN_CACHED, first in first out, as the
   client keeps its list: every RUN whose buffer table is whole (decoded or not), when not kept
   already and at most GR_TAPE_BYTES. */
static void sv_tape_keep(sv_client *c, const uint8_t *p, size_t n) {
    gr_rd r = gr_rd_init(p, n);
    uint32_t ns = gr_u32(&r);
    uint8_t hash[GR_HASH_BYTES];
    size_t len;
    int k;
    if (r.bad || ns > GR_MAX_SLOTS || (uint64_t)ns * 8 > gr_left(&r)) return;
    p += 4 + (size_t)ns * 8;
    len = n - 4 - (size_t)ns * 8;
    if (len > GR_TAPE_BYTES) return;
    crypto_generichash(hash, sizeof hash, p, len, NULL, 0);
    for (k = 0; k < c->ntapes; k++)
        if (memcmp(c->tapes[(c->tape_first + k) % GR_TAPES].hash, hash, GR_HASH_BYTES) == 0) { /* held: now the newest, as the client has it */
            int j;
            struct sv_tape held = c->tapes[(c->tape_first + k) % GR_TAPES];
            for (j = k; j + 1 < c->ntapes; j++) c->tapes[(c->tape_first + j) % GR_TAPES] = c->tapes[(c->tape_first + j + 1) % GR_TAPES];
            c->tapes[(c->tape_first + c->ntapes - 1) % GR_TAPES] = held;
            return;
        }
    while (c->ntapes && (c->ntapes == GR_TAPES || c->tape_bytes + len > GR_TAPE_BYTES)) {
        c->tape_bytes -= c->tapes[c->tape_first].len;
        free(c->tapes[c->tape_first].bytes);
        c->tapes[c->tape_first].bytes = NULL;
        sv_tape_undecode(c, c->tape_first);
        c->tape_first = (c->tape_first + 1) % GR_TAPES;
        c->ntapes--;
    }
    k = (c->tape_first + c->ntapes) % GR_TAPES;
    c->tapes[k].work = SV_WORK_UNKNOWN;
    c->tapes[k].decoded = 0;
    if (!(c->tapes[k].bytes = (uint8_t *)malloc(len ? len : 1))) return; /* then RUN_CACHED of it gets an ERROR */
    memcpy(c->tapes[k].bytes, p, len);
    memcpy(c->tapes[k].hash, hash, GR_HASH_BYTES);
    c->tapes[k].len = len;
    c->tape_bytes += len;
    c->ntapes++;
}

/* The inputs inline in a RUN_CACHED (request id req), each as a PUT of its bytes just before it
   would: the buffer owns a copy of them, as it owns a computed result (counted in owned_bytes; not
   hashed: HAS looks only for bytes above GR_MAX_INLINE, which never come inline). A failed one
   fails its buffer, with an ERROR. */
static void sv_put_inline(sv *s, sv_client *c, uint64_t req, const gr_msg *q, const char *what) {
    gr_rd r = gr_rd_init(q->inl, q->inl_len);
    char why[160];
    uint32_t k;
    for (k = 0; k < q->ninline; k++) {
        uint64_t id;
        uint32_t len;
        const uint8_t *p;
        uint8_t *block;
        sv_buf *b;
        gr_inline_next(&r, &id, &p, &len);
        if (!(b = sv_buf_get(c, id))) {
            snprintf(why, sizeof why, "%s: an inline input: too many buffers", what);
            sv_error(s, c, req, GR_E_LIMIT, why);
            continue;
        }
        sv_buf_clear(s, c, b);
        if (c->owned_bytes + len > s->client_budget) {
            snprintf(why, sizeof why, "%s: an inline input would exceed the client's budget (--client-mb)", what);
            sv_buf_fail(s, c, b, why);
            sv_error(s, c, req, GR_E_LIMIT, why);
            continue;
        }
        if (!(block = (uint8_t *)malloc(len ? len : 1))) {
            snprintf(why, sizeof why, "%s: an inline input: out of memory", what);
            sv_buf_fail(s, c, b, why);
            sv_error(s, c, req, GR_E_MEMORY, why);
            continue;
        }
        if (len) memcpy(block, p, len);
        b->data = block;
        b->size = len;
        c->owned_bytes += len;
    }
}
/* A GET (request id req) of bytes [lo, hi) of c's buffer id: DATA, or ERROR for a buffer that is
   unknown, failed, shorter than hi, or a range over the payload limit. */
static void sv_get(sv *s, sv_client *c, uint64_t req, uint64_t id, uint64_t lo, uint64_t hi) {
    sv_buf *b = sv_buf_find(c, id);
    if (!b || (!b->data && !b->err)) sv_error(s, c, req, GR_E_BUFFER, "GET: no such buffer");
    else if (b->err) sv_error(s, c, req, GR_E_OP, b->err);
    else if (hi > b->size) sv_error(s, c, req, GR_E_BUFFER, "GET: a range past the buffer's end");
    else if (hi - lo > s->x.max_payload) sv_error(s, c, req, GR_E_LIMIT, "GET: a range over the payload limit");
    else sv_send(s, c, GR_DATA, req, b->data + lo, (size_t)(hi - lo));
}

/* An ERROR for message h: under its request id, and for a RUN_CACHED_GET under the GET's too
   (the id after it), which its client waits for. */
static void sv_error_msg(sv *s, sv_client *c, const gr_hdr *h, int code, const char *text) {
    sv_error(s, c, h->id, code, text);
    if (h->type == GR_RUN_CACHED_GET) sv_error(s, c, h->id + 1, code, text);
}

/* ---- one message ---- */
static void sv_handle(sv *s, sv_client *c, grx_msg *m) {
    gr_hdr h;
    gr_msg q;
    char why[256];
    int rc;
    c->msgs_in++;
    c->bytes_in += m->hdr_len + m->len;
    if (m->oversized) {
        sv_error(s, c, 0, GR_E_FRAMING, "a payload over the server's limit");
        sv_close(s, c, "oversized payload");
        return;
    }
    if ((rc = gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h)) != 0) {
        sv_error(s, c, 0, rc, rc == GR_E_VERSION ? "protocol version not supported" : "a malformed header");
        sv_close(s, c, rc == GR_E_VERSION ? "wrong version" : "framing error");
        return;
    }
    if (m->failed) {
        sv_error_msg(s, c, &h, GR_E_MEMORY, "the payload could not be received");
        return;
    }
    if (c->state == 0 && h.type != GR_HELLO) { /* nothing is decoded before the handshake */
        sv_error(s, c, h.id, GR_E_AUTH, "HELLO first");
        sv_close(s, c, "no HELLO");
        return;
    }
    if (c->state == 1 && h.type != GR_AUTH) {
        sv_error(s, c, h.id, GR_E_AUTH, "AUTH first: this server needs the key");
        sv_close(s, c, "no AUTH");
        return;
    }
    if (m->refused) { /* the connection goes on; an upload in parts it may belong to fails */
        sv_upload_drop(s, c, "PUT: a part over the client's queue cap (--queue-mb)");
        sv_error_msg(s, c, &h, GR_E_LIMIT, "a message over the client's queue cap (--queue-mb): not received");
        return;
    }
    if (h.type == GR_RUN) sv_tape_keep(c, m->data, m->len);
    if ((rc = gr_msg_decode(h.type, m->data, m->len, &q, why)) != 0) {
        sv_error_msg(s, c, &h, rc, why);
        if (c->state < 2) sv_close(s, c, "bad handshake");
        return;
    }
    switch (h.type) {
    case GR_HELLO: {
        gr_wr w;
        if (c->state != 0) { sv_error(s, c, h.id, GR_E_AUTH, "a second HELLO"); sv_close(s, c, "second HELLO"); break; }
        if (q.vmin > GR_VERSION || q.vmax < GR_VERSION) {
            sv_error(s, c, h.id, GR_E_VERSION, "no common protocol version (this server speaks 1)");
            sv_close(s, c, "wrong version");
            break;
        }
        memcpy(c->nonce, q.nonce, GR_NONCE_BYTES);
        randombytes_buf(c->challenge, sizeof c->challenge);
        memset(&w, 0, sizeof w);
        gr_w16(&w, GR_VERSION);
        gr_w8(&w, (unsigned)s->has_key);
        gr_w8(&w, 0);
        gr_w32(&w, GR_MAX_OPS);
        gr_w64(&w, s->x.max_payload);
        gr_wbytes(&w, c->challenge, GR_NONCE_BYTES);
        gr_w64(&w, s->max_run_work); /* the client sends its RUNs within it (gr_welcome_decode) */
        gr_w64(&w, s->put_window);   /* and its PUTs within this, as CREDITs say they are taken (sv_credit) */
        if (!w.oom) sv_send(s, c, GR_WELCOME, h.id, w.p, w.n);
        gr_wr_free(&w);
        c->state = s->has_key ? 1 : 2;
        break;
    }
    case GR_AUTH: {
        uint8_t msg[2 * GR_NONCE_BYTES + 12];
        if (c->state != 1) { sv_error(s, c, h.id, GR_E_AUTH, "AUTH out of turn"); sv_close(s, c, "AUTH out of turn"); break; }
        memcpy(msg, c->challenge, GR_NONCE_BYTES);
        memcpy(msg + GR_NONCE_BYTES, c->nonce, GR_NONCE_BYTES);
        memcpy(msg + 2 * GR_NONCE_BYTES, "genie-remote", 12);
        if (crypto_auth_verify(q.mac, msg, sizeof msg, s->key) != 0) {
            sv_error(s, c, h.id, GR_E_AUTH, "wrong key");
            sv_close(s, c, "wrong key");
            break;
        }
        c->state = 2;
        sv_send(s, c, GR_OK, h.id, NULL, 0);
        break;
    }
    case GR_HAS: {
        sv_entry *e = sv_find(s, q.hash);
        uint8_t found = 0;
        if (e && e->size == q.bytes) {
            sv_buf *b = sv_buf_get(c, q.buf);
            if (!b) { sv_error(s, c, h.id, GR_E_LIMIT, "HAS: too many buffers"); break; }
            if (c->bound_bytes + sv_entry_charge(e) > s->client_budget) {
                sv_error(s, c, h.id, GR_E_LIMIT, "HAS: the client's tensors would exceed its budget (--client-mb)");
                break;
            }
            sv_bind(s, c, b, e);
            found = 1;
        }
        sv_send(s, c, GR_HAS_REPLY, h.id, &found, 1);
        break;
    }
    case GR_PUT_PART: { /* the leading bytes of a PUT: copied into place, on a thread while the
                           loop receives the next part (m is kept until then) or here (--part-copy) */
        sv_buf *b;
        sv_upload_wait(s, c);
        if (c->up.data && (c->up.id != q.buf || c->up.cap != q.cap || c->up.got != q.lo))
            sv_upload_drop(s, c, "PUT: its parts out of order");
        if (!(b = sv_buf_get(c, q.buf))) { sv_error(s, c, h.id, GR_E_LIMIT, "PUT_PART: too many buffers"); break; }
        if (!c->up.data) {
            c->up_failed = q.buf; /* until this upload starts well */
            if (q.lo != 0) {
                sv_buf_fail(s, c, b, "PUT: its parts out of order");
                sv_error(s, c, h.id, GR_E_MALFORMED, "PUT_PART: an offset other than the bytes received before");
                break;
            }
            if (c->bound_bytes + q.cap > s->client_budget) {
                sv_buf_fail(s, c, b, "PUT: the client's tensors would exceed its budget (--client-mb)");
                sv_error(s, c, h.id, GR_E_LIMIT, "PUT_PART: the client's tensors would exceed its budget (--client-mb)");
                break;
            }
            c->up.data = sv_upload_alloc(s, (size_t)q.cap, &c->up.data_cap);
            if (!c->up.data) {
                sv_upload_drop(s, c, NULL);
                sv_buf_fail(s, c, b, "PUT: out of memory");
                sv_error(s, c, h.id, GR_E_MEMORY, "PUT_PART: out of memory");
                break;
            }
            c->up.id = q.buf, c->up.cap = q.cap;
            c->up_failed = 0;
        }
        c->up.job.dst = c->up.data + q.lo, c->up.job.src = q.data, c->up.job.n = (size_t)q.bytes;
        c->up.got += q.bytes;
        if (s->part_thread && pthread_create(&c->up.th, NULL, sv_part_main, &c->up.job) == 0) c->up.busy = 1, c->up.held = m;
        else sv_part_main(&c->up.job); /* no thread: copied here */
        break;
    }
    case GR_PUT: { /* the buffer reads the bytes at once; their hash is computed after (sv_hash_start) */
        uint8_t *block = NULL, *data = NULL; /* the tensor's bytes: the upload's, or the payload */
        size_t block_cap = 0;                /* the upload's block: sv_pool_give's cap */
        uint64_t total = q.bytes;
        sv_entry *e;
        sv_buf *b;
        sv_upload_wait(s, c);
        if (c->up.data && (c->up.id != q.buf || c->up.cap != q.cap)) sv_upload_drop(s, c, "PUT: its parts out of order");
        if (!c->up.data && c->up_failed && c->up_failed == q.buf) { /* the rest of an upload whose parts failed */
            c->up_failed = 0;
            if ((b = sv_buf_get(c, q.buf))) sv_buf_fail(s, c, b, "PUT: the parts before it failed");
            sv_error(s, c, h.id, GR_E_BUFFER, "PUT: the parts before it failed");
            break;
        }
        c->up_failed = 0;
        if (c->up.data) { /* the rest of an upload in parts */
            total = c->up.got + q.bytes;
            if (total > c->up.cap) total = (uint64_t)-1;
            else {
                if (q.bytes) memcpy(c->up.data + c->up.got, q.data, (size_t)q.bytes);
                sv_upload_shrink(c->up.data, c->up.data_cap, total);
                block = data = c->up.data;
                block_cap = c->up.data_cap;
                c->up.data = NULL;
            }
            sv_upload_drop(s, c, NULL);
        } else if (m->ucx_owned) { /* the bytes are UCX's buffer: copied once, aligned */
            if ((block = data = (uint8_t *)malloc(q.bytes ? (size_t)q.bytes : 1)) && q.bytes) memcpy(block, q.data, (size_t)q.bytes);
        } else {
            block = m->data;
            data = q.bytes ? (uint8_t *)q.data : m->data;
        }
        if (!(b = sv_buf_get(c, q.buf))) { if (block != m->data) sv_pool_give(s, block, block_cap); sv_error(s, c, h.id, GR_E_LIMIT, "PUT: too many buffers"); break; }
        if (total == (uint64_t)-1) {
            sv_buf_fail(s, c, b, "PUT: its parts and its rest exceed its cap");
            sv_error(s, c, h.id, GR_E_LIMIT, "PUT: its parts and its rest exceed its cap");
            break;
        }
        if (!block) {
            sv_buf_fail(s, c, b, "PUT: out of memory");
            sv_error(s, c, h.id, GR_E_MEMORY, "PUT: out of memory");
            break;
        }
        if (c->bound_bytes + sv_charge(total, block_cap) > s->client_budget) { /* bound tensors are pinned: bounded per client */
            if (block != m->data) sv_pool_give(s, block, block_cap);
            sv_buf_fail(s, c, b, "PUT: the client's tensors would exceed its budget (--client-mb)");
            sv_error(s, c, h.id, GR_E_LIMIT, "PUT: the client's tensors would exceed its budget (--client-mb)");
            break;
        }
        if (!(e = (sv_entry *)calloc(1, sizeof *e))) {
            if (block != m->data) sv_pool_give(s, block, block_cap);
            sv_buf_fail(s, c, b, "PUT: out of memory");
            sv_error(s, c, h.id, GR_E_MEMORY, "PUT: out of memory");
            break;
        }
        e->block = block; /* the entry keeps the received bytes: no copy */
        e->block_cap = block_cap;
        e->data = data;
        if (block == m->data) m->data = NULL;
        e->size = (size_t)total;
        sv_bind(s, c, b, e);
        sv_hash_start(s, c, b, e, h.id, q.hash);
        sv_evict(s);
        break;
    }
    case GR_RUN:
        sv_run(s, c, h.id, &q.run);
        gr_run_free(&q.run);
        if (!c->busy) sv_evict(s); /* a job's: the loop evicts after it */
        break;
    case GR_RUN_CACHED: case GR_RUN_CACHED_GET: {
        gr_run *bound = NULL;
        const char *what = h.type == GR_RUN_CACHED ? "RUN_CACHED" : "RUN_CACHED_GET";
        int k, ran = 0;
        sv_put_inline(s, c, h.id, &q, what);
        for (k = 0; k < c->ntapes; k++)
            if (memcmp(c->tapes[(c->tape_first + k) % GR_TAPES].hash, q.hash, GR_HASH_BYTES) == 0) break;
        if (k == c->ntapes) { /* the lists differ (a RUN the server never kept): both start again empty */
            rc = GR_E_TAPE;
            snprintf(why, sizeof why, "%s: no tape with that hash on this connection (both sides forget their tapes)", what);
            sv_tapes_forget(c);
            sv_error(s, c, h.id, rc, why);
        } else if ((rc = sv_tape_bind(c, (c->tape_first + k) % GR_TAPES, &q.run, &bound, why)) == 0) {
            sv_run(s, c, h.id, bound);
            ran = 1;
        } else if (rc > 0) {
            sv_error(s, c, h.id, rc, why);
        } else if ((rc = gr_tape_decode(c->tapes[(c->tape_first + k) % GR_TAPES].bytes, c->tapes[(c->tape_first + k) % GR_TAPES].len,
                                        &q.run, why)) != 0) {
            sv_error(s, c, h.id, rc, why);
        } else {
            sv_run(s, c, h.id, &q.run);
            ran = 1;
        }
        gr_run_free(&q.run);
        if (h.type == GR_RUN_CACHED_GET) { /* as a GET after it (the id after the RUN's); none of a tape that did not run */
            if (ran) sv_get(s, c, h.id + 1, q.buf, q.lo, q.hi);
            else sv_error(s, c, h.id + 1, rc, why); /* the RUN's ERROR again: its tape did not run, nothing is read */
        }
        if (!c->busy) sv_evict(s);
        break;
    }
    case GR_GET: sv_get(s, c, h.id, q.buf, q.lo, q.hi); break;
    case GR_FREE: {
        uint32_t k;
        for (k = 0; k < q.nfree; k++) sv_buf_free(s, c, gr_free_id(&q, k));
        sv_evict(s);
        break;
    }
    case GR_PING: sv_send(s, c, GR_OK, h.id, NULL, 0); break;
    case GR_STATS: { /* work by module, phase and role (sv_account) */
        gr_wr w;
        int b;
        memset(&w, 0, sizeof w);
        gr_w32(&w, c->nstats);
        for (b = 0; b < SV_STAT_BUCKETS; b++) {
            const sv_stat *st;
            for (st = c->stats[b]; st; st = st->next) {
                gr_stat row;
                row.module = st->module, row.module_len = (uint32_t)strlen(st->module);
                row.phase = st->phase, row.phase_len = (uint32_t)strlen(st->phase);
                row.role = st->role;
                row.nodes = st->w.nodes, row.flops = st->w.flops, row.bytes = st->w.bytes, row.ns = st->w.ns;
                gr_stat_encode(&w, &row);
            }
        }
        if (!w.oom) sv_send(s, c, GR_STATS_REPLY, h.id, w.p, w.n);
        else sv_error(s, c, h.id, GR_E_MEMORY, "STATS: out of memory");
        gr_wr_free(&w);
        break;
    }
    case GR_BYE: sv_close(s, c, "BYE"); break;
    default: break;
    }
}

/* ---- RUNs on threads ---- */
/* A RUN's work for the loop-or-pool choice: the cost --max-run-work caps (gr_run_cost, every
   element read counted), so no RUN the cap admits can hold the loop for long. */
static uint64_t sv_run_work(const gr_run *run) { return gr_run_cost(run); }
/* A kept tape's work (sv_run_work); 0 for one that does not decode (its RUN's error is quick).
   slots: the RUN's buffer table, which the tape's refs index. */
static uint64_t sv_tape_work(const uint8_t *tape, size_t len, gr_run *slots) {
    char why[640];
    return gr_tape_decode(tape, len, slots, why) == 0 ? sv_run_work(slots) : 0;
}
/* m's work (sv_tape_work) if it is a RUN or RUN_CACHED of c (which is ready) that a pool thread
   may handle: 1, else 0. A cached tape's work is kept with it. */
static int sv_msg_work(sv_client *c, const grx_msg *m, uint64_t *work) {
    gr_hdr h;
    gr_run run;
    char why[640];
    int k = 0;
    *work = 0;
    if (c->state != 2 || m->oversized || m->failed || m->refused || gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) != 0) return 0;
    if (h.type != GR_RUN && h.type != GR_RUN_CACHED && h.type != GR_RUN_CACHED_GET) return 0;
    memset(&run, 0, sizeof run);
    if (h.type == GR_RUN) {
        if (gr_run_decode(m->data, m->len, &run, why) == 0) *work = sv_run_work(&run);
    } else if (m->len >= GR_HASH_BYTES + (h.type == GR_RUN_CACHED_GET ? 24 : 0)) { /* the buffer table after the hash (and the GET's fields) */
        const size_t at = GR_HASH_BYTES + (h.type == GR_RUN_CACHED_GET ? 24 : 0);
        gr_rd r = gr_rd_init((const uint8_t *)m->data + at, m->len - at);
        for (; k < c->ntapes; k++)
            if (memcmp(c->tapes[(c->tape_first + k) % GR_TAPES].hash, m->data, GR_HASH_BYTES) == 0) break;
        if (k < c->ntapes) {
            k = (c->tape_first + k) % GR_TAPES;
            if (c->tapes[k].work == SV_WORK_UNKNOWN && gr_slots_decode(&r, &run, why) == 0)
                c->tapes[k].work = sv_tape_work(c->tapes[k].bytes, c->tapes[k].len, &run);
            *work = c->tapes[k].work == SV_WORK_UNKNOWN ? 0 : c->tapes[k].work;
        }
    }
    gr_run_free(&run);
    return 1;
}
/* The next queued job's client, or NULL when the server stops. A thread polls a little
   before it sleeps: a client's next RUN usually follows at once. */
static sv_client *sv_job_take(sv *s) {
    double t0 = grx_now();
    sv_client *c;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if ((c = s->qhead)) {
            if (!(s->qhead = c->job_next)) s->qtail = NULL;
            c->job_next = NULL;
            break;
        }
        if (s->stopping) break;
        if (grx_now() - t0 < 200e-6) {
            pthread_mutex_unlock(&s->mu);
            sched_yield();
            pthread_mutex_lock(&s->mu);
        } else {
            pthread_cond_wait(&s->cv, &s->mu);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return c;
}
static void *sv_job_main(void *arg) {
    sv *s = (sv *)arg;
    sv_client *c;
    while ((c = sv_job_take(s))) {
        char one = 1;
        sv_handle(s, c, c->job_msg);
        pthread_mutex_lock(&s->mu);
        c->job_done = 1;
        pthread_mutex_unlock(&s->mu);
        if (write(s->wake[1], &one, 1) < 0) {} /* the pipe full: the loop is awake anyway */
    }
    return NULL;
}
/* c's job done (under the lock): 1 */
static int sv_job_done(sv *s, sv_client *c) {
    int done;
    pthread_mutex_lock(&s->mu);
    done = c->job_done;
    pthread_mutex_unlock(&s->mu);
    return done;
}
/* m, just handled on the loop, is taken off c's queue: for a PUT or PUT_PART (whatever became of
   it: refused over the queue cap, failed, malformed) its payload bytes count as taken, and a
   CREDIT with the count goes once GR_CREDIT_EVERY bytes or more were taken since the last one. So
   a client keeping to its window holds at most the window of PUT bytes in c's queue, besides the
   part whose copy into place is running (held until the next PUT or PUT_PART is handled). */
static void sv_credit(sv *s, sv_client *c, const grx_msg *m) {
    unsigned type = m->hdr_len == GR_HDR_BYTES ? (unsigned)(m->hdr[6] | m->hdr[7] << 8) : 0;
    uint8_t p[GR_CREDIT_BYTES];
    if (type != GR_PUT && type != GR_PUT_PART) return;
    c->put_taken += m->len;
    if (c->put_taken - c->put_told < GR_CREDIT_EVERY) return;
    c->put_told = c->put_taken;
    gr_put_u64_at(p, c->put_taken);
    sv_send(s, c, GR_CREDIT, 0, p, sizeof p);
}
/* Handles c's waiting messages in order until one starts a job (or none is left, or a job
   would exceed --run-threads: then they wait). 1 if it took any. */
static int sv_drain(sv *s, sv_client *c) {
    grx_msg *m;
    int took = 0;
    while (!c->busy && (m = c->wait_head)) {
        uint64_t work = 0;
        int run, job;
        if (c->work_msg != m) c->work_msg = m, c->work = 0, run = c->state != 3 && sv_msg_work(c, m, &c->work);
        else run = 1; /* a RUN that waited for a pool thread */
        work = c->work;
        job = run && c->state != 3 && s->max_jobs > 0 && work >= s->inline_work; /* 0 threads: all on the loop */
        if (job && s->jobs >= s->max_jobs) return took;
        c->work_msg = NULL;
        if (run && c->state != 3) {
            if (job) s->runs_pool++;
            else s->runs_loop++;
        }
        took = 1;
        if (!(c->wait_head = m->next)) c->wait_tail = NULL;
        m->next = NULL;
        if (job) { /* to the pool */
            c->busy = 1, c->job_done = 0, c->job_msg = m;
            pthread_mutex_lock(&s->mu);
            if (s->qtail) s->qtail->job_next = c;
            else s->qhead = c;
            s->qtail = c;
            pthread_cond_signal(&s->cv);
            pthread_mutex_unlock(&s->mu);
            if (++s->jobs > s->peak_jobs) s->peak_jobs = s->jobs;
            return took;
        }
        if (c->state != 3) sv_handle(s, c, m), sv_credit(s, c, m); /* a failed peer's last messages too (no replies) */
        if (c->up.held != m) grx_msg_free(&s->x, m); /* else a part being hashed: freed after */
    }
    return took;
}
/* Finishes c's job if done: its replies sent in order, its message freed. 1 if it did. */
static int sv_reap(sv *s, sv_client *c) {
    if (!c->busy || !sv_job_done(s, c)) return 0;
    c->busy = 0;
    s->jobs--;
    while (c->out_head) {
        struct sv_out *o = c->out_head;
        c->out_head = o->next;
        sv_send(s, c, o->type, o->id, o->n ? o->p : NULL, o->n);
        free(o);
    }
    c->out_tail = NULL;
    grx_msg_free(&s->x, c->job_msg);
    c->job_msg = NULL;
    sv_evict(s);
    return 1;
}

/* ---- connections ---- */
static void sv_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status) {
    sv_client *c = (sv_client *)arg;
    (void)ep;
    c->failed = 1;
    if (!c->why) c->why = ucs_status_string(status);
}
static void sv_conn(ucp_conn_request_h req, void *arg) {
    sv *s = (sv *)arg;
    sv_client *c = (sv_client *)calloc(1, sizeof *c);
    ucp_conn_request_attr_t ca;
    if (!c) { ucp_listener_reject(s->listener, req); return; }
    c->id = ++s->next_client;
    strcpy(c->peer, "?");
    ca.field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ADDR;
    if (ucp_conn_request_query(req, &ca) == UCS_OK) {
        char host[64] = "?";
        int port = 0;
        if (ca.client_address.ss_family == AF_INET) {
            struct sockaddr_in *a = (struct sockaddr_in *)&ca.client_address;
            inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
            port = ntohs(a->sin_port);
        } else if (ca.client_address.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ca.client_address;
            inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
            port = ntohs(a->sin6_port);
        }
        snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
    }
    if (grx_accept(&s->x, req, sv_ep_error, c, &c->ep) != UCS_OK) { free(c); return; }
    c->next = s->clients;
    s->clients = c;
}
static void sv_client_free(sv *s, sv_client *c) {
    int i;
    if (c->busy) { /* its job finishes first (the loop frees only idle clients, but at a stop) */
        while (!sv_job_done(s, c)) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        c->busy = 0;
        s->jobs--;
        grx_msg_free(&s->x, c->job_msg);
    }
    while (c->out_head) {
        struct sv_out *o = c->out_head;
        c->out_head = o->next;
        free(o);
    }
    while (c->wait_head) {
        grx_msg *m = c->wait_head;
        c->wait_head = m->next;
        grx_msg_free(&s->x, m);
    }
    printf("genie-server: client %d from %s ended (%s): %llu messages in, %llu out, %llu bytes in, %llu out, %llu errors; "
           "RUN sources read from an earlier op's result: %llu, segments stored before a read: %llu, dead results not stored: %llu\n",
           c->id, c->peer, c->why ? c->why : "closed", (unsigned long long)c->msgs_in, (unsigned long long)c->msgs_out,
           (unsigned long long)c->bytes_in, (unsigned long long)c->bytes_out, (unsigned long long)c->errors,
           (unsigned long long)c->lazy_reads, (unsigned long long)c->mid_stores, (unsigned long long)c->dead_skipped);
    fflush(stdout);
    grx_drop(&s->x, c->ep);
    if (!c->ep_closed) grx_close_ep(&s->x, c->ep, c->failed); /* a live peer gets what was sent (its last ERROR) first */
    sv_sending_end(s, c);
    grx_drop(&s->x, c->ep);
    for (i = 0; i < SV_BUCKETS; i++)
        while (c->bufs[i]) sv_buf_free(s, c, c->bufs[i]->id);
    genie_ctx_destroy(c->g);
    for (i = 0; i < SV_STAT_BUCKETS; i++)
        while (c->stats[i]) {
            sv_stat *st = c->stats[i];
            c->stats[i] = st->next;
            free(st->module);
            free(st->phase);
            free(st);
        }
    for (i = 0; i < c->ntapes; i++) {
        free(c->tapes[(c->tape_first + i) % GR_TAPES].bytes);
        sv_tape_undecode(c, (c->tape_first + i) % GR_TAPES);
    }
    sv_upload_drop(s, c, NULL);
    {
        sv_hjob *j;
        for (j = s->hjobs; j; j = j->next)
            if (j->c == c) j->c = NULL; /* its hash still ends in the cache */
    }
    free(c);
    sv_evict(s);
}


/* 0 when contexts on `backend` ("cpu" or "cuda") compute where asked: a probe context
   is made and dropped; else one line on stderr saying why, and -1. */
static int sv_backend_check(const char *backend) {
    genie_ctx_desc d;
    genie_ctx *g;
    int ok;
    if (strcmp(backend, "cpu") == 0) return 0;
#ifdef GENIE_SERVER_CUDA
    if (genie_cuda_register() != GENIE_OK) {
        fprintf(stderr, "genie-server: --backend %s: the CUDA backend did not register\n", backend);
        return -1;
    }
#else
    fprintf(stderr, "genie-server: --backend %s: this server was not built with cuda (build/genie-server-cuda is, "
                    "where make remote finds the CUDA toolkit)\n", backend);
    return -1;
#endif
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    d.backend = backend;
    if (!(g = genie_ctx_create(&d))) {
        fprintf(stderr, "genie-server: --backend %s: out of memory for a context\n", backend);
        return -1;
    }
    ok = genie_status(g) == GENIE_OK && strcmp(genie_backend_name(g), backend) == 0;
    if (!ok) { /* genie's message without its "; running on the CPU": this server does not start */
        char why[512], *tail;
        snprintf(why, sizeof why, "%s", genie_last_error(g));
        if ((tail = strstr(why, "; running on the CPU"))) *tail = 0;
        fprintf(stderr, "genie-server: --backend %s: cannot run on the GPU, not starting: %s\n", backend, why);
    }
    genie_ctx_destroy(g);
    return ok ? 0 : -1;
}

static int sv_usage(void) {
    fprintf(stderr, "usage: genie-server --listen HOST:PORT [--port-file F] [--key-file F] [--cache-mb N] [--threads N]\n"
                    "                    [--backend cpu|cuda] [--client-mb N] [--max-payload-mb N] [--queue-mb N] [--hash-threads N]\n"
                    "                    [--run-threads N] [--inline-work N] [--hash-hold-ms N] [--max-run-work N] [--pool-mb N]\n"
                    "                    [--part-copy loop|thread] [--reply-timeout-ms N]\n"
                    "  --run-threads N  threads that run clients' RUNs (default 4; 0: every RUN on the UCX loop)\n"
                    "  --inline-work N  a RUN of less work (as --max-run-work counts it) runs on the loop, saving\n"
                    "                   the hand-over (default 4194304, ~50 us; 0: all to the pool)\n"
                    "  --hash-hold-ms N the hash thread waits N ms before each PUT's hash (tests: a hash still running)\n"
                    "  --max-run-work N a RUN of more work (flops plus 256 per element read or written, summed over its ops)\n"
                    "                   is refused with ERROR 5 naming the limit (default 1e13); clients are told it\n"
                    "  --pool-mb N      freed upload memory kept for the next uploads, counted in --cache-mb\n"
                    "                   (default a quarter of --cache-mb; 0: none)\n"
                    "  --part-copy M    where an upload's 2 MiB parts are copied into place: on a thread while the\n"
                    "                   loop receives the next (default with 3 or more CPUs), or on the loop (the\n"
                    "                   default with 2 or fewer: the loop, the copy and a client on this machine\n"
                    "                   would share two cores)\n"
                    "  --reply-timeout-ms N  a client none of whose replies went out for N ms has stopped reading:\n"
                    "                   its connection is closed (default 30000). Replies up to 4 MiB are copied and\n"
                    "                   go while the server serves others; a larger one holds the loop up to N ms\n"
                    "                   (30 s at least)\n");
    return 2;
}

int main(int argc, char **argv) {
    sv s;
    const char *listen = "127.0.0.1:0", *port_file = NULL, *key_file = NULL, *backend = "cpu", *part_copy = NULL;
    long cache_mb = 1024, pool_mb = -1, client_mb = 4096, payload_mb = 2048, queue_mb = 256, reply_ms = 30000,
         ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct sockaddr_storage ss;
    socklen_t sl;
    ucp_listener_params_t lp;
    ucp_listener_attr_t la;
    char msg[256], host[64] = "?";
    int i, efd = -1, port = 0, loopback, slept = 0;
    double idle_since, inline_work, max_run_work = SV_MAX_RUN_WORK, win = 0;
    grx_spin spin = {SV_SPIN_S, SV_SPIN_S, 0};
    ucs_status_t st;
    memset(&s, 0, sizeof s);
    s.threads = 1;
    s.max_jobs = 4;
    inline_work = SV_INLINE_WORK;
    s.hash_threads = ncpu < 1 ? 1 : ncpu > 8 ? 8 : (int)ncpu;
    s.part_thread = ncpu > 2;
    /* options come in pairs: argv[i] names one, argv[i + 1] is its value */
    for (i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return sv_usage();
        if (!strcmp(a, "--listen")) listen = v;
        else if (!strcmp(a, "--port-file")) port_file = v;
        else if (!strcmp(a, "--key-file")) key_file = v;
        else if (!strcmp(a, "--cache-mb")) cache_mb = atol(v);
        else if (!strcmp(a, "--client-mb")) client_mb = atol(v);
        else if (!strcmp(a, "--max-payload-mb")) payload_mb = atol(v);
        else if (!strcmp(a, "--threads")) s.threads = atoi(v);
        else if (!strcmp(a, "--hash-threads")) s.hash_threads = atoi(v);
        else if (!strcmp(a, "--queue-mb")) queue_mb = atol(v);
        else if (!strcmp(a, "--run-threads")) s.max_jobs = atoi(v);
        else if (!strcmp(a, "--inline-work")) inline_work = atof(v);
        else if (!strcmp(a, "--hash-hold-ms")) s.hash_hold_ms = atoi(v);
        else if (!strcmp(a, "--max-run-work")) max_run_work = atof(v);
        else if (!strcmp(a, "--pool-mb")) pool_mb = atol(v);
        else if (!strcmp(a, "--backend")) backend = v;
        else if (!strcmp(a, "--part-copy")) part_copy = v;
        else if (!strcmp(a, "--reply-timeout-ms")) reply_ms = atol(v);
        else return sv_usage();
    }
    if (cache_mb < 0 || pool_mb < -1 || client_mb <= 0 || payload_mb <= 0 || payload_mb > 2048 || s.threads < 0 || s.hash_threads < 1 ||
        s.hash_threads > GR_HASH_THREADS || queue_mb <= 0 || queue_mb > 1 << 20 || s.max_jobs < 0 || s.max_jobs > 256 ||
        !(inline_work >= 0 && inline_work <= 1e18) || s.hash_hold_ms < 0 || s.hash_hold_ms > 60000 ||
        !(max_run_work >= 1 && max_run_work <= 1.8e19))
        return sv_usage();
    if (reply_ms < 1 || reply_ms > 3600000) return sv_usage();
    s.reply_timeout = reply_ms / 1000.0;
    if (part_copy) {
        if (strcmp(part_copy, "loop") != 0 && strcmp(part_copy, "thread") != 0) return sv_usage();
        s.part_thread = strcmp(part_copy, "thread") == 0;
    }
    s.inline_work = (uint64_t)inline_work;
    s.max_run_work = (uint64_t)max_run_work;
    if (strcmp(backend, "cpu") != 0 && strcmp(backend, "cuda") != 0) {
        fprintf(stderr, "genie-server: --backend %s: not a backend (cpu or cuda)\n", backend);
        return sv_usage();
    }
    if (sv_backend_check(backend) != 0) return 1;
    s.backend = strcmp(backend, "cpu") == 0 ? NULL : backend;
    s.cache_budget = (uint64_t)cache_mb << 20;
    s.pool_budget = pool_mb < 0 ? s.cache_budget / 4 : (uint64_t)(pool_mb < cache_mb ? pool_mb : cache_mb) << 20;
    s.client_budget = (uint64_t)client_mb << 20;
    if (pipe(s.wake) != 0 || fcntl(s.wake[0], F_SETFL, O_NONBLOCK) != 0 || fcntl(s.wake[1], F_SETFL, O_NONBLOCK) != 0) {
        fprintf(stderr, "genie-server: cannot make a pipe: %s\n", strerror(errno));
        return 1;
    }
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    pthread_cond_init(&s.hcv, NULL);
    s.has_hasher = pthread_create(&s.hasher, NULL, sv_hash_main, &s) == 0; /* without it PUTs are hashed on the loop */
    for (s.npool = 0; s.npool < s.max_jobs; s.npool++)
        if (pthread_create(&s.pool[s.npool], NULL, sv_job_main, &s) != 0) {
            fprintf(stderr, "genie-server: cannot start %d threads for RUNs (--run-threads)\n", s.max_jobs);
            return 1;
        }
    if (sodium_init() < 0) { fprintf(stderr, "genie-server: libsodium failed to start\n"); return 1; }
    if (key_file) {
        if (gr_read_key(key_file, s.key) != 0) { fprintf(stderr, "genie-server: cannot read a key from %s\n", key_file); return 1; }
        s.has_key = 1;
    }
    if (grx_parse_addr(listen, &ss, &sl, msg, sizeof msg) != 0) { fprintf(stderr, "genie-server: --listen: %s\n", msg); return 2; }
    loopback = (ss.ss_family == AF_INET && (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127) ||
               (ss.ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr));
    if (!s.has_key && !loopback) {
        fprintf(stderr, "genie-server: no --key-file: listening on loopback only (127.0.0.1), not %s\n", listen);
        {
            struct sockaddr_storage tmp;
            socklen_t tl;
            char lb[64];
            const char *colon = strrchr(listen, ':');
            snprintf(lb, sizeof lb, "127.0.0.1:%s", colon ? colon + 1 : "0");
            if (grx_parse_addr(lb, &tmp, &tl, msg, sizeof msg) != 0) { fprintf(stderr, "genie-server: %s\n", msg); return 2; }
            ss = tmp;
            sl = tl;
        }
    } else if (!s.has_key) {
        fprintf(stderr, "genie-server: no --key-file: loopback only, no authentication\n");
    }
    signal(SIGPIPE, SIG_IGN);
    {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = sv_on_signal;
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
    }
    /* a restarted server binds its port while the connections of the one before linger in
       TIME_WAIT (UCX's SO_REUSEADDR; two listeners on one port are still refused) */
    setenv("UCX_TCP_CM_REUSEADDR", "y", 0);
    if (grx_init(&s.x, 1, (uint64_t)payload_mb << 20, msg, sizeof msg) != 0) { fprintf(stderr, "genie-server: %s\n", msg); return 1; }
    s.x.queued = sv_queued; /* each client's received, unhandled bytes stay under --queue-mb */
    s.x.queued_arg = &s;
    s.x.queue_cap = (uint64_t)queue_mb << 20;
    /* the parts' 24-byte heads count too: 64 bytes a part spare, so a window of 2^k bytes holds 2^k / GR_PART_BYTES whole parts */
    s.put_window = (s.x.queue_cap / 2 < GR_MAX_WINDOW ? s.x.queue_cap / 2 : GR_MAX_WINDOW);
    s.put_window += s.put_window / GR_PART_BYTES * 64;
    memset(&lp, 0, sizeof lp);
    lp.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
    lp.sockaddr.addr = (const struct sockaddr *)&ss;
    lp.sockaddr.addrlen = sl;
    lp.conn_handler.cb = sv_conn;
    lp.conn_handler.arg = &s;
    if ((st = ucp_listener_create(s.x.w, &lp, &s.listener)) != UCS_OK) {
        fprintf(stderr, "genie-server: cannot listen on %s: %s\n", listen, ucs_status_string(st));
        grx_destroy(&s.x);
        return 1;
    }
    la.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
    if (ucp_listener_query(s.listener, &la) == UCS_OK) {
        if (la.sockaddr.ss_family == AF_INET) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)&la.sockaddr)->sin_addr, host, sizeof host);
            port = ntohs(((struct sockaddr_in *)&la.sockaddr)->sin_port);
        } else if (la.sockaddr.ss_family == AF_INET6) {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&la.sockaddr)->sin6_addr, host, sizeof host);
            port = ntohs(((struct sockaddr_in6 *)&la.sockaddr)->sin6_port);
        }
    }
    if (port_file) {
        char tmp[4096];
        FILE *f;
        snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
        if (!(f = fopen(tmp, "w")) || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 || rename(tmp, port_file) != 0) {
            fprintf(stderr, "genie-server: cannot write %s\n", port_file);
            return 1;
        }
    }
    printf("genie-server listening on %s:%d\n", host, port);
    fflush(stdout);
    ucp_worker_get_efd(s.x.w, &efd);
    idle_since = 0;
    while (!sv_stop) {
        grx_msg *m;
        sv_client *c, **pp;
        int busy = ucp_worker_progress(s.x.w) != 0;
        while ((m = grx_pop(&s.x, NULL))) { /* each client's messages wait behind its job */
            for (c = s.clients; c && c->ep != m->ep; c = c->next) {}
            if (!c) {
                grx_msg_free(&s.x, m);
            } else {
                if (c->wait_tail) c->wait_tail->next = m;
                else c->wait_head = m;
                c->wait_tail = m;
                (void)sv_drain(&s, c);
            }
            busy = 1;
            ucp_worker_progress(s.x.w);
        }
        if (s.hjobs) busy |= sv_hash_reap(&s); /* hashes done */
        for (c = s.clients; c && s.jobs; c = c->next) /* finished jobs */
            if (sv_reap(&s, c)) {
                char drop[64];
                while (read(s.wake[0], drop, sizeof drop) > 0) {}
                busy = 1;
            }
        for (c = s.clients; c; c = c->next) { /* clients waiting for a pool thread; replies going */
            if (c->wait_head && !c->busy) busy |= sv_drain(&s, c);
            if (c->sending) busy |= sv_sending_reap(&s, c);
        }
        if (s.orphans) sv_orphans_reap(&s);
        for (pp = &s.clients; *pp;) { /* ended connections */
            c = *pp;
            if ((c->state == 3 || c->failed) && !c->busy && (c->failed || !c->sending)) { /* a clean end waits for its replies */
                *pp = c->next;
                sv_client_free(&s, c);
                busy = 1;
            } else {
                pp = &c->next;
            }
        }
        if (busy || s.x.head) { /* work came while polling, or after sleeping: grx_spin learns which */
            if (idle_since != 0) grx_spin_learn(&spin, grx_now() - idle_since, 1);
            else if (slept) grx_spin_learn(&spin, 0, 0);
            idle_since = 0, slept = 0;
            continue;
        }
        if (idle_since == 0) idle_since = grx_now(), win = grx_spin_window(&spin);
        if (grx_now() - idle_since < win) continue; /* poll, without sched_yield, before sleeping (grx_spin) */
        idle_since = 0, slept = 1;
        sv_pool_trim(&s, s.pool_budget, grx_now() - SV_POOL_IDLE_S); /* blocks unused a while go back to the OS */
        if (ucp_worker_arm(s.x.w) == UCS_OK) {
            struct pollfd pfd[2];
            pfd[0].fd = efd, pfd[1].fd = s.wake[0];
            pfd[0].events = pfd[1].events = POLLIN;
            pfd[0].revents = pfd[1].revents = 0;
            poll(pfd, 2, 100);
        }
    }
    while (s.clients) {
        sv_client *c = s.clients;
        s.clients = c->next;
        if (!c->why) c->why = "server stopping";
        c->failed = 1; /* closed at once: a connected client may not be reading */
        sv_client_free(&s, c);
    }
    pthread_mutex_lock(&s.mu);
    s.stopping = 1;
    pthread_cond_broadcast(&s.cv);
    pthread_cond_broadcast(&s.hcv);
    pthread_mutex_unlock(&s.mu);
    for (i = 0; i < s.npool; i++) pthread_join(s.pool[i], NULL);
    if (s.has_hasher) pthread_join(s.hasher, NULL);
    while (s.hjobs) { /* the hashes not done: their bytes dropped */
        sv_hjob *j = s.hjobs;
        s.hjobs = j->next;
        sv_entry_unref(&s, j->e);
        free(j);
    }
    {
        double until = grx_now() + 1.0; /* the forced closes end every reply: a second at most */
        while (s.orphans && grx_now() < until) ucp_worker_progress(s.x.w), sv_orphans_reap(&s);
    }
    ucp_listener_destroy(s.listener);
    grx_destroy(&s.x);
    while (s.orphans) { /* UCX kept these to its end: nothing reads them now */
        struct sv_sending *q = s.orphans;
        s.orphans = q->next;
        free(q);
    }
    while (s.oldest) {
        sv_entry *e = s.oldest;
        s.oldest = e->newer;
        free(e->block);
        free(e);
    }
    sv_pool_trim(&s, 0, 0);
    sodium_memzero(s.key, sizeof s.key);
    printf("genie-server: stopped (at most %d RUNs at once; %llu RUNs on the loop, %llu on the pool; %llu uploads moved to a "
           "cached copy)\n",
           s.peak_jobs, s.runs_loop, s.runs_pool, s.moved);
    printf("genie-server: upload memory: %llu uploads into fresh memory, %llu into recycled; at most %llu bytes kept (--pool-mb: %llu)\n",
           s.pool_fresh, s.pool_reused, (unsigned long long)s.pool_peak, (unsigned long long)s.pool_budget);
    pthread_mutex_destroy(&s.mu);
    pthread_cond_destroy(&s.cv);
    pthread_cond_destroy(&s.hcv);
    close(s.wake[0]);
    close(s.wake[1]);
    return 0;
}
