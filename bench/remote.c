/* bench/remote.c - the remote backend beside its peers in one run (`make bench-remote`,
 * UCX_TLS=tcp UCX_NET_DEVICES=lo): a raw UCX active-message echo (a child process
 * that answers each message with an empty one: UCX's own round trip and bandwidth)
 * against genie-server (forked on 127.0.0.1, port 0) speaking the protocol, and
 * genie remote against genie local for a 10-step MLP.
 *   round trip   raw UCX echo  vs  PING (the server's queue)  vs  an empty RUN + PING
 *                vs  a genie step: exp of one element and its read (a RUN_CACHED_GET after the first),
 *                    timed in 10 rounds in turn with the raw echo's (a median ratio beside the bests')
 *   64 MiB       raw UCX: one message + empty reply, 2 MiB eager messages one at a time + their
 *                replies, and the PUT's own messages (8 parts in flight) + their replies, to the
 *                echo and to a landing echo that copies each message's bytes into a receive
 *                buffer first (as the server keeps them: the raw rate for bytes that land)
 *                vs  PUT sent first (PUT_PARTs and a PUT claiming no hash): until usable (+ PING),
 *                into fresh memory (the server's first uploads) and into a recycled block (its
 *                pool, the steady state), until hashed (the server's HASHED back), and PUT hashed
 *                first + PING (new bytes each time, all cached: the first into the pool's block,
 *                the rest fresh); BENCH_PART_COPY=loop|thread starts the server with that --part-copy
 *   MLP step     [8, 256] -> 512 -> 16, softmax: remote vs local, bytes a step
 *   block        a pre-norm encoder block [1, 32, 256]: remote vs local, bytes and CPU nodes a step
 *   qlinear      x [1, 4096] @ a q8_0 and a q4_0 [4096, 4096] weight, relu, and a token's row of a
 *                q8_0 [32000, 1024] token embedding, relu: remote vs local, bytes
 *                and CPU nodes a step (the weight uploaded by the first step)
 *   decode       64 greedy decode steps of the tiny Llama (tests/programs/llama_decode.h: the KV
 *                cache written in place): remote vs local, the first step's bytes (weights and
 *                caches) and each later step's bytes each way
 *   GPT-2        16 greedy decode steps of a GPT-2-small-shaped model (random f32 weights, about
 *                500 MB, uploaded by step 1; the token chosen by argmax on the device): remote vs
 *                local, the weights' bytes, each later step's bytes each way; then 32 steps of the
 *                same graph 64 wide (4 heads, 256 MLP, 512 tokens), whose compute is small: the
 *                protocol's and the server's own cost a step, without the compute's noise */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#define _POSIX_C_SOURCE 200809L
#include "genie.h"
#include "genie_remote.h"
#include <sodium.h>
#include <signal.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include "genie_remote_ucx.h"
#include "tests/programs/llama_decode.h"
#include "bench_util.h"

/* cr: genie-server's CREDITs taken in (grx.credit); grx_put keeps to the window its WELCOME gave
   (peer_hello), as genie's client does; no window for the echo peers */
typedef struct peer { grx x; ucp_ep_h ep; volatile int dead; uint64_t req; grx_credit cr; grx_spin spin; } peer;

static void peer_err(void *arg, ucp_ep_h ep, ucs_status_t s) { (void)ep; (void)s; ((peer *)arg)->dead = 1; }
static int peer_open(peer *p, int port) {
    char msg[256], a[64];
    memset(p, 0, sizeof *p);
    snprintf(a, sizeof a, "127.0.0.1:%d", port);
    if (grx_connect(&p->x, a, (uint64_t)1 << 31, peer_err, p, &p->ep, msg, sizeof msg) != 0) return -1;
    p->cr.window = UINT64_MAX;
    p->x.credit = &p->cr;
    p->spin.win = p->spin.max = 100e-6;
    return 0;
}
/* sends (p1, p2) and waits for one reply, polling then sleeping as rc_wait does (grx_spin); its type, or -1 */
static int peer_call(peer *p, int type, const void *p1, size_t n1, const void *p2, size_t n2) {
    double start = grx_now(), until = start + 30.0, win = grx_spin_window(&p->spin);
    int slept = 0;
    grx_msg *m;
    grx_send2(&p->x, p->ep, type, ++p->req, p1, n1, p2, n2, until, &p->dead);
    while (grx_now() < until && !p->dead) {
        ucp_worker_progress(p->x.w);
        if ((m = grx_pop(&p->x, p->ep))) {
            gr_hdr h;
            int t = gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) == 0 ? h.type : -1;
            grx_spin_learn(&p->spin, grx_now() - start, !slept);
            grx_msg_free(&p->x, m);
            return t;
        }
        if (grx_now() - start >= win) grx_sleep(&p->x, 1), slept = 1;
    }
    return -1;
}

/* HELLO to genie-server: 0 with its WELCOME's window in p's credit, or -1 */
static int peer_hello(peer *p) {
    uint8_t hello[36];
    double until = grx_now() + 30.0;
    grx_msg *m;
    memset(hello, 0, sizeof hello);
    hello[0] = GR_VERSION, hello[2] = GR_VERSION;
    grx_send(&p->x, p->ep, GR_HELLO, ++p->req, hello, sizeof hello, until, &p->dead);
    while (grx_now() < until && !p->dead) {
        ucp_worker_progress(p->x.w);
        if ((m = grx_pop(&p->x, p->ep))) {
            gr_hdr h;
            gr_welcome w;
            int ok = gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) == 0 && h.type == GR_WELCOME && gr_welcome_decode(m->data, m->len, &w);
            if (ok) p->cr.window = w.put_window;
            grx_msg_free(&p->x, m);
            return ok ? 0 : -1;
        }
    }
    return -1;
}

static void echo_err(void *arg, ucp_ep_h ep, ucs_status_t st) { (void)arg; (void)ep; (void)st; }
static void echo_conn(ucp_conn_request_h req, void *arg) {
    ucp_ep_h h;
    grx_accept((grx *)arg, req, echo_err, NULL, &h);
}

/* the raw echo: every message answered by an empty OK, until the parent closes. land: the
   landing echo, which first copies each message's payload into a 64 MiB receive buffer where
   the one before it ended (back to 0 after a PUT, which ends an upload, or at the buffer's
   end), as genie-server copies a PUT's parts into place: UCX's rate for bytes that are kept */
static void echo_child(int fd, int land) {
    size_t land_cap = (size_t)64 << 20, at = 0;
    uint8_t *dst = land ? (uint8_t *)malloc(land_cap) : NULL;
    grx x;
    ucp_listener_h l;
    ucp_listener_params_t lp;
    ucp_listener_attr_t la;
    struct sockaddr_storage ss;
    socklen_t sl;
    char msg[256];
    int port = 0;
    if ((land && !dst) || grx_parse_addr("127.0.0.1:0", &ss, &sl, msg, sizeof msg) || grx_init(&x, 0, (uint64_t)1 << 31, msg, sizeof msg)) _exit(1);
    if (dst) memset(dst, 0, land_cap); /* faulted in once, as a recycled upload block is */
    memset(&lp, 0, sizeof lp);
    lp.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
    lp.sockaddr.addr = (const struct sockaddr *)&ss;
    lp.sockaddr.addrlen = sl;
    lp.conn_handler.cb = echo_conn;
    lp.conn_handler.arg = &x;
    if (ucp_listener_create(x.w, &lp, &l) != UCS_OK) _exit(1);
    la.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
    ucp_listener_query(l, &la);
    port = ntohs(((struct sockaddr_in *)&la.sockaddr)->sin_port);
    if (write(fd, &port, sizeof port) != (ssize_t)sizeof port) _exit(1);
    close(fd);
    for (;;) {
        grx_msg *m;
        ucp_worker_progress(x.w);
        while ((m = grx_pop(&x, NULL))) {
            if (dst && m->data) {
                gr_hdr h;
                size_t n = m->len < land_cap ? m->len : land_cap;
                if (at + n > land_cap) at = 0;
                memcpy(dst + at, m->data, n);
                at += n;
                if (gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) == 0 && h.type == GR_PUT) at = 0;
            }
            grx_send(&x, m->ep, GR_OK, 0, NULL, 0, grx_now() + 30.0, NULL);
            grx_msg_free(&x, m);
        }
        if (getppid() == 1) _exit(0);
    }
}

