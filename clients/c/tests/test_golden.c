/* The golden frames of Tests/GoldenFrames through libstash-client's codec: each request frame
 * is what the public call for the described request writes, byte for byte (a capture client
 * keeps the frame instead of sending it), and each server frame decodes to the described values.
 * The frames' bytes come from protobuf's own encoder; the Python client and the Swift codec are
 * held to the same files.
 *
 * usage: test_golden DIR */
#include "check.h"
#include "internal.h"
#include "json.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>

static char *read_file(const char *path, size_t *length) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *data = NULL;
    size_t size = 0, capacity = 0;
    for (;;) {
        if (size + 4096 + 1 > capacity) {
            capacity = (size + 4096 + 1) * 2;
            data = realloc(data, capacity);
            if (!data) abort();
        }
        size_t got = fread(data + size, 1, 4096, f);
        size += got;
        if (got < 4096) break;
    }
    fclose(f);
    data[size] = '\0';
    *length = size;
    return data;
}

/* A number member with presence (a oneof of one): false when the description leaves it out. */
static bool json_given(const json *object, const char *key, double *value) {
    const json *member = json_get(object, key);
    if (!member || member->type != JSON_NUMBER) return false;
    *value = strtod(member->text, NULL);
    return true;
}

/* ------------------------------------------------------------------ base64 */

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static json *base64(const uint8_t *data, size_t n) {
    char *out = calloc(4 * ((n + 2) / 3) + 1, 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0) | (i + 2 < n ? data[i + 2] : 0);
        out[o++] = alphabet[v >> 18 & 63];
        out[o++] = alphabet[v >> 12 & 63];
        out[o++] = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
    }
    json *value = json_new_string(out);
    free(out);
    return value;
}

static size_t unbase64(const char *text, uint8_t *out, size_t capacity) {
    size_t n = 0;
    uint32_t bits = 0;
    int count = 0;
    for (const char *p = text; *p && *p != '='; p++) {
        const char *at = strchr(alphabet, *p);
        if (!at) continue;
        bits = bits << 6 | (uint32_t)(at - alphabet);
        if (++count == 4) {
            for (int k = 2; k >= 0 && n < capacity; k--) out[n++] = (uint8_t)(bits >> (8 * k));
            bits = 0;
            count = 0;
        }
    }
    if (count == 3 && n + 2 <= capacity) {
        out[n++] = (uint8_t)(bits >> 10);
        out[n++] = (uint8_t)(bits >> 2);
    } else if (count == 2 && n + 1 <= capacity) {
        out[n++] = (uint8_t)(bits >> 4);
    }
    return n;
}

/* ------------------------------------------------------------------ requests */

/* Strings of a described array, kept until the request is packed. */
typedef struct strings {
    const char *items[16];
    size_t n;
} strings;

static strings text_list(const json *array) {
    strings out = {.n = 0};
    for (size_t i = 0; array && i < array->n && i < 16; i++) out.items[out.n++] = array->items[i]->text;
    return out;
}

static size_t headers(const json *array, stash_header *out) {
    size_t n = 0;
    for (; array && n < array->n && n < 8; n++) {
        out[n].name = json_text(array->items[n], "name", "");
        out[n].value = json_text(array->items[n], "value", "");
    }
    return n;
}

static stash_state state_named(const char *name) {
    for (int s = STASH_STATE_NOT_DOWNLOADED; s <= STASH_STATE_RESTARTING; s++) {
        if (strcmp(stash_state_name((stash_state)s), name) == 0) return (stash_state)s;
    }
    return (stash_state)-1;
}

/* The priority named in `b` (left out: normal). */
static stash_priority priority_named(const json *b) {
    const char *name = json_text(b, "priority", "PRIORITY_NORMAL");
    for (int p = STASH_PRIORITY_NORMAL; p <= STASH_PRIORITY_HIGH; p++) {
        if (strcmp(stash_priority_name((stash_priority)p), name) == 0) return (stash_priority)p;
    }
    return (stash_priority)-1;
}

