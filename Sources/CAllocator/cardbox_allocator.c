#include "cardbox_allocator.h"

#include <malloc.h>

int cbx_return_free_memory(void) { return malloc_trim(0); }
