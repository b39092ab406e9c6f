#ifndef CARDBOX_ALLOCATOR_H
#define CARDBOX_ALLOCATOR_H

/* glibc's malloc_trim(0), which Swift's Glibc module leaves out (malloc.h is not in it): gives the
 * pages the allocator holds free, in every arena, back to the system. 1 when it gave any. */
int cbx_return_free_memory(void);

#endif
