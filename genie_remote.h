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
#ifdef __cplusplus
}
#endif
#endif
