/* What the daemon sends is held to PROTOCOL.md's rules before a caller sees it: every string is
 * UTF-8 without NUL (section 3), and no record holds numbers that cannot be (section 8, "Values a
 * client refuses"). A message that breaks either is STASH_INTERNAL, naming the field and the
 * value: a daemon that sends one cannot be trusted with the rest of the message.
 *
 * Strings are checked on the encoded payload, not on the unpacked message: protobuf-c gives a
 * string as a NUL-terminated char *, so a NUL inside it would cut it silently and the length
 * on the wire is gone, and protobuf-c 1.4 does not check UTF-8. The walk reads each field's
 * type from the message's own protobuf-c descriptor, so no list of string fields can fall
 * behind the schema. */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The schema nests a few levels; the bound is for a later schema with a recursive message. */
#define MAX_DEPTH 32
/* A refused value is shown up to this many bytes. */
#define SHOWN_BYTES 64
#define STRING_RULE "a string must be UTF-8 without NUL"

typedef struct wire_field {
    uint32_t number;
    size_t start;
    bool length_delimited;
    size_t value_start;
    size_t value_end;
} wire_field;

static bool read_varint(const uint8_t *bytes, size_t *offset, size_t end, uint64_t *out) {
    uint64_t value = 0;
    for (unsigned shift = 0; *offset < end && shift < 64; shift += 7) {
        uint8_t byte = bytes[(*offset)++];
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (byte < 0x80) {
            *out = value;
            return true;
        }
    }
    return false;
}

/* The field at *offset before `end`; false at the end and at anything that is not a
 * well-formed field, so the walk never reads past `end`. */
static bool next_field(const uint8_t *bytes, size_t *offset, size_t end, wire_field *out) {
    uint64_t key, value;
    out->start = *offset;
    if (*offset >= end || !read_varint(bytes, offset, end, &key) || key >> 3 == 0 || key >> 3 > 0x1fffffff) return false;
    out->number = (uint32_t)(key >> 3);
    out->length_delimited = false;
    switch (key & 7) {
    case 0: return read_varint(bytes, offset, end, &value);
    case 1:
    case 5: {
        size_t width = (key & 7) == 1 ? 8 : 4;
        if (end - *offset < width) return false;
        *offset += width;
        return true;
    }
    case 2:
        if (!read_varint(bytes, offset, end, &value) || value > end - *offset) return false;
        out->length_delimited = true;
        out->value_start = *offset;
        out->value_end = *offset + (size_t)value;
        *offset = out->value_end;
        return true;
    default: return false;
    }
}

/* The length of the well-formed UTF-8 sequence at bytes[0] (RFC 3629 section 4: no overlong
 * form, no surrogate, nothing above U+10FFFF), or 0 when none starts there. */
static size_t utf8_sequence(const uint8_t *bytes, size_t available) {
    uint8_t lead = bytes[0], low = 0x80, high = 0xbf;
    size_t length;
    if (lead < 0x80) return 1;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead == 0xe0) length = 3, low = 0xa0;
    else if (lead == 0xed) length = 3, high = 0x9f;
    else if (lead >= 0xe1 && lead <= 0xef) length = 3;
    else if (lead == 0xf0) length = 4, low = 0x90;
    else if (lead == 0xf4) length = 4, high = 0x8f;
    else if (lead >= 0xf1 && lead <= 0xf3) length = 4;
    else return 0;
    if (available < length || bytes[1] < low || bytes[1] > high) return 0;
    for (size_t i = 2; i < length; i++) {
        if (bytes[i] < 0x80 || bytes[i] > 0xbf) return 0;
    }
    return length;
}

/* The value quoted and printable, with its length: "nul1\0evil" (9 bytes). */
static void show(char *out, size_t size, const uint8_t *bytes, size_t length) {
    size_t used = (size_t)snprintf(out, size, "\"");
    for (size_t i = 0; i < length && i < SHOWN_BYTES && used < size; i++) {
        uint8_t byte = bytes[i];
        if (byte == 0) used += (size_t)snprintf(out + used, size - used, "\\0");
        else if (byte == '"' || byte == '\\') used += (size_t)snprintf(out + used, size - used, "\\%c", byte);
        else if (byte >= 0x20 && byte < 0x7f) used += (size_t)snprintf(out + used, size - used, "%c", byte);
        else used += (size_t)snprintf(out + used, size - used, "\\x%02x", byte);
    }
    if (used < size) snprintf(out + used, size - used, "%s\" (%zu bytes)", length > SHOWN_BYTES ? "..." : "", length);
}

/* What is wrong with a string's bytes, written to `reason`; false when nothing is. */
static bool string_problem(const uint8_t *bytes, size_t length, char *reason, size_t size) {
    for (size_t i = 0; i < length;) {
        size_t sequence = bytes[i] == 0 ? 0 : utf8_sequence(bytes + i, length - i);
        if (sequence == 0) {
            char shown[SHOWN_BYTES * 4 + 32];
            show(shown, sizeof shown, bytes, length);
            snprintf(reason, size, "%s %s at byte %zu", shown, bytes[i] == 0 ? "holds a NUL" : "is not UTF-8", i);
            return true;
        }
        i += sequence;
    }
    return false;
}

typedef struct level {
    const ProtobufCFieldDescriptor *field;
    size_t message_start; /* where the message holding the field starts, to count its index */
    size_t field_start;
} level;

typedef struct walk {
    const uint8_t *bytes;
    level path[MAX_DEPTH];
    int depth;
    char reason[SHOWN_BYTES * 4 + 128];
} walk;

