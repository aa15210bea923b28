/* ServerMessage payloads into the public structs of stash/client.h. Strings and byte fields
 * point into the unpacked message, which lives in the same arena as the result, so nothing is
 * copied. Every enum number is checked against the tables of PROTOCOL.md section 9: a number
 * this library does not know makes the message unreadable, as the protocol asks; so does a
 * string that is not UTF-8 or holds a NUL, or a record whose numbers cannot be (validate.c). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct decoder {
    stash_arena *arena;
    char *error;
    stash_status status;
} decoder;

__attribute__((format(printf, 2, 3))) static bool fail(decoder *d, const char *format, ...) {
    if (d->error) return false;
    va_list args;
    va_start(args, format);
    if (vasprintf(&d->error, format, args) < 0) d->error = NULL;
    va_end(args);
    d->status = STASH_INTERNAL;
    return false;
}

/* An allocation failed: past the budget (a message too large decoded) or out of memory. */
static bool out_of_memory(decoder *d, const char *what) {
    if (arena_over_budget(d->arena)) {
        fail(d, "%s: the message takes more than %u bytes decoded (STASH_MAX_DECODED_BYTES)", what,
             STASH_MAX_DECODED_BYTES);
    } else {
        fail(d, "%s: out of memory", what);
    }
    d->status = STASH_RESOURCE_EXHAUSTED;
    return false;
}

/* A check of validate.c: true when it found nothing, else its message is the decoder's error. */
static bool valid(decoder *d, char *problem) {
    if (!problem) return true;
    if (d->error) free(problem);
    else d->error = problem;
    d->status = STASH_INTERNAL;
    return false;
}

static void *alloc_array(decoder *d, size_t count, size_t size, const char *what) {
    if (count == 0) return NULL;
    void *p = arena_array(d->arena, count, size);
    if (!p) out_of_memory(d, what);
    return p;
}

static void *alloc_one(decoder *d, size_t size, const char *what) {
    void *p = arena_alloc(d->arena, size);
    if (!p) out_of_memory(d, what);
    return p;
}

static const char *text(const char *s) { return s ? s : ""; }

/* A config setting that is one word ("unmetered", "pause") into its fixed field of stash_config. */
static bool config_word(decoder *d, const char *s, const char *field, char out[STASH_MAX_CONFIG_WORD + 1]) {
    size_t length = s ? strlen(s) : 0;
    if (length > STASH_MAX_CONFIG_WORD) return fail(d, "%s: %zu bytes, above the %u this library holds", field, length, STASH_MAX_CONFIG_WORD);
    if (length) memcpy(out, s, length);
    out[length] = 0;
    return true;
}

static bool check_enum(decoder *d, int value, int last, const char *field, const char *what) {
    if (value >= 0 && value <= last) return true;
    return fail(d, "stashd sent %s %d, not a %s this client knows (0 to %d)", field, value, what, last);
}

static bool state(decoder *d, int value, const char *field, stash_state *out) {
    if (!check_enum(d, value, STASH_STATE_RESTARTING, field, "state")) return false;
    *out = (stash_state)value;
    return true;
}

static const stash_header *headers(decoder *d, size_t n, Stash__V1__Header **in, const char *what) {
    stash_header *out = alloc_array(d, n, sizeof *out, what);
    for (size_t i = 0; out && i < n; i++) {
        out[i].name = text(in[i]->name);
        out[i].value = text(in[i]->value);
    }
    return out;
}

/* protobuf-c's repeated strings are already an array of NUL-terminated strings. */
static const char *const *strings(char **in) { return (const char *const *)in; }

