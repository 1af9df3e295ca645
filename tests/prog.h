#ifndef GENIE_TEST_PROG_H
#define GENIE_TEST_PROG_H
#include "../genie.h"
/* Replay a program file; adds its checks to *passed / *failed. -1: cannot open. */
int prog_run_file(const char *path, int *passed, int *failed);
#endif