/* Makes the public call the description stands for; false for an op this test does not know. */
static bool call(stash_client *c, const char *op, const json *b) {
    const char *id = json_text(b, "id", NULL);
    if (strcmp(op, "hello") == 0) {
        stash_hello(c, NULL);
    } else if (strcmp(op, "add_download") == 0) {
        stash_header head[8];
        stash_bundle_file files[8];
        stash_file_rules rules[8];
        stash_text_track tracks[8];
        uint8_t app_data[256];
        stash_add_options o = STASH_ADD_OPTIONS_INIT;
        o.sha256 = json_text(b, "sha256", NULL);
        o.force = json_bool(b, "force");
        o.group = json_text(b, "group", NULL);
        o.append = json_bool(b, "append");
        o.rate_limit = json_u64(b, "rate_limit");
        o.replace = json_bool(b, "replace");
        o.network = json_text(b, "network", NULL);
        o.on_battery = json_text(b, "on_battery", NULL);
        o.priority = priority_named(b);
        o.expect = json_text(b, "expect", NULL);
        o.min_size = json_u64(b, "min_size");
        o.headers = head;
        o.n_headers = headers(json_get(b, "headers"), head);
        const json *list = json_get(b, "files");
        for (size_t i = 0; list && i < list->n && i < 8; i++) {
            const json *f = list->items[i];
            files[i] = (stash_bundle_file){.url = json_text(f, "url", ""), .path = json_text(f, "path", NULL),
                                           .size = json_u64(f, "size"), .sha256 = json_text(f, "sha256", NULL)};
            rules[i] = (stash_file_rules){.expect = json_text(f, "expect", NULL), .min_size = json_u64(f, "min_size")};
            if (rules[i].expect || rules[i].min_size) o.file_rules = rules;
            o.files = files;
            o.n_files = i + 1;
        }
        if (o.file_rules) o.n_file_rules = o.n_files;
        list = json_get(b, "text_tracks");
        for (size_t i = 0; list && i < list->n && i < 8; i++) {
            const json *t = list->items[i];
            tracks[i] = (stash_text_track){.uri = json_text(t, "uri", ""), .lang = json_text(t, "lang", ""),
                                           .title = json_text(t, "title", NULL), .type = json_text(t, "type", NULL)};
            o.text_tracks = tracks;
            o.n_text_tracks = i + 1;
        }
        if (json_get(b, "app_data")) {
            o.app_data = app_data;
            o.n_app_data = unbase64(json_text(b, "app_data", ""), app_data, sizeof app_data);
        }
        const json *h = json_get(b, "hls");
        strings subtitles = text_list(json_get(h, "subtitles")), audio = text_list(json_get(h, "audio"));
        stash_hls_options hls = STASH_HLS_OPTIONS_INIT;
        hls.quality = json_text(h, "quality", NULL);
        hls.max_height = (uint32_t)json_u64(h, "max_height");
        hls.bandwidth = json_u64(h, "bandwidth");
        hls.subtitles = subtitles.items;
        hls.n_subtitles = subtitles.n;
        hls.audio = audio.items;
        hls.n_audio = audio.n;
        hls.segment_concurrency = (uint32_t)json_u64(h, "segment_concurrency");
        hls.has_start = json_given(h, "start", &hls.start);
        hls.has_end = json_given(h, "end", &hls.end);
        if (h) o.hls = &hls;
        const json *d = json_get(b, "drm");
        stash_header licence_headers[8];
        stash_drm_params drm = STASH_DRM_PARAMS_INIT;
        drm.type = json_text(d, "type", NULL);
        drm.license_server = json_text(d, "license_server", NULL);
        drm.license_headers = licence_headers;
        drm.n_license_headers = headers(json_get(d, "license_headers"), licence_headers);
        drm.content_id = json_text(d, "content_id", NULL);
        drm.certificate_url = json_text(d, "certificate_url", NULL);
        if (d) o.drm = &drm;
        stash_add(c, json_text(b, "uri", NULL), id, json_text(b, "title", NULL), &o, NULL);
    } else if (strcmp(op, "get_download") == 0) {
        stash_get(c, id, NULL);
    } else if (strcmp(op, "has_download") == 0) {
        stash_has(c, id, NULL, NULL);
    } else if (strcmp(op, "pause") == 0) {
        stash_pause(c, id, NULL);
    } else if (strcmp(op, "resume") == 0) {
        stash_resume(c, id, NULL);
    } else if (strcmp(op, "cancel") == 0) {
        stash_cancel(c, id);
    } else if (strcmp(op, "stop") == 0) {
        stash_stop(c, id, json_text(b, "reason", NULL), NULL);
    } else if (strcmp(op, "pause_all") == 0) {
        stash_pause_all(c, NULL);
    } else if (strcmp(op, "set_download") == 0) {
        stash_header head[8];
        if (json_get(b, "network") || json_get(b, "on_battery")) {
            stash_set_desktop_rules(c, json_text(b, "id", ""), json_text(b, "network", NULL), json_text(b, "on_battery", NULL), NULL);
        } else if (json_get(b, "headers") || json_get(b, "clear_headers")) {
            stash_set_headers(c, json_text(b, "id", ""), head, headers(json_get(b, "headers"), head), json_bool(b, "clear_headers"), NULL);
        } else if (json_get(b, "license_headers") || json_get(b, "clear_license_headers")) {
            stash_set_license_headers(c, json_text(b, "id", ""), head, headers(json_get(b, "license_headers"), head),
                                      json_bool(b, "clear_license_headers"), NULL);
        } else if (json_get(b, "file")) {
            stash_set_file_uri(c, json_text(b, "id", ""), json_text(b, "file", ""), json_text(b, "uri", ""), NULL);
        } else if (json_get(b, "uri")) {
            stash_set_uri(c, json_text(b, "id", ""), json_text(b, "uri", ""), NULL);
        } else if (json_get(b, "rate_limit")) {
            stash_set_rate_limit(c, json_text(b, "id", ""), json_u64(b, "rate_limit"), NULL);
        } else {
            stash_set_priority(c, json_text(b, "id", ""), priority_named(b), NULL);
        }
    } else if (strcmp(op, "move") == 0) {
        static const char *const places[] = {"", "MOVE_PLACE_TOP", "MOVE_PLACE_BOTTOM", "MOVE_PLACE_BEFORE", "MOVE_PLACE_AFTER"};
        const char *place = json_text(b, "place", "");
        int number = 0;
        for (int i = 1; i < 5; i++) if (strcmp(place, places[i]) == 0) number = i;
        stash_move(c, json_text(b, "id", ""), (stash_move_place)number, json_text(b, "other", NULL), NULL);
    } else if (strcmp(op, "pause_group") == 0) {
        stash_pause_group(c, json_text(b, "group", NULL), NULL);
    } else if (strcmp(op, "resume_group") == 0) {
        stash_resume_group(c, json_text(b, "group", NULL), json_bool(b, "include_failed"), NULL);
    } else if (strcmp(op, "cancel_group") == 0) {
        stash_cancel_group(c, json_text(b, "group", NULL), NULL);
    } else if (strcmp(op, "list_downloads") == 0) {
        stash_state states[16];
        const json *names = json_get(b, "states");
        size_t n = 0;
        for (; names && n < names->n && n < 16; n++) states[n] = state_named(names->items[n]->text);
        stash_list_options o = STASH_LIST_OPTIONS_INIT;
        o.states = states;
        o.n_states = n;
        o.page_size = (uint32_t)json_u64(b, "page_size");
        o.page_token = json_text(b, "page_token", NULL);
        o.group = json_text(b, "group", NULL);
        stash_list(c, &o, NULL);
    } else if (strcmp(op, "subscribe") == 0) {
        strings ids = text_list(json_get(b, "ids"));
        stash_subscribe_options o = STASH_SUBSCRIBE_OPTIONS_INIT;
        o.ids = ids.items;
        o.n_ids = ids.n;
        o.min_progress_step = (uint32_t)json_u64(b, "min_progress_step");
        o.min_interval_ms = (uint32_t)json_u64(b, "min_interval_ms");
        o.replay_from_seq = json_u64(b, "replay_from_seq");
        stash_state states[16];
        const json *names = json_get(b, "states");
        size_t n = 0;
        for (; names && n < names->n && n < 16; n++) states[n] = state_named(names->items[n]->text);
        o.states = states;
        o.n_states = n;
        stash_subscribe(c, &o);
    } else if (strcmp(op, "set_config") == 0) {
        stash_config_entry entries[8];
        const json *list = json_get(b, "entries");
        size_t n = 0;
        for (; list && n < list->n && n < 8; n++) {
            entries[n] = (stash_config_entry){json_text(list->items[n], "key", ""), json_text(list->items[n], "value", "")};
        }
        stash_config_set(c, entries, n, NULL);
    } else if (strcmp(op, "verify") == 0) {
        unsigned flags = (json_bool(b, "deep") ? STASH_VERIFY_DEEP : 0) | (json_bool(b, "repair") ? STASH_VERIFY_REPAIR : 0) |
                         (json_bool(b, "dry_run") ? STASH_VERIFY_DRY_RUN : 0);
        stash_verify(c, flags, NULL);
    } else if (strcmp(op, "get_manifest_info") == 0) {
        stash_header head[8];
        size_t n = headers(json_get(b, "headers"), head);
        stash_plan_options plan = STASH_PLAN_OPTIONS_INIT;
        plan.headers = head;
        plan.n_headers = n;
        plan.has_start = json_given(b, "start", &plan.start);
        plan.has_end = json_given(b, "end", &plan.end);
        if (plan.has_start || plan.has_end) stash_plan_with(c, json_text(b, "uri", ""), &plan, NULL);
        else stash_plan(c, json_text(b, "uri", ""), head, n, NULL);
    } else if (strcmp(op, "add_subtitles") == 0) {
        strings languages = text_list(json_get(b, "languages"));
        stash_subtitles_add(c, id, languages.items, languages.n, NULL, 0, NULL);
    } else if (strcmp(op, "get_playback_key") == 0) {
        stash_get_playback_key(c, id, json_text(b, "key_id", NULL), NULL);
    } else if (strcmp(op, "forget") == 0) {
        stash_forget(c, id, json_text(b, "move_to", ""), NULL);
    } else if (strcmp(op, "adopt") == 0) {
        stash_adopt_options o = STASH_ADOPT_OPTIONS_INIT;
        o.url = json_text(b, "url", NULL);
        o.sha256 = json_text(b, "sha256", NULL);
        o.link = json_bool(b, "link");
        stash_adopt(c, json_text(b, "path", ""), id, &o, NULL);
    } else if (strcmp(op, "export") == 0 && *json_text(b, "file", "")) {
        stash_export_options o = STASH_EXPORT_OPTIONS_INIT;
        const char *format = json_text(b, "format", "");
        o.format = strcmp(format, "EXPORT_FORMAT_MP4") == 0 ? "mp4" : strcmp(format, "EXPORT_FORMAT_MKV") == 0 ? "mkv" : NULL;
        o.force = json_bool(b, "force");
        o.link = json_bool(b, "link");
        stash_export_file(c, id, json_text(b, "file", ""), &o, NULL);
    } else if (strcmp(op, "export") == 0) {
        stash_export(c, id, json_text(b, "dir", ""), json_bool(b, "decrypt"), NULL);
    } else {
        return false;
    }
    return true;
}

