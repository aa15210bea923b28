#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro (a cast of -1 to a function pointer) Swift cannot import: these
// bind a copy of the bytes, so the caller's buffer need not outlive the call. A null pointer
// binds the empty value, not NULL: SQLite would read a null text pointer as SQL NULL.
static inline int csqlite_bind_text_copy(sqlite3_stmt *statement, int index, const char *text, sqlite3_uint64 length) {
    return sqlite3_bind_text64(statement, index, text ? text : "", length, SQLITE_TRANSIENT, SQLITE_UTF8);
}

static inline int csqlite_bind_blob_copy(sqlite3_stmt *statement, int index, const void *bytes, sqlite3_uint64 length) {
    return sqlite3_bind_blob64(statement, index, bytes, length, SQLITE_TRANSIENT);
}
