#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const char *p;
    char *error;
} reader;

static json *fresh(json_type type) {
    json *value = calloc(1, sizeof *value);
    if (!value) abort();
    value->type = type;
    return value;
}

static void skip_space(reader *r) {
    while (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t') r->p++;
}

static json *fail(reader *r, const char *what) {
    if (!r->error && asprintf(&r->error, "%s at '%.20s'", what, r->p) < 0) r->error = NULL;
    return NULL;
}

static void append(char **buffer, size_t *length, size_t *capacity, const char *bytes, size_t n) {
    if (*length + n + 1 > *capacity) {
        *capacity = (*length + n + 1) * 2;
        *buffer = realloc(*buffer, *capacity);
        if (!*buffer) abort();
    }
    memcpy(*buffer + *length, bytes, n);
    *length += n;
    (*buffer)[*length] = '\0';
}

static unsigned hex4(const char *p, bool *ok) {
    unsigned value = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        value <<= 4;
        if (c >= '0' && c <= '9') value |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') value |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') value |= (unsigned)(c - 'A' + 10);
        else *ok = false;
    }
    return value;
}

static char *read_string(reader *r) {
    r->p++; /* the opening quote */
    char *out = NULL;
    size_t length = 0, capacity = 0;
    append(&out, &length, &capacity, "", 0);
    while (*r->p && *r->p != '"') {
        if (*r->p != '\\') {
            append(&out, &length, &capacity, r->p++, 1);
            continue;
        }
        r->p++;
        char c = *r->p++, single = 0;
        switch (c) {
        case '"': case '\\': case '/': single = c; break;
        case 'b': single = '\b'; break;
        case 'f': single = '\f'; break;
        case 'n': single = '\n'; break;
        case 'r': single = '\r'; break;
        case 't': single = '\t'; break;
        case 'u': {
            bool ok = true;
            unsigned code = hex4(r->p, &ok);
            r->p += 4;
            if (code >= 0xd800 && code < 0xdc00 && r->p[0] == '\\' && r->p[1] == 'u') {
                unsigned low = hex4(r->p + 2, &ok);
                r->p += 6;
                code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            }
            if (!ok) {
                free(out);
                fail(r, "bad \\u escape");
                return NULL;
            }
            char utf8[4];
            size_t n;
            if (code < 0x80) { utf8[0] = (char)code; n = 1; }
            else if (code < 0x800) { utf8[0] = (char)(0xc0 | code >> 6); utf8[1] = (char)(0x80 | (code & 0x3f)); n = 2; }
            else if (code < 0x10000) {
                utf8[0] = (char)(0xe0 | code >> 12); utf8[1] = (char)(0x80 | ((code >> 6) & 0x3f));
                utf8[2] = (char)(0x80 | (code & 0x3f)); n = 3;
            } else {
                utf8[0] = (char)(0xf0 | code >> 18); utf8[1] = (char)(0x80 | ((code >> 12) & 0x3f));
                utf8[2] = (char)(0x80 | ((code >> 6) & 0x3f)); utf8[3] = (char)(0x80 | (code & 0x3f)); n = 4;
            }
            append(&out, &length, &capacity, utf8, n);
            continue;
        }
        default:
            free(out);
            fail(r, "bad escape");
            return NULL;
        }
        append(&out, &length, &capacity, &single, 1);
    }
    if (*r->p != '"') {
        free(out);
        fail(r, "unterminated string");
        return NULL;
    }
    r->p++;
    return out;
}

static json *read_value(reader *r, int depth);

static json *read_container(reader *r, int depth, bool object) {
    json *value = fresh(object ? JSON_OBJECT : JSON_ARRAY);
    r->p++;
    skip_space(r);
    char close = object ? '}' : ']';
    while (*r->p != close) {
        char *key = NULL;
        if (object) {
            if (*r->p != '"' || !(key = read_string(r))) goto bad;
            skip_space(r);
            if (*r->p++ != ':') {
                free(key);
                goto bad;
            }
        }
        json *item = read_value(r, depth + 1);
        if (!item) {
            free(key);
            goto bad;
        }
        if (object) json_put(value, key, item);
        else json_push(value, item);
        free(key);
        skip_space(r);
        if (*r->p == ',') {
            r->p++;
            skip_space(r);
        } else if (*r->p != close) {
            goto bad;
        }
    }
    r->p++;
    return value;
bad:
    json_free(value);
    return fail(r, object ? "bad object" : "bad array");
}

