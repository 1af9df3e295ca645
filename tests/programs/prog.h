#ifndef GENIE_TEST_PROG_H
#define GENIE_TEST_PROG_H
#include "../../genie.h"
/* The context programs run in: the kernel path (GENIE_CPU_AUTO fuses; GENIE_CPU_REFERENCE runs
   every node alone on its reference kernel) and the threads (0: every core). */
extern genie_cpu prog_cpu;
extern int prog_threads;
/* Replay a program file; adds its checks to *passed / *failed. -1: cannot open. */
int prog_run_file(const char *path, int *passed, int *failed);
/* The backend of those contexts (NULL: the CPU; tests/unit/test_cuda.c selects "cuda" or "cuda-compile"). */
extern const char *prog_backend;
/* 1: each program's reads (E and G lines) wait, every handle alive, and run last first at the
   program's end or before an in-place op or an R line (a realize then leaves the intermediates
   it was not asked for deferred, and the earlier reads compute them) */
extern int prog_late;
/* 1: each handle is released after the last line of its program that names it (each T line
   runs in a pool of its own, its result retained): every read runs with the intermediates that
   no later line needs dead */
extern int prog_released;
#endif
