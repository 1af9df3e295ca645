/* genie_remote_ucx.h - the UCX transport shared by genie_remote.c (the client) and
 * tools/genie_server.c: one worker, one active-message id, messages as
 * (24-byte header, payload) pairs (genie_remote_proto.h).
 *
 * Received messages are copied into a FIFO by the active-message callback and
 * handled outside it (UCX forbids sending from inside a progress call). A payload
 * that arrives by rendezvous is fetched into its queue entry at once, and the
 * FIFO yields an entry only when its bytes are all there, so messages are handled
 * in the order they were sent on each endpoint. A declared length over the
 * limit is never fetched: the entry is marked oversized instead. */
#ifndef GENIE_REMOTE_UCX_H
#define GENIE_REMOTE_UCX_H
#include <ucp/api/ucp.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <poll.h>
#include <stdio.h>
#include <sodium.h>
#include "genie_remote_proto.h"

#define GRX_AM_ID 7
#define GRX_RNDV_THRESH "4194304" /* bytes: larger messages go by rendezvous (see grx_init) */

typedef struct grx_msg {
    struct grx_msg *next;
    ucp_ep_h ep;         /* the sender (its reply endpoint) */
    uint8_t hdr[GR_HDR_BYTES];
    size_t hdr_len;      /* as received (a header of another size is a framing error) */
    uint8_t *data;       /* the payload, len bytes (NULL when len is 0 or oversized): malloc'd, or
                            UCX's own buffer of an eager message, kept (ucx_owned) */
    size_t len;
    int ucx_owned;       /* data is UCX's: ucp_am_data_release, not free (and not 16-byte aligned) */
    void *req;           /* a rendezvous fetch in flight, or NULL */
    int oversized;       /* the declared length was over the limit: not fetched */
    int refused;         /* over the sender's queue cap (grx.queued): not fetched */
    uint64_t *charge;    /* the sender's queued-bytes counter holding len, or NULL */
    int failed;          /* the fetch failed */
} grx_msg;

/* A client's upload credit (GR_CREDIT_EVERY in genie_remote_proto.h): its WELCOME's window, the
   payload bytes of the PUTs and PUT_PARTs sent (grx_count), the server's count of them taken off
   its queue (its last CREDIT, taken <= sent), the CREDITs received (messages and bytes, headers
   included) and whether one was malformed (the connection is then to be dropped). */
typedef struct grx_credit {
    uint64_t window, sent, taken, msgs, bytes;
    int bad;
} grx_credit;

typedef struct grx {
    ucp_context_h ctx;
    ucp_worker_h w;
    grx_msg *head, *tail;
    uint64_t max_payload;
    int oom;             /* a message could not be queued (out of memory) */
    /* optional: the counter of bytes queued for an endpoint (NULL: none); a message that would
       take it past queue_cap is not fetched but queued as refused */
    uint64_t *(*queued)(void *arg, ucp_ep_h ep);
    void *queued_arg;
    uint64_t queue_cap;
    /* optional (a client's; NULL: none): the server's CREDITs are taken in here by the receive
       callback, never queued, and grx_put sends within its window */
    grx_credit *credit;
    /* the endpoint grx_wait closed by force (a send it could not cancel), until grx_close_ep
       is called on it (then nothing is left to close); NULL: none */
    ucp_ep_h forced;
} grx;

GR_FN double grx_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

GR_FN void grx_rndv_done(void *request, ucs_status_t status, size_t length, void *user) {
    grx_msg *m = (grx_msg *)user;
    (void)request;
    if (status != UCS_OK || length != m->len) m->failed = 1;
}

