/* The one translation unit of the tests that holds genie's implementation. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime: the statistics' plan time */
#define GENIE_TEST_HOOKS /* GENIE_TAPE_HASH_BITS (test_tcache) */
#define GENIE_IMPLEMENTATION
#include "../../genie.h"
