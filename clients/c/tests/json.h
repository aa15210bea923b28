/* A small JSON reader and tree for the golden-frame test: it reads the frames' descriptions,
 * and the test builds a tree of what the library decoded to compare with them. */
#ifndef STASH_TEST_JSON_H
#define STASH_TEST_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json {
    json_type type;
    bool boolean;
    char *text; /* a string's bytes, or a number's literal */
    size_t n;   /* items of an array or an object */
    struct json **items;
    char **keys; /* an object's */
} json;

/* NULL with *error (malloc'd) set when `text` is not one JSON value. */
json *json_parse(const char *text, char **error);
void json_free(json *value);

/* A member of an object, or NULL. */
const json *json_get(const json *object, const char *key);
/* A member's string (or number literal), or `fallback` when it is missing or null. */
const char *json_text(const json *object, const char *key, const char *fallback);
bool json_bool(const json *object, const char *key);
uint64_t json_u64(const json *object, const char *key);

json *json_new_object(void);
json *json_new_array(void);
json *json_new_string(const char *s);
json *json_new_number(const char *format, ...) __attribute__((format(printf, 1, 2)));
json *json_new_bool(bool b);
/* Takes `value`; returns `container` for chaining. */
json *json_put(json *object, const char *key, json *value);
json *json_push(json *array, json *value);

/* Whether `actual` holds what `expected` describes, as proto3 JSON reads: a member left out
 * equals its default (0, "", false, [], {}, the enum's 0 name), and a 64-bit number written as
 * a string equals the number. On a difference, `where` names it. */
bool json_same(const json *expected, const json *actual, char *where, size_t where_size);

#endif
