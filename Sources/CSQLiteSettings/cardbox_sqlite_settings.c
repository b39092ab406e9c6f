#include "cardbox_sqlite_settings.h"

#include <sqlite3.h>

int cbx_sqlite_skip_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
