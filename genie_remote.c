/* genie_remote.c - genie's "remote" backend: tapes run on a genie-server over UCX
 * (docs/remote.md; the protocol is genie_remote_proto.h, the server
 * tools/genie_server.c). This file defines GENIE_IMPLEMENTATION, so a program
 * links build/genie_remote.o instead of defining it (genie_remote.h).
 *
 * It plugs into the backend table (>>backend in genie.h) as genie_cuda.c does,
 * with the server as the device:
 *   alloc      names a buffer: a fresh 64-bit id, no message (the server makes
 *              the buffer when something is written to it);
 *   copy_in    a host buffer's bytes (PUT_PARTs of 2 MiB and a PUT with the rest, each
 *              within the server's window of bytes not yet taken off its queue: CREDIT):
 *              above 64 KiB, the caller's memory (from_blob: mapped weights) is
 *              hashed first (a BLAKE2b tree on the context's threads) and asked for
 *              (HAS, one round trip), sent only when the server lacks it; bytes genie
 *              holds are sent first, unhashed, and the server's HASHED brings their
 *              hash back (rc_upload); a weight stays on the device while its buffer
 *              lives, and another buffer of the same bytes needs no PUT;
 *   run        one node or one fused group as 1..n ops of a RUN gathered until
 *              the next message that needs the server (a read, an upload) and
 *              sent without waiting (a failure comes back as an ERROR, reported
 *              by the next call that waits, and fails every output of that RUN);
 *   copy_out   GET of bytes [lo, hi): genie_read, genie_item and tuple elements
 *              bring back only the bytes of the view read;
 *   free       the id joins a FREE sent before the next message.
 * Nodes outside the protocol's ops (genie_remote_proto.h: GR_OP_LIST) run on the
 * CPU, their sources fetched back (backend_fallbacks counts them).
 *
 * Faults: UCX's endpoint error callback (the server died, the link broke) or a
 * reply later than GENIE_REMOTE_TIMEOUT_MS marks the connection lost: that call
 * and every later one needing the server give GENIE_ERR_BACKEND naming the
 * address, and from then on the context runs new work on its CPU (supports says
 * no). Values that lived only on the server are lost; everything still on the
 * host (weights, inputs, values read back) is intact, so after
 * genie_clear_error the program re-runs the same step from the same tensors
 * on the local CPU. */
#define _POSIX_C_SOURCE 200809L
#define GENIE_IMPLEMENTATION
#include "genie.h"
#if GENIE_BACKEND_API_VERSION != 3
#error "genie_remote.c fills version 3 of genie_backend: update it to this genie.h's backend table"
#endif
#include "genie_remote.h"
#include <sodium.h>
#include <stdarg.h>
#include <sched.h>
#include "genie_remote_ucx.h"

#define RC_INLINE_BYTES ((size_t)256 << 10) /* the most bytes of uploads waiting for a RUN (rc_inline_add) */
#define RC_POLL_GAP 100e-6 /* the most time between two gathered ops' progress calls (rc_check_async_op) */
#define RC_HAS_MIN ((size_t)64 << 10) /* smaller uploads skip HAS: one PUT, no round trip */
#define RC_FREE_BATCH 1024
#define RC_SPIN_S 100e-6 /* a wait for a reply polls at most this long (grx_spin), then sleeps until UCX has an event */
/* The work (gr_run_cost) of RUNs sent and not yet answered past which a reply cannot come within
   RC_SPIN_S, so a wait sleeps at once (and teaches grx_spin nothing): 4e9 is ~5 ms of one Zen 3
   core (a GPT-2-small decode step costs ~3e10 and computes ~29 ms), still past RC_SPIN_S on 16
   cores scaling perfectly. */
#define RC_LONG_WORK 4000000000ull

#define RC_SLOT_HASH 4096 /* a power of 2: twice the slots a RUN usually has at most (1024) and more */
#define RC_ARGS 16 /* argmax results remembered as index bounds (rc_state.argb) */
#define RC_RECENT 8 /* tapes sent lately kept with their hashes (rc_state.recent) */
typedef struct rc_state {
    genie_ctx *ctx;
    grx x;
    ucp_ep_h ep;
    volatile int dead;      /* the connection is lost: nothing more goes to the server */
    int said_error;         /* the last rc_wait ended on the server's ERROR (msg holds it) */
    char addr[256];
    uint64_t next_id, next_req;
    uint64_t *frees;        /* ids freed since the last FREE */
    uint32_t nfree;
    char async_err[600];    /* an ERROR the server sent for a message nobody waits on */
    uint64_t last_run;      /* the request id of the last RUN (or RUN_CACHED) sent */
    uint64_t watch_req;     /* not 0: an ERROR for this request goes to watch_err (rc_run_checked) */
    uint64_t quiet_req;     /* not 0: the RUN of ops gathered after an error (rc_check_async): its ERROR 7, a
                               consequence of that one, is not reported again (its values stay failed) */
    uint32_t watch_code;
    char watch_err[600];
    gr_wr run;              /* the tape being gathered: u32 op count (set when sent), then ops */
    gr_wr inl;              /* uploads up to RC_HAS_MIN waiting for the next RUN: ninl x (u64 id, u32 len, bytes) */
    uint32_t ninl;
    uint32_t run_nops;
    gr_wr slots;            /* its buffer table: u32 count (set when sent), then the ids by slot */
    uint32_t nslots;
    /* the same table by id (open addressing, RC_SLOT_HASH entries; an entry of another slot_gen
       is empty: a new RUN's table starts a new generation) while it holds under half of them */
    struct rc_sent { uint64_t id; uint32_t slot, gen; } slot_tab[RC_SLOT_HASH];
    uint32_t slot_gen;
    /* by slot of the RUN being gathered (nslots of them, scap held): the genie buffer an op of
       the RUN writes (NULL for a slot only read), whether genie freed its block since (rc_free:
       b no longer valid), and rc_mark_dead's mark */
    struct rc_sinfo { genie__buf *b; uint8_t freed, later; } *sinfo;
    uint32_t scap;
    /* the RUN's written ops in order (nwops, wcap held): the byte of each op's flags in run, its
       output's slot, and whether it writes in place (rc_mark_dead sets their flag 64) */
    struct rc_wop { size_t at; uint32_t slot; int inplace; } *wops;
    uint32_t nwops, wcap;
    /* the tapes the server keeps for RUN_CACHED: the same first-in-first-out list it keeps */
    uint8_t tape_hash[GR_TAPES][GR_HASH_BYTES];
    size_t tape_len[GR_TAPES], tape_bytes;
    int ntapes, tape_first;
    /* the last RC_RECENT tapes sent, their bytes (malloc'd; at most 1 MiB and an op's bytes, as a
       RUN is sent once past 1 MiB) and hash: a repeated step's tape is found by comparing bytes
       rather than hashed again (a 30 KB tape, a GPT-2 step's: ~1 us against ~35 us of BLAKE2b) */
    struct rc_recent { uint8_t *bytes; size_t n, cap; uint8_t hash[GR_HASH_BYTES]; } recent[RC_RECENT];
    int recent_next;
    double timeout;         /* seconds */
    double polled;          /* grx_now() of rc_check_async_op's last progress */
    /* the content hashes of the buffers uploaded above RC_HAS_MIN, by id (rc_hent) */
    struct rc_hent *hents;
    size_t hcap, hn, hpending, hwait; /* slots (a power of 2, or 0), entries, entries pending, entries with wait_req */
    /* the last RC_ARGS argmax/argmin results sent, by buffer id: the count of the elements each
       indexes (a ring; a node's sources are gone once it ran, rc_idx_bounded) */
    struct rc_argb { uint64_t id; int64_t bound; } argb[RC_ARGS];
    unsigned argb_next;
    uint64_t max_run_work;  /* the server's limit on one RUN's gr_run_cost (its WELCOME) */
    uint64_t run_cost;      /* the gathered tape's gr_run_cost (<= max_run_work) */
    uint64_t unanswered;    /* the gr_run_cost of the RUNs sent since the last reply rc_wait took */
    grx_credit credit;      /* this connection's PUT bytes sent and taken by the server, its window (WELCOME) */
    grx_spin spin;          /* how long rc_wait polls before it sleeps (max RC_SPIN_S) */
} rc_state;

/* ---- the hashes of uploaded buffers ----
   An entry holds the content hash of the bytes last uploaded from buffer id (ids are never
   reused), while the buffer lives and the server has not written it (a RUN's output drops it).
   copy_in comes only for a buffer whose device copy is not current: with an entry, the host
   rewrote the bytes since they were hashed (or genie gave the block to a new value), so they
   are new and go first, unhashed, without HAS. A reconnect leaves a buffer current on both
   sides marked on the device and its entry pending: the first RUN that reads it sends it again
   under the kept hash (HAS, then PUT if the server lacks it), hashing nothing; a host write
   before that clears the mark and comes as a copy_in, as above. */