static bool license_status(decoder *d, const Stash__V1__LicenseStatus *in, stash_license_status *out) {
    if (!valid(d, check_license_numbers(in))) return false;
    out->id = text(in->id);
    out->valid = in->valid;
    out->verdict = text(in->verdict);
    out->license_seconds_left = in->license_seconds_left;
    out->playback_seconds_left = in->playback_seconds_left;
    out->expires_at = in->expires_at;
    out->acquired_at = in->acquired_at;
    out->first_playback_at = in->first_playback_at;
    out->keys = in->keys;
    out->playback_duration = in->playback_duration;
    out->key_ids = strings(in->key_ids);
    out->n_key_ids = in->n_key_ids;
    return state(d, in->state, "LicenseStatus.state", &out->state);
}

static const stash_license_status *license_status_copy(decoder *d, const Stash__V1__LicenseStatus *in) {
    if (!in) return NULL;
    stash_license_status *out = alloc_one(d, sizeof *out, "LicenseStatus");
    if (!out || !license_status(d, in, out)) return NULL;
    return out;
}

static const stash_text_track *text_tracks(decoder *d, size_t n, Stash__V1__TextTrack **in) {
    stash_text_track *out = alloc_array(d, n, sizeof *out, "text_tracks");
    for (size_t i = 0; out && i < n; i++) {
        out[i].uri = text(in[i]->uri);
        out[i].lang = text(in[i]->lang);
        out[i].title = text(in[i]->title);
        out[i].type = text(in[i]->type);
        out[i].path = text(in[i]->path);
    }
    return out;
}

static bool download(decoder *d, const Stash__V1__Download *in, stash_download *out) {
    if (!valid(d, check_download_numbers(in))) return false;
    out->id = text(in->id);
    out->uri = text(in->uri);
    out->title = text(in->title);
    if (!state(d, in->state, "Download.state", &out->state)) return false;
    out->progress = in->progress;
    out->downloaded_bytes = in->downloaded_bytes;
    out->total_bytes = in->total_bytes;
    out->speed = in->speed;
    out->remaining_time = in->remaining_time;
    out->quality = text(in->quality);
    out->has_subtitles = in->has_subtitles;
    out->has_drm = in->has_drm;
    out->asset_path = text(in->asset_path);
    if (in->error) {
        stash_download_error *error = alloc_one(d, sizeof *error, "Download.error");
        if (!error) return false;
        if (!check_enum(d, in->error->kind, STASH_ERROR_INTERNAL, "DownloadError.kind", "error kind")) return false;
        error->kind = (stash_error_kind)in->error->kind;
        error->message = text(in->error->message);
        error->http_status = in->error->http_status;
        out->error = error;
    }
    out->created_at = in->created_at;
    out->completed_at = in->completed_at;
    out->sha256 = text(in->sha256);
    out->headers = headers(d, in->n_headers, in->headers, "Download.headers");
    out->n_headers = in->n_headers;
    out->state_reason = text(in->state_reason);
    out->bundle = in->bundle;
    stash_bundle_file *files = alloc_array(d, in->n_files, sizeof *files, "Download.files");
    stash_file_rules *rules = alloc_array(d, in->n_files, sizeof *rules, "Download.files");
    for (size_t i = 0; files && rules && i < in->n_files; i++) {
        const Stash__V1__BundleFile *f = in->files[i];
        files[i] = (stash_bundle_file){text(f->url), text(f->path), f->size, text(f->sha256), f->downloaded_bytes, f->done};
        rules[i] = (stash_file_rules){text(f->expect), f->min_size};
    }
    out->files = files;
    out->file_rules = rules;
    out->n_files = in->n_files;
    out->files_done = in->files_done;
    out->files_total = in->files_total;
    if (in->hls) {
        stash_hls_options *hls = alloc_one(d, sizeof *hls, "Download.hls");
        if (!hls) return false;
        bool has_start = in->hls->start_given_case == STASH__V1__HLS_OPTIONS__START_GIVEN_START;
        bool has_end = in->hls->end_given_case == STASH__V1__HLS_OPTIONS__END_GIVEN_END;
        *hls = (stash_hls_options){sizeof *hls,
                                   text(in->hls->quality),
                                   in->hls->max_height,
                                   in->hls->bandwidth,
                                   strings(in->hls->subtitles),
                                   in->hls->n_subtitles,
                                   strings(in->hls->audio),
                                   in->hls->n_audio,
                                   in->hls->segment_concurrency,
                                   has_start ? in->hls->start : 0,
                                   has_end ? in->hls->end : 0,
                                   has_start,
                                   has_end};
        out->hls = hls;
    }
    if (in->drm) {
        stash_drm_params *drm = alloc_one(d, sizeof *drm, "Download.drm");
        if (!drm) return false;
        drm->struct_size = sizeof *drm;
        drm->type = text(in->drm->type);
        drm->license_server = text(in->drm->license_server);
        drm->license_headers = headers(d, in->drm->n_license_headers, in->drm->license_headers, "DrmParams.license_headers");
        drm->n_license_headers = in->drm->n_license_headers;
        drm->content_id = text(in->drm->content_id);
        drm->certificate_url = text(in->drm->certificate_url);
        out->drm = drm;
    }
    if (in->license && !(out->license = license_status_copy(d, in->license))) return false;
    out->app_data = in->app_data.len ? in->app_data.data : NULL;
    out->n_app_data = in->app_data.len;
    out->group = text(in->group);
    out->text_tracks = text_tracks(d, in->n_text_tracks, in->text_tracks);
    out->n_text_tracks = in->n_text_tracks;
    out->rate_limit = in->rate_limit;
    if (!check_enum(d, in->priority, STASH_PRIORITY_HIGH, "Download.priority", "priority")) return false;
    out->priority = (stash_priority)in->priority;
    out->expect = text(in->expect);
    out->network = text(in->network);
    out->on_battery = text(in->on_battery);
    out->min_size = in->min_size;
    return d->error == NULL;
}