/* Takes `want` replies (any) before `until`: 0, or -1 */
static int take_replies(peer *p, uint64_t want, double until) {
    uint64_t got = 0;
    grx_msg *m;
    while (got < want && grx_now() < until && !p->dead) {
        ucp_worker_progress(p->x.w);
        while ((m = grx_pop(&p->x, p->ep))) {
            grx_msg_free(&p->x, m);
            got++;
        }
    }
    return got == want ? 0 : -1;
}
/* n bytes as messages of `part` bytes sent back to back, then all their (empty) replies:
   UCX's own throughput for the message sizes a chunked PUT uses; 0 or -1 */
static int raw_stream(peer *p, const uint8_t *data, size_t n, size_t part) {
    double until = grx_now() + 30.0;
    size_t off, want = 0;
    for (off = 0; off < n; off += part, want++)
        if (grx_send(&p->x, p->ep, GR_PUT, ++p->req, data + off, n - off < part ? n - off : part, until, &p->dead) != UCS_OK) return -1;
    return take_replies(p, want, until);
}

/* After a PUT claiming no hash (request id p->req) from t0: sends PING and waits for both its OK
   (*t_ok: seconds since t0) and the PUT's HASHED (*t_hashed; its hash into hash). 0, or -1. */
static int peer_two(peer *p, double t0, double *t_ok, double *t_hashed, uint8_t hash[32]) {
    uint64_t put = p->req;
    double until = grx_now() + 30.0;
    *t_ok = *t_hashed = 0;
    grx_send(&p->x, p->ep, GR_PING, ++p->req, NULL, 0, until, &p->dead);
    while ((*t_ok == 0 || *t_hashed == 0) && grx_now() < until && !p->dead) {
        grx_msg *m;
        ucp_worker_progress(p->x.w);
        if ((m = grx_pop(&p->x, p->ep))) {
            gr_hdr h;
            uint64_t id;
            int t = gr_hdr_decode(m->hdr, m->hdr_len, m->len, &h) == 0 ? h.type : -1;
            if (t == GR_OK && h.id == put + 1) *t_ok = grx_now() - t0;
            else if (t == GR_HASHED && h.id == put && gr_hashed_decode(m->data, m->len, &id, hash)) *t_hashed = grx_now() - t0;
            else t = -1;
            grx_msg_free(&p->x, m);
            if (t < 0) return -1;
        } else {
            sched_yield();
        }
    }
    return *t_ok > 0 && *t_hashed > 0 ? 0 : -1;
}
/* Asks (HAS, as buffer 999) until the server's cache holds the n bytes of hash: 0, or -1 after 30 s. */
static int peer_cached(peer *p, const uint8_t hash[32], size_t n) {
    uint8_t q[56];
    double until = grx_now() + 30.0;
    gr_put_u64_at(q, 999);
    gr_put_u64_at(q + 8, n);
    gr_put_u64_at(q + 16, n);
    memcpy(q + 24, hash, 32);
    while (grx_now() < until && !p->dead) {
        grx_msg *m;
        double stop = grx_now() + 30.0;
        int found = -1;
        grx_send(&p->x, p->ep, GR_HAS, ++p->req, q, sizeof q, stop, &p->dead);
        while (found < 0 && grx_now() < stop && !p->dead) {
            ucp_worker_progress(p->x.w);
            if ((m = grx_pop(&p->x, p->ep))) {
                found = m->len == 1 && m->data[0] == 1;
                grx_msg_free(&p->x, m);
            }
        }
        if (found == 1) return 0;
        {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    return -1;
}

/* n bytes sent to the echo as a PUT is (grx_put: 2 MiB parts, 8 in flight, then the rest), then
   all their (empty) replies: UCX's own time for the PUT's messages; 0 or -1 */
static int raw_put_pattern(peer *p, const uint8_t *data, size_t n) {
    double until = grx_now() + 30.0;
    uint64_t want = 0, bytes = 0;
    uint8_t none[32] = {0};
    if (grx_put(&p->x, p->ep, &p->req, 1, n, none, data, n, until, &p->dead, &want, &bytes) != UCS_OK) return -1;
    return take_replies(p, want, until);
}

static double best_rtt(peer *p, int type, const void *pl, size_t n, int iters) {
    double best = 1e9;
    int i;
    for (i = 0; i < iters; i++) {
        double t0 = grx_now();
        if (peer_call(p, type, pl, n, NULL, 0) < 0) return -1;
        t0 = grx_now() - t0;
        if (t0 < best) best = t0;
    }
    return best;
}

static genie_tensor *rnd(genie_ctx *c, int nd, const int64_t *shape, uint64_t seed) {
    int64_t n = 1, i;
    float *f;
    genie_tensor *t;
    for (i = 0; i < nd; i++) n *= shape[i];
    f = (float *)malloc((size_t)n * sizeof(float));
    for (i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        f[i] = (float)((double)(seed >> 40) / 16777216.0 * 2.0 - 1.0);
    }
    t = genie_from_data(c, GENIE_F32, nd, shape, f);
    free(f);
    return t;
}
/* A local context and one on the server at addr, one kernel thread each. */
static void ctx_pair(const char *addr, genie_ctx **local, genie_ctx **remote) {
    genie_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    *local = genie_ctx_create(&d);
    d.backend = "remote";
    d.backend_config = addr;
    *remote = genie_ctx_create(&d);
}
/* After a first step: on a remote context (one that sent something), waits for the server's hash
   of the weights it sent unhashed (bytes genie holds go first and are hashed in the background),
   so later steps are timed without that hash beside them. */
static void settle(genie_ctx *c) {
    if (genie_get_stats(c).remote_messages_sent && genie_remote_hashed(c) != GENIE_OK) printf("FAIL genie_remote_hashed: %s\n", genie_last_error(c));
}

/* the median time of `steps` MLP steps [m, k] -> h -> o (after one warm-up step) in ms, the
   fastest in *best; bytes each way a step */
static double mlp_ms(genie_ctx *c, int64_t m, int64_t k, int64_t hdim, int64_t o, int steps, uint64_t *bytes, double *best) {
    int64_t w1s[2] = {hdim, k}, b1s[1] = {hdim}, w2s[2] = {o, hdim}, xs[2] = {m, k};
    genie_tensor *w1 = rnd(c, 2, w1s, 1), *b1 = rnd(c, 1, b1s, 2), *w2 = rnd(c, 2, w2s, 3);
    float *out = (float *)malloc((size_t)(m * o) * sizeof(float));
    double t[64];
    uint64_t b0 = 0;
    int s;
    for (s = 0; s <= steps; s++) {
        genie_tensor *x, *y;
        double t0 = grx_now();
        if (s == 1) b0 = genie_get_stats(c).remote_bytes_sent + genie_get_stats(c).remote_bytes_received;
        genie_pool_push(c);
        x = rnd(c, 2, xs, 100 + (uint64_t)s);
        y = genie_softmax(c, genie_linear(c, genie_relu(c, genie_linear(c, x, w1, b1)), w2, NULL), -1);
        genie_read(c, y, GENIE_F32, out, (size_t)(m * o) * sizeof(float));
        genie_pool_pop(c);
        if (s) t[s - 1] = grx_now() - t0;
        else settle(c);
    }
    *bytes = (genie_get_stats(c).remote_bytes_sent + genie_get_stats(c).remote_bytes_received - b0) / (uint64_t)steps;
    qsort(t, (size_t)steps, sizeof t[0], bench_cmp_d);
    *best = t[0] * 1e3;
    free(out);
    return t[steps / 2] * 1e3;
}

/* nblk random q8_0 or q4_0 blocks (bb bytes each) whose f16 scales are small normal numbers */
static uint8_t *q_blocks(int64_t nblk, int64_t bb) {
    uint8_t *wb = (uint8_t *)malloc((size_t)(nblk * bb));
    uint64_t seed = 77;
    int64_t i;
    for (i = 0; i < nblk * bb; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        wb[i] = (uint8_t)(seed >> 24);
    }
    for (i = 0; i < nblk; i++) wb[i * bb + 1] = (uint8_t)(0x20 | (wb[i * bb + 1] & 0x0f));
    return wb;
}
/* A decode-shaped quantized product: x [1, 4096] @ w.t() for a [4096, 4096] weight of block
   dtype dt (q_blocks), then relu: ms a step (median, after a first step that uploads the
   weight), bytes each way and CPU nodes a step. With rows set instead: a token's row of a
   [32000, 1024] q8_0 token embedding (a GGUF's token_embd), then relu. */
static double qlinear_ms(genie_ctx *c, genie_dtype dt, int rows, int steps, uint64_t *bytes, double *best, uint64_t *cpu) {
    const int64_t N = rows ? 32000 : 4096, K = rows ? 1024 : 4096, bb = dt == GENIE_Q8_0 ? 34 : 18, nblk = N * K / 32, ws[2] = {N, K},
                  xs[2] = {1, K}, one = 1;
    uint8_t *wb = q_blocks(nblk, bb);
    uint64_t b0 = 0, f0 = 0;
    genie_tensor *w, *y;
    float out[4096];
    double t[64];
    int s;
    w = genie_from_blocks(c, dt, 2, ws, wb, NULL, NULL);
    for (s = 0; s <= steps; s++) {
        const int64_t tok = (s * 7919) % N;
        double t0 = grx_now();
        if (s == 1) {
            b0 = genie_get_stats(c).remote_bytes_sent + genie_get_stats(c).remote_bytes_received;
            f0 = genie_get_stats(c).backend_fallbacks;
        }
        genie_pool_push(c);
        y = rows ? genie_embedding(c, w, genie_from_data(c, GENIE_I64, 1, &one, &tok)) : genie_linear(c, rnd(c, 2, xs, 200 + (uint64_t)s), w, NULL);
        if (genie_read(c, genie_relu(c, y), GENIE_F32, out, (size_t)(rows ? K : N) * 4) != GENIE_OK)
            printf("FAIL qlinear step: %s\n", genie_last_error(c));
        genie_pool_pop(c);
        if (s) t[s - 1] = grx_now() - t0;
    }
    *bytes = (genie_get_stats(c).remote_bytes_sent + genie_get_stats(c).remote_bytes_received - b0) / (uint64_t)steps;
    *cpu = (genie_get_stats(c).backend_fallbacks - f0) / (uint64_t)steps;
    genie_release(w);
    free(wb);
    qsort(t, (size_t)steps, sizeof t[0], bench_cmp_d);
    *best = t[0] * 1e3;
    return t[steps / 2] * 1e3;
}

/* A pre-norm transformer encoder block, d = 256, 4 heads, [1, T, d] (the ops the server runs:
   layer_norm, linear, sdpa, gelu, add): ms a step (median), bytes a step, CPU nodes a step. */
static double block_ms(genie_ctx *c, int64_t T, int steps, uint64_t *bytes, double *best, uint64_t *cpu) {
    int64_t d = 256, w[2] = {256, 256}, w1[2] = {1024, 256}, w2[2] = {256, 1024}, b[1] = {256}, b1[1] = {1024};
    int64_t xs[3] = {1, T, 256}, h4[4] = {1, T, 4, 64}, n1[1] = {256};
    genie_tensor *wq = rnd(c, 2, w, 1), *wk = rnd(c, 2, w, 2), *wv = rnd(c, 2, w, 3), *wo = rnd(c, 2, w, 4), *bq = rnd(c, 1, b, 5);
    genie_tensor *f1 = rnd(c, 2, w1, 6), *fb1 = rnd(c, 1, b1, 7), *f2 = rnd(c, 2, w2, 8), *g1 = rnd(c, 1, n1, 9), *g2 = rnd(c, 1, n1, 10);
    float *out = (float *)malloc((size_t)(T * d) * sizeof(float));
    double t[64];
    uint64_t b0 = 0, c0 = 0;
    int s;
    for (s = 0; s <= steps; s++) {
        genie_tensor *x, *h, *q, *k, *v, *a, *y;
        double t0 = grx_now();
        if (s == 1) {
            genie_stats st = genie_get_stats(c);
            b0 = st.remote_bytes_sent + st.remote_bytes_received;
            c0 = st.backend_fallbacks;
        }
        genie_pool_push(c);
        x = rnd(c, 3, xs, 200 + (uint64_t)s);
        h = genie_layer_norm(c, x, 1, n1, g1, NULL, 1e-5);
        q = genie_transpose(c, genie_view(c, genie_linear(c, h, wq, bq), 4, h4), 1, 2);
        k = genie_transpose(c, genie_view(c, genie_linear(c, h, wk, NULL), 4, h4), 1, 2);
        v = genie_transpose(c, genie_view(c, genie_linear(c, h, wv, NULL), 4, h4), 1, 2);
        a = genie_reshape(c, genie_transpose(c, genie_scaled_dot_product_attention(c, q, k, v, NULL, 1, 0.125), 1, 2), 3, xs);
        x = genie_add(c, x, genie_linear(c, a, wo, NULL));
        h = genie_layer_norm(c, x, 1, n1, g2, NULL, 1e-5);
        y = genie_add(c, x, genie_linear(c, genie_gelu(c, genie_linear(c, h, f1, fb1)), f2, NULL));
        genie_read(c, y, GENIE_F32, out, (size_t)(T * d) * sizeof(float));
        genie_pool_pop(c);
        if (s) t[s - 1] = grx_now() - t0;
        else settle(c);
    }
    {
        genie_stats st = genie_get_stats(c);
        *bytes = (st.remote_bytes_sent + st.remote_bytes_received - b0) / (uint64_t)steps;
        *cpu = (st.backend_fallbacks - c0) / (uint64_t)steps;
    }
    qsort(t, (size_t)steps, sizeof t[0], bench_cmp_d);
    *best = t[0] * 1e3;
    free(out);
    return t[steps / 2] * 1e3;
}

/* `steps` decode steps of the tiny Llama on c: ms a step (median of steps 2..), the fastest in
   *best; bytes sent by step 1 in *first, and each way a later step; CPU nodes a later step.
   -1 when the checkpoint does not load. */
static double decode_ms(genie_ctx *c, int steps, double *best, uint64_t *first, uint64_t *sent, uint64_t *recv, uint64_t *cpu) {
    ld_model m;
    float logits[256];
    double t[128];
    int64_t tok = 1;
    uint64_t s0 = 0, r0 = 0, c0 = 0;
    int s;
    if (steps > 128 || !ld_load(c, "examples/data/tiny_llama.safetensors", &m) || m.vocab > 256 || m.max_seq < steps) {
        ld_free(&m);
        return -1;
    }
    for (s = 0; s < steps; s++) {
        double t0 = grx_now();
        if (ld_step(c, &m, tok, s, logits) != GENIE_OK) break;
        tok = ld_argmax(logits, m.vocab);
        t[s] = grx_now() - t0;
        if (s == 0) {
            genie_stats st = genie_get_stats(c);
            *first = st.remote_bytes_sent, s0 = st.remote_bytes_sent, r0 = st.remote_bytes_received, c0 = st.backend_fallbacks;
        }
    }
    ld_free(&m);
    if (s < steps) return -1;
    {
        genie_stats st = genie_get_stats(c);
        *sent = (st.remote_bytes_sent - s0) / (uint64_t)(steps - 1);
        *recv = (st.remote_bytes_received - r0) / (uint64_t)(steps - 1);
        *cpu = (st.backend_fallbacks - c0) / (uint64_t)(steps - 1);
    }
    qsort(t + 1, (size_t)steps - 1, sizeof t[0], bench_cmp_d);
    *best = t[1] * 1e3;
    return t[1 + (steps - 1) / 2] * 1e3;
}

/* ---- a GPT-2-small-shaped decode step: random weights of the real configuration (12 layers,
   768 wide, 12 heads, 3072 MLP, 50257 vocab, the LM head tied to the token embedding; f32,
   about 500 MB), a static KV cache written in place at a position given as data (as
   llama_decode.h), and the greedy token chosen on the device: a step reads 8 bytes ---- */
#define BR_PUT_PAIRS 9 /* 64 MiB PUTs, each beside a raw landing transfer (before it or after, in turn) */
#define G2_LAYERS 12
#define G2_SEQ 32 /* cache positions: the steps a run may take */
typedef struct g2_dims { int64_t d, heads, ff, vocab; } g2_dims;
static const g2_dims g2_small = {768, 12, 3072, 50257}; /* GPT-2 small */
static const g2_dims g2_narrow = {64, 4, 256, 512};     /* its graph at a width whose compute is small */
typedef struct g2_model {
    g2_dims w;
    genie_tensor *wte, *wpe, *lnf_w, *lnf_b;
    struct { genie_tensor *ln1_w, *ln1_b, *attn_w, *attn_b, *proj_w, *proj_b, *ln2_w, *ln2_b, *fc_w, *fc_b, *out_w, *out_b, *k, *v; } l[G2_LAYERS];
    uint64_t bytes; /* of the weights */
    float mask[G2_SEQ];
} g2_model;
/* a weight of uniform values in [-scale, scale) (seeded: equal in every context), or of `fill` when scale is 0 */
static genie_tensor *g2_weight(genie_ctx *c, g2_model *m, int nd, int64_t d0, int64_t d1, double scale, float fill, uint64_t seed) {
    int64_t shape[2] = {d0, d1}, n = nd == 2 ? d0 * d1 : d0, i;
    float *f = (float *)malloc((size_t)n * sizeof(float));
    genie_tensor *t;
    if (!f) return NULL;
    for (i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        f[i] = scale ? (float)(((double)(seed >> 40) / 16777216.0 * 2.0 - 1.0) * scale) : fill;
    }
    t = genie_from_data(c, GENIE_F32, nd, shape, f);
    free(f);
    m->bytes += (uint64_t)n * sizeof(float);
    return t;
}
static int g2_load(genie_ctx *c, g2_model *m, g2_dims w) {
    const int64_t D = w.d, F = w.ff, cache[3] = {w.heads, G2_SEQ, w.d / w.heads};
    uint64_t seed = 1000;
    int i;
    memset(m, 0, sizeof *m);
    m->w = w;
    m->wte = g2_weight(c, m, 2, w.vocab, D, 0.1, 0, seed++);
    m->wpe = g2_weight(c, m, 2, 1024, D, 0.02, 0, seed++);
    m->lnf_w = g2_weight(c, m, 1, D, 0, 0, 1, 0);
    m->lnf_b = g2_weight(c, m, 1, D, 0, 0.02, 0, seed++);
    for (i = 0; i < G2_LAYERS; i++) {
        m->l[i].ln1_w = g2_weight(c, m, 1, D, 0, 0, 1, 0);
        m->l[i].ln1_b = g2_weight(c, m, 1, D, 0, 0.02, 0, seed++);
        m->l[i].attn_w = g2_weight(c, m, 2, 3 * D, D, 0.036, 0, seed++);
        m->l[i].attn_b = g2_weight(c, m, 1, 3 * D, 0, 0.02, 0, seed++);
        m->l[i].proj_w = g2_weight(c, m, 2, D, D, 0.036, 0, seed++);
        m->l[i].proj_b = g2_weight(c, m, 1, D, 0, 0.02, 0, seed++);
        m->l[i].ln2_w = g2_weight(c, m, 1, D, 0, 0, 1, 0);
        m->l[i].ln2_b = g2_weight(c, m, 1, D, 0, 0.02, 0, seed++);
        m->l[i].fc_w = g2_weight(c, m, 2, F, D, 0.036, 0, seed++);
        m->l[i].fc_b = g2_weight(c, m, 1, F, 0, 0.02, 0, seed++);
        m->l[i].out_w = g2_weight(c, m, 2, D, F, 0.018, 0, seed++);
        m->l[i].out_b = g2_weight(c, m, 1, D, 0, 0.02, 0, seed++);
        m->l[i].k = genie_zeros(c, GENIE_F32, 3, cache);
        m->l[i].v = genie_zeros(c, GENIE_F32, 3, cache);
    }
    return genie_status(c) == GENIE_OK;
}
/* One step: token tok at position t; the greedy next token (argmax of the logits, on the
   device) into *next. The context's status. */
static genie_result g2_step(genie_ctx *c, g2_model *m, int64_t tok, int64_t t, int64_t *next) {
    const int64_t D = m->w.d, one = 1, hs[3] = {1, m->w.heads, m->w.d / m->w.heads}, flat[2] = {1, m->w.d}, ms[2] = {1, G2_SEQ};
    genie_tensor *x, *pos, *mask;
    genie_result r;
    int i, j;
    for (j = 0; j < G2_SEQ; j++) m->mask[j] = j <= t ? 0.0f : -INFINITY;
    genie_pool_push(c);
    pos = genie_from_data(c, GENIE_I64, 1, &one, &t);
    mask = genie_from_data(c, GENIE_F32, 2, ms, m->mask);
    x = genie_add(c, genie_embedding(c, m->wte, genie_from_data(c, GENIE_I64, 1, &one, &tok)), genie_embedding(c, m->wpe, pos));
    for (i = 0; i < G2_LAYERS; i++) {
        genie_tensor *h = genie_layer_norm(c, x, 1, &D, m->l[i].ln1_w, m->l[i].ln1_b, 1e-5), *qkv, *q, *k, *v, *a;
        qkv = genie_linear(c, h, m->l[i].attn_w, m->l[i].attn_b); /* [1, 3D] */
        q = genie_transpose(c, genie_view(c, genie_narrow(c, qkv, 1, 0, D), 3, hs), 0, 1);
        k = genie_transpose(c, genie_view(c, genie_narrow(c, qkv, 1, D, D), 3, hs), 0, 1);
        v = genie_transpose(c, genie_view(c, genie_narrow(c, qkv, 1, 2 * D, D), 3, hs), 0, 1);
        genie_index_copy_(c, m->l[i].k, 1, pos, k);
        genie_index_copy_(c, m->l[i].v, 1, pos, v);
        a = genie_scaled_dot_product_attention(c, q, m->l[i].k, m->l[i].v, mask, 0, NAN);
        a = genie_reshape(c, genie_transpose(c, a, 0, 1), 2, flat);
        x = genie_add(c, x, genie_linear(c, a, m->l[i].proj_w, m->l[i].proj_b));
        h = genie_layer_norm(c, x, 1, &D, m->l[i].ln2_w, m->l[i].ln2_b, 1e-5);
        x = genie_add(c, x, genie_linear(c, genie_gelu_tanh(c, genie_linear(c, h, m->l[i].fc_w, m->l[i].fc_b)), m->l[i].out_w, m->l[i].out_b));
    }
    x = genie_layer_norm(c, x, 1, &D, m->lnf_w, m->lnf_b, 1e-5);
    r = genie_read(c, genie_argmax(c, genie_linear(c, x, m->wte, NULL), 1, 0), GENIE_I64, next, sizeof *next);
    genie_pool_pop(c);
    return r;
}
/* The server's compute for c so far (genie_remote_stats: the time it took to compute and store
   the ops of c's RUNs), ns; one round trip. */
static uint64_t server_ns(genie_ctx *c) {
    genie_remote_work rows[256];
    int n = genie_remote_stats(c, rows, 256), i;
    uint64_t ns = 0;
    for (i = 0; i < n && i < 256; i++) ns += rows[i].work.ns;
    return ns;
}
typedef struct g2_result {
    double local_ms, remote_ms, diff_ms, server_ms; /* medians of steps 2..: local, remote, remote - local (step by step) */
    double local_best, remote_best;                 /* and the server's compute a step (mean) */
    uint64_t weights, first, sent, recv, cpu;       /* bytes: the weights, sent by step 1, each way a later step; CPU nodes */
    int same;                                       /* the tokens equal */
} g2_result;
/* `steps` GPT-2-small decode steps on l (local) and c (remote), step by step in turn (a loaded
   machine slows both alike): 0, or -1 when a step fails. */
static int g2_pair(genie_ctx *l, genie_ctx *c, int steps, g2_dims w, g2_result *res) {
    g2_model *lm = (g2_model *)calloc(1, sizeof *lm), *rm = (g2_model *)calloc(1, sizeof *rm);
    double tl[G2_SEQ], tr[G2_SEQ], td[G2_SEQ];
    int64_t ltok = 464, rtok = 464; /* any token */
    uint64_t s0 = 0, r0 = 0, c0 = 0, ns0 = 0;
    int s, ok = lm && rm && steps <= G2_SEQ && steps > 1 && g2_load(l, lm, w) && g2_load(c, rm, w);
    memset(res, 0, sizeof *res);
    res->same = 1;
    for (s = 0; ok && s < steps; s++) {
        double t0 = grx_now();
        ok = g2_step(l, lm, ltok, s, &ltok) == GENIE_OK;
        tl[s] = grx_now() - t0;
        t0 = grx_now();
        ok = ok && g2_step(c, rm, rtok, s, &rtok) == GENIE_OK;
        tr[s] = grx_now() - t0;
        td[s] = tr[s] - tl[s];
        res->same &= ltok == rtok;
        if (s == 0) { /* the bytes after the STATS round trip: a later step's alone */
            settle(c);
            res->first = genie_get_stats(c).remote_bytes_sent, c0 = genie_get_stats(c).backend_fallbacks;
            ns0 = server_ns(c);
            s0 = genie_get_stats(c).remote_bytes_sent, r0 = genie_get_stats(c).remote_bytes_received;
        }
    }
    res->weights = rm ? rm->bytes : 0;
    free(lm);
    free(rm);
    if (!ok) return -1;
    {
        genie_stats st = genie_get_stats(c);
        res->sent = (st.remote_bytes_sent - s0) / (uint64_t)(steps - 1);
        res->recv = (st.remote_bytes_received - r0) / (uint64_t)(steps - 1);
        res->cpu = (st.backend_fallbacks - c0) / (uint64_t)(steps - 1);
        res->server_ms = (double)(server_ns(c) - ns0) / 1e6 / (steps - 1);
    }
    qsort(tl + 1, (size_t)steps - 1, sizeof tl[0], bench_cmp_d);
    qsort(tr + 1, (size_t)steps - 1, sizeof tr[0], bench_cmp_d);
    qsort(td + 1, (size_t)steps - 1, sizeof td[0], bench_cmp_d);
    res->local_ms = tl[1 + (steps - 1) / 2] * 1e3, res->local_best = tl[1] * 1e3;
    res->remote_ms = tr[1 + (steps - 1) / 2] * 1e3, res->remote_best = tr[1] * 1e3;
    res->diff_ms = td[1 + (steps - 1) / 2] * 1e3;
    return 0;
}

/* pid (0: this process's calling thread) on cpu alone, or on every CPU (cpu < 0) */
static void pin(pid_t pid, int cpu) {
    cpu_set_t set;
    int k, n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(&set);
    for (k = 0; k < n && k < CPU_SETSIZE; k++)
        if (cpu < 0 || k == cpu) CPU_SET(k, &set);
    (void)sched_setaffinity(pid, sizeof set, &set);
}

/* One raw transfer of a PUT's messages to the landing echo (continued first, with an untimed
   round trip, and stopped after): its time into *t. */
static int raw_landing(peer *el, pid_t lecho, const uint8_t *data, size_t n, double *t) {
    double t0;
    int bad;
    kill(lecho, SIGCONT);
    bad = peer_call(el, GR_PING, NULL, 0, NULL, 0) < 0;
    t0 = grx_now();
    bad = bad || raw_put_pattern(el, data, n) != 0;
    *t = grx_now() - t0;
    kill(lecho, SIGSTOP);
    if (bad) printf("FAIL raw PUT pattern, landing\n");
    return bad ? -1 : 0;
}
#define BR_RT_ROUNDS 10 /* rounds of raw UCX's and the genie step's round trips, in turn */
/* The round trips, each the best of 2000 (rt: raw UCX's, PING's, an empty RUN + PING's, a
   RUN_CACHED_GET's through genie (a step and its read), seconds; rt[4]: the median over
   BR_RT_ROUNDS rounds of the step's best over raw's best in the same round, 200 of each in turn,
   so both see the same moments of the machine's load). The echo peer runs on entry and is
   stopped after. */
static void round_trips(peer *e, pid_t echo, peer *s, const char *addr, double rt[5]) {
    int i, k;
    float v0 = 1, v;
    int64_t one[1] = {1};
    double ratio[BR_RT_ROUNDS];
    genie_ctx_desc d;
    genie_ctx *c;
    genie_tensor *x;
    best_rtt(e, GR_PING, NULL, 0, 200);
    kill(echo, SIGSTOP); /* the echo peer polls without sleeping: stopped while genie-server is measured */
    best_rtt(s, GR_PING, NULL, 0, 200);
    rt[1] = best_rtt(s, GR_PING, NULL, 0, 2000);
    { /* an empty RUN (no buffers, no ops), then PING: the RUN's handling plus a round trip */
        uint8_t empty[8] = {0};
        rt[2] = 1e9;
        for (i = 0; i < 2000; i++) {
            double t0 = grx_now();
            grx_send(&s->x, s->ep, GR_RUN, ++s->req, empty, sizeof empty, grx_now() + 30, &s->dead);
            if (peer_call(s, GR_PING, NULL, 0, NULL, 0) != GR_OK) { printf("FAIL empty RUN\n"); break; }
            t0 = grx_now() - t0;
            if (t0 < rt[2]) rt[2] = t0;
        }
    }
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    d.backend = "remote";
    d.backend_config = addr;
    c = genie_ctx_create(&d);
    x = genie_from_data(c, GENIE_F32, 1, one, &v0);
    genie_realize(c, 1, &x);
    rt[0] = rt[3] = 1e9;
    for (k = 0; k < BR_RT_ROUNDS; k++) {
        double raw, step = 1e9;
        kill(echo, SIGCONT);
        best_rtt(e, GR_PING, NULL, 0, 20);
        raw = best_rtt(e, GR_PING, NULL, 0, 200);
        kill(echo, SIGSTOP);
        for (i = 0; i < 200; i++) {
            double t0;
            genie_tensor *y;
            genie_pool_push(c);
            t0 = grx_now();
            y = genie_exp(c, x);
            genie_read(c, y, GENIE_F32, &v, sizeof v);
            t0 = grx_now() - t0;
            if (t0 < step) step = t0;
            genie_pool_pop(c);
        }
        if (raw < rt[0]) rt[0] = raw;
        if (step < rt[3]) rt[3] = step;
        ratio[k] = step / raw;
    }
    qsort(ratio, BR_RT_ROUNDS, sizeof ratio[0], bench_cmp_d);
    rt[4] = ratio[BR_RT_ROUNDS / 2];
    if (genie_status(c) != GENIE_OK || genie_get_stats(c).backend_nodes < 200 * BR_RT_ROUNDS) printf("FAIL the RUN loop: %s\n", genie_last_error(c));
    genie_ctx_destroy(c);
}

int main(void) {
    int fds[2], eport = 0, lport = 0, sport = 0, i;
    pid_t echo, lecho, srv;
    peer e, el, s;
    double rt[5], rtp[5] = {0, 0, 0, 0, 0}, raw_bw, stream_bw, put_bw, usable_bw, fresh_bw, hashed_bw, pattern_bw, land_bw, hash_bw, tree1_bw, tree_bw, best_hashed = 1e9, pair_median = 0;
    int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int hthreads = (int)sysconf(_SC_NPROCESSORS_ONLN) > 8 ? 8 : (int)sysconf(_SC_NPROCESSORS_ONLN);
    size_t big = (size_t)64 << 20;
    uint8_t *data = (uint8_t *)malloc(big), hash[32];
    char pf[] = "build/bench_remote.port", addr[64];
    (void)genie_remote_register();
    if (sodium_init() < 0 || !data) return 1;
    for (i = 0; i < (int)big; i++) data[i] = (uint8_t)(i * 131 + 7);
    /* the peers */
    if (pipe(fds)) return 1;
    fflush(stdout);
    if ((echo = fork()) == 0) { close(fds[0]); echo_child(fds[1], 0); }
    close(fds[1]);
    if (read(fds[0], &eport, sizeof eport) != (ssize_t)sizeof eport) { printf("FAIL echo peer did not start\n"); return 1; }
    close(fds[0]);
    if (pipe(fds)) return 1;
    if ((lecho = fork()) == 0) { close(fds[0]); echo_child(fds[1], 1); }
    close(fds[1]);
    if (read(fds[0], &lport, sizeof lport) != (ssize_t)sizeof lport) { printf("FAIL landing echo peer did not start\n"); return 1; }
    kill(lecho, SIGSTOP); /* it polls without sleeping: stopped except while its own row is measured */
    unlink(pf);
    if ((srv = fork()) == 0) {
        FILE *f = freopen("build/bench_remote_server.log", "w", stdout);
        (void)f;
        const char *part_copy = getenv("BENCH_PART_COPY"); /* the server's --part-copy, when set (loop or thread) */
        if (part_copy && *part_copy)
            execl("build/genie-server", "genie-server", "--listen", "127.0.0.1:0", "--port-file", pf, "--threads", "1", "--part-copy", part_copy,
                  (char *)NULL);
        else
            execl("build/genie-server", "genie-server", "--listen", "127.0.0.1:0", "--port-file", pf, "--threads", "1", (char *)NULL);
        _exit(127);
    }
    for (i = 0; i < 400 && sport <= 0; i++) {
        FILE *f = fopen(pf, "r");
        struct timespec ts = {0, 50000000};
        if (f) { if (fscanf(f, "%d", &sport) != 1) sport = 0; fclose(f); }
        if (sport <= 0) nanosleep(&ts, NULL);
    }
    if (sport <= 0) { printf("FAIL genie-server did not start\n"); return 1; }
    snprintf(addr, sizeof addr, "127.0.0.1:%d", sport);
    if (peer_open(&e, eport) || peer_open(&el, lport) || peer_open(&s, sport)) { printf("FAIL connect\n"); return 1; }
    if (peer_hello(&s) != 0) { printf("FAIL HELLO\n"); return 1; }
    /* round trips: the best of 2000, placed as the scheduler likes, then (2 CPUs or more) with
       this process on CPU 0 and each peer on CPU 1, so that neither shares a core with the other */
    round_trips(&e, echo, &s, addr, rt);
    if (ncpu >= 2) {
        kill(echo, SIGCONT);
        pin(0, 0), pin(echo, 1), pin(srv, 1);
        round_trips(&e, echo, &s, addr, rtp);
        pin(0, -1), pin(echo, -1), pin(srv, -1);
    }
    /* 64 MiB: raw send + empty reply, against PUT (hash, send, the server hashes) + PING */
    kill(echo, SIGCONT);
    {
        double t0, best = 1e9;
        for (i = 0; i < 5; i++) {
            t0 = grx_now();
            peer_call(&e, GR_PUT, data, big, NULL, 0);
            t0 = grx_now() - t0;
            if (t0 < best) best = t0;
        }
        raw_bw = (double)big / best / 1e9;
        best = 1e9;
        for (i = 0; i < 5; i++) {
            t0 = grx_now();
            if (raw_stream(&e, data, big, GR_PART_BYTES) != 0) { printf("FAIL raw stream\n"); break; }
            t0 = grx_now() - t0;
            if (t0 < best) best = t0;
        }
        stream_bw = (double)big / best / 1e9;
        best = 1e9;
        for (i = 0; i < 5; i++) {
            t0 = grx_now();
            if (raw_put_pattern(&e, data, big) != 0) { printf("FAIL raw PUT pattern\n"); break; }
            t0 = grx_now() - t0;
            if (t0 < best) best = t0;
        }
        pattern_bw = (double)big / best / 1e9;
        best = 1e9;
        kill(echo, SIGSTOP);
        double best_fresh = 1e9, best_land = 1e9, pair[BR_PUT_PAIRS];
        int npair = 0;
        for (i = 0; i < 2 + BR_PUT_PAIRS; i++) { /* send first (bytes genie holds): the PUT_PARTs and a PUT claiming
                                     no hash, usable when the PING's OK comes, hashed when the HASHED comes.
                                     The same bytes each time: the first two land in fresh memory (the first
                                     is cached, the second's buffer moves to that copy once hashed and its
                                     block goes to the server's pool), the rest in that recycled block, each
                                     beside a raw landing echo's transfer (a pair: both in the same moment of
                                     this machine's load; the raw one first in even pairs, after in odd) */
            uint64_t msgs = 0, bytes = 0;
            uint8_t none[32] = {0};
            double t_ok = 0, t_hashed = 0, t_land = 0;
            int pairs = i >= 2, raw_after = (i - 2) % 2;
            if (pairs && !raw_after && raw_landing(&el, lecho, data, big, &t_land) != 0) break;
            t0 = grx_now();
            if (grx_put(&s.x, s.ep, &s.req, 100 + (uint64_t)i, big, none, data, big, grx_now() + 30, &s.dead, &msgs, &bytes) != UCS_OK ||
                peer_two(&s, t0, &t_ok, &t_hashed, hash) != 0) {
                printf("FAIL PUT sent first\n");
                break;
            }
            if (pairs && raw_after && raw_landing(&el, lecho, data, big, &t_land) != 0) break;
            if (t_land > 0 && t_land < best_land) best_land = t_land;
            if (i < 2 && t_ok < best_fresh) best_fresh = t_ok;
            if (i >= 2 && t_ok < best) best = t_ok;
            if (i >= 2) pair[npair++] = t_land / t_ok;
            if (t_hashed < best_hashed) best_hashed = t_hashed;
        }
        land_bw = (double)big / best_land / 1e9;
        qsort(pair, (size_t)npair, sizeof *pair, bench_cmp_d);
        pair_median = npair ? pair[npair / 2] : 0;
        usable_bw = (double)big / best / 1e9;
        fresh_bw = (double)big / best_fresh / 1e9;
        hashed_bw = (double)big / best_hashed / 1e9;
        best = 1e9;
        for (i = 0; i < 5; i++) { /* hash first (a weight from a file: then HAS, here a miss), PUT claiming it + PING */
            uint64_t msgs = 0, bytes = 0;
            t0 = grx_now();
            data[(size_t)i * 4096] ^= 1; /* new bytes each time: not cached yet */
            gr_content_hash(data, big, hash, hthreads);
            if (grx_put(&s.x, s.ep, &s.req, 200 + (uint64_t)i, big, hash, data, big, grx_now() + 30, &s.dead, &msgs, &bytes) != UCS_OK ||
                peer_call(&s, GR_PING, NULL, 0, NULL, 0) != GR_OK) {
                printf("FAIL PUT hashed first\n");
                break;
            }
            t0 = grx_now() - t0;
            if (t0 < best) best = t0;
            if (peer_cached(&s, hash, big) != 0) { printf("FAIL the hashed-first PUT never reached the cache\n"); break; } /* untimed */
        }
        put_bw = (double)big / best / 1e9;
        t0 = grx_now();
        crypto_generichash(hash, 32, data, big, NULL, 0);
        hash_bw = (double)big / (grx_now() - t0) / 1e9;
        for (i = 0, best = 1e9; i < 3; i++) { /* the tree on one thread, then on hthreads */
            t0 = grx_now();
            gr_content_hash(data, big, hash, 1);
            if ((t0 = grx_now() - t0) < best) best = t0;
        }
        tree1_bw = (double)big / best / 1e9;
        for (i = 0, best = 1e9; i < 3; i++) {
            t0 = grx_now();
            gr_content_hash(data, big, hash, hthreads);
            if ((t0 = grx_now() - t0) < best) best = t0;
        }
        tree_bw = (double)big / best / 1e9;
    }
    {
        double l = -1; /* other work on the cores moves every row: printed beside them */
        FILE *f = fopen("/proc/loadavg", "r");
        if (f && fscanf(f, "%lf", &l) != 1) l = -1;
        if (f) fclose(f);
        printf("bench-remote (loopback, UCX_TLS=tcp; best of runs; 1-minute load %.2f)\n", l);
    }
    printf("  %-44s %10.1f us\n", "raw UCX active-message round trip", rt[0] * 1e6);
    printf("  %-44s %10.1f us  (%.2fx raw)\n", "genie-server PING round trip", rt[1] * 1e6, rt[1] / rt[0]);
    printf("  %-44s %10.1f us  (%.2fx raw)\n", "empty RUN + PING", rt[2] * 1e6, rt[2] / rt[0]);
    printf("  %-44s %10.1f us  (%.2fx raw; median of %d rounds, each against raw's in turn: %.2fx)\n", "genie step: RUN_CACHED_GET (exp, 1 elem)",
           rt[3] * 1e6, rt[3] / rt[0], BR_RT_ROUNDS, rt[4]);
    if (ncpu >= 2) {
        printf("  %-44s %10.1f us  (this process on CPU 0, the peer on CPU 1)\n", "raw UCX round trip, pinned", rtp[0] * 1e6);
        printf("  %-44s %10.1f us  (%.2fx raw)\n", "genie-server PING round trip, pinned", rtp[1] * 1e6, rtp[1] / rtp[0]);
        printf("  %-44s %10.1f us  (%.2fx raw; median of %d rounds, each against raw's in turn: %.2fx)\n", "genie step: RUN_CACHED_GET, pinned",
               rtp[3] * 1e6, rtp[3] / rtp[0], BR_RT_ROUNDS, rtp[4]);
    } else {
        printf("  skip: the pinned round trips (one CPU online)\n");
    }
    printf("  %-44s %10.2f GB/s\n", "raw UCX 64 MiB: one message + reply", raw_bw);
    printf("  %-44s %10.2f GB/s\n", "raw UCX 64 MiB: 2 MiB messages + replies", stream_bw);
    printf("  %-44s %10.2f GB/s\n", "raw UCX 64 MiB: a PUT's messages + replies", pattern_bw);
    printf("  %-44s %10.2f GB/s  (each message copied into a receive buffer)\n", "raw UCX 64 MiB: the same, bytes kept", land_bw);
    {
        double rawb = raw_bw > stream_bw ? raw_bw : stream_bw;
        if (pattern_bw > rawb) rawb = pattern_bw;
        printf("  %-44s %10.2f GB/s  (%.0f%% of the best raw: the server's first uploads, into fresh pages)\n",
               "64 MiB PUT sent first, fresh memory (+ PING)", fresh_bw, 100 * fresh_bw / rawb);
        printf("  %-44s %10.2f GB/s  (%.0f%% of the best raw: steady state, into a recycled block)\n",
               "64 MiB PUT sent first, until usable (+ PING)", usable_bw, 100 * usable_bw / rawb);
        printf("  %-44s %10.0f %%     (best against best; the median of %d pairs, each PUT beside a raw transfer, before or after it in turn: %.0f%%)\n",
               "  against raw UCX, bytes kept", 100 * usable_bw / land_bw, BR_PUT_PAIRS, 100 * pair_median);
        printf("  %-44s %10.2f GB/s  (%.0f%%: the server's hash after the bytes)\n", "  the same, until hashed (its HASHED back)", hashed_bw,
               100 * hashed_bw / rawb);
        printf("  %-44s %10.2f GB/s  (%.0f%%: the client's hash first, as for a weight from a file)\n", "64 MiB PUT hashed first + PING", put_bw,
               100 * put_bw / rawb);
    }
    printf("  %-44s %10.2f GB/s  (the tree on 1 thread: %.2f GB/s, on %d threads: %.2f GB/s)\n", "BLAKE2b of 64 MiB, one thread", hash_bw,
           tree1_bw, hthreads, tree_bw);
    {
        genie_ctx *c, *l;
        uint64_t rb = 0, lb = 0;
        double rm, lm;
        ctx_pair(addr, &l, &c);
        static const int64_t sizes[2][4] = {{8, 256, 512, 16}, {64, 1024, 4096, 1024}};
        int z;
        for (z = 0; z < 2; z++) {
            const int64_t *q = sizes[z];
            double lbest, rbest;
            char what[96];
            lm = mlp_ms(l, q[0], q[1], q[2], q[3], z ? 10 : 50, &lb, &lbest);
            rm = mlp_ms(c, q[0], q[1], q[2], q[3], z ? 10 : 50, &rb, &rbest);
            snprintf(what, sizeof what, "MLP step [%d,%d]->%d->%d, local", (int)q[0], (int)q[1], (int)q[2], (int)q[3]);
            printf("  %-44s %10.3f ms median, %.3f best\n", what, lm, lbest);
            printf("  %-44s %10.3f ms median, %.3f best (%.2fx local; %llu bytes a step)\n", "  remote", rm, rbest, rm / lm,
                   (unsigned long long)rb);
        }
        {
            uint64_t lcpu, rcpu;
            double lbest, rbest;
            lm = block_ms(l, 32, 20, &lb, &lbest, &lcpu);
            rm = block_ms(c, 32, 20, &rb, &rbest, &rcpu);
            printf("  %-44s %10.3f ms median, %.3f best\n", "encoder block [1,32,256], 4 heads, local", lm, lbest);
            printf("  %-44s %10.3f ms median, %.3f best (%.2fx local; %llu bytes, %llu CPU nodes a step)\n", "  remote", rm, rbest,
                   rm / lm, (unsigned long long)rb, (unsigned long long)rcpu);
        }
        {
            static const genie_dtype qdt[3] = {GENIE_Q8_0, GENIE_Q4_0, GENIE_Q8_0};
            for (z = 0; z < 3; z++) {
                uint64_t lcpu, rcpu;
                double lbest, rbest;
                char what[96];
                lm = qlinear_ms(l, qdt[z], z == 2, 20, &lb, &lbest, &lcpu);
                rm = qlinear_ms(c, qdt[z], z == 2, 20, &rb, &rbest, &rcpu);
                snprintf(what, sizeof what, z == 2 ? "%s embedding row of [32000,1024], local" : "%s linear [1,4096] x [4096,4096], local",
                         genie_dtype_name(qdt[z]));
                printf("  %-44s %10.3f ms median, %.3f best\n", what, lm, lbest);
                printf("  %-44s %10.3f ms median, %.3f best (%.2fx local; %llu bytes, %llu CPU nodes a step)\n", "  remote", rm, rbest,
                       rm / lm, (unsigned long long)rb, (unsigned long long)rcpu);
            }
        }
        genie_ctx_destroy(c);
        genie_ctx_destroy(l);
    }
    { /* decode steps, each side in a fresh context (the caches start empty) */
        genie_ctx_desc d;
        genie_ctx *c, *l;
        uint64_t lf, ls, lr, lc, rf, rs, rr, rc;
        double lm, rm, lbest, rbest;
        memset(&d, 0, sizeof d);
        d.n_threads = 1;
        l = genie_ctx_create(&d);
        lm = decode_ms(l, 64, &lbest, &lf, &ls, &lr, &lc);
        d.backend = "remote";
        d.backend_config = addr;
        c = genie_ctx_create(&d);
        rm = decode_ms(c, 64, &rbest, &rf, &rs, &rr, &rc);
        if (lm < 0 || rm < 0) {
            printf("skip: decode steps (examples/data/tiny_llama.safetensors does not load: %s)\n", genie_last_error(c));
        } else {
            printf("  %-44s %10.3f ms median, %.3f best\n", "tiny Llama decode step (64 steps), local", lm, lbest);
            printf("  %-44s %10.3f ms median, %.3f best (+%.3f ms a step; step 1 sent %llu bytes, then %llu sent, "
                   "%llu received, %llu CPU nodes a step)\n", "  remote", rm, rbest, rm - lm, (unsigned long long)rf,
                   (unsigned long long)rs, (unsigned long long)rr, (unsigned long long)rc);
        }
        genie_ctx_destroy(c);
        genie_ctx_destroy(l);
    }
    { /* GPT-2-small decode steps, local and remote in turn, each in a fresh context (the remote
         one's weights uploaded by step 1); then the same graph at a narrow width, whose steps
         compute little: their difference is the protocol's and the server's cost a step */
        int k;
        for (k = 0; k < 2; k++) {
            const g2_dims w = k ? g2_narrow : g2_small;
            const int steps = k ? G2_SEQ : 16;
            const char *name = k ? "GPT-2-small's graph, 64 wide (32 steps)" : "GPT-2-small decode step (16 steps)";
            genie_ctx *c, *l;
            g2_result g;
            ctx_pair(addr, &l, &c);
            if (g2_pair(l, c, steps, w, &g) != 0) {
                printf("FAIL %s: %s %s\n", name, genie_last_error(l), genie_last_error(c));
            } else {
                printf("  %-44s %10.3f ms median, %.3f best\n", name, g.local_ms, g.local_best);
                printf("  %-44s %10.3f ms median, %.3f best (tokens %s local; step 1 sent %llu bytes for %llu of weights; "
                       "then %llu sent, %llu received, %llu CPU nodes a step)\n", "  remote", g.remote_ms, g.remote_best,
                       g.same ? "equal to" : "DIFFER from", (unsigned long long)g.first, (unsigned long long)g.weights,
                       (unsigned long long)g.sent, (unsigned long long)g.recv, (unsigned long long)g.cpu);
                printf("  %-44s %10.3f ms median of remote - local, step by step (the server computed %.3f ms a step: "
                       "remote - server %.3f ms)\n", "  remote overhead", g.diff_ms, g.server_ms, g.remote_ms - g.server_ms);
            }
            genie_ctx_destroy(c);
            genie_ctx_destroy(l);
        }
    }
    grx_close_ep(&e.x, e.ep, 1);
    grx_close_ep(&s.x, s.ep, 0);
    grx_destroy(&e.x);
    grx_destroy(&s.x);
    kill(echo, SIGKILL);
    kill(lecho, SIGKILL);
    kill(srv, SIGTERM);
    waitpid(echo, NULL, 0);
    waitpid(lecho, NULL, 0);
    waitpid(srv, NULL, 0);
    free(data);
    return 0;
}