typedef struct rc_hent {
    uint64_t id;
    uint8_t hash[GR_HASH_BYTES];
    uint8_t pending;
    uint64_t wait_req; /* not 0: the bytes went unhashed by the PUT of this request id and hash is not
                          known until its HASHED comes (rc_drain; a HASHED of any other request is stale) */
    uint64_t put_req;  /* the request id of the PUT that sent the bytes under hash (0: none, or a HAS
                          found them): an ERROR for it (a wrong claim) drops the entry */
} rc_hent;
static rc_hent *rc_hfind(rc_state *r, uint64_t id) {
    size_t k;
    if (!r->hn) return NULL;
    for (k = (size_t)(id * 0x9E3779B97F4A7C15ull >> 20) & (r->hcap - 1); r->hents[k].id; k = (k + 1) & (r->hcap - 1))
        if (r->hents[k].id == id) return &r->hents[k];
    return NULL;
}
/* Adds or updates id's entry (not pending, no request); an entry that cannot be added is simply not kept. */
static void rc_hput(rc_state *r, uint64_t id, const uint8_t hash[GR_HASH_BYTES]) {
    rc_hent *e = rc_hfind(r, id);
    size_t k;
    if (!e && 2 * (r->hn + 1) > r->hcap) { /* grow to keep the table at most half full */
        size_t cap = r->hcap ? 2 * r->hcap : 64, i;
        rc_hent *old = r->hents, *t = (rc_hent *)calloc(cap, sizeof *t);
        if (!t) return;
        r->hents = t, r->hcap = cap;
        for (i = 0; i < cap / 2 && old; i++)
            if (old[i].id) {
                for (k = (size_t)(old[i].id * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1); t[k].id; k = (k + 1) & (cap - 1)) {}
                t[k] = old[i];
            }
        free(old);
    }
    if (!e) {
        for (k = (size_t)(id * 0x9E3779B97F4A7C15ull >> 20) & (r->hcap - 1); r->hents[k].id; k = (k + 1) & (r->hcap - 1)) {}
        e = &r->hents[k];
        memset(e, 0, sizeof *e);
        e->id = id;
        r->hn++;
    }
    if (e->pending) e->pending = 0, r->hpending--;
    if (e->wait_req) e->wait_req = 0, r->hwait--;
    e->put_req = 0;
    memcpy(e->hash, hash, GR_HASH_BYTES);
}
/* Drops id's entry (linear probing: the entries after it in its run move back). A slot left
   empty is all zero (no pending, no wait_req), so an entry put there later starts clean. */
static void rc_hdel(rc_state *r, uint64_t id) {
    rc_hent *e = rc_hfind(r, id);
    size_t i, j, home;
    if (!e) return;
    if (e->pending) r->hpending--;
    if (e->wait_req) r->hwait--;
    i = (size_t)(e - r->hents);
    memset(&r->hents[i], 0, sizeof r->hents[i]);
    r->hn--;
    for (j = (i + 1) & (r->hcap - 1); r->hents[j].id; j = (j + 1) & (r->hcap - 1)) {
        home = (size_t)(r->hents[j].id * 0x9E3779B97F4A7C15ull >> 20) & (r->hcap - 1);
        if (((j - home) & (r->hcap - 1)) >= ((j - i) & (r->hcap - 1))) { /* home at or before the hole */
            r->hents[i] = r->hents[j];
            memset(&r->hents[j], 0, sizeof r->hents[j]);
            i = j;
        }
    }
}

static genie_result rc_fail(rc_state *r, char *msg, const char *fmt, ...) {
    char text[GENIE_BACKEND_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(msg, GENIE_BACKEND_MSG, "remote %.60s: %.440s", r->addr, text);
    return GENIE_ERR_BACKEND;
}
static genie_result rc_lost(rc_state *r, char *msg, const char *what) {
    r->dead = 1;
    return rc_fail(r, msg, "%s: the connection to the server is lost (the context now runs on its CPU)", what);
}

static void rc_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status) {
    rc_state *r = (rc_state *)arg;
    (void)ep;
    (void)status;
    r->dead = 1;
}

static genie_result rc_send2(rc_state *r, int type, uint64_t id, const void *p1, size_t n1, const void *p2, size_t n2,
                             const char *what, char *msg) {
    ucs_status_t s;
    if (r->dead) return rc_lost(r, msg, what);
    s = grx_send2(&r->x, r->ep, type, id, p1, n1, p2, n2, grx_now() + r->timeout, &r->dead);
    if (s != UCS_OK) return rc_lost(r, msg, what);
    r->ctx->stats.remote_messages_sent++;
    r->ctx->stats.remote_bytes_sent += GR_HDR_BYTES + n1 + n2;
    return GENIE_OK;
}
static genie_result rc_send(rc_state *r, int type, uint64_t id, const void *p, size_t n, const char *what, char *msg) {
    return rc_send2(r, type, id, p, n, NULL, 0, what, msg);
}

/* An ERROR payload's code (0: malformed) */
static uint32_t rc_error_code(const grx_msg *m) {
    gr_rd rd = gr_rd_init(m->data, m->len);
    uint32_t code = gr_u32(&rd);
    return rd.bad ? 0 : code;
}
/* An ERROR payload's text into out ("server error N: text"; raw: the text alone); its code (0: malformed). */
static uint32_t rc_error_msg(const grx_msg *m, char *out, size_t outsz, int raw) {
    gr_rd rd = gr_rd_init(m->data, m->len);
    uint32_t code = gr_u32(&rd), len = gr_u32(&rd);
    const uint8_t *t = gr_take(&rd, len);
    if (!t) { snprintf(out, outsz, "a malformed ERROR from the server"); return 0; }
    if (raw) snprintf(out, outsz, "%.*s", (int)(len > 400 ? 400 : len), (const char *)t);
    else snprintf(out, outsz, "server error %u: %.*s", code, (int)(len > 400 ? 400 : len), (const char *)t);
    return code;
}
static void rc_error_text(const grx_msg *m, char *out, size_t outsz) { rc_error_msg(m, out, outsz, 0); }

/* Takes in what the server sent: replies for req (any type) go to *out, ERRORs for
   other requests into async_err. */
static void rc_drain(rc_state *r, uint64_t req, grx_msg **out) {
    grx_msg *m;
    r->ctx->stats.remote_messages_received += r->credit.msgs; /* the CREDITs taken in as they came (grx_am_cb) */
    r->ctx->stats.remote_bytes_received += r->credit.bytes;
    r->credit.msgs = r->credit.bytes = 0;
    if (r->credit.bad && !r->dead) {
        snprintf(r->async_err, sizeof r->async_err, "a malformed CREDIT from the server");
        r->dead = 1;
    }
    while ((m = grx_pop(&r->x, r->ep))) {
        gr_hdr h;
        int bad = 0;
        r->ctx->stats.remote_messages_received++;
        r->ctx->stats.remote_bytes_received += m->hdr_len + m->len;
        if (m->oversized || m->failed || (bad = gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h)) != 0) {
            if (!m->oversized && !m->failed && bad == GR_E_VERSION)
                snprintf(r->async_err, sizeof r->async_err, "the server speaks protocol version %u, this client %d",
                         (unsigned)h.version, GR_VERSION);
            else
                snprintf(r->async_err, sizeof r->async_err, "a malformed message from the server");
            r->dead = 1;
            grx_msg_free(&r->x, m);
            continue;
        }
        if (h.type == GR_ERROR && rc_error_code(m) == GR_E_TAPE) /* the server forgot its tapes, and so does the client */
            r->ntapes = r->tape_first = 0, r->tape_bytes = 0;
        if (out && h.id == req && !*out) { *out = m; continue; }
        if (h.type == GR_ERROR && !(r->quiet_req && h.id == r->quiet_req && rc_error_code(m) == GR_E_BUFFER)) {
            /* not reported: the quiet RUN ran and failed on what it read (ERROR 7), so the server failed
               every value it writes, and a read of one gets that error. Any other ERROR for it (refused,
               not received, an unknown tape) left its writes undone: reported, as any. */
            if (r->watch_req && h.id == r->watch_req && !r->watch_err[0])
                r->watch_code = rc_error_msg(m, r->watch_err, sizeof r->watch_err, 1);
            else if (!r->async_err[0]) rc_error_text(m, r->async_err, sizeof r->async_err);
        }
        if (h.type == GR_ERROR && r->hn) { /* a PUT that failed: its HASHED will not come, or its claimed hash
                                             was not its bytes' (ERROR 6): the hash is not the buffer's */
            size_t k;
            for (k = 0; k < r->hcap; k++)
                if (r->hents[k].id && (r->hents[k].wait_req == h.id || r->hents[k].put_req == h.id)) {
                    rc_hdel(r, r->hents[k].id);
                    break;
                }
        }
        if (h.type == GR_HASHED) { /* the server's hash of bytes sent unhashed: kept if they are still the buffer's */
            uint64_t id;
            uint8_t hash[GR_HASH_BYTES];
            rc_hent *e;
            if (!gr_hashed_decode(m->data, m->len, &id, hash)) {
                snprintf(r->async_err, sizeof r->async_err, "a malformed HASHED from the server");
                r->dead = 1;
            } else if ((e = rc_hfind(r, id)) && e->wait_req == h.id) {
                rc_hput(r, id, hash);
            }
        }
        grx_msg_free(&r->x, m);
    }
}
static genie_result rc_flush(rc_state *r, char *msg);
/* An ERROR the server sent since the last call (nothing waited for it). The ops gathered since
   go at once, alone: genie holds them as done, so they run (or fail with what they read), and
   the next step's RUN does not carry them (a RUN that fails, fails whole). */
static genie_result rc_check_async(rc_state *r, const char *what, char *msg) {
    if (r->x.w) ucp_worker_progress(r->x.w); /* none after a failed reconnect */
    rc_drain(r, 0, NULL);
    if (r->async_err[0]) {
        genie_result e = rc_fail(r, msg, "%s: %s", what, r->async_err);
        r->async_err[0] = 0;
        if (r->run_nops && !r->dead) {
            char unused[GENIE_BACKEND_MSG]; /* a flush that fails has lost the connection: the next call says so */
            if (rc_flush(r, unused) == GENIE_OK) r->quiet_req = r->last_run;
        }
        return e;
    }
    return r->dead ? rc_lost(r, msg, what) : GENIE_OK;
}
/* rc_check_async for each gathered op: UCX's progress (a system call on TCP) at most every
   RC_POLL_GAP seconds; an error already received is reported at once. */