/* A record the daemon left out reads as the empty record, so no string is ever NULL. */
static const Stash__V1__Download empty_download = STASH__V1__DOWNLOAD__INIT;

static const stash_state_count *state_counts(decoder *d, size_t n, Stash__V1__StateCount **in, const char *field) {
    stash_state_count *out = alloc_array(d, n, sizeof *out, field);
    for (size_t i = 0; out && i < n; i++) {
        if (!state(d, in[i]->state, field, &out[i].state)) return NULL;
        out[i].count = in[i]->count;
    }
    return out;
}

static bool verify_report(decoder *d, const Stash__V1__VerifyReport *in, stash_verify_report *out) {
    stash_finding *findings = alloc_array(d, in->n_findings, sizeof *findings, "VerifyReport.findings");
    for (size_t i = 0; findings && i < in->n_findings; i++) {
        const Stash__V1__Finding *f = in->findings[i];
        if (!check_enum(d, f->kind, STASH_FINDING_STALE_PART, "Finding.kind", "finding kind")) return false;
        findings[i] = (stash_finding){(stash_finding_kind)f->kind, text(f->id), text(f->path), text(f->detail), f->repaired};
    }
    out->findings = findings;
    out->n_findings = in->n_findings;
    out->downloads_checked = in->downloads_checked;
    out->files_checked = in->files_checked;
    out->finished_at = in->finished_at;
    out->duration_ms = in->duration_ms;
    out->deep = in->deep;
    out->repaired = in->repaired;
    out->requeued = in->requeued;
    out->files_deleted = in->files_deleted;
    out->bytes_freed = in->bytes_freed;
    return d->error == NULL;
}

static const stash_rendition_info *renditions(decoder *d, size_t n, Stash__V1__RenditionInfo **in, const char *field) {
    stash_rendition_info *out = alloc_array(d, n, sizeof *out, field);
    for (size_t i = 0; out && i < n; i++) {
        const Stash__V1__RenditionInfo *r = in[i];
        out[i] = (stash_rendition_info){text(r->group_id), text(r->language), text(r->name), r->default_, r->forced,
                                        text(r->uri)};
    }
    return out;
}