static json *read_value(reader *r, int depth) {
    if (depth > 64) return fail(r, "nested too deep");
    skip_space(r);
    if (*r->p == '{') return read_container(r, depth, true);
    if (*r->p == '[') return read_container(r, depth, false);
    if (*r->p == '"') {
        char *s = read_string(r);
        if (!s) return NULL;
        json *value = fresh(JSON_STRING);
        value->text = s;
        return value;
    }
    if (strncmp(r->p, "true", 4) == 0 || strncmp(r->p, "false", 5) == 0) {
        json *value = fresh(JSON_BOOL);
        value->boolean = *r->p == 't';
        r->p += value->boolean ? 4 : 5;
        return value;
    }
    if (strncmp(r->p, "null", 4) == 0) {
        r->p += 4;
        return fresh(JSON_NULL);
    }
    const char *start = r->p;
    while (strchr("-+0123456789.eE", *r->p) && *r->p) r->p++;
    if (r->p == start) return fail(r, "unexpected character");
    json *value = fresh(JSON_NUMBER);
    value->text = strndup(start, (size_t)(r->p - start));
    return value;
}

json *json_parse(const char *text, char **error) {
    reader r = {.p = text};
    json *value = read_value(&r, 0);
    if (value) {
        skip_space(&r);
        if (*r.p) {
            json_free(value);
            value = fail(&r, "text after the value");
        }
    }
    *error = r.error;
    return value;
}

void json_free(json *value) {
    if (!value) return;
    for (size_t i = 0; i < value->n; i++) {
        json_free(value->items[i]);
        if (value->keys) free(value->keys[i]);
    }
    free(value->items);
    free(value->keys);
    free(value->text);
    free(value);
}

const json *json_get(const json *object, const char *key) {
    if (!object || object->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < object->n; i++) {
        if (strcmp(object->keys[i], key) == 0) return object->items[i];
    }
    return NULL;
}

const char *json_text(const json *object, const char *key, const char *fallback) {
    const json *value = json_get(object, key);
    return value && value->text ? value->text : fallback;
}

bool json_bool(const json *object, const char *key) {
    const json *value = json_get(object, key);
    return value && value->type == JSON_BOOL && value->boolean;
}

uint64_t json_u64(const json *object, const char *key) {
    const json *value = json_get(object, key);
    return value && value->text ? strtoull(value->text, NULL, 10) : 0;
}

json *json_new_object(void) { return fresh(JSON_OBJECT); }
json *json_new_array(void) { return fresh(JSON_ARRAY); }

json *json_new_string(const char *s) {
    json *value = fresh(JSON_STRING);
    value->text = strdup(s ? s : "");
    return value;
}

json *json_new_number(const char *format, ...) {
    json *value = fresh(JSON_NUMBER);
    va_list args;
    va_start(args, format);
    if (vasprintf(&value->text, format, args) < 0) abort();
    va_end(args);
    return value;
}

json *json_new_bool(bool b) {
    json *value = fresh(JSON_BOOL);
    value->boolean = b;
    return value;
}

static void grow(json *container) {
    container->items = realloc(container->items, (container->n + 1) * sizeof *container->items);
    if (!container->items) abort();
    if (container->type == JSON_OBJECT) {
        container->keys = realloc(container->keys, (container->n + 1) * sizeof *container->keys);
        if (!container->keys) abort();
    }
}

json *json_put(json *object, const char *key, json *value) {
    grow(object);
    object->keys[object->n] = strdup(key);
    object->items[object->n++] = value;
    return object;
}

json *json_push(json *array, json *value) {
    grow(array);
    array->items[array->n++] = value;
    return array;
}

/* ------------------------------------------------------------------ comparing */