static genie_result rc_check_async_op(rc_state *r, const char *what, char *msg) {
    double now = grx_now();
    if (now - r->polled >= RC_POLL_GAP) {
        r->polled = now;
        return rc_check_async(r, what, msg);
    }
    if (r->async_err[0] || r->dead) return rc_check_async(r, what, msg);
    return GENIE_OK;
}
/* Waits for the reply to req: *out is a message of type `type` (the caller frees it). */
static genie_result rc_wait(rc_state *r, uint64_t req, int type, grx_msg **out, const char *what, char *msg) {
    double start = grx_now(), until = start + r->timeout;
    const int learn = r->unanswered <= RC_LONG_WORK; /* else a long RUN is ahead: no reply soon */
    const double spin = learn ? grx_spin_window(&r->spin) : 0;
    int slept = 0;
    *out = NULL;
    r->said_error = 0;
    r->ctx->stats.remote_round_trips++;
    for (;;) {
        double now;
        ucp_worker_progress(r->x.w);
        rc_drain(r, req, out);
        if (*out) break;
        if (r->dead && r->async_err[0]) { /* the server said why it ended the connection */
            r->said_error = 1;
            rc_lost(r, msg, what);
            rc_fail(r, msg, "%s: %s (the connection is closed; the context now runs on its CPU)", what, r->async_err);
            r->async_err[0] = 0;
            return GENIE_ERR_BACKEND;
        }
        if (r->dead) return rc_lost(r, msg, what);
        now = grx_now();
        /* past the polling window (grx_spin: no sched_yield): sleep on the worker's events, so a
           server on this core runs */
        if (now - start >= spin) {
            double left = until - now; /* <= 0 once the deadline passed: poll, do not block */
            grx_sleep(&r->x, left <= 0 ? 0 : left > 0.1 ? 100 : 1 + (int)(left * 1e3));
            slept = 1;
        }
        if (grx_now() > until) {
            rc_lost(r, msg, what);
            return rc_fail(r, msg, "%s: no reply within %.1f s (GENIE_REMOTE_TIMEOUT_MS); the context now runs on its CPU",
                           what, r->timeout);
        }
    }
    if (learn) grx_spin_learn(&r->spin, grx_now() - start, !slept);
    r->unanswered = 0; /* the server handles a client's messages in order: every RUN before is done */
    {
        gr_hdr h;
        gr_hdr_decode((*out)->hdr, (*out)->hdr_len, (*out)->len, &h);
        r->said_error = h.type == GR_ERROR;
        if (h.type == GR_ERROR) { /* an ERROR that came before it (a RUN's) says why first: nothing stale stays */
            char text[500];
            rc_error_text(*out, text, sizeof text);
            grx_msg_free(&r->x, *out);
            *out = NULL;
            if (r->async_err[0]) {
                rc_fail(r, msg, "%s: %s; then %s", what, r->async_err, text);
                r->async_err[0] = 0;
                return GENIE_ERR_BACKEND;
            }
            return rc_fail(r, msg, "%s: %s", what, text);
        }
        if (h.type != type) {
            grx_msg_free(&r->x, *out);
            *out = NULL;
            return rc_fail(r, msg, "%s: an unexpected reply from the server", what);
        }
    }
    return GENIE_OK;
}
/* Sets flag 64 (dead after this RUN) on each written op of the gathered RUN whose value nothing
   reads once the RUN is done: the next write of its buffer in the RUN is not in place (a new
   value), or there is none and genie freed the buffer or holds it idle in its cache (refs 0: no
   handle and no node reads it; genie gives such a block, id and all, to a later value, which
   writes it first). Called when the RUN is sent, so the flags are in the bytes hashed for
   RUN_CACHED. */
static void rc_mark_dead(rc_state *r) {
    uint32_t k;
    for (k = 0; k < r->nslots; k++) r->sinfo[k].later = 0;
    for (k = r->nwops; k-- > 0;) {
        const struct rc_wop *o = &r->wops[k];
        struct rc_sinfo *s = &r->sinfo[o->slot];
        if (s->later ? s->later == 1 : s->freed || (s->b && s->b->refs == 0)) r->run.p[o->at] |= 64;
        s->later = o->inplace ? 2 : 1;
    }
}
/* Starts gathering a RUN: its op count and slot count, set when it is sent. */
static void rc_run_begin(rc_state *r) {
    r->run.n = r->slots.n = 0, r->nwops = 0;
    gr_w32(&r->run, 0);
    gr_w32(&r->slots, 0);
}
/* The uploads waiting for a RUN, each as a PUT (hashed first: below RC_HAS_MIN), in order. */
static genie_result rc_inline_puts(rc_state *r, char *msg) {
    gr_rd rd = gr_rd_init(r->inl.p, r->inl.n);
    uint32_t k;
    for (k = 0; k < r->ninl; k++) {
        uint8_t hash[GR_HASH_BYTES];
        uint64_t id;
        uint32_t len;
        const uint8_t *p;
        ucs_status_t st;
        gr_inline_next(&rd, &id, &p, &len);
        if (gr_content_hash(p, len, hash, 1) != 0) { /* the uploads after it and the RUN are lost: so is the connection */
            r->dead = 1;
            return rc_fail(r, msg, "PUT: out of memory (the connection is closed; the context now runs on its CPU)");
        }
        if (r->dead) return rc_lost(r, msg, "PUT");
        st = grx_put(&r->x, r->ep, &r->next_req, id, len, hash, p, len, grx_now() + r->timeout, &r->dead,
                     &r->ctx->stats.remote_messages_sent, &r->ctx->stats.remote_bytes_sent);
        if (st == UCS_ERR_NO_MEMORY) {
            r->dead = 1;
            return rc_fail(r, msg, "PUT: out of memory (the connection is closed; the context now runs on its CPU)");
        }
        if (st != UCS_OK) return rc_lost(r, msg, "PUT");
    }
    return GENIE_OK;
}
/* Sends the gathered RUN, then the gathered FREE (after the RUN: its ops may read those buffers).
   Uploads waiting for it (rc_inline_add) go inside a RUN_CACHED, or as PUTs before a new RUN.
   get (24 bytes: a GET's id, lo, hi, or NULL): a read to send with a RUN_CACHED, as one
   RUN_CACHED_GET whose GET is the request id after the RUN's: *get_req, 0 when it did not go
   (a first RUN, nothing gathered, or an error). */
static genie_result rc_flush_get(rc_state *r, const uint8_t *get, uint64_t *get_req, char *msg) {
    gr_wr w;
    uint32_t i;
    genie_result e;
    if (r->run_nops || r->ninl) { /* a tape the server keeps goes as its hash and the buffer table only */
        uint8_t hash[GR_HASH_BYTES];
        int k, known = 0;
        if (!r->run_nops) rc_run_begin(r); /* uploads alone: an empty tape carries them */
        if (r->run.oom || r->slots.oom) { /* the gathered ops are lost: so is the connection */
            r->dead = 1;
            e = rc_fail(r, msg, "RUN: out of memory (the connection is closed; the context now runs on its CPU)");
        } else {
            int rk;
            gr_put_u32_at(r->run.p, r->run_nops);
            gr_put_u32_at(r->slots.p, r->nslots);
            rc_mark_dead(r);
            for (rk = 0; rk < RC_RECENT; rk++)
                if (r->recent[rk].n == r->run.n && r->recent[rk].bytes && memcmp(r->recent[rk].bytes, r->run.p, r->run.n) == 0) break;
            if (rk < RC_RECENT) {
                memcpy(hash, r->recent[rk].hash, sizeof hash);
            } else {
                struct rc_recent *t = &r->recent[r->recent_next];
                crypto_generichash(hash, sizeof hash, r->run.p, r->run.n, NULL, 0);
                if (t->cap < r->run.n) { /* out of memory: simply not kept */
                    uint8_t *nb = (uint8_t *)realloc(t->bytes, r->run.n);
                    if (nb) t->bytes = nb, t->cap = r->run.n;
                }
                if (t->bytes && t->cap >= r->run.n) {
                    memcpy(t->bytes, r->run.p, r->run.n);
                    t->n = r->run.n;
                    memcpy(t->hash, hash, sizeof hash);
                    r->recent_next = (r->recent_next + 1) % RC_RECENT;
                }
            }
            for (k = 0; k < r->ntapes && !known; k++) known = memcmp(r->tape_hash[(r->tape_first + k) % GR_TAPES], hash, GR_HASH_BYTES) == 0;
            if (known && r->ninl) { /* the uploads inline, after the buffer table */
                gr_w32(&r->slots, r->ninl);
                gr_wbytes(&r->slots, r->inl.p, r->inl.n);
            }
            e = GENIE_OK;
            if (!known && r->ninl) e = rc_inline_puts(r, msg); /* a new tape: its RUN carries none */
            if (e != GENIE_OK || r->slots.oom) {
                if (e == GENIE_OK) r->dead = 1, e = rc_fail(r, msg, "RUN: out of memory (the connection is closed; the context now runs on its CPU)");
            } else if (known && get) {
                uint8_t head[GR_HASH_BYTES + 24];
                memcpy(head, hash, GR_HASH_BYTES);
                memcpy(head + GR_HASH_BYTES, get, 24);
                e = rc_send2(r, GR_RUN_CACHED_GET, r->last_run = ++r->next_req, head, sizeof head, r->slots.p, r->slots.n, "RUN_CACHED_GET", msg);
                ++r->next_req; /* the GET's (a FREE after it takes the next) */
                if (e == GENIE_OK) *get_req = r->next_req;
            } else if (known) {
                e = rc_send2(r, GR_RUN_CACHED, r->last_run = ++r->next_req, hash, sizeof hash, r->slots.p, r->slots.n, "RUN_CACHED", msg);
            } else {
                e = rc_send2(r, GR_RUN, r->last_run = ++r->next_req, r->slots.p, r->slots.n, r->run.p, r->run.n, "RUN", msg);
                if (r->run.n <= GR_TAPE_BYTES) { /* the server keeps it: as gr_tape_keep there */
                    while (r->ntapes && (r->ntapes == GR_TAPES || r->tape_bytes + r->run.n > GR_TAPE_BYTES)) {
                        r->tape_bytes -= r->tape_len[r->tape_first];
                        r->tape_first = (r->tape_first + 1) % GR_TAPES;
                        r->ntapes--;
                    }
                    k = (r->tape_first + r->ntapes) % GR_TAPES;
                    memcpy(r->tape_hash[k], hash, GR_HASH_BYTES);
                    r->tape_len[k] = r->run.n;
                    r->tape_bytes += r->run.n;
                    r->ntapes++;
                }
            }
        }
        r->run.n = r->slots.n = r->inl.n = 0, r->ninl = 0;
        r->run.oom = r->slots.oom = 0;
        if (e == GENIE_OK) r->unanswered = gr_add_sat(r->unanswered, r->run_cost);
        r->run_nops = r->nslots = r->nwops = 0, r->run_cost = 0;
        if (e != GENIE_OK) return e;
    }
    if (!r->nfree || r->dead) { r->nfree = r->dead ? 0 : r->nfree; return GENIE_OK; }
    memset(&w, 0, sizeof w);
    gr_w32(&w, r->nfree);
    for (i = 0; i < r->nfree; i++) gr_w64(&w, r->frees[i]);
    r->nfree = 0;
    if (w.oom) { /* the ids would stay held on the server: the connection closes */
        gr_wr_free(&w);
        r->dead = 1;
        return rc_fail(r, msg, "FREE: out of memory (the connection is closed; the context now runs on its CPU)");
    }
    e = rc_send(r, GR_FREE, ++r->next_req, w.p, w.n, "FREE", msg);
    gr_wr_free(&w);
    return e;
}
static genie_result rc_flush(rc_state *r, char *msg) { return rc_flush_get(r, NULL, NULL, msg); }


