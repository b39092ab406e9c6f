#ifndef CARDBOX_SQLITE_SETTINGS_H
#define CARDBOX_SQLITE_SETTINGS_H

/* SQLite's process-wide settings, which Swift cannot set itself: sqlite3_config is variadic.
 * Each returns SQLite's result code: SQLITE_MISUSE once SQLite has started (a connection was
 * opened), when the setting can no longer change. */

/* No memory statistics: SQLite otherwise takes a process-wide mutex and counts at every allocation
 * it makes. Cardbox never reads them. */
int cbx_sqlite_skip_memory_statistics(void);

#endif
