#define _GNU_SOURCE
#include "cardbox_spawn.h"

int cbx_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