static void check_request(const char *name, const json *value, const uint8_t *golden, size_t length) {
    const char *op = NULL;
    for (size_t i = 0; i < value->n; i++) {
        if (strcmp(value->keys[i], "id") != 0) op = value->keys[i];
    }
    const json *hello = json_get(value, "hello");
    stash_client *client = client_new_capture(json_u64(value, "id"), json_text(hello, "client_name", "libstash-client"));
    CHECK(op && call(client, op, json_get(value, op)), "%s: no call for the op %s", name, op ? op : "(none)");
    CHECK(client->captured_length == length && memcmp(client->captured, golden, length) == 0,
          "%s: the client wrote %zu bytes that differ from the %zu golden ones", name, client->captured_length, length);
    stash_client_close(client);
}

/* ------------------------------------------------------------------ decoded values as JSON */

#define STR(o, s, f) json_put(o, #f, json_new_string((s)->f))
#define NUM(o, s, f, fmt) json_put(o, #f, json_new_number(fmt, (s)->f))
#define U64(o, s, f) json_put(o, #f, json_new_number("%llu", (unsigned long long)(s)->f))
#define I64(o, s, f) json_put(o, #f, json_new_number("%lld", (long long)(s)->f))
#define U32(o, s, f) json_put(o, #f, json_new_number("%u", (unsigned)(s)->f))
#define DBL(o, s, f) json_put(o, #f, json_new_number("%.17g", (s)->f))
#define BOOL(o, s, f) json_put(o, #f, json_new_bool((s)->f))