static bool walk_message(walk *w, size_t start, size_t end, const ProtobufCMessageDescriptor *descriptor) {
    if (w->depth >= MAX_DEPTH) {
        snprintf(w->reason, sizeof w->reason, "messages nested deeper than %d", MAX_DEPTH);
        return false;
    }
    size_t offset = start;
    wire_field f;
    while (next_field(w->bytes, &offset, end, &f)) {
        if (!f.length_delimited) continue;
        const ProtobufCFieldDescriptor *field = protobuf_c_message_descriptor_get_field(descriptor, f.number);
        if (!field) continue;
        w->path[w->depth] = (level){field, start, f.start};
        if (field->type == PROTOBUF_C_TYPE_STRING) {
            if (string_problem(w->bytes + f.value_start, f.value_end - f.value_start, w->reason, sizeof w->reason)) {
                w->depth++;
                return false;
            }
        } else if (field->type == PROTOBUF_C_TYPE_MESSAGE) {
            w->depth++;
            if (!walk_message(w, f.value_start, f.value_end, field->descriptor)) return false;
            w->depth--;
        }
    }
    return true;
}

/* The index of the repeated field element that starts at `l->field_start`. */
static size_t element_index(const uint8_t *bytes, const level *l) {
    size_t offset = l->message_start, count = 0;
    wire_field f;
    while (next_field(bytes, &offset, l->field_start, &f)) count += f.number == l->field->id;
    return count;
}

bool check_strings(const ProtobufCMessageDescriptor *descriptor, const uint8_t *payload, size_t length, char **error) {
    walk *w = calloc(1, sizeof *w);
    if (!w) return false;
    w->bytes = payload;
    if (walk_message(w, 0, length, descriptor)) {
        free(w);
        return true;
    }
    size_t size = strlen(descriptor->short_name) + strlen(w->reason) + 64;
    for (int i = 0; i < w->depth; i++) size += strlen(w->path[i].field->name) + 24;
    char *path = malloc(size);
    if (path) {
        size_t used = (size_t)snprintf(path, size, "stashd sent %s", descriptor->short_name);
        for (int i = 0; i < w->depth; i++) {
            const ProtobufCFieldDescriptor *field = w->path[i].field;
            used += (size_t)snprintf(path + used, size - used, ".%s", field->name);
            if (field->label == PROTOBUF_C_LABEL_REPEATED) {
                used += (size_t)snprintf(path + used, size - used, "[%zu]", element_index(payload, &w->path[i]));
            }
        }
        snprintf(path + used, size - used, ": %s; " STRING_RULE, w->reason);
    }
    *error = path;
    free(w);
    return false;
}

/* ------------------------------------------------------------------ numbers */

__attribute__((format(printf, 1, 2))) static char *message(const char *format, ...) {
    char *out = NULL;
    va_list args;
    va_start(args, format);
    if (vasprintf(&out, format, args) < 0) out = NULL;
    va_end(args);
    return out;
}

/* The fields PROTOCOL.md gives -1 for "unknown" (or "never", "none"); below it no value can be. */
static char *at_least_minus_one(int64_t value, const char *field) {
    if (value >= -1) return NULL;
    return message("stashd sent %s %" PRId64 ", below -1 (its only negative value, unknown)", field, value);
}

static char *percent(uint32_t value, const char *field) {
    if (value <= 100) return NULL;
    return message("stashd sent %s %" PRIu32 ", above 100 (a percent)", field, value);
}

static char *counts(uint32_t done, uint32_t total, const char *field, const char *total_field) {
    if (done <= total) return NULL;
    return message("stashd sent %s %" PRIu32 ", above %s %" PRIu32, field, done, total_field, total);
}

/* The first of up to four checks that failed (each argument NULL or a malloc'd message). */
static char *first(char *a, char *b, char *c, char *d) {
    char *found = a ? a : b ? b : c ? c : d;
    if (a != found) free(a);
    if (b != found) free(b);
    if (c != found) free(c);
    if (d != found) free(d);
    return found;
}

char *check_download_numbers(const Stash__V1__Download *in) {
    return first(percent(in->progress, "Download.progress"), at_least_minus_one(in->total_bytes, "Download.total_bytes"),
                 at_least_minus_one(in->remaining_time, "Download.remaining_time"),
                 counts(in->files_done, in->files_total, "Download.files_done", "files_total"));
}

char *check_progress_numbers(const Stash__V1__Progress *in) {
    return first(percent(in->progress, "Progress.progress"), at_least_minus_one(in->total_bytes, "Progress.total_bytes"),
                 at_least_minus_one(in->remaining_time, "Progress.remaining_time"),
                 counts(in->files_done, in->files_total, "Progress.files_done", "files_total"));
}

char *check_export_progress_numbers(const Stash__V1__ExportProgress *in) {
    char *bytes = in->bytes_done <= in->bytes_total
                      ? NULL
                      : message("stashd sent ExportProgress.bytes_done %" PRIu64 ", above bytes_total %" PRIu64, in->bytes_done,
                                in->bytes_total);
    return first(percent(in->progress, "ExportProgress.progress"), bytes, NULL, NULL);
}

char *check_totals_numbers(const Stash__V1__GroupTotals *in) {
    return counts(in->files_done, in->files_total, "GroupTotals.files_done", "files_total");
}

char *check_license_numbers(const Stash__V1__LicenseStatus *in) {
    return first(at_least_minus_one(in->license_seconds_left, "LicenseStatus.license_seconds_left"),
                 at_least_minus_one(in->playback_seconds_left, "LicenseStatus.playback_seconds_left"),
                 at_least_minus_one(in->playback_duration, "LicenseStatus.playback_duration"), NULL);
}

char *check_playback_key_numbers(const Stash__V1__PlaybackKeyResult *in) {
    return at_least_minus_one(in->playback_seconds_left, "PlaybackKeyResult.playback_seconds_left");
}