/* ---- the backend's calls ---- */
static void rc_destroy(void *state) {
    rc_state *r = (rc_state *)state;
    char msg[GENIE_BACKEND_MSG];
    int k;
    if (!r) return;
    if (r->ep) {
        if (!r->dead) {
            rc_flush(r, msg);
            rc_send(r, GR_BYE, ++r->next_req, NULL, 0, "BYE", msg);
        }
        grx_close_ep(&r->x, r->ep, r->dead); /* a live server gets the FREE and BYE first */
    }
    grx_destroy(&r->x);
    gr_wr_free(&r->run);
    gr_wr_free(&r->slots);
    gr_wr_free(&r->inl);
    free(r->frees);
    free(r->hents);
    free(r->sinfo);
    free(r->wops);
    for (k = 0; k < RC_RECENT; k++) free(r->recent[k].bytes);
    free(r);
}

/* Opens r's connection to r->addr (a UCX worker of its own) and shakes hands: HELLO, WELCOME,
   and AUTH where the server needs the key (GENIE_REMOTE_KEY_FILE). On failure the caller
   releases what is open (rc_destroy, or rc_disconnect). */
static genie_result rc_connect(rc_state *r, char *msg) {
    uint8_t nonce[GR_NONCE_BYTES], hello[4 + GR_NONCE_BYTES];
    grx_msg *m = NULL;
    genie_result e;
    gr_welcome wel;
    const char *t;
    char why[320]; /* grx_parse_addr quotes the address (256 bytes at most) */
    r->said_error = 0; /* (a failed HELLO send leaves it as the last connection's wait did) */
    if (grx_connect(&r->x, r->addr, GR_DEFAULT_MAX_PAYLOAD, rc_ep_error, r, &r->ep, why, sizeof why) != 0)
        return rc_fail(r, msg, "%s", why);
    memset(&r->credit, 0, sizeof r->credit); /* this connection's PUT bytes; its window comes with the WELCOME */
    r->x.credit = &r->credit;
    /* HELLO: our versions and a nonce; WELCOME: the server's version, limits, challenge */
    randombytes_buf(nonce, sizeof nonce);
    hello[0] = GR_VERSION, hello[1] = 0, hello[2] = GR_VERSION, hello[3] = 0;
    memcpy(hello + 4, nonce, sizeof nonce);
    if ((e = rc_send(r, GR_HELLO, ++r->next_req, hello, sizeof hello, "HELLO", msg)) != GENIE_OK ||
        (e = rc_wait(r, r->next_req, GR_WELCOME, &m, "HELLO", msg)) != GENIE_OK) {
        if (r->dead && !r->said_error) /* a refusal (an old server's version ERROR) keeps its words */
            rc_fail(r, msg, "cannot reach the server (is genie-server running there?)");
        return GENIE_ERR_BACKEND;
    }
    if (!gr_welcome_decode(m->data, m->len, &wel)) {
        grx_msg_free(&r->x, m);
        return rc_fail(r, msg, "the server's WELCOME is not protocol version %d", GR_VERSION);
    }
    r->max_run_work = wel.max_run_work;
    r->credit.window = wel.put_window;
    t = (const char *)wel.challenge;
    if (wel.need_key) { /* AUTH: crypto_auth(challenge || nonce || "genie-remote") under the key */
        uint8_t key[crypto_auth_KEYBYTES], text[2 * GR_NONCE_BYTES + 12], mac[crypto_auth_BYTES];
        const char *kf = getenv("GENIE_REMOTE_KEY_FILE");
        if (gr_read_key(kf, key) != 0) {
            grx_msg_free(&r->x, m);
            return rc_fail(r, msg, "the server needs a key: set GENIE_REMOTE_KEY_FILE to a readable, non-empty key file%s%s",
                           kf ? ", not " : "", kf ? kf : "");
        }
        memcpy(text, t, GR_NONCE_BYTES);
        memcpy(text + GR_NONCE_BYTES, nonce, GR_NONCE_BYTES);
        memcpy(text + 2 * GR_NONCE_BYTES, "genie-remote", 12);
        crypto_auth(mac, text, sizeof text, key);
        sodium_memzero(key, sizeof key);
        grx_msg_free(&r->x, m);
        m = NULL;
        if ((e = rc_send(r, GR_AUTH, ++r->next_req, mac, sizeof mac, "AUTH", msg)) != GENIE_OK ||
            (e = rc_wait(r, r->next_req, GR_OK, &m, "AUTH (the key)", msg)) != GENIE_OK)
            return GENIE_ERR_BACKEND;
    }
    grx_msg_free(&r->x, m);
    return GENIE_OK;
}

static genie_result rc_init(void **state, char *msg) {
    genie_ctx *ctx = (genie_ctx *)*state;
    const char *cfg = genie_backend_config(ctx), *t;
    rc_state *r;
    genie_result e;
    *state = NULL;
    if (!cfg || !*cfg) cfg = getenv("GENIE_REMOTE");
    if (!cfg || !*cfg) {
        snprintf(msg, GENIE_BACKEND_MSG, "remote: no server address (genie_ctx_desc.backend_config or GENIE_REMOTE=host:port)");
        return GENIE_ERR_BACKEND;
    }
    if (sodium_init() < 0) {
        snprintf(msg, GENIE_BACKEND_MSG, "remote %s: libsodium failed to start", cfg);
        return GENIE_ERR_BACKEND;
    }
    if (!(r = (rc_state *)calloc(1, sizeof *r)) || !(r->frees = (uint64_t *)malloc(RC_FREE_BATCH * sizeof(uint64_t)))) {
        free(r);
        snprintf(msg, GENIE_BACKEND_MSG, "remote: out of memory");
        return GENIE_ERR_OOM;
    }
    r->ctx = ctx;
    snprintf(r->addr, sizeof r->addr, "%s", cfg);
    r->timeout = 10.0;
    r->spin.win = r->spin.max = RC_SPIN_S;
    if ((t = getenv("GENIE_REMOTE_TIMEOUT_MS")) && atol(t) > 0) r->timeout = (double)atol(t) / 1000.0;
    if ((e = rc_connect(r, msg)) != GENIE_OK) {
        rc_destroy(r);
        return e == GENIE_ERR_OOM ? e : GENIE_ERR_BACKEND;
    }
    *state = r;
    return GENIE_OK;
}

/* The protocol's op for genie's node op, or -1. */
static int rc_wire_op(int op) {
    switch (op) {
#define RC_X(id, lo, hi) case GENIE__OP_##id: return GR_OP_##id;
    GR_OP_LIST(RC_X)
#undef RC_X
    case GENIE__OP_STACK: return GR_OP_CAT; /* its sources come unsqueezed at the new dim */
    case GENIE__OP_QROWS: return GR_OP_EMBEDDING; /* rows of a block weight: genie_embedding builds it again */
    case GENIE__OP_DEQUANT: return GR_OP_TO;      /* a block tensor dequantized: genie_to_dtype builds it again */
    default: return -1;
    }
}
/* Ops that index by a tensor: genie checks each index when the value is computed. */
static int rc_lookup(int w) {
    return w == GR_OP_EMBEDDING || w == GR_OP_INDEX_SELECT || w == GR_OP_GATHER || w == GR_OP_SCATTER || w == GR_OP_SCATTER_ADD ||
           w == GR_OP_INDEX_COPY;
}
/* Such an op's index source (index_copy_: 0; the others: 1) and the size its indices index:
   the rows of an embedding's weight, dim a.i[0] of source 0 (1 for a 0-dim source) or, for
   index_copy_, of the written view. */