static json *strings_json(const char *const *items, size_t n) {
    json *array = json_new_array();
    for (size_t i = 0; i < n; i++) json_push(array, json_new_string(items[i]));
    return array;
}

static json *headers_json(const stash_header *items, size_t n) {
    json *array = json_new_array();
    for (size_t i = 0; i < n; i++) {
        json *h = json_new_object();
        STR(h, &items[i], name);
        STR(h, &items[i], value);
        json_push(array, h);
    }
    return array;
}

static json *licence_json(const stash_license_status *l) {
    if (!l) return json_new_object();
    json *o = json_new_object();
    STR(o, l, id);
    BOOL(o, l, valid);
    STR(o, l, verdict);
    I64(o, l, license_seconds_left);
    I64(o, l, playback_seconds_left);
    I64(o, l, expires_at);
    I64(o, l, acquired_at);
    I64(o, l, first_playback_at);
    U32(o, l, keys);
    json_put(o, "state", json_new_string(stash_state_name(l->state)));
    I64(o, l, playback_duration);
    json_put(o, "key_ids", strings_json(l->key_ids, l->n_key_ids));
    return o;
}

static json *text_tracks_json(const stash_text_track *items, size_t n) {
    json *array = json_new_array();
    for (size_t i = 0; i < n; i++) {
        json *t = json_new_object();
        STR(t, &items[i], uri);
        STR(t, &items[i], lang);
        STR(t, &items[i], title);
        STR(t, &items[i], type);
        STR(t, &items[i], path);
        json_push(array, t);
    }
    return array;
}