#define RESULT(type, name) \
    type *name = owned_alloc(d->arena, sizeof *name); \
    if (!name) return out_of_memory(d, #type), NULL

/* The result of an OK response as its public type, allocated as the arena's owner. */
static void *result(decoder *d, const Stash__V1__Response *in) {
    switch (in->result_case) {
    case STASH__V1__RESPONSE__RESULT_HELLO: {
        RESULT(stash_hello_result, out);
        out->protocol_version = in->hello->protocol_version;
        out->daemon_version = text(in->hello->daemon_version);
        out->features = strings(in->hello->features);
        out->n_features = in->hello->n_features;
        return out;
    }
    case STASH__V1__RESPONSE__RESULT_DOWNLOAD: {
        RESULT(stash_download, out);
        const Stash__V1__Download *record = in->download->download ? in->download->download : &empty_download;
        if (!download(d, record, out)) return NULL;
        out->created = in->download->created;
        return out;
    }
    case STASH__V1__RESPONSE__RESULT_LIST: {
        RESULT(stash_download_list, out);
        const Stash__V1__ListDownloadsResult *list = in->list;
        stash_download *downloads = alloc_array(d, list->n_downloads, sizeof *downloads, "ListDownloadsResult.downloads");
        for (size_t i = 0; downloads && i < list->n_downloads; i++) {
            if (!download(d, list->downloads[i], &downloads[i])) return NULL;
        }
        out->downloads = downloads;
        out->n_downloads = list->n_downloads;
        out->next_page_token = text(list->next_page_token);
        out->total = list->total;
        if (list->totals) {
            const Stash__V1__GroupTotals *t = list->totals;
            if (!valid(d, check_totals_numbers(t))) return NULL;
            out->totals.bytes_downloaded = t->bytes_downloaded;
            out->totals.bytes_total = t->bytes_total;
            out->totals.files_done = t->files_done;
            out->totals.files_total = t->files_total;
            out->totals.states = state_counts(d, t->n_states, t->states, "GroupTotals.states");
            out->totals.n_states = t->n_states;
        }
        return d->error ? NULL : out;
    }
    case STASH__V1__RESPONSE__RESULT_HAS: {
        RESULT(has_result, out);
        out->exists = in->has->exists;
        return state(d, in->has->state, "HasDownloadResult.state", &out->state) ? out : NULL;
    }
    case STASH__V1__RESPONSE__RESULT_COUNT: {
        RESULT(count_result, out);
        out->affected = in->count->affected;
        return out;
    }
    case STASH__V1__RESPONSE__RESULT_STATS: {
        RESULT(stash_stats, out);
        out->speed = in->stats->speed;
        out->counts = state_counts(d, in->stats->n_counts, in->stats->counts, "StatsResult.counts");
        out->n_counts = in->stats->n_counts;
        out->active_transfers = in->stats->active_transfers;
        out->downloaded_bytes = in->stats->downloaded_bytes;
        return d->error ? NULL : out;
    }
    case STASH__V1__RESPONSE__RESULT_SYSTEM_INFO: {
        RESULT(stash_system_info, out);
        const Stash__V1__SystemInfoResult *s = in->system_info;
        out->data_dir = text(s->data_dir);
        out->disk_total = s->disk_total;
        out->disk_free = s->disk_free;
        out->bytes_held = s->bytes_held;
        out->daemon_version = text(s->daemon_version);
        out->socket_path = text(s->socket_path);
        out->download_count = s->download_count;
        stash_state_bytes *bytes = alloc_array(d, s->n_bytes_by_state, sizeof *bytes, "SystemInfoResult.bytes_by_state");
        for (size_t i = 0; bytes && i < s->n_bytes_by_state; i++) {
            if (!state(d, s->bytes_by_state[i]->state, "StateBytes.state", &bytes[i].state)) return NULL;
            bytes[i].bytes = s->bytes_by_state[i]->bytes;
        }
        out->bytes_by_state = bytes;
        out->n_bytes_by_state = s->n_bytes_by_state;
        out->asset_count = s->asset_count;
        if (s->last_verify) {
            stash_verify_report *report = alloc_one(d, sizeof *report, "SystemInfoResult.last_verify");
            if (!report || !verify_report(d, s->last_verify, report)) return NULL;
            out->last_verify = report;
        }
        out->warnings = strings(s->warnings);
        out->n_warnings = s->n_warnings;
        out->rate_limit_now = s->rate_limit_now;
        out->rate_limit_changes_at = s->rate_limit_changes_at;
        out->rate_limit_next = s->rate_limit_next;
        out->metered = s->metered;
        out->on_battery = s->on_battery;
        out->network_service = text(s->network_service);
        out->power_service = text(s->power_service);
        out->sleep_inhibitor = text(s->sleep_inhibitor);
        out->notification_service = text(s->notification_service);
        return d->error ? NULL : out;
    }
    case STASH__V1__RESPONSE__RESULT_CONFIG: {
        RESULT(stash_config, out);
        const Stash__V1__Config *c = in->config;
        *out = (stash_config){c->max_parallel,   c->retry_max_attempts, c->retry_base_delay_ms, c->retry_max_delay_ms,
                              c->rate_limit,     c->low_speed_limit,    c->low_speed_time,      c->files_per_download,
                              c->max_connections, c->max_connections_per_host, c->storage_reserve, {0}, c->preempt, {0}, {0}, {0}, {0}};
        size_t length = c->rate_schedule ? strlen(c->rate_schedule) : 0;
        if (length > STASH_MAX_RATE_SCHEDULE) {
            fail(d, "Config.rate_schedule: %zu bytes, above the %u this library holds", length, STASH_MAX_RATE_SCHEDULE);
            return NULL;
        }
        if (length) memcpy(out->rate_schedule, c->rate_schedule, length);
        if (!config_word(d, c->network, "Config.network", out->network)) return NULL;
        if (!config_word(d, c->on_battery, "Config.on_battery", out->on_battery)) return NULL;
        if (!config_word(d, c->notify, "Config.notify", out->notify)) return NULL;
        if (!config_word(d, c->inhibit_sleep, "Config.inhibit_sleep", out->inhibit_sleep)) return NULL;
        return out;
    }
    case STASH__V1__RESPONSE__RESULT_VERIFY: {
        RESULT(stash_verify_report, out);
        return verify_report(d, in->verify, out) ? out : NULL;
    }
    case STASH__V1__RESPONSE__RESULT_PURGE: {
        RESULT(stash_purge_result, out);
        out->files_deleted = in->purge->files_deleted;
        out->bytes_freed = in->purge->bytes_freed;
        out->paths = strings(in->purge->paths);
        out->n_paths = in->purge->n_paths;
        return out;
    }
    case STASH__V1__RESPONSE__RESULT_MANIFEST_INFO: {
        RESULT(stash_manifest_info, out);
        const Stash__V1__ManifestInfoResult *m = in->manifest_info;
        stash_variant_info *variants = alloc_array(d, m->n_variants, sizeof *variants, "ManifestInfoResult.variants");
        for (size_t i = 0; variants && i < m->n_variants; i++) {
            const Stash__V1__VariantInfo *v = m->variants[i];
            variants[i] = (stash_variant_info){text(v->uri),        v->bandwidth,     v->average_bandwidth,
                                               v->width,            v->height,        strings(v->codecs),
                                               v->n_codecs,         v->frame_rate,    strings(v->encryption),
                                               v->n_encryption,     v->estimated_bytes, v->size_is_exact,
                                               v->duration};
        }
        out->variants = variants;
        out->n_variants = m->n_variants;
        out->audio = renditions(d, m->n_audio, m->audio, "ManifestInfoResult.audio");
        out->n_audio = m->n_audio;
        out->subtitles = renditions(d, m->n_subtitles, m->subtitles, "ManifestInfoResult.subtitles");
        out->n_subtitles = m->n_subtitles;
        out->duration = m->duration;
        out->has_range = m->start_given_case == STASH__V1__MANIFEST_INFO_RESULT__START_GIVEN_START
                         || m->end_given_case == STASH__V1__MANIFEST_INFO_RESULT__END_GIVEN_END;
        out->start = m->start_given_case == STASH__V1__MANIFEST_INFO_RESULT__START_GIVEN_START ? m->start : 0;
        out->end = m->end_given_case == STASH__V1__MANIFEST_INFO_RESULT__END_GIVEN_END ? m->end : 0;
        out->warnings = strings(m->warnings);
        out->n_warnings = m->n_warnings;
        return d->error ? NULL : out;
    }
    case STASH__V1__RESPONSE__RESULT_EXPORT: {
        RESULT(stash_export_result, out);
        const Stash__V1__ExportResult *e = in->export;
        const char *format = "";
        switch (e->format) {
        case STASH__V1__EXPORT_FORMAT__EXPORT_FORMAT_UNSPECIFIED: break;
        case STASH__V1__EXPORT_FORMAT__EXPORT_FORMAT_MP4: format = "mp4"; break;
        case STASH__V1__EXPORT_FORMAT__EXPORT_FORMAT_MKV: format = "mkv"; break;
        default: return fail(d, "stashd sent ExportResult.format %d, not a format this client knows (0 to 2)", (int)e->format), NULL;
        }
        stash_export_track *tracks = alloc_array(d, e->n_tracks, sizeof *tracks, "ExportResult.tracks");
        for (size_t i = 0; tracks && i < e->n_tracks; i++) {
            const Stash__V1__ExportTrack *t = e->tracks[i];
            if ((int)t->kind < STASH_EXPORT_TRACK_VIDEO || (int)t->kind > STASH_EXPORT_TRACK_SUBTITLES)
                return fail(d, "stashd sent ExportTrack.kind %d, not a track kind this client knows (1 to 3)", (int)t->kind), NULL;
            tracks[i] = (stash_export_track){(stash_export_track_kind)t->kind, text(t->language), text(t->codec), text(t->title)};
        }
        if (d->error) return NULL;
        *out = (stash_export_result){text(e->dir), e->files,  e->bytes,   e->decrypted, text(e->file),
                                     format,       tracks,    e->n_tracks, e->linked};
        return out;
    }
    case STASH__V1__RESPONSE__RESULT_SUBTITLES: {
        RESULT(stash_subtitles, out);
        out->subtitles = renditions(d, in->subtitles->n_subtitles, in->subtitles->subtitles, "SubtitlesResult.subtitles");
        out->n_subtitles = in->subtitles->n_subtitles;
        out->text_tracks = text_tracks(d, in->subtitles->n_text_tracks, in->subtitles->text_tracks);
        out->n_text_tracks = in->subtitles->n_text_tracks;
        return d->error ? NULL : out;
    }
    case STASH__V1__RESPONSE__RESULT_LICENSE: {
        RESULT(stash_license_status, out);
        return license_status(d, in->license, out) ? out : NULL;
    }
    case STASH__V1__RESPONSE__RESULT_PLAYBACK_KEY: {
        RESULT(stash_playback_key, out);
        const Stash__V1__PlaybackKeyResult *k = in->playback_key;
        if (!valid(d, check_playback_key_numbers(k))) return NULL;
        *out = (stash_playback_key){k->key.len ? k->key.data : NULL, k->key.len, text(k->key_id), k->playback_seconds_left};
        return out;
    }
    default:
        /* No result, or one of a later version: the caller decides whether it needed one. */
        return NULL;
    }
}

static stash_event *event(decoder *d, const Stash__V1__Event *in) {
    if (in->kind_case == STASH__V1__EVENT__KIND__NOT_SET) return NULL; /* a kind of a later version: skipped */
    RESULT(stash_event, out);
    out->seq = in->seq;
    out->time = in->time;
    out->kind = (stash_event_kind)in->kind_case;
    switch (in->kind_case) {
    case STASH__V1__EVENT__KIND_STATE_CHANGED: {
        stash_download *record = alloc_one(d, sizeof *record, "StateChanged.download");
        const Stash__V1__Download *wire = in->state_changed->download ? in->state_changed->download : &empty_download;
        if (!record || !download(d, wire, record)) return NULL;
        out->state_changed.download = record;
        if (!state(d, in->state_changed->previous, "StateChanged.previous", &out->state_changed.previous)) return NULL;
        break;
    }
    case STASH__V1__EVENT__KIND_PROGRESS: {
        const Stash__V1__Progress *p = in->progress;
        if (!valid(d, check_progress_numbers(p))) return NULL;
        out->progress = (stash_progress){text(p->id), p->downloaded_bytes, p->total_bytes, p->progress,
                                         p->speed,    p->remaining_time,   p->files_done,  p->files_total};
        break;
    }
    case STASH__V1__EVENT__KIND_REMOVED:
        out->removed.id = text(in->removed->id);
        break;
    case STASH__V1__EVENT__KIND_LICENSE: {
        const Stash__V1__LicenseEvent *l = in->license;
        if (!check_enum(d, l->kind, STASH_LICENSE_EVENT_ERROR, "LicenseEvent.kind", "licence event kind")) return NULL;
        out->license.id = text(l->id);
        out->license.kind = (stash_license_event_kind)l->kind;
        out->license.message = text(l->message);
        if (l->status && !(out->license.status = license_status_copy(d, l->status))) return NULL;
        break;
    }
    case STASH__V1__EVENT__KIND_EVENTS_LOST:
        out->events_lost.first_seq = in->events_lost->first_seq;
        out->events_lost.last_seq = in->events_lost->last_seq;
        out->events_lost.count = in->events_lost->count;
        break;
    case STASH__V1__EVENT__KIND_SETTINGS_CHANGED: {
        stash_download *record = alloc_one(d, sizeof *record, "SettingsChanged.download");
        const Stash__V1__Download *wire = in->settings_changed->download ? in->settings_changed->download : &empty_download;
        if (!record || !download(d, wire, record)) return NULL;
        out->settings_changed.download = record;
        out->settings_changed.changed = (const char *const *)in->settings_changed->changed;
        out->settings_changed.n_changed = in->settings_changed->n_changed;
        break;
    }
    case STASH__V1__EVENT__KIND_EXPORT_PROGRESS: {
        const Stash__V1__ExportProgress *p = in->export_progress;
        if (!valid(d, check_export_progress_numbers(p))) return NULL;
        out->export_progress.id = text(p->id);
        out->export_progress.file = text(p->file);
        out->export_progress.bytes_done = p->bytes_done;
        out->export_progress.bytes_total = p->bytes_total;
        out->export_progress.progress = p->progress;
        break;
    }
    default:
        return NULL;
    }
    return out;
}

stash_status decode_server_message(const uint8_t *payload, size_t length, decoded_message *out, char **error) {
    memset(out, 0, sizeof *out);
    *error = NULL;
    decoder d = {.arena = arena_create(STASH_MAX_DECODED_BYTES), .status = STASH_OK};
    if (!d.arena) {
        *error = strdup("decoding a message from stashd: out of memory");
        return STASH_RESOURCE_EXHAUSTED;
    }
    ProtobufCAllocator allocator = arena_allocator(d.arena);
    Stash__V1__ServerMessage *message = stash__v1__server_message__unpack(&allocator, length, payload);
    void *owner = NULL;
    char *bad_string = NULL;
    if (!message) {
        if (arena_over_budget(d.arena)) {
            fail(&d, "stashd sent a message of %zu bytes that takes more than %u bytes decoded (STASH_MAX_DECODED_BYTES)",
                 length, STASH_MAX_DECODED_BYTES);
            d.status = STASH_RESOURCE_EXHAUSTED;
        } else {
            fail(&d, "stashd sent %zu bytes that are not a stash.v1.ServerMessage", length);
        }
    } else if (!check_strings(&stash__v1__server_message__descriptor, payload, length, &bad_string)) {
        if (bad_string) valid(&d, bad_string);
        else out_of_memory(&d, "checking the strings stashd sent");
    } else if (message->msg_case == STASH__V1__SERVER_MESSAGE__MSG_EVENT) {
        owner = out->event = event(&d, message->event);
    } else if (message->msg_case == STASH__V1__SERVER_MESSAGE__MSG_RESPONSE) {
        const Stash__V1__Response *response = message->response;
        out->is_response = true;
        out->response_id = response->id;
        out->result_case = response->result_case;
        int code = response->status ? (int)response->status->code : STASH_OK;
        const char *text_of_status = response->status ? text(response->status->message) : "";
        if (code < STASH_OK || code > STASH_RESOURCE_EXHAUSTED) {
            /* PROTOCOL.md section 6: a code the client does not know is INTERNAL. */
            out->status = STASH_INTERNAL;
            if (asprintf(&out->message, "stashd answered with status code %d, which this client does not know: %s", code,
                         text_of_status) < 0)
                out->message = NULL;
        } else if (code != STASH_OK) {
            out->status = (stash_status)code;
            out->message = strdup(text_of_status);
        } else {
            owner = out->result = result(&d, response);
        }
    } else {
        fail(&d, "stashd sent a ServerMessage with neither a response nor an event set");
    }
    if (!owner) arena_destroy(d.arena);
    if (d.error || d.status != STASH_OK) {
        if (owner) owned_free(owner);
        free(out->message);
        memset(out, 0, sizeof *out);
        *error = d.error ? d.error : strdup("decoding a message from stashd: out of memory");
        return d.status == STASH_OK ? STASH_INTERNAL : d.status;
    }
    return STASH_OK;
}

void decoded_message_clear(decoded_message *message) {
    if (message->event) owned_free(message->event);
    if (message->result) owned_free(message->result);
    free(message->message);
    memset(message, 0, sizeof *message);
}

const char *result_case_name(Stash__V1__Response__ResultCase result_case) {
    switch (result_case) {
    case STASH__V1__RESPONSE__RESULT_HELLO: return "hello";
    case STASH__V1__RESPONSE__RESULT_DOWNLOAD: return "download";
    case STASH__V1__RESPONSE__RESULT_LIST: return "list";
    case STASH__V1__RESPONSE__RESULT_HAS: return "has";
    case STASH__V1__RESPONSE__RESULT_COUNT: return "count";
    case STASH__V1__RESPONSE__RESULT_STATS: return "stats";
    case STASH__V1__RESPONSE__RESULT_SYSTEM_INFO: return "system_info";
    case STASH__V1__RESPONSE__RESULT_CONFIG: return "config";
    case STASH__V1__RESPONSE__RESULT_VERIFY: return "verify";
    case STASH__V1__RESPONSE__RESULT_PURGE: return "purge";
    case STASH__V1__RESPONSE__RESULT_MANIFEST_INFO: return "manifest_info";
    case STASH__V1__RESPONSE__RESULT_EXPORT: return "export";
    case STASH__V1__RESPONSE__RESULT_SUBTITLES: return "subtitles";
    case STASH__V1__RESPONSE__RESULT_LICENSE: return "license";
    case STASH__V1__RESPONSE__RESULT_PLAYBACK_KEY: return "playback_key";
    default: return "none";
    }
}