static int rc_idx_src(int w) { return w == GR_OP_INDEX_COPY ? 0 : 1; }
static int64_t rc_idx_size(const genie__node *n, int w) {
    const genie__vspec *v = w == GR_OP_INDEX_COPY ? n->out : n->in[0].v;
    if (w == GR_OP_EMBEDDING) return v->ndim ? v->shape[0] : 0;
    return v->ndim ? v->shape[n->a.i[0]] : 1;
}
/* Whether every value of node p (an index source) lies in [0, rows) by its op alone, without
   reading it: an integer arange (start, step, count), an integer clamp with both bounds, an
   argmax or argmin (an index into its source's elements: p's source, or rc_state.argb). Any
   view of p reads some of these values. An in-place version (base) may hold other values. */
static int rc_idx_bounded(const rc_state *r, const genie__node *p, int64_t rows) {
    double lo, hi, top;
    int k;
    switch (p->dtype) { /* the largest value the dtype holds, exact in a double */
    case GENIE_I8: top = 127; break;
    case GENIE_U8: top = 255; break;
    case GENIE_I16: top = 32767; break;
    case GENIE_I32: top = 2147483647.0; break;
    case GENIE_I64: top = 9e15; break;
    default: return 0;
    }
    if (p->base) return 0;
    switch (p->op) {
    case GENIE__OP_ARANGE: /* start + k step, k < numel: integers */
        if (p->numel == 0) return 1;
        lo = p->a.f[0], hi = p->a.f[0] + (double)(p->numel - 1) * p->a.f[1];
        if (hi < lo) lo = hi, hi = p->a.f[0];
        return lo >= 0 && hi < (double)rows && hi <= top;
    case GENIE__OP_CLAMP: /* min(max(x, lo), hi): in [min(lo, hi), hi] */
        return p->a.i[2] && p->a.i[3] && p->a.i[0] >= 0 && p->a.i[1] >= 0 && p->a.i[1] < rows;
    case GENIE__OP_ARGMAX: case GENIE__OP_ARGMIN:
        if (p->nin >= 1) return genie__numel(p->in[0].v->ndim, p->in[0].v->shape) <= rows;
        for (k = 0; k < RC_ARGS && p->buf; k++)
            if (r->argb[k].id == (uint64_t)(uintptr_t)p->buf->dev) return r->argb[k].bound <= rows;
        return 0;
    default: return 0;
    }
}
/* Whether op n's indices are bounded by their op (rc_idx_bounded) or on the host and all inside
   their size, so the server cannot fail it; otherwise (indices only on the server, or one out
   of range) the server checks them and the client waits for its word (rc_run_checked). */
static int rc_idx_safe(const rc_state *r, const genie__node *n, int w) {
    const int s = rc_idx_src(w);
    const genie__vspec *v = n->in[s].v;
    const genie__buf *b = n->in[s].n->buf;
    const int64_t rows = rc_idx_size(n, w);
    int64_t idx[GENIE__MAXD], cnt = genie__numel(v->ndim, v->shape), i, off, x;
    int d;
    if (rc_idx_bounded(r, n->in[s].n, rows)) return 1;
    if (!b || !(b->loc & GENIE__ON_HOST)) return 0;
    memset(idx, 0, sizeof idx);
    for (i = 0; i < cnt; i++) {
        for (off = v->off, d = 0; d < v->ndim; d++) off += idx[d] * v->strides[d];
        x = genie__ldi(b->data, off, n->in[s].n->dtype);
        if (x < 0 || x >= rows) return 0;
        for (d = v->ndim - 1; d >= 0 && ++idx[d] == v->shape[d]; d--) idx[d] = 0;
    }
    return 1;
}
static void rc_view(gr_view *d, const genie__vspec *v) {
    d->ndim = v->ndim;
    d->off = v->off;
    memcpy(d->shape, v->shape, (size_t)v->ndim * 8);
    memcpy(d->strides, v->strides, (size_t)v->ndim * 8);
}
/* A binary op or where on sources of two dtypes: genie promoted them as ATen does, a 0-dim
   source counting below a dimensioned one, which the node's views (broadcast to the result's
   shape) no longer show. The sources' 0-dim flags (bit k: source k) under which genie's rules
   give the node's result and compute dtypes, the fewest flags first, so that the server's
   genie builds the same node from the same sources; 0 for sources of one dtype (and other
   ops), -1 when no flags do. An in-place write keeps its destination's dtype: the flags give
   the compute dtype and a result the destination takes (f16 *= bf16 computes in f32), which
   the server converts to the destination's dtype as genie stores it. A flagged source is read
   as one element at its view's offset (an empty result's too), inside the source's buffer. */
static int rc_zero_mask(const genie__node *n) {
    int w = rc_wire_op(n->op), lo = w == GR_OP_WHERE ? 1 : 0, m, k;
    if (!GR_OP_MIXED(w) || n->has_scalar || n->nin != lo + 2 || n->in[lo].n->dtype == n->in[lo + 1].n->dtype) return 0;
    for (m = 0; m < 4; m++) {
        int dim = -1, zero = -1, ok = 1, pt, cdt, odt;
        for (k = 0; k < 2; k++) {
            int flag = (m >> k) & 1, dt = n->in[lo + k].n->dtype;
            gr_view v;
            rc_view(&v, n->in[lo + k].v);
            if (flag && (v.ndim == 0 || !gr_view_one(&v) || v.off >= n->in[lo + k].n->numel)) ok = 0; /* a 0-dim view needs no flag */
            if (flag || v.ndim == 0) zero = genie__promote(zero, dt);
            else dim = genie__promote(dim, dt);
        }
        if (!ok) continue;
        pt = genie__combine(dim, zero);
        if (w == GR_OP_WHERE) cdt = odt = pt;
        else if (!genie__binary_types(NULL, n->op, "", n->in[0].n->dtype, n->in[1].n->dtype, pt, &cdt, &odt)) continue;
        if (cdt == n->cdt && (odt == n->dtype || (n->base && genie__can_cast(odt, n->dtype)))) return m << lo;
    }
    return -1;
}
/* n as an op, all but where its result and sources live (out_buf, out_cap, each source's
   kind and ref) and its module and phase. */
static void rc_fill_op(gr_op *o, const genie__node *n) {
    int k;
    memset(o, 0, sizeof *o);
    o->op = rc_wire_op(n->op);
    o->dtype = n->dtype;
    o->cdt = n->cdt;
    o->zero = rc_zero_mask(n) > 0 ? rc_zero_mask(n) : 0;
    o->has_scalar = n->has_scalar;
    o->inplace = n->base != NULL;
    o->written = o->inplace;
    o->nin = n->nin;
    o->role = n->role;
    memcpy(o->i, n->a.i, sizeof o->i);
    o->f[0] = n->a.f[0];
    o->f[1] = n->a.f[1];
    if (o->op == GR_OP_CLAMP && !GENIE__IS_FLOAT(n->dtype)) { /* integer bounds as the doubles genie_clamp takes back
                                                                  exactly (NaN: none): whole numbers inside int64 */
        o->f[0] = n->a.i[2] ? (double)n->a.i[0] : NAN;
        o->f[1] = n->a.i[3] ? (double)n->a.i[1] : NAN;
    }
    rc_view(&o->out, n->out);
    for (k = 0; k < n->nin && k < GR_MAX_IN; k++) {
        o->in[k].dtype = n->in[k].n->dtype;
        rc_view(&o->in[k].v, n->in[k].v);
    }
    if (o->op == GR_OP_FLIP) { /* genie reads the source through negative strides: the wire has the
                                  source as it is and a bit for each flipped dim */
        gr_view *v = &o->in[0].v;
        o->i[0] = 0;
        for (k = 0; k < v->ndim; k++)
            if (v->strides[k] < 0) {
                v->strides[k] = -v->strides[k];
                if (v->shape[k] > 0) v->off -= (v->shape[k] - 1) * v->strides[k]; /* genie moved it only then */
                o->i[0] |= (int64_t)1 << k;
            }
    }
}
/* Ops genie writes in place (n->base: into the old version's buffer, genie__be_node) that the
   server runs so: the op on the sources as they are, stored into the written view. */