static json *download_json(const stash_download *d) {
    json *o = json_new_object();
    STR(o, d, id);
    STR(o, d, uri);
    STR(o, d, title);
    json_put(o, "state", json_new_string(stash_state_name(d->state)));
    U32(o, d, progress);
    U64(o, d, downloaded_bytes);
    I64(o, d, total_bytes);
    U64(o, d, speed);
    I64(o, d, remaining_time);
    STR(o, d, quality);
    BOOL(o, d, has_subtitles);
    BOOL(o, d, has_drm);
    STR(o, d, asset_path);
    if (d->error) {
        json *e = json_new_object();
        json_put(e, "kind", json_new_string(stash_error_kind_name(d->error->kind)));
        STR(e, d->error, message);
        U32(e, d->error, http_status);
        json_put(o, "error", e);
    }
    I64(o, d, created_at);
    I64(o, d, completed_at);
    STR(o, d, sha256);
    json_put(o, "headers", headers_json(d->headers, d->n_headers));
    STR(o, d, state_reason);
    BOOL(o, d, bundle);
    json *files = json_new_array();
    for (size_t i = 0; i < d->n_files; i++) {
        json *f = json_new_object();
        STR(f, &d->files[i], url);
        STR(f, &d->files[i], path);
        U64(f, &d->files[i], size);
        STR(f, &d->files[i], sha256);
        U64(f, &d->files[i], downloaded_bytes);
        BOOL(f, &d->files[i], done);
        STR(f, &d->file_rules[i], expect);
        U64(f, &d->file_rules[i], min_size);
        json_push(files, f);
    }
    json_put(o, "files", files);
    U32(o, d, files_done);
    U32(o, d, files_total);
    if (d->hls) {
        json *h = json_new_object();
        STR(h, d->hls, quality);
        U32(h, d->hls, max_height);
        U64(h, d->hls, bandwidth);
        json_put(h, "subtitles", strings_json(d->hls->subtitles, d->hls->n_subtitles));
        json_put(h, "audio", strings_json(d->hls->audio, d->hls->n_audio));
        U32(h, d->hls, segment_concurrency);
        if (d->hls->has_start) DBL(h, d->hls, start);
        if (d->hls->has_end) DBL(h, d->hls, end);
        json_put(o, "hls", h);
    }
    if (d->drm) {
        json *r = json_new_object();
        STR(r, d->drm, type);
        STR(r, d->drm, license_server);
        json_put(r, "license_headers", headers_json(d->drm->license_headers, d->drm->n_license_headers));
        STR(r, d->drm, content_id);
        STR(r, d->drm, certificate_url);
        json_put(o, "drm", r);
    }
    if (d->license) json_put(o, "license", licence_json(d->license));
    json_put(o, "app_data", base64(d->app_data, d->n_app_data));
    STR(o, d, group);
    json_put(o, "text_tracks", text_tracks_json(d->text_tracks, d->n_text_tracks));
    U64(o, d, rate_limit);
    json_put(o, "priority", json_new_string(stash_priority_name(d->priority)));
    STR(o, d, expect);
    U64(o, d, min_size);
    STR(o, d, network);
    STR(o, d, on_battery);
    return o;
}

static json *state_counts_json(const stash_state_count *items, size_t n) {
    json *array = json_new_array();
    for (size_t i = 0; i < n; i++) {
        json *e = json_new_object();
        json_put(e, "state", json_new_string(stash_state_name(items[i].state)));
        U32(e, &items[i], count);
        json_push(array, e);
    }
    return array;
}

static json *report_json(const stash_verify_report *r) {
    json *o = json_new_object();
    json *findings = json_new_array();
    for (size_t i = 0; i < r->n_findings; i++) {
        const stash_finding *f = &r->findings[i];
        json *e = json_new_object();
        json_put(e, "kind", json_new_string(stash_finding_kind_name(f->kind)));
        STR(e, f, id);
        STR(e, f, path);
        STR(e, f, detail);
        BOOL(e, f, repaired);
        json_push(findings, e);
    }
    json_put(o, "findings", findings);
    U32(o, r, downloads_checked);
    U32(o, r, files_checked);
    I64(o, r, finished_at);
    U32(o, r, duration_ms);
    BOOL(o, r, deep);
    BOOL(o, r, repaired);
    U32(o, r, requeued);
    U32(o, r, files_deleted);
    U64(o, r, bytes_freed);
    return o;
}

