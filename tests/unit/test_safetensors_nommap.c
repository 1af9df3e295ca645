/* The safetensors tests again on the read-into-memory path: genie's implementation
   compiled a second time, static and with GENIE_NO_MMAP, into this translation unit. */
#define GENIE_STATIC
#define GENIE_NO_MMAP
#define GENIE_IMPLEMENTATION
#define ST_RUN test_safetensors_nommap_run
#define ST_TAG "no mmap"
#include "test_safetensors.c"