static int rc_inplace_op(int w) {
    return GR_OP_INPLACE(w) || w == GR_OP_ADD || w == GR_OP_SUB || w == GR_OP_MUL || w == GR_OP_DIV || w == GR_OP_RELU ||
           w == GR_OP_MASKED_FILL || w == GR_OP_FULL;
}
static int rc_strides_ok(const genie__vspec *v) {
    int d;
    for (d = 0; d < v->ndim; d++)
        if (v->strides[d] < 0) return 0;
    return v->off >= 0;
}
static int rc_node_ok(const genie__node *n) {
    int w = rc_wire_op(n->op), k;
    if (w < 0 || !n->out || n->dtype >= GR_DTYPE_COUNT || n->nin > GR_MAX_IN) return 0;
    if (n->base ? !rc_inplace_op(w) : GR_OP_INPLACE(w)) return 0;
    for (k = 0; k < n->nin; k++) /* flip's source aside (rc_fill_op), the wire's strides are not negative */
        if (w != GR_OP_FLIP && !rc_strides_ok(n->in[k].v)) return 0;
    if (n->base && !GR_OP_INPLACE(w) && genie__numel(n->out->ndim, n->out->shape) == 0) return 0; /* writes nothing */
    /* index_copy_ of a 0-dim destination or source: the server takes equal ranks only */
    if (w == GR_OP_INDEX_COPY && (n->out->ndim < 1 || n->in[1].v->ndim != n->out->ndim)) return 0;
    if (w == GR_OP_CAT) /* every source in the result's rank: not cat's skipped empty 1-D ones */
        for (k = 0; k < n->nin; k++)
            if (n->in[k].v->ndim != n->out->ndim) return 0;
    {
        gr_op o; /* what the server's decoder checks of the op's arguments */
        rc_fill_op(&o, n);
        if (gr_op_args_bad(&o)) return 0;
    }
    if (n->nin < gr_op_arity[w][0] || n->nin > gr_op_arity[w][1]) return 0;
    if (n->has_scalar != (w >= GR_OP_ADD && w <= GR_OP_POW && n->nin == 1)) return 0;
    for (k = 0; k < n->nin; k++) /* a block dtype only as a quantized linear's weight, or an embedding's or to's source */
        if (n->in[k].n->dtype >= GR_DTYPE_COUNT && !(GR_BLOCK_SRC(w, k) && GR_DT_BLOCK(n->in[k].n->dtype))) return 0;
    /* sources of different dtypes: binary ops and where go with the 0-dim flags that give
       genie the node's dtypes (rc_zero_mask); matmul and linear take f32 with bf16 as genie
       does, and clamp has one source */
    if (GR_OP_MIXED(w) && rc_zero_mask(n) < 0) return 0;
    if (GR_OP_REDUCE(w) && (n->a.i[0] < 0 || n->a.i[0] >= n->in[0].v->ndim)) return 0;
    /* sdpa of 2-D q, k, v has a 2-D result from 3-D views: the server infers 3-D */
    if (w == GR_OP_SDPA && n->out->ndim != n->in[0].v->ndim) return 0;
    return 1;
}
/* n's work as the server counts it (gr_op_cost) */
static uint64_t rc_node_cost(const genie__node *n) {
    gr_op o;
    rc_fill_op(&o, n);
    return gr_op_cost(&o);
}
/* g's work (or n's alone), gr_run_cost's sum over its ops */
static uint64_t rc_work(const genie__node *n, const genie__fgroup *g) {
    uint64_t w = 0;
    int j;
    if (!g) return rc_node_cost(n);
    for (j = 0; j < g->nops; j++) w = gr_add_sat(w, rc_node_cost(g->nodes[j]));
    return w;
}
/* A node or group whose work alone is past the server's --max-run-work is computed by the
   client's CPU (counted in backend_fallbacks): no RUN of it could pass. */
static int rc_supports(void *state, const genie__node *n, const genie__fgroup *g) {
    rc_state *r = (rc_state *)state;
    int j, k, i;
    if (r->dead) return 0;
    if (!g) return rc_node_ok(n) && rc_work(n, NULL) <= r->max_run_work;
    if (rc_work(n, g) > r->max_run_work) return 0;
    for (j = 0; j < g->nops; j++) {
        const genie__node *m = g->nodes[j];
        if (!rc_node_ok(m)) return 0;
        for (k = 0; k < m->nin; k++) { /* each source an earlier op of the group or one of its inputs */
            const genie__node *s = m->in[k].n;
            int found = 0;
            for (i = 0; i < j && !found; i++) found = g->nodes[i] == s;
            for (i = 0; i < g->nin && !found; i++) found = g->src[i] == s;
            if (!found) return 0;
        }
    }
    return 1;
}

static uint64_t rc_cap(const genie__buf *b) { return b->cap > b->bytes ? b->cap : b->bytes; }

/* Buffer id's slot in the RUN being gathered, or -1 with *h its free place in the hash table
   (meaningful while the table is under half full): the hash table while it is under half full
   (a GPT-2 decode step has ~350 slots and ~500 lookups), else a scan. */
static int64_t rc_slot_find(rc_state *r, uint64_t id, uint32_t *h) {
    uint32_t k;
    *h = (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 52) & (RC_SLOT_HASH - 1);
    if (r->nslots == 0) return -1;
    if (r->nslots <= RC_SLOT_HASH / 2) {
        for (; r->slot_tab[*h].gen == r->slot_gen; *h = (*h + 1) & (RC_SLOT_HASH - 1))
            if (r->slot_tab[*h].id == id) return r->slot_tab[*h].slot;
    } else {
        for (k = r->nslots; k-- > 0;) { /* recent buffers first: a step reads what it just wrote */
            gr_rd rd = gr_rd_init(r->slots.p + 4 + (size_t)k * 8, 8);
            if (gr_u64(&rd) == id) return k;
        }
    }
    return -1;
}
/* Buffer id's slot in the RUN being gathered, given one if it has none (r->slots.oom when out
   of memory). */
static uint64_t rc_slot(rc_state *r, uint64_t id) {
    uint32_t h;
    int64_t k;
    if (r->nslots == 0 && ++r->slot_gen == 0) { /* a new RUN's table; the stamps wrapped: all empty */
        memset(r->slot_tab, 0, sizeof r->slot_tab);
        r->slot_gen = 1;
    }
    if ((k = rc_slot_find(r, id, &h)) >= 0) return (uint64_t)k;
    if (r->nslots < RC_SLOT_HASH / 2) r->slot_tab[h].id = id, r->slot_tab[h].slot = r->nslots, r->slot_tab[h].gen = r->slot_gen;
    if (r->nslots == r->scap) {
        uint32_t cap = r->scap ? 2 * r->scap : 1024;
        struct rc_sinfo *t = (struct rc_sinfo *)realloc(r->sinfo, cap * sizeof *t);
        if (!t) r->slots.oom = 1;
        else r->sinfo = t, r->scap = cap;
    }
    if (r->nslots < r->scap) memset(&r->sinfo[r->nslots], 0, sizeof r->sinfo[0]);
    gr_w64(&r->slots, id);
    return r->nslots++;
}
/* Node n as op number base + j of a RUN whose ops base .. base + j - 1 are nodes[0..j-1]. */
static void rc_encode_node(rc_state *r, gr_wr *w, const genie__node *n, int written, genie__node *const *nodes, int j, uint32_t base) {
    gr_op o;
    int k, i;
    rc_fill_op(&o, n);
    o.written = written;
    if (written && (o.op == GR_OP_ARGMAX || o.op == GR_OP_ARGMIN) && o.nin == 1) { /* its values index o.in[0]'s elements */
        r->argb[r->argb_next].id = (uint64_t)(uintptr_t)n->buf->dev;
        r->argb[r->argb_next].bound = gr_view_numel(&o.in[0].v);
        r->argb_next = (r->argb_next + 1) % RC_ARGS;
    }
    if (written) {
        rc_hdel(r, (uint64_t)(uintptr_t)n->buf->dev); /* the server's bytes are no longer the hashed ones */
        o.out_buf = rc_slot(r, (uint64_t)(uintptr_t)n->buf->dev);
        o.out_cap = rc_cap(n->buf);
        if (r->nwops == r->wcap) {
            uint32_t cap = r->wcap ? 2 * r->wcap : 256;
            struct rc_wop *t = (struct rc_wop *)realloc(r->wops, cap * sizeof *t);
            if (!t) { r->run.oom = 1; return; }
            r->wops = t, r->wcap = cap;
        }
        if (r->slots.oom) return;
        r->sinfo[o.out_buf].b = n->buf;
        r->wops[r->nwops].at = w->n + 3; /* u8 op, dtype, cdt, then the flags */
        r->wops[r->nwops].slot = (uint32_t)o.out_buf;
        r->wops[r->nwops++].inplace = o.inplace;
    }
    for (k = 0; k < n->nin; k++) {
        const genie__node *s = n->in[k].n;
        o.in[k].kind = GR_SRC_BUF;
        for (i = 0; i < j; i++)
            if (nodes[i] == s) { o.in[k].kind = GR_SRC_OP; o.in[k].ref = base + (uint64_t)i; }
        if (o.in[k].kind == GR_SRC_BUF) o.in[k].ref = rc_slot(r, (uint64_t)(uintptr_t)s->buf->dev);
    }
    o.module = n->scope->module;
    o.phase = n->scope->phase;
    o.module_len = (uint32_t)strlen(o.module);
    o.phase_len = (uint32_t)strlen(o.phase);
    if (o.module_len > GR_MAX_STR) o.module_len = GR_MAX_STR;
    if (o.phase_len > GR_MAX_STR) o.phase_len = GR_MAX_STR;
    gr_op_encode(w, &o);
}

/* A lookup whose indices the server checks (rc_idx_safe): an index out of range must fail this
   node where it stands in the client's tape, with genie's error, as on the client's CPU. So the
   node goes alone in a RUN (the ops gathered before it in one of their own: its failure fails
   its output only), followed by a PING: the server handles a client's messages in order, so
   the RUN's ERROR, if any, comes before the PING's OK. One round trip; an index ERROR
   (GR_E_INDEX) is genie's message and GENIE_ERR_INDEX. */
static genie_result rc_run_checked(rc_state *r, char *msg) {
    genie_result e;
    grx_msg *m = NULL;
    uint32_t code;
    if ((e = rc_flush(r, msg)) != GENIE_OK) return e;
    r->watch_req = r->last_run;
    r->watch_err[0] = 0;
    if ((e = rc_send(r, GR_PING, ++r->next_req, NULL, 0, "PING", msg)) == GENIE_OK)
        e = rc_wait(r, r->next_req, GR_OK, &m, "RUN (a lookup's indices)", msg);
    grx_msg_free(&r->x, m);
    r->watch_req = 0;
    if (e != GENIE_OK || !r->watch_err[0]) return e;
    code = r->watch_code;
    if (code == GR_E_INDEX) snprintf(msg, GENIE_BACKEND_MSG, "%.500s", r->watch_err);
    else rc_fail(r, msg, "RUN: server error %u: %s", code, r->watch_err);
    r->watch_err[0] = 0;
    return code == GR_E_INDEX ? GENIE_ERR_INDEX : GENIE_ERR_BACKEND;
}