static json *renditions_json(const stash_rendition_info *items, size_t n) {
    json *array = json_new_array();
    for (size_t i = 0; i < n; i++) {
        json *r = json_new_object();
        STR(r, &items[i], group_id);
        STR(r, &items[i], language);
        STR(r, &items[i], name);
        json_put(r, "default", json_new_bool(items[i].is_default));
        BOOL(r, &items[i], forced);
        STR(r, &items[i], uri);
        json_push(array, r);
    }
    return array;
}

static json *result_json(Stash__V1__Response__ResultCase result_case, const void *result) {
    json *o = json_new_object();
    switch (result_case) {
    case STASH__V1__RESPONSE__RESULT_HELLO: {
        const stash_hello_result *h = result;
        U32(o, h, protocol_version);
        STR(o, h, daemon_version);
        json_put(o, "features", strings_json(h->features, h->n_features));
        break;
    }
    case STASH__V1__RESPONSE__RESULT_DOWNLOAD: {
        const stash_download *d = result;
        json_put(o, "download", download_json(d));
        BOOL(o, d, created);
        break;
    }
    case STASH__V1__RESPONSE__RESULT_LIST: {
        const stash_download_list *l = result;
        json *downloads = json_new_array();
        for (size_t i = 0; i < l->n_downloads; i++) json_push(downloads, download_json(&l->downloads[i]));
        json_put(o, "downloads", downloads);
        STR(o, l, next_page_token);
        U32(o, l, total);
        json *t = json_new_object();
        U64(t, &l->totals, bytes_downloaded);
        U64(t, &l->totals, bytes_total);
        U32(t, &l->totals, files_done);
        U32(t, &l->totals, files_total);
        json_put(t, "states", state_counts_json(l->totals.states, l->totals.n_states));
        json_put(o, "totals", t);
        break;
    }
    case STASH__V1__RESPONSE__RESULT_HAS: {
        const has_result *h = result;
        BOOL(o, h, exists);
        json_put(o, "state", json_new_string(stash_state_name(h->state)));
        break;
    }
    case STASH__V1__RESPONSE__RESULT_COUNT:
        U32(o, (const count_result *)result, affected);
        break;
    case STASH__V1__RESPONSE__RESULT_STATS: {
        const stash_stats *s = result;
        U64(o, s, speed);
        json_put(o, "counts", state_counts_json(s->counts, s->n_counts));
        U32(o, s, active_transfers);
        U64(o, s, downloaded_bytes);
        break;
    }
    case STASH__V1__RESPONSE__RESULT_SYSTEM_INFO: {
        const stash_system_info *s = result;
        STR(o, s, data_dir);
        U64(o, s, disk_total);
        U64(o, s, disk_free);
        U64(o, s, bytes_held);
        STR(o, s, daemon_version);
        STR(o, s, socket_path);
        U32(o, s, download_count);
        json *bytes = json_new_array();
        for (size_t i = 0; i < s->n_bytes_by_state; i++) {
            json *e = json_new_object();
            json_put(e, "state", json_new_string(stash_state_name(s->bytes_by_state[i].state)));
            U64(e, &s->bytes_by_state[i], bytes);
            json_push(bytes, e);
        }
        json_put(o, "bytes_by_state", bytes);
        U32(o, s, asset_count);
        if (s->last_verify) json_put(o, "last_verify", report_json(s->last_verify));
        json_put(o, "warnings", strings_json(s->warnings, s->n_warnings));
        U64(o, s, rate_limit_now);
        json_put(o, "rate_limit_changes_at", json_new_number("%lld", (long long)s->rate_limit_changes_at));
        U64(o, s, rate_limit_next);
        BOOL(o, s, metered);
        BOOL(o, s, on_battery);
        STR(o, s, network_service);
        STR(o, s, power_service);
        STR(o, s, sleep_inhibitor);
        STR(o, s, notification_service);
        break;
    }
    case STASH__V1__RESPONSE__RESULT_CONFIG: {
        const stash_config *c = result;
        U32(o, c, max_parallel);
        U32(o, c, retry_max_attempts);
        U32(o, c, retry_base_delay_ms);
        U32(o, c, retry_max_delay_ms);
        U64(o, c, rate_limit);
        U32(o, c, low_speed_limit);
        U32(o, c, low_speed_time);
        U32(o, c, files_per_download);
        U32(o, c, max_connections);
        U32(o, c, max_connections_per_host);
        U64(o, c, storage_reserve);
        STR(o, c, rate_schedule);
        BOOL(o, c, preempt);
        STR(o, c, network);
        STR(o, c, on_battery);
        STR(o, c, notify);
        STR(o, c, inhibit_sleep);
        break;
    }
    case STASH__V1__RESPONSE__RESULT_VERIFY:
        json_free(o);
        return report_json(result);
    case STASH__V1__RESPONSE__RESULT_PURGE: {
        const stash_purge_result *p = result;
        U32(o, p, files_deleted);
        U64(o, p, bytes_freed);
        json_put(o, "paths", strings_json(p->paths, p->n_paths));
        break;
    }
    case STASH__V1__RESPONSE__RESULT_MANIFEST_INFO: {
        const stash_manifest_info *m = result;
        json *variants = json_new_array();
        for (size_t i = 0; i < m->n_variants; i++) {
            const stash_variant_info *v = &m->variants[i];
            json *e = json_new_object();
            STR(e, v, uri);
            U64(e, v, bandwidth);
            U64(e, v, average_bandwidth);
            U32(e, v, width);
            U32(e, v, height);
            json_put(e, "codecs", strings_json(v->codecs, v->n_codecs));
            DBL(e, v, frame_rate);
            json_put(e, "encryption", strings_json(v->encryption, v->n_encryption));
            U64(e, v, estimated_bytes);
            BOOL(e, v, size_is_exact);
            DBL(e, v, duration);
            json_push(variants, e);
        }
        json_put(o, "variants", variants);
        json_put(o, "audio", renditions_json(m->audio, m->n_audio));
        json_put(o, "subtitles", renditions_json(m->subtitles, m->n_subtitles));
        DBL(o, m, duration);
        json_put(o, "warnings", strings_json(m->warnings, m->n_warnings));
        if (m->has_range) {
            DBL(o, m, start);
            DBL(o, m, end);
        }
        break;
    }
    case STASH__V1__RESPONSE__RESULT_EXPORT: {
        const stash_export_result *e = result;
        STR(o, e, dir);
        U32(o, e, files);
        U64(o, e, bytes);
        BOOL(o, e, decrypted);
        STR(o, e, file);
        if (strcmp(e->format, "mp4") == 0) json_put(o, "format", json_new_string("EXPORT_FORMAT_MP4"));
        if (strcmp(e->format, "mkv") == 0) json_put(o, "format", json_new_string("EXPORT_FORMAT_MKV"));
        static const char *const kinds[] = {"", "EXPORT_TRACK_VIDEO", "EXPORT_TRACK_AUDIO", "EXPORT_TRACK_SUBTITLES"};
        json *tracks = json_new_array();
        for (size_t i = 0; i < e->n_tracks; i++) {
            const stash_export_track *t = &e->tracks[i];
            json *track = json_new_object();
            json_put(track, "kind", json_new_string(kinds[t->kind]));
            STR(track, t, language);
            STR(track, t, codec);
            STR(track, t, title);
            json_push(tracks, track);
        }
        json_put(o, "tracks", tracks);
        BOOL(o, e, linked);
        break;
    }
    case STASH__V1__RESPONSE__RESULT_SUBTITLES: {
        const stash_subtitles *s = result;
        json_put(o, "subtitles", renditions_json(s->subtitles, s->n_subtitles));
        json_put(o, "text_tracks", text_tracks_json(s->text_tracks, s->n_text_tracks));
        break;
    }
    case STASH__V1__RESPONSE__RESULT_LICENSE:
        json_free(o);
        return licence_json(result);
    case STASH__V1__RESPONSE__RESULT_PLAYBACK_KEY: {
        const stash_playback_key *k = result;
        json_put(o, "key", base64(k->key, k->n_key));
        STR(o, k, key_id);
        I64(o, k, playback_seconds_left);
        break;
    }
    default:
        break;
    }
    return o;
}

