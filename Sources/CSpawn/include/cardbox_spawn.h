#ifndef CARDBOX_SPAWN_H
#define CARDBOX_SPAWN_H

#include <spawn.h>

/* glibc's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module leaves out (it is a
 * GNU extension): the spawned program inherits no descriptor from `from` on. */
int cbx_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
