/* The one translation unit of the tests that holds genie's implementation. */
#define GENIE_IMPLEMENTATION
#include "../genie.h"