static json *event_json(const stash_event *e) {
    json *o = json_new_object();
    U64(o, e, seq);
    I64(o, e, time);
    json *kind = json_new_object();
    switch (e->kind) {
    case STASH_EVENT_STATE_CHANGED:
        json_put(kind, "download", download_json(e->state_changed.download));
        json_put(kind, "previous", json_new_string(stash_state_name(e->state_changed.previous)));
        json_put(o, "state_changed", kind);
        break;
    case STASH_EVENT_PROGRESS:
        STR(kind, &e->progress, id);
        U64(kind, &e->progress, downloaded_bytes);
        I64(kind, &e->progress, total_bytes);
        U32(kind, &e->progress, progress);
        U64(kind, &e->progress, speed);
        I64(kind, &e->progress, remaining_time);
        U32(kind, &e->progress, files_done);
        U32(kind, &e->progress, files_total);
        json_put(o, "progress", kind);
        break;
    case STASH_EVENT_REMOVED:
        STR(kind, &e->removed, id);
        json_put(o, "removed", kind);
        break;
    case STASH_EVENT_LICENSE:
        STR(kind, &e->license, id);
        json_put(kind, "kind", json_new_string(stash_license_event_kind_name(e->license.kind)));
        STR(kind, &e->license, message);
        if (e->license.status) json_put(kind, "status", licence_json(e->license.status));
        json_put(o, "license", kind);
        break;
    case STASH_EVENT_EVENTS_LOST:
        U64(kind, &e->events_lost, first_seq);
        U64(kind, &e->events_lost, last_seq);
        U32(kind, &e->events_lost, count);
        json_put(o, "events_lost", kind);
        break;
    case STASH_EVENT_SETTINGS_CHANGED: {
        json_put(kind, "download", download_json(e->settings_changed.download));
        json *changed = json_new_array();
        for (size_t i = 0; i < e->settings_changed.n_changed; i++) json_push(changed, json_new_string(e->settings_changed.changed[i]));
        json_put(kind, "changed", changed);
        json_put(o, "settings_changed", kind);
        break;
    }
    case STASH_EVENT_EXPORT_PROGRESS:
        STR(kind, &e->export_progress, id);
        STR(kind, &e->export_progress, file);
        U64(kind, &e->export_progress, bytes_done);
        U64(kind, &e->export_progress, bytes_total);
        U32(kind, &e->export_progress, progress);
        json_put(o, "export_progress", kind);
        break;
    }
    return json_put(json_new_object(), "event", o);
}

