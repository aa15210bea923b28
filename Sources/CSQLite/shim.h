#include <sqlite3.h>

// SQLITE_STATIC is a macro (a cast of 0 to a function pointer) Swift cannot import: these bind
// the caller's bytes without a copy, so the buffer must stay as it is until the statement has
// run and its bindings are cleared. A null pointer binds the empty value, not NULL: SQLite
// would read a null text pointer as SQL NULL.
static inline int csqlite_bind_text_static(sqlite3_stmt *statement, int index, const char *text, sqlite3_uint64 length) {
    return sqlite3_bind_text64(statement, index, text ? text : "", length, SQLITE_STATIC, SQLITE_UTF8);
}

static inline int csqlite_bind_blob_static(sqlite3_stmt *statement, int index, const void *bytes, sqlite3_uint64 length) {
    return sqlite3_bind_blob64(statement, index, bytes ? bytes : "", length, SQLITE_STATIC);
}