static genie_result rc_refresh(rc_state *r, genie__buf *b, char *msg);
/* Gathers n (or the group g) into the RUN being built; it goes with the next message that
   needs the server (a read; an upload of a buffer it names, or above RC_HAS_MIN while FREEs
   wait; the next FREE batch) or when it is full. */
static genie_result rc_run(void *state, genie__node *n, const genie__fgroup *g, char *msg) {
    rc_state *r = (rc_state *)state;
    genie_result e;
    uint32_t nops = g ? (uint32_t)g->nops : 1;
    uint64_t work = rc_work(n, g); /* <= max_run_work (rc_supports) */
    int j, checked = !g && rc_lookup(rc_wire_op(n->op)) && !rc_idx_safe(r, n, rc_wire_op(n->op));
    if ((e = rc_check_async_op(r, "RUN", msg)) != GENIE_OK) return e;
    if (r->hpending) { /* after a reconnect: what this RUN reads, sent again first */
        if (g)
            for (j = 0; j < g->nin && e == GENIE_OK; j++) e = rc_refresh(r, g->src[j]->buf, msg);
        else
            for (j = 0; j < genie__node_ninputs(n) && e == GENIE_OK; j++) e = rc_refresh(r, genie__node_input(n, j)->buf, msg);
        if (e != GENIE_OK) return e;
    }
    if ((r->run_nops && (checked || r->run_nops + nops > GR_MAX_OPS || r->run.n > ((size_t)1 << 20) || r->nslots + 4 * nops > 1024 ||
                         gr_add_sat(r->run_cost, work) > r->max_run_work)) && /* sent before the server's limit is passed */
        (e = rc_flush(r, msg)) != GENIE_OK)
        return e;
    if (r->run_nops == 0) rc_run_begin(r);
    if (g)
        for (j = 0; j < g->nops; j++) rc_encode_node(r, &r->run, g->nodes[j], g->written[j], g->nodes, j, r->run_nops);
    else
        rc_encode_node(r, &r->run, n, 1, &n, 0, r->run_nops);
    r->run_nops += nops;
    r->run_cost = gr_add_sat(r->run_cost, work);
    if (r->run.oom || r->slots.oom) { /* the ops gathered before it are lost: so is the connection */
        r->run.n = r->slots.n = 0, r->run.oom = r->slots.oom = 0, r->run_nops = r->nslots = r->nwops = 0, r->run_cost = 0;
        r->dead = 1;
        return rc_fail(r, msg, "RUN: out of memory (the connection is closed; the context now runs on its CPU)");
    }
    return checked ? rc_run_checked(r, msg) : GENIE_OK;
}

static genie_result rc_alloc(void *state, genie__buf *b, char *msg) {
    rc_state *r = (rc_state *)state;
    if (r->dead) return rc_lost(r, msg, "alloc");
    b->dev = (void *)(uintptr_t)++r->next_id; /* an id, never dereferenced */
    return GENIE_OK;
}
static void rc_free(void *state, genie__buf *b) {
    rc_state *r = (rc_state *)state;
    char msg[GENIE_BACKEND_MSG];
    if (b->dev && r->run_nops) { /* b is about to go: rc_mark_dead must not read it */
        uint32_t h;
        int64_t k = rc_slot_find(r, (uint64_t)(uintptr_t)b->dev, &h);
        if (k >= 0 && (uint64_t)k < r->scap) r->sinfo[k].freed = 1, r->sinfo[k].b = NULL;
    }
    if (b->dev && !r->dead) {
        if (r->nfree == RC_FREE_BATCH) rc_flush(r, msg);
        r->frees[r->nfree++] = (uint64_t)(uintptr_t)b->dev;
    }
    if (b->dev) rc_hdel(r, (uint64_t)(uintptr_t)b->dev);
    b->dev = NULL;
}
/* Buffer id's new bytes p (n <= RC_HAS_MIN) kept to go with the next RUN: inline in a RUN_CACHED,
   or as a PUT before a new RUN (rc_flush_get). Sent first when RC_INLINE_BYTES would be passed. */
static genie_result rc_inline_add(rc_state *r, uint64_t id, const void *p, size_t n, char *msg) {
    size_t at;
    genie_result e;
    if (r->inl.n + 12 + n > RC_INLINE_BYTES && (e = rc_flush(r, msg)) != GENIE_OK) return e;
    at = r->inl.n;
    gr_w64(&r->inl, id);
    gr_w32(&r->inl, (uint32_t)n);
    gr_wbytes(&r->inl, p, n);
    if (r->inl.oom) { /* this one not kept; those before it still go */
        r->inl.n = at, r->inl.oom = 0;
        return rc_fail(r, msg, "PUT: out of memory");
    }
    r->ninl++;
    return GENIE_OK;
}
/* Sends b's host bytes to the server as buffer b->dev (one PUT, or PUT_PARTs and a PUT), ahead
   of the RUN being gathered unless that RUN names b->dev (then the RUN goes first: the server
   handles a client's messages in order, so its ops see the buffer as they were gathered).
   Up to RC_HAS_MIN: copied to wait for the next RUN (rc_inline_add), nothing kept. Above it:
   - known (a reconnect's kept hash), or the caller's memory (an external buffer: from_blob,
     which is how mapped safetensors/GGUF weights and torch's tensors come; other processes
     plausibly upload the same bytes): hashed first (unless known), then HAS, and a PUT only
     when the server lacks them; the hash is kept for the buffer (rc_hent);
   - otherwise (bytes genie holds: from_data copies, values computed or rewritten on the host)
     sent first, claiming no hash: the server's HASHED brings it back later (rc_drain), so a
     reconnect or a later HAS can still find these bytes. */
static genie_result rc_upload(rc_state *r, genie__buf *b, const uint8_t *known, char *msg) {
    uint8_t hash[GR_HASH_BYTES];
    uint64_t id = (uint64_t)(uintptr_t)b->dev;
    int nth = genie__ctx_threads(r->ctx), big = b->bytes > RC_HAS_MIN, first = big && !known && !b->external;
    uint32_t slot_hash;
    genie_result e;
    gr_wr w;
    ucs_status_t s;
    if ((e = rc_check_async(r, "PUT", msg)) != GENIE_OK) return e;
    /* the RUN first when it names the buffer; before bytes the server counts against the
       client's budget, the FREEs waiting too (after their RUN: its ops may read them) */
    if (((r->run_nops && rc_slot_find(r, id, &slot_hash) >= 0) || (big && r->nfree)) && (e = rc_flush(r, msg)) != GENIE_OK) return e;
    if (!big && !known) { /* waits for the next RUN (rc_flush_get) */
        rc_hdel(r, id);
        return rc_inline_add(r, id, b->data, b->bytes, msg);
    }
    if (known) memcpy(hash, known, sizeof hash);
    else if (first) memset(hash, 0, sizeof hash); /* none claimed */
    else if (gr_content_hash(b->data, b->bytes, hash, nth) != 0) return rc_fail(r, msg, "PUT: out of memory");
    if (big && !first) { /* the server may hold these bytes already (a weight seen before) */
        grx_msg *m = NULL;
        int found;
        memset(&w, 0, sizeof w);
        gr_w64(&w, id);
        gr_w64(&w, rc_cap(b));
        gr_w64(&w, b->bytes);
        gr_wbytes(&w, hash, sizeof hash);
        e = w.oom ? rc_fail(r, msg, "HAS: out of memory") : rc_send(r, GR_HAS, ++r->next_req, w.p, w.n, "HAS", msg);
        gr_wr_free(&w);
        if (e != GENIE_OK || (e = rc_wait(r, r->next_req, GR_HAS_REPLY, &m, "HAS", msg)) != GENIE_OK) return e;
        found = m->len == 1 && m->data[0] == 1;
        grx_msg_free(&r->x, m);
        if (found) {
            rc_hput(r, id, hash);
            return GENIE_OK;
        }
    }
    if (r->dead) return rc_lost(r, msg, "PUT");
    s = grx_put(&r->x, r->ep, &r->next_req, id, rc_cap(b), hash, b->data, b->bytes, grx_now() + r->timeout, &r->dead,
                &r->ctx->stats.remote_messages_sent, &r->ctx->stats.remote_bytes_sent);
    if (s == UCS_ERR_NO_MEMORY) return rc_fail(r, msg, "PUT: out of memory");
    if (s != UCS_OK && r->credit.bad) {
        r->dead = 1;
        return rc_fail(r, msg, "PUT: a malformed CREDIT from the server (the connection is closed; the context now runs on its CPU)");
    }
    if (s == UCS_ERR_TIMED_OUT && !r->dead) {
        r->dead = 1;
        return rc_fail(r, msg, "PUT: no credit or send completion within %.1f s (GENIE_REMOTE_TIMEOUT_MS); the connection is closed (the context now runs on its CPU)", r->timeout);
    }
    if (s != UCS_OK) return rc_lost(r, msg, "PUT");
    if (!big) rc_hdel(r, id);
    else {
        rc_hent *h;
        rc_hput(r, id, hash);
        if ((h = rc_hfind(r, id))) { /* the PUT's request id is the last one sent */
            if (first) h->wait_req = r->next_req, r->hwait++; /* the hash comes with the PUT's HASHED */
            else h->put_req = r->next_req;
        }
    }
    return GENIE_OK;
}
static genie_result rc_copy_in(void *state, genie__buf *b, char *msg) {
    return rc_upload((rc_state *)state, b, NULL, msg);
}
/* A buffer a reconnect left pending is sent again under its kept hash before a RUN reads it. */
static genie_result rc_refresh(rc_state *r, genie__buf *b, char *msg) {
    rc_hent *h;
    uint8_t hash[GR_HASH_BYTES];
    if (!b || !b->dev || !(h = rc_hfind(r, (uint64_t)(uintptr_t)b->dev)) || !h->pending) return GENIE_OK;
    memcpy(hash, h->hash, sizeof hash);
    h->pending = 0, r->hpending--;
    if (!(b->loc & GENIE__ON_HOST)) return GENIE_OK; /* not reached: pending needs both copies current */
    r->ctx->stats.copies_to_device++;
    r->ctx->stats.bytes_to_device += b->bytes;
    return rc_upload(r, b, hash, msg);
}
static genie_result rc_copy_out(void *state, genie__buf *b, size_t lo, size_t hi, char *msg) {
    rc_state *r = (rc_state *)state;
    uint8_t get[24];
    grx_msg *m = NULL;
    genie_result e;
    gr_wr w;
    uint64_t req = 0;
    if ((e = rc_check_async(r, "GET", msg)) != GENIE_OK) return e;
    memset(&w, 0, sizeof w);
    gr_w64(&w, (uint64_t)(uintptr_t)b->dev);
    gr_w64(&w, lo);
    gr_w64(&w, hi);
    if (w.oom) { gr_wr_free(&w); return rc_fail(r, msg, "GET: out of memory"); }
    memcpy(get, w.p, sizeof get);
    gr_wr_free(&w);
    if ((e = rc_flush_get(r, get, &req, msg)) != GENIE_OK) return e; /* a repeated step's RUN carries the GET */
    if ((!req && (e = rc_send(r, GR_GET, req = ++r->next_req, get, sizeof get, "GET", msg)) != GENIE_OK) ||
        (e = rc_wait(r, req, GR_DATA, &m, "GET", msg)) != GENIE_OK)
        return e;
    if (m->len != hi - lo) {
        grx_msg_free(&r->x, m);
        return rc_fail(r, msg, "GET: %zu bytes back for %zu asked", m->len, hi - lo);
    }
    if (m->len) memcpy((char *)b->data + lo, m->data, m->len);
    grx_msg_free(&r->x, m);
    return GENIE_OK;
}