static void check_server_message(const char *name, const json *description, const uint8_t *golden, size_t length) {
    CHECK(length >= 4 && (size_t)(golden[0] << 24 | golden[1] << 16 | golden[2] << 8 | golden[3]) == length - 4,
          "%s: the length prefix", name);
    decoded_message message;
    char *error = NULL;
    stash_status status = decode_server_message(golden + 4, length - 4, &message, &error);
    CHECK(status == STASH_OK, "%s: %s", name, error ? error : "");
    free(error);
    if (status != STASH_OK) return;
    json *actual;
    if (message.is_response) {
        json *response = json_new_object();
        json_put(response, "id", json_new_number("%llu", (unsigned long long)message.response_id));
        if (message.status != STASH_OK) {
            json *s = json_new_object();
            json_put(s, "code", json_new_string(stash_status_name(message.status)));
            json_put(s, "message", json_new_string(message.message));
            json_put(response, "status", s);
        } else if (message.result_case != STASH__V1__RESPONSE__RESULT__NOT_SET) {
            json_put(response, result_case_name(message.result_case), result_json(message.result_case, message.result));
        }
        actual = json_put(json_new_object(), "response", response);
    } else if (message.event) {
        actual = event_json(message.event);
    } else {
        CHECK(strcmp(json_text(description, "unknown_in", ""), "event") == 0, "%s: an event was skipped", name);
        decoded_message_clear(&message);
        return;
    }
    char where[1024];
    CHECK(json_same(json_get(description, "value"), actual, where, sizeof where), "%s: %s", name, where);
    json_free(actual);
    decoded_message_clear(&message);
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static int is_description(const struct dirent *entry) {
    size_t n = strlen(entry->d_name);
    return n > 5 && strcmp(entry->d_name + n - 5, ".json") == 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_golden DIR\n");
        return 2;
    }
    struct dirent **entries;
    int count = scandir(argv[1], &entries, is_description, by_name);
    CHECK(count > 0, "no golden frames in %s", argv[1]);
    int requests = 0, messages = 0;
    for (int i = 0; i < count; i++) {
        char path[4096], bin[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], entries[i]->d_name);
        snprintf(bin, sizeof bin, "%.*s.bin", (int)(strlen(path) - 5), path);
        size_t text_length, length = 0;
        char *text = read_file(path, &text_length);
        uint8_t *golden = (uint8_t *)read_file(bin, &length);
        char *error = NULL;
        json *description = text ? json_parse(text, &error) : NULL;
        CHECK(description && golden, "%s: %s", entries[i]->d_name, error ? error : "cannot read it or its .bin");
        if (description && golden) {
            const char *kind = json_text(description, "message", "");
            if (strcmp(kind, "Request") == 0) {
                check_request(entries[i]->d_name, json_get(description, "value"), golden, length);
                requests++;
            } else {
                check_server_message(entries[i]->d_name, description, golden, length);
                messages++;
            }
        }
        free(error);
        json_free(description);
        free(text);
        free(golden);
        free(entries[i]);
    }
    free(entries);
    if (failures) fprintf(stderr, "test_golden: %d checks failed\n", failures);
    else printf("test_golden: %d requests and %d server messages as described\n", requests, messages);
    return failures ? 1 : 0;
}
