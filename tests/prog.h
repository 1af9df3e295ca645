#ifndef GENIE_TEST_PROG_H
#define GENIE_TEST_PROG_H
#include "../genie.h"
/* The context programs run in: the kernel path (GENIE_CPU_AUTO fuses; GENIE_CPU_REFERENCE runs
   every node alone on its reference kernel) and the threads (0: every core). */
extern genie_cpu prog_cpu;
extern int prog_threads;
/* Replay a program file; adds its checks to *passed / *failed. -1: cannot open. */
int prog_run_file(const char *path, int *passed, int *failed);
/* The backend of those contexts (NULL: the CPU; tests/test_cuda.c selects "cuda" or "cuda-compile"). */
extern const char *prog_backend;
#endif
