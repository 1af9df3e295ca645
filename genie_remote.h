/* genie_remote.h - genie's remote backend (genie_remote.c, docs/remote.md).
 *
 * build/genie_remote.o is genie's implementation with the "remote" backend inside
 * (as build/genie_cuda.o is with "cuda"): a program includes genie.h and this file
 * without defining GENIE_IMPLEMENTATION and links
 *     build/genie_remote.o $(pkg-config --libs ucx libsodium) -lm -pthread
 * The backend registers itself when the program starts; genie_remote_register()
 * does it again explicitly (e.g. where constructors do not run). A context with
 *     desc.backend = "remote", desc.backend_config = "host:port"
 * (NULL: the environment variable GENIE_REMOTE) runs its tapes on a genie-server;
 * GENIE_REMOTE_KEY_FILE names the key file when the server asks for a key, and
 * GENIE_REMOTE_TIMEOUT_MS bounds every wait for a reply (default 10000). */
#ifndef GENIE_REMOTE_H
#define GENIE_REMOTE_H
#include "genie.h"
#ifdef __cplusplus
extern "C" {
#endif
genie_result genie_remote_register(void);

/* Work the server did for this context (genie_work: nodes, flops and bytes as genie counts
   them, ns the server's time computing and storing them), by the module path, phase and role
   the client's genie gave each node (genie_role_name). */
typedef struct genie_remote_work {
    char phase[64];      /* "" none (truncated past 63 bytes) */
    char role[16];       /* "attention", "mlp", ..., "" none */
    genie_work work;
    char module[128];    /* the module path, "" none (truncated past 127 bytes) */
} genie_remote_work;
/* Asks the server (one round trip, after the work gathered so far is sent): fills up to max
   rows and returns how many there are (more than max: the rest left out); -1 and an error in
   the context when ctx does not run on "remote" or the server cannot answer. */
int genie_remote_stats(genie_ctx *ctx, genie_remote_work *rows, int max);

/* After the connection was lost (GENIE_ERR_BACKEND: the server died or restarted, the link
   broke), connects again to the same address: GENIE_OK (also when the connection is alive), or
   GENIE_ERR_BACKEND with the reason in the context (the context goes on on its CPU). Work goes to
   the server again; values whose bytes are on the host (weights, inputs, values read) are sent
   again when a step needs them (HAS, then PUT where the server lacks them); values that lived
   only on the lost server are lost (reading one is an error). */
genie_result genie_remote_reconnect(genie_ctx *ctx);
/* Waits until the server has hashed every tensor this context sent without its hash (bytes
   genie holds are sent first and hashed by the server in the background; docs/remote.md "HAS
   and PUT"): from then on they are in the server's shared cache, so a HAS of another client or
   process finds them. It waits as long as hashes keep coming back. GENIE_OK, or
   GENIE_ERR_BACKEND with the reason in the context (a connection lost, the server's ERROR, or
   no hash back for GENIE_REMOTE_TIMEOUT_MS: that leaves the connection up, and a later call
   waits again). */
genie_result genie_remote_hashed(genie_ctx *ctx);
#ifdef __cplusplus
}
#endif
#endif