GR_FN ucs_status_t grx_am_cb(void *arg, const void *header, size_t header_length, void *data, size_t length,
                             const ucp_am_recv_param_t *param) {
    grx *x = (grx *)arg;
    grx_msg *m;
    int rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    gr_hdr h;
    if (x->credit && gr_hdr_decode(header, header_length, length, &h) == 0 && h.type == GR_CREDIT) {
        grx_credit *cr = x->credit; /* a counter, whatever the order: taken in at once */
        if (rndv || !(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA) || !gr_credit_decode(data, length, cr->taken, cr->sent, &cr->taken)) cr->bad = 1;
        if (rndv) ucp_am_data_release(x->w, data);
        cr->msgs++;
        cr->bytes += GR_HDR_BYTES + length;
        return UCS_OK;
    }
    m = (grx_msg *)calloc(1, sizeof *m);
    if (!m) {
        x->oom = 1;
        if (rndv) ucp_am_data_release(x->w, data);
        return UCS_OK;
    }
    m->ep = (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ? param->reply_ep : NULL;
    m->hdr_len = header_length;
    if (header_length == GR_HDR_BYTES) memcpy(m->hdr, header, GR_HDR_BYTES);
    m->len = length;
    if (length > x->max_payload) {
        m->oversized = 1;
        if (rndv) ucp_am_data_release(x->w, data);
    } else if (length && x->queued && m->ep && (m->charge = x->queued(x->queued_arg, m->ep)) &&
               (length > x->queue_cap || *m->charge > x->queue_cap - length)) {
        m->refused = 1;
        m->charge = NULL;
        if (rndv) ucp_am_data_release(x->w, data);
    } else if (length && !rndv && (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA)) {
        /* an eager message: its bytes stay in UCX's buffer until grx_msg_free, not copied */
        if (m->charge) *m->charge += length;
        m->data = (uint8_t *)data;
        m->ucx_owned = 1;
    } else if (length) {
        if (m->charge) *m->charge += length;
        if (!(m->data = (uint8_t *)malloc(length))) {
            m->failed = 1;
            if (rndv) ucp_am_data_release(x->w, data);
        } else if (rndv) {
            ucp_request_param_t rp;
            ucs_status_ptr_t r;
            memset(&rp, 0, sizeof rp);
            rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
            rp.cb.recv_am = grx_rndv_done;
            rp.user_data = m;
            r = ucp_am_recv_data_nbx(x->w, data, m->data, length, &rp);
            if (UCS_PTR_IS_ERR(r)) m->failed = 1;
            else if (r) m->req = r;
        } else {
            memcpy(m->data, data, length);
        }
    }
    if (x->tail) x->tail->next = m;
    else x->head = m;
    x->tail = m;
    return m->ucx_owned ? UCS_INPROGRESS : UCS_OK;
}

/* wakeup: the worker can be waited on (ucp_worker_get_efd); 0 on success, else msg says why */
GR_FN int grx_init(grx *x, int wakeup, uint64_t max_payload, char *msg, size_t msgsz) {
    ucp_params_t p;
    ucp_worker_params_t wp;
    ucp_am_handler_param_t hp;
    ucp_config_t *cfg;
    ucs_status_t s;
    memset(x, 0, sizeof *x);
    x->max_payload = max_payload;
    if ((s = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK) {
        snprintf(msg, msgsz, "UCX configuration: %s", ucs_status_string(s));
        return -1;
    }
    /* rendezvous (UCX's protocol for large messages) is a handshake a message, which waits for
       both processes to be scheduled in turn (costly on a busy machine): messages up to
       GRX_RNDV_THRESH go eagerly unless UCX_RNDV_THRESH says otherwise (docs/remote.md) */
    if (!getenv("UCX_RNDV_THRESH")) ucp_config_modify(cfg, "RNDV_THRESH", GRX_RNDV_THRESH);
    memset(&p, 0, sizeof p);
    p.field_mask = UCP_PARAM_FIELD_FEATURES;
    p.features = UCP_FEATURE_AM | (wakeup ? UCP_FEATURE_WAKEUP : 0);
    s = ucp_init(&p, cfg, &x->ctx);
    ucp_config_release(cfg);
    if (s != UCS_OK) {
        snprintf(msg, msgsz, "ucp_init: %s", ucs_status_string(s));
        return -1;
    }
    memset(&wp, 0, sizeof wp);
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    if ((s = ucp_worker_create(x->ctx, &wp, &x->w)) != UCS_OK) {
        snprintf(msg, msgsz, "ucp_worker_create: %s", ucs_status_string(s));
        ucp_cleanup(x->ctx);
        return -1;
    }
    memset(&hp, 0, sizeof hp);
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG |
                    UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
    hp.id = GRX_AM_ID;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG | UCP_AM_FLAG_PERSISTENT_DATA;
    hp.cb = grx_am_cb;
    hp.arg = x;
    if ((s = ucp_worker_set_am_recv_handler(x->w, &hp)) != UCS_OK) {
        snprintf(msg, msgsz, "ucp_worker_set_am_recv_handler: %s", ucs_status_string(s));
        ucp_worker_destroy(x->w);
        ucp_cleanup(x->ctx);
        return -1;
    }
    return 0;
}

GR_FN void grx_msg_free(grx *x, grx_msg *m) {
    if (!m) return;
    if (m->req) { /* a fetch still in flight: cancel it and let it finish before its buffer goes */
        ucp_request_cancel(x->w, m->req);
        while (ucp_request_check_status(m->req) == UCS_INPROGRESS) ucp_worker_progress(x->w);
        ucp_request_free(m->req);
    }
    if (m->charge) *m->charge -= m->len;
    if (m->ucx_owned) ucp_am_data_release(x->w, m->data);
    else free(m->data);
    free(m);
}

/* The first queued message whose bytes are all there (from ep, or any when ep is
   NULL), taken off the queue; NULL if none. Messages of one endpoint come in order. */
GR_FN grx_msg *grx_pop(grx *x, ucp_ep_h ep) {
    grx_msg *m, *prev = NULL;
    for (m = x->head; m; prev = m, m = m->next) {
        if (ep && m->ep != ep) continue;
        if (!ep) { /* an earlier message of m's endpoint still arriving: m waits behind it */
            grx_msg *e;
            for (e = x->head; e != m && e->ep != m->ep; e = e->next) {}
            if (e != m) continue;
        }
        if (m->req) {
            if (ucp_request_check_status(m->req) == UCS_INPROGRESS) {
                if (ep) return NULL; /* this endpoint's next message is not complete */
                continue;
            }
            ucp_request_free(m->req);
            m->req = NULL;
        }
        if (prev) prev->next = m->next;
        else x->head = m->next;
        if (x->tail == m) x->tail = prev;
        m->next = NULL;
        return m;
    }
    return NULL;
}
/* Drops the queued messages of ep (it closed). */
GR_FN void grx_drop(grx *x, ucp_ep_h ep) {
    grx_msg *m = x->head, *prev = NULL, *next;
    for (; m; m = next) {
        next = m->next;
        if (m->ep != ep) { prev = m; continue; }
        if (prev) prev->next = next;
        else x->head = next;
        if (x->tail == m) x->tail = prev;
        grx_msg_free(x, m);
    }
}

/* Sends (header, payload p1 then p2) on ep and waits until the payload may be reused, at most
   until deadline (grx_now() seconds; 0: none) or until *dead turns non-zero.
   Returns UCS_OK or the failure. */
/* Starts sending (header, payload p1 then p2) on ep: NULL when sent already, an error status
   pointer, or a request that grx_wait completes (hdr, where the header is written, p1, p2 and
   iov must live until then: UCX 1.13 does not copy an active message's header). */
GR_FN ucs_status_ptr_t grx_start2(ucp_ep_h ep, int type, uint64_t id, const void *p1, size_t n1, const void *p2, size_t n2,
                                  uint8_t hdr[GR_HDR_BYTES], ucp_dt_iov_t iov[2]) {
    ucp_request_param_t rp;
    gr_hdr_encode(hdr, type, id, n1 + n2);
    memset(&rp, 0, sizeof rp);
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    rp.flags = UCP_AM_SEND_FLAG_REPLY;
    if (type == GR_CREDIT) rp.flags |= UCP_AM_SEND_FLAG_EAGER; /* its receiver takes it in the callback, eager only */
    if (n2) { /* two pieces sent as one payload, no copy */
        iov[0].buffer = (void *)(uintptr_t)p1;
        iov[0].length = n1;
        iov[1].buffer = (void *)(uintptr_t)p2;
        iov[1].length = n2;
        rp.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
        rp.datatype = ucp_dt_make_iov();
        return ucp_am_send_nbx(ep, GRX_AM_ID, hdr, GR_HDR_BYTES, iov, 2, &rp);
    }
    return ucp_am_send_nbx(ep, GRX_AM_ID, hdr, GR_HDR_BYTES, p1, n1, &rp);
}
/* Waits for r (grx_start2's on ep) until deadline (grx_now() seconds; 0: none) or until *dead
   turns non-zero; frees it. UCS_OK or the failure. UCX cannot cancel an active message that has
   begun to go (a peer that stopped reading: its socket full), so a send still going half a
   second after its cancel is ended by closing ep by force (its sends end with an error, so no
   request keeps reading the caller's header or payload); x->forced then names ep, which
   grx_close_ep later skips (one slot: a caller with several endpoints on x, the server, moves
   the mark to its own record at once). */
GR_FN ucs_status_t grx_wait(grx *x, ucp_ep_h ep, ucs_status_ptr_t r, double deadline, const volatile int *dead) {
    ucs_status_t s;
    double start, until;
    if (r == NULL) return UCS_OK;
    if (UCS_PTR_IS_ERR(r)) return UCS_PTR_STATUS(r);
    start = grx_now();
    while ((s = ucp_request_check_status(r)) == UCS_INPROGRESS) {
        ucp_worker_progress(x->w);
        if (grx_now() - start > 50e-6) sched_yield(); /* a slow receiver (maybe on this core, hashing): let it run */
        if ((dead && *dead) || (deadline > 0 && grx_now() > deadline)) {
            s = dead && *dead ? UCS_ERR_CONNECTION_RESET : UCS_ERR_TIMED_OUT;
            ucp_request_cancel(x->w, r);
            until = grx_now() + 0.5;
            while (ucp_request_check_status(r) == UCS_INPROGRESS && grx_now() < until) ucp_worker_progress(x->w);
            if (ucp_request_check_status(r) == UCS_INPROGRESS && x->forced != ep) {
                ucp_request_param_t rp;
                ucs_status_ptr_t c;
                memset(&rp, 0, sizeof rp);
                rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
                rp.flags = UCP_EP_CLOSE_FLAG_FORCE;
                x->forced = ep;
                c = ucp_ep_close_nbx(ep, &rp);
                until = grx_now() + 2.0;
                while (c != NULL && !UCS_PTR_IS_ERR(c) && ucp_request_check_status(c) == UCS_INPROGRESS && grx_now() < until)
                    ucp_worker_progress(x->w);
                if (c != NULL && !UCS_PTR_IS_ERR(c)) ucp_request_free(c);
            }
            until = grx_now() + 2.0;
            while (ucp_request_check_status(r) == UCS_INPROGRESS && grx_now() < until) ucp_worker_progress(x->w);
            if (ucp_request_check_status(r) == UCS_INPROGRESS) return s; /* UCX kept it: left, not freed under UCX */
            break;
        }
    }
    ucp_request_free(r);
    return s;
}
/* A message of `type` with n payload bytes starts: a PUT's or PUT_PART's count against x's credit. */
GR_FN void grx_count(grx *x, int type, size_t n) {
    if (x->credit && (type == GR_PUT || type == GR_PUT_PART)) x->credit->sent += n;
}
/* r, the start of that message: counted back when it failed at once (nothing went) */
GR_FN ucs_status_ptr_t grx_counted(grx *x, int type, size_t n, ucs_status_ptr_t r) {
    if (UCS_PTR_IS_ERR(r) && x->credit && (type == GR_PUT || type == GR_PUT_PART)) x->credit->sent -= n;
    return r;
}
GR_FN ucs_status_t grx_send2(grx *x, ucp_ep_h ep, int type, uint64_t id, const void *p1, size_t n1, const void *p2,
                             size_t n2, double deadline, const volatile int *dead) {
    uint8_t hdr[GR_HDR_BYTES];
    ucp_dt_iov_t iov[2];
    grx_count(x, type, n1 + n2);
    return grx_wait(x, ep, grx_counted(x, type, n1 + n2, grx_start2(ep, type, id, p1, n1, p2, n2, hdr, iov)), deadline, dead);
}

GR_FN ucs_status_t grx_send(grx *x, ucp_ep_h ep, int type, uint64_t id, const void *payload, size_t len, double deadline,
                            const volatile int *dead) {
    return grx_send2(x, ep, type, id, payload, len, NULL, 0, deadline, dead);
}

/* ---- content hashes: a tree of BLAKE2b-256 (genie_remote_proto.h, docs/remote.md) ----
   leaf i = BLAKE2b-256 personalised "genie-leaf" of bytes [i L, min((i + 1) L, n)), L = GR_LEAF_BYTES;
   the hash = BLAKE2b-256 personalised "genie-root" of (u64 n, leaf 0, .., leaf m-1), m = ceil(n / L). */
#define GR_HASH_THREADS 16
typedef struct gr_hjob {
    uint8_t *dst;          /* NULL, or where src's bytes are copied on the way */
    const uint8_t *src;
    size_t n, nleaves;
    uint8_t *leaves;       /* 32 bytes a leaf */
    int ith, nth;          /* this job hashes leaves ith, ith + nth, .. */
} gr_hjob;
GR_FN void gr_hjob_run(const gr_hjob *j) {
    static const unsigned char pers[crypto_generichash_blake2b_PERSONALBYTES] = "genie-leaf";
    size_t i;
    for (i = (size_t)j->ith; i < j->nleaves; i += (size_t)j->nth) {
        size_t off = i * GR_LEAF_BYTES, len = j->n - off < GR_LEAF_BYTES ? j->n - off : GR_LEAF_BYTES;
        const uint8_t *p = j->src + off;
        if (j->dst) { /* copy one leaf, then hash it while it is in cache */
            memcpy(j->dst + off, p, len);
            p = j->dst + off;
        }
        crypto_generichash_blake2b_salt_personal(j->leaves + 32 * i, 32, p, len, NULL, 0, NULL, pers);
    }
}
GR_FN void *gr_hjob_main(void *arg) {
    gr_hjob_run((const gr_hjob *)arg);
    return NULL;
}
/* The leaf hashes of src's n bytes into leaves (32 bytes each, ceil(n / GR_LEAF_BYTES) of them),
   the bytes copied to dst on the way when dst is not NULL, on up to nthreads threads (a thread
   that cannot start leaves its share to the caller's). */
GR_FN void gr_hash_leaves(uint8_t *dst, const uint8_t *src, size_t n, uint8_t *leaves, int nthreads) {
    gr_hjob j[GR_HASH_THREADS];
    pthread_t th[GR_HASH_THREADS];
    int started[GR_HASH_THREADS], nth = nthreads < 1 ? 1 : nthreads > GR_HASH_THREADS ? GR_HASH_THREADS : nthreads, k;
    size_t nl = (n + GR_LEAF_BYTES - 1) / GR_LEAF_BYTES;
    if ((size_t)nth > nl) nth = nl ? (int)nl : 1;
    for (k = 0; k < nth; k++) {
        j[k].dst = dst, j[k].src = src, j[k].n = n, j[k].nleaves = nl, j[k].leaves = leaves, j[k].ith = k, j[k].nth = nth;
        started[k] = k > 0 && pthread_create(&th[k], NULL, gr_hjob_main, &j[k]) == 0;
    }
    gr_hjob_run(&j[0]);
    for (k = 1; k < nth; k++)
        if (started[k]) pthread_join(th[k], NULL);
        else gr_hjob_run(&j[k]);
}
/* The tree's root: the hash of n bytes whose leaf hashes are leaves. */
GR_FN void gr_hash_root(uint64_t n, const uint8_t *leaves, uint8_t out[GR_HASH_BYTES]) {
    static const unsigned char pers[crypto_generichash_blake2b_PERSONALBYTES] = "genie-root";
    crypto_generichash_blake2b_state st;
    uint8_t len[8];
    gr_put_u64_at(len, n);
    crypto_generichash_blake2b_init_salt_personal(&st, NULL, 0, GR_HASH_BYTES, NULL, pers);
    crypto_generichash_blake2b_update(&st, len, 8);
    crypto_generichash_blake2b_update(&st, leaves, (unsigned long long)(32 * ((n + GR_LEAF_BYTES - 1) / GR_LEAF_BYTES)));
    crypto_generichash_blake2b_final(&st, out, GR_HASH_BYTES);
}
/* The content hash of n bytes at p on up to nthreads threads: 0, or -1 out of memory. */
GR_FN int gr_content_hash(const void *p, size_t n, uint8_t out[GR_HASH_BYTES], int nthreads) {
    uint8_t small[32 * 64], *leaves = small;
    size_t nl = (n + GR_LEAF_BYTES - 1) / GR_LEAF_BYTES;
    if (nl > 64 && !(leaves = (uint8_t *)malloc(nl * 32))) return -1;
    gr_hash_leaves(NULL, (const uint8_t *)p, n, leaves, nthreads);
    gr_hash_root(n, leaves, out);
    if (leaves != small) free(leaves);
    return 0;
}

/* Sleeps until x's worker (made with wakeup) has an event or ms pass; at once when it has
   events not yet progressed. The caller progresses the worker after. */
GR_FN void grx_sleep(grx *x, int ms) {
    int efd;
    if (ucp_worker_get_efd(x->w, &efd) == UCS_OK && ucp_worker_arm(x->w) == UCS_OK) {
        struct pollfd p;
        p.fd = efd, p.events = POLLIN, p.revents = 0;
        poll(&p, 1, ms < 0 ? 0 : ms); /* never an unbounded wait */
    }
}
/* Waits until a PUT or PUT_PART of n payload bytes may go within x's credit (none: at once):
   while GR_CREDIT_EVERY bytes or more sent are not taken yet and n more would pass the window,
   at most until deadline (grx_now() seconds; 0: none) or *dead. UCS_OK, or the failure
   (UCS_ERR_IO_ERROR for a malformed CREDIT). */
GR_FN ucs_status_t grx_credit_wait(grx *x, size_t n, double deadline, const volatile int *dead) {
    grx_credit *cr = x->credit;
    double start = grx_now();
    while (cr && !cr->bad && cr->sent - cr->taken >= GR_CREDIT_EVERY && cr->sent - cr->taken + n > cr->window) {
        if (dead && *dead) return UCS_ERR_CONNECTION_RESET;
        if (deadline > 0 && grx_now() > deadline) return UCS_ERR_TIMED_OUT;
        if (ucp_worker_progress(x->w)) continue;
        if (grx_now() - start > 50e-6) grx_sleep(x, 10); /* a CREDIT, a loss or any message wakes it */
    }
    return cr && cr->bad ? UCS_ERR_IO_ERROR : UCS_OK;
}

/* Sends n bytes at data to buffer id (cap bytes): PUT_PARTs of GR_PART_BYTES while more than
   that is left (each eager, so the server copies one into place while the next is on the wire),
   then a PUT with the rest and hash (the bytes' gr_content_hash, or 32 zero bytes: none claimed),
   each message within x's credit (grx_credit_wait).
   Each message takes request id ++*req (the PUT's is *req after); *msgs and *bytes (headers
   included) grow by what was sent. UCS_OK or the failure. */
#define GRX_PARTS_IN_FLIGHT 8 /* PUT_PARTs sent and not yet completed at most */
GR_FN ucs_status_t grx_put(grx *x, ucp_ep_h ep, uint64_t *req, uint64_t id, uint64_t cap, const uint8_t hash[GR_HASH_BYTES],
                           const void *data, size_t n, double deadline, const volatile int *dead, uint64_t *msgs, uint64_t *bytes) {
    /* parts go without waiting for each other: up to GRX_PARTS_IN_FLIGHT in flight (slot k's
       request, its header, its 24-byte head and iov live until it completes), the oldest waited for first */
    const uint8_t *p = (const uint8_t *)data;
    uint8_t heads[GRX_PARTS_IN_FLIGHT][24], hdrs[GRX_PARTS_IN_FLIGHT][GR_HDR_BYTES], last[16 + GR_HASH_BYTES], lhdr[GR_HDR_BYTES];
    ucp_dt_iov_t iov[GRX_PARTS_IN_FLIGHT][2], liov[2];
    ucs_status_ptr_t r[GRX_PARTS_IN_FLIGHT];
    size_t off = 0, sent = 0, done = 0;
    ucs_status_t s = UCS_OK;
    for (; n - off > GR_PART_BYTES && s == UCS_OK; off += GR_PART_BYTES, sent++) {
        int k = (int)(sent % GRX_PARTS_IN_FLIGHT);
        if (sent - done == GRX_PARTS_IN_FLIGHT) s = grx_wait(x, ep, r[k], deadline, dead), done++;
        if (s == UCS_OK) s = grx_credit_wait(x, 24 + GR_PART_BYTES, deadline, dead);
        if (s != UCS_OK) break;
        grx_count(x, GR_PUT_PART, 24 + GR_PART_BYTES);
        gr_put_u64_at(heads[k], id);
        gr_put_u64_at(heads[k] + 8, cap);
        gr_put_u64_at(heads[k] + 16, off);
        r[k] = grx_counted(x, GR_PUT_PART, 24 + GR_PART_BYTES, grx_start2(ep, GR_PUT_PART, ++*req, heads[k], 24, p + off, GR_PART_BYTES, hdrs[k], iov[k]));
        *msgs += 1;
        *bytes += GR_HDR_BYTES + 24 + GR_PART_BYTES;
    }
    for (; done < sent; done++) { /* the rest of the parts: each completed (or cancelled after a failure) */
        ucs_status_t w = grx_wait(x, ep, r[done % GRX_PARTS_IN_FLIGHT], s == UCS_OK ? deadline : grx_now(), dead);
        if (s == UCS_OK) s = w;
    }
    if (s != UCS_OK || (s = grx_credit_wait(x, sizeof last + (n - off), deadline, dead)) != UCS_OK) return s;
    grx_count(x, GR_PUT, sizeof last + (n - off));
    gr_put_u64_at(last, id);
    gr_put_u64_at(last + 8, cap);
    memcpy(last + 16, hash, GR_HASH_BYTES);
    if ((s = grx_wait(x, ep, grx_counted(x, GR_PUT, sizeof last + (n - off), grx_start2(ep, GR_PUT, ++*req, last, sizeof last, n - off ? p + off : NULL, n - off, lhdr, liov)), deadline, dead)) != UCS_OK)
        return s;
    *msgs += 1;
    *bytes += GR_HDR_BYTES + sizeof last + (n - off);
    return UCS_OK;
}
/* Closes ep (force: no flush), waiting a bounded time. */
GR_FN void grx_close_ep(grx *x, ucp_ep_h ep, int force) {
    ucp_request_param_t rp;
    ucs_status_ptr_t r;
    double until = grx_now() + 2.0;
    if (ep == x->forced) { /* grx_wait closed it already */
        x->forced = NULL;
        return;
    }
    memset(&rp, 0, sizeof rp);
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    rp.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
    r = ucp_ep_close_nbx(ep, &rp);
    if (r == NULL || UCS_PTR_IS_ERR(r)) return;
    while (ucp_request_check_status(r) == UCS_INPROGRESS && grx_now() < until) ucp_worker_progress(x->w);
    if (ucp_request_check_status(r) == UCS_INPROGRESS) ucp_request_cancel(x->w, r);
    until = grx_now() + 1.0; /* a peer that never answers: give up on the request after a second */
    while (ucp_request_check_status(r) == UCS_INPROGRESS && grx_now() < until) ucp_worker_progress(x->w);
    ucp_request_free(r);
}

GR_FN void grx_destroy(grx *x) {
    grx_msg *m;
    while ((m = x->head)) {
        x->head = m->next;
        grx_msg_free(x, m);
    }
    x->tail = NULL;
    if (x->w) ucp_worker_destroy(x->w);
    if (x->ctx) ucp_cleanup(x->ctx);
    x->w = NULL;
    x->ctx = NULL;
}

/* host:port into a socket address (IPv4 or IPv6, names resolved); 0 on success */
#include <netdb.h>
#include <sys/socket.h>
#include <netinet/in.h>
GR_FN int grx_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len, char *msg, size_t msgsz) {
    char host[256], port[16];
    const char *colon = spec ? strrchr(spec, ':') : NULL;
    struct addrinfo hints, *res = NULL;
    size_t hl;
    int rc;
    if (!spec || !colon || colon == spec || strlen(colon + 1) == 0 || strlen(colon + 1) >= sizeof port) {
        snprintf(msg, msgsz, "\"%s\" is not host:port", spec ? spec : "(null)");
        return -1;
    }
    hl = (size_t)(colon - spec);
    if (spec[0] == '[' && hl >= 2 && spec[hl - 1] == ']') { spec++; hl -= 2; } /* [v6]:port */
    if (hl >= sizeof host) {
        snprintf(msg, msgsz, "host name too long");
        return -1;
    }
    memcpy(host, spec, hl);
    host[hl] = 0;
    strcpy(port, colon + 1);
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    if ((rc = getaddrinfo(host, port, &hints, &res)) != 0 || !res) {
        snprintf(msg, msgsz, "cannot resolve %.100s:%s (%.80s)", host, port, gai_strerror(rc));
        return -1;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = (socklen_t)res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}
/* How long a wait for a peer's message polls before it sleeps (grx_sleep), learnt from how
   the last waits ended. Polling saves a wakeup where the peer runs on another core (its message
   comes while this process polls), and is pure loss where the peer shares this core: the peer
   runs only once this process sleeps, and two processes that wake each other often end up on
   one core (the kernel wakes a sleeping process on its waker's core; a client polling 50 us
   before yielding made each round trip there ~70 us, against ~17 us for UCX's own). A wait
   does not sched_yield either: on a loaded machine that hands the core to any other runnable
   process for its whole slice (milliseconds). So a wait polls, without yielding, for the
   window grx_spin_window gives, then sleeps on the worker's events. The window grows to twice
   the wait (up to max) when a message came while polling, halves (to 0 below 2 us) when one
   came only after sleeping, and every GRX_SPIN_PROBE-th wait polls the whole max, so a peer that moved to
   another core is noticed. Cost where polling does not pay: max / GRX_SPIN_PROBE of a core a
   wait on average; where it pays, at most max a wait. */
#define GRX_SPIN_PROBE 128
typedef struct grx_spin {
    double win, max; /* seconds; 0 <= win <= max */
    unsigned n;      /* waits begun */
} grx_spin;
/* The window of the wait about to begin (seconds). */
GR_FN double grx_spin_window(grx_spin *s) { return ++s->n % GRX_SPIN_PROBE == 0 ? s->max : s->win; }
/* A wait ended after `waited` seconds: its message came while polling (polled), or only after it slept. */
GR_FN void grx_spin_learn(grx_spin *s, double waited, int polled) {
    if (polled) {
        double want = 2 * waited < 1e-6 ? 1e-6 : 2 * waited;
        if (want > s->win) s->win = want < s->max ? want : s->max;
    } else {
        s->win = s->win < 2e-6 ? 0 : s->win * 0.5;
    }
}
/* A client's endpoint to addr ("host:port") on a new worker x (max_payload as grx_init), made
   with wakeup (grx_sleep),
   a lost peer reported through cb(arg); 0, or -1 with msg (x is then to be destroyed by
   the caller when grx_init succeeded: *out is NULL). */
GR_FN int grx_connect(grx *x, const char *addr, uint64_t max_payload, ucp_err_handler_cb_t cb, void *arg, ucp_ep_h *out,
                      char *msg, size_t msgsz) {
    struct sockaddr_storage ss;
    socklen_t sl;
    ucp_ep_params_t ep;
    *out = NULL;
    if (grx_parse_addr(addr, &ss, &sl, msg, msgsz) != 0 || grx_init(x, 1, max_payload, msg, msgsz) != 0) return -1;
    memset(&ep, 0, sizeof ep);
    ep.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR | UCP_EP_PARAM_FIELD_ERR_HANDLER |
                    UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
    ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
    ep.sockaddr.addr = (const struct sockaddr *)&ss;
    ep.sockaddr.addrlen = sl;
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = cb;
    ep.err_handler.arg = arg;
    if (ucp_ep_create(x->w, &ep, out) != UCS_OK) {
        *out = NULL;
        snprintf(msg, msgsz, "cannot reach the server");
        return -1;
    }
    return 0;
}
/* The server's endpoint for a connection request on x's worker, a lost peer reported
   through cb(arg). */
GR_FN ucs_status_t grx_accept(grx *x, ucp_conn_request_h req, ucp_err_handler_cb_t cb, void *arg, ucp_ep_h *out) {
    ucp_ep_params_t ep;
    memset(&ep, 0, sizeof ep);
    ep.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
    ep.conn_request = req;
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = cb;
    ep.err_handler.arg = arg;
    return ucp_ep_create(x->w, &ep, out);
}
/* The pre-shared key (the client's GENIE_REMOTE_KEY_FILE, the server's --key-file): BLAKE2b of
   the file's bytes; -1 for a file that cannot be read or is empty. */
static inline int gr_read_key(const char *path, uint8_t key[crypto_auth_KEYBYTES]) {
    FILE *f = path ? fopen(path, "rb") : NULL;
    uint8_t buf[4096];
    size_t n, total = 0;
    crypto_generichash_state st;
    if (!f) return -1;
    crypto_generichash_init(&st, NULL, 0, crypto_auth_KEYBYTES);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        crypto_generichash_update(&st, buf, n);
        total += n;
    }
    fclose(f);
    crypto_generichash_final(&st, key, crypto_auth_KEYBYTES);
    sodium_memzero(buf, sizeof buf);
    return total ? 0 : -1;
}

#endif /* GENIE_REMOTE_UCX_H */