static const genie_backend rc_backend;
int genie_remote_stats(genie_ctx *ctx, genie_remote_work *rows, int max) {
    rc_state *r;
    char msg[GENIE_BACKEND_MSG];
    grx_msg *m = NULL;
    gr_rd rd;
    uint32_t n, i;
    int64_t cnt;
    genie_result e;
    if (!ctx) return -1;
    if (ctx->be != &rc_backend || !ctx->be_state) {
        genie__fail(ctx, GENIE_ERR_BACKEND, "genie_remote_stats: the context does not run on \"remote\"");
        return -1;
    }
    r = (rc_state *)ctx->be_state;
    if ((e = rc_check_async(r, "STATS", msg)) != GENIE_OK || (e = rc_flush(r, msg)) != GENIE_OK ||
        (e = rc_send(r, GR_STATS, ++r->next_req, NULL, 0, "STATS", msg)) != GENIE_OK ||
        (e = rc_wait(r, r->next_req, GR_STATS_REPLY, &m, "STATS", msg)) != GENIE_OK) {
        genie__fail(ctx, e, "genie_remote_stats: %s", msg);
        return -1;
    }
    rd = gr_rd_init(m->data, m->len);
    cnt = gr_stats_count(&rd);
    n = cnt < 0 ? 0 : (uint32_t)cnt;
    for (i = 0; i < n; i++) {
        gr_stat st;
        if (!gr_stat_decode(&rd, &st) || st.role >= GENIE_ROLE_COUNT) break;
        if (rows && (int)i < max) {
            genie_remote_work *w = &rows[i];
            size_t k = st.phase_len < sizeof w->phase - 1 ? st.phase_len : sizeof w->phase - 1;
            memcpy(w->phase, st.phase, k);
            w->phase[k] = 0;
            k = st.module_len < sizeof w->module - 1 ? st.module_len : sizeof w->module - 1;
            memcpy(w->module, st.module, k);
            w->module[k] = 0;
            snprintf(w->role, sizeof w->role, "%s", genie_role_name((genie_role_id)st.role));
            w->work.nodes = st.nodes, w->work.flops = st.flops, w->work.bytes = st.bytes, w->work.ns = st.ns;
        }
    }
    grx_msg_free(&r->x, m);
    if (cnt < 0 || rd.bad || i < n || gr_left(&rd)) {
        genie__fail(ctx, GENIE_ERR_BACKEND, "genie_remote_stats: remote %s: a malformed STATS reply", r->addr);
        return -1;
    }
    return (int)n;
}

/* Waits while HASHEDs keep coming: the deadline (GENIE_REMOTE_TIMEOUT_MS) runs from the last
   one that arrived, so a long backlog on a slow server is waited out; one that stops coming is
   an error for this call alone (the connection is kept: RUNs do not wait on hashes). */
genie_result genie_remote_hashed(genie_ctx *ctx) {
    rc_state *r;
    char msg[GENIE_BACKEND_MSG];
    genie_result e;
    double until;
    size_t left;
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (ctx->be != &rc_backend || !ctx->be_state)
        return (genie__fail(ctx, GENIE_ERR_BACKEND, "genie_remote_hashed: the context does not run on \"remote\""), GENIE_ERR_BACKEND);
    r = (rc_state *)ctx->be_state;
    if ((e = rc_check_async(r, "HASHED", msg)) != GENIE_OK || (e = rc_flush(r, msg)) != GENIE_OK)
        return (genie__fail(ctx, e, "genie_remote_hashed: %s", msg), e);
    until = grx_now() + r->timeout;
    left = r->hwait;
    while (r->hwait && !r->dead && !r->async_err[0]) {
        ucp_worker_progress(r->x.w);
        rc_drain(r, 0, NULL);
        if (!r->hwait) break;
        if (r->hwait < left) left = r->hwait, until = grx_now() + r->timeout; /* one came: the server is hashing */
        if (grx_now() > until) {
            genie__fail(ctx, GENIE_ERR_BACKEND, "genie_remote_hashed: remote %s: no HASHED within %.1f s (%zu still awaited)", r->addr,
                        r->timeout, r->hwait);
            return GENIE_ERR_BACKEND;
        }
        grx_sleep(&r->x, 1);
    }
    if ((e = rc_check_async(r, "HASHED", msg)) != GENIE_OK) return (genie__fail(ctx, e, "genie_remote_hashed: %s", msg), e);
    return GENIE_OK;
}

genie_result genie_remote_reconnect(genie_ctx *ctx) {
    rc_state *r;
    genie__buf *b;
    char msg[GENIE_BACKEND_MSG];
    genie_result e;
    if (!ctx) return GENIE_ERR_INVALID_ARG;
    if (ctx->be != &rc_backend || !ctx->be_state) {
        genie__fail(ctx, GENIE_ERR_BACKEND, "genie_remote_reconnect: the context does not run on \"remote\"");
        return GENIE_ERR_BACKEND;
    }
    r = (rc_state *)ctx->be_state;
    if (r->x.w) ucp_worker_progress(r->x.w); /* a loss UCX knows of but has not reported yet */
    if (!r->dead) return GENIE_OK;
    /* what the lost server held goes: its endpoint, its worker, the tapes it kept, what was gathered */
    if (r->ep) grx_close_ep(&r->x, r->ep, 1);
    r->ep = NULL;
    grx_destroy(&r->x);
    memset(&r->x, 0, sizeof r->x);
    r->dead = 0;
    r->async_err[0] = 0;
    r->run.n = r->slots.n = 0, r->run.oom = r->slots.oom = 0, r->run_nops = r->nslots = r->nwops = 0, r->run_cost = 0;
    r->inl.n = 0, r->inl.oom = 0, r->ninl = 0;
    r->nfree = 0;
    r->ntapes = r->tape_first = 0, r->tape_bytes = 0;
    if ((e = rc_connect(r, msg)) != GENIE_OK) {
        if (r->ep) grx_close_ep(&r->x, r->ep, 1);
        r->ep = NULL;
        grx_destroy(&r->x);
        memset(&r->x, 0, sizeof r->x);
        r->dead = 1;
        genie__fail(ctx, GENIE_ERR_BACKEND, "genie_remote_reconnect: %s", msg);
        return GENIE_ERR_BACKEND;
    }
    /* bytes with a host copy are sent again when a step needs them (HAS, then PUT if the
       server lacks them); values that were only on the lost server stay lost: reading one
       gives the server's error */
    { /* the hashes that never came back: the lost server's HASHEDs will not come */
        size_t k;
        for (k = 0; k < r->hcap; k++)
            while (r->hents[k].id && r->hents[k].wait_req) rc_hdel(r, r->hents[k].id);
        for (k = 0; k < r->hcap; k++) r->hents[k].put_req = 0;
        r->hwait = 0;
    }
    for (b = ctx->bufs; b; b = b->next) {
        rc_hent *h = b->dev ? rc_hfind(r, (uint64_t)(uintptr_t)b->dev) : NULL;
        if (!b->dev || !(b->loc & GENIE__ON_HOST)) continue;
        if (h && (b->loc & GENIE__ON_DEV)) { /* current on both sides, its hash kept: sent again by the RUN that reads it */
            if (!h->pending) h->pending = 1, r->hpending++;
        } else
            b->loc = GENIE__ON_HOST;
    }
    return GENIE_OK;
}

static const genie_backend rc_backend = {.name = "remote", .init = rc_init, .destroy = rc_destroy, .supports = rc_supports,
                                         .run = rc_run, .alloc = rc_alloc, .free = rc_free, .copy_in = rc_copy_in,
                                         .copy_out = rc_copy_out, .inplace = 1,
                                         .row_groups = 1};

genie_result genie_remote_register(void) { return genie_backend_register(&rc_backend); }
#if defined(__GNUC__) || defined(__clang__)
__attribute__((constructor)) static void rc_autoregister(void) { (void)genie_remote_register(); }
#endif