static const char *const zero_names[] = {"OK", "NOT_DOWNLOADED", "ERROR_NONE", "FINDING_UNKNOWN", "LICENSE_EVENT_UNKNOWN",
                                         "PRIORITY_NORMAL"};

static bool is_default(const json *v) {
    if (!v) return true;
    switch (v->type) {
    case JSON_NULL: return true;
    case JSON_BOOL: return !v->boolean;
    case JSON_NUMBER: return strtod(v->text, NULL) == 0;
    case JSON_STRING:
        if (v->text[0] == '\0' || strcmp(v->text, "0") == 0) return true;
        for (size_t i = 0; i < sizeof zero_names / sizeof *zero_names; i++) {
            if (strcmp(v->text, zero_names[i]) == 0) return true;
        }
        return false;
    case JSON_ARRAY: return v->n == 0;
    case JSON_OBJECT:
        for (size_t i = 0; i < v->n; i++) {
            if (!is_default(v->items[i])) return false;
        }
        return true;
    }
    return false;
}

static bool numeric(const json *v) {
    if (!v || !v->text || (v->type != JSON_NUMBER && v->type != JSON_STRING) || !v->text[0]) return false;
    char *end;
    strtod(v->text, &end);
    return *end == '\0';
}

/* Integers compare exactly (64 bits); a fraction or exponent compares as a double. */
static bool same_number(const char *a, const char *b) {
    if (strpbrk(a, ".eE") || strpbrk(b, ".eE")) return strtod(a, NULL) == strtod(b, NULL);
    if (a[0] == '-' || b[0] == '-') return strtoll(a, NULL, 10) == strtoll(b, NULL, 10);
    return strtoull(a, NULL, 10) == strtoull(b, NULL, 10);
}

static bool differ(char *where, size_t size, const char *path, const char *what) {
    snprintf(where, size, "%s: %s", path, what);
    return false;
}

static bool same_at(const json *e, const json *a, const char *path, char *where, size_t size) {
    bool e_object = e && e->type == JSON_OBJECT, a_object = a && a->type == JSON_OBJECT;
    if (e_object || a_object) {
        if ((e && !e_object && !is_default(e)) || (a && !a_object && !is_default(a))) {
            return differ(where, size, path, "an object against something else");
        }
        for (int side = 0; side < 2; side++) {
            const json *from = side ? a : e;
            for (size_t i = 0; from && from->type == JSON_OBJECT && i < from->n; i++) {
                const char *key = from->keys[i];
                if (side && json_get(e, key)) continue; /* compared from the expected side */
                char inner[512];
                snprintf(inner, sizeof inner, "%s.%s", path, key);
                if (!same_at(json_get(e, key), json_get(a, key), inner, where, size)) return false;
            }
        }
        return true;
    }
    if (e && a && e->type == JSON_ARRAY && a->type == JSON_ARRAY) {
        if (e->n != a->n) {
            char what[64];
            snprintf(what, sizeof what, "%zu entries, expected %zu", a->n, e->n);
            return differ(where, size, path, what);
        }
        for (size_t i = 0; i < e->n; i++) {
            char inner[512];
            snprintf(inner, sizeof inner, "%s[%zu]", path, i);
            if (!same_at(e->items[i], a->items[i], inner, where, size)) return false;
        }
        return true;
    }
    if (is_default(e) && is_default(a)) return true;
    if (!e || !a) return differ(where, size, path, e ? "missing" : "not expected");
    char what[512];
    snprintf(what, sizeof what, "'%.200s', expected '%.200s'", a->text ? a->text : (a->boolean ? "true" : "false"),
             e->text ? e->text : (e->boolean ? "true" : "false"));
    if (numeric(e) && numeric(a)) return same_number(e->text, a->text) || differ(where, size, path, what);
    if (e->type == JSON_BOOL || a->type == JSON_BOOL) {
        return (e->type == a->type && e->boolean == a->boolean) || differ(where, size, path, what);
    }
    if (e->text && a->text && strcmp(e->text, a->text) == 0) return true;
    return differ(where, size, path, what);
}

bool json_same(const json *expected, const json *actual, char *where, size_t where_size) {
    return same_at(expected, actual, "value", where, where_size);
}
