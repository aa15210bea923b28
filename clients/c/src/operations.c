/* Every operation of PROTOCOL.md section 5 as a blocking call: arguments into a Request,
 * client_call, and the result handed over. Request structs point at the caller's strings
 * (protobuf-c only reads them while packing); the arrays protobuf-c wants are built in an
 * arena that goes when the call returns. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* NULL reads as "not given". protobuf-c's messages hold non-const pointers but only read them
 * to pack. */
static char *text(const char *s) { return (char *)(s ? s : ""); }

typedef struct request_memory {
    stash_arena *arena;
    stash_client *client;
    stash_status status;
} request_memory;

static void *request_array(request_memory *m, size_t count, size_t size) {
    if (count == 0 || m->status != STASH_OK) return NULL;
    void *p = arena_array(m->arena, count, size);
    if (!p) m->status = client_fail(m->client, STASH_RESOURCE_EXHAUSTED, "out of memory for a request of %zu items", count);
    return p;
}

/* An array argument given as pointer and count: a count without a pointer is refused. */
static bool array_given(request_memory *m, const void *items, size_t count, const char *field) {
    if (m->status != STASH_OK) return false;
    if (count > 0 && !items) {
        m->status = client_fail(m->client, STASH_INVALID_ARGUMENT, "%s: NULL with a count of %zu", field, count);
        return false;
    }
    return count > 0;
}

static Stash__V1__Header **headers(request_memory *m, const stash_header *in, size_t n, const char *field) {
    if (!array_given(m, in, n, field)) return NULL;
    Stash__V1__Header **out = request_array(m, n, sizeof *out);
    Stash__V1__Header *items = request_array(m, n, sizeof *items);
    if (!out || !items) return NULL;
    for (size_t i = 0; i < n; i++) {
        stash__v1__header__init(&items[i]);
        items[i].name = text(in[i].name);
        items[i].value = text(in[i].value);
        out[i] = &items[i];
    }
    return out;
}

static char **string_list(request_memory *m, const char *const *in, size_t n, const char *field) {
    if (!array_given(m, in, n, field)) return NULL;
    char **out = request_array(m, n, sizeof *out);
    for (size_t i = 0; out && i < n; i++) out[i] = text(in[i]);
    return out;
}

static Stash__V1__DownloadState *state_list(request_memory *m, const stash_state *in, size_t n, const char *field) {
    if (!array_given(m, in, n, field)) return NULL;
    Stash__V1__DownloadState *out = request_array(m, n, sizeof *out);
    for (size_t i = 0; out && i < n; i++) out[i] = (Stash__V1__DownloadState)in[i];
    return out;
}

static Stash__V1__TextTrack **text_tracks(request_memory *m, const stash_text_track *in, size_t n, const char *field) {
    if (!array_given(m, in, n, field)) return NULL;
    Stash__V1__TextTrack **out = request_array(m, n, sizeof *out);
    Stash__V1__TextTrack *items = request_array(m, n, sizeof *items);
    if (!out || !items) return NULL;
    for (size_t i = 0; i < n; i++) {
        stash__v1__text_track__init(&items[i]);
        items[i].uri = text(in[i].uri);
        items[i].lang = text(in[i].lang);
        items[i].title = text(in[i].title);
        items[i].type = text(in[i].type);
        out[i] = &items[i];
    }
    return out;
}

static bool begin_request(request_memory *m, stash_client *client) {
    m->client = client;
    m->arena = NULL;
    m->status = client_begin(client);
    if (m->status != STASH_OK) return false;
    m->arena = arena_create(SIZE_MAX);
    if (!m->arena) m->status = client_fail(client, STASH_RESOURCE_EXHAUSTED, "out of memory for a request");
    return m->status == STASH_OK;
}

static stash_status finish_request(request_memory *m, Stash__V1__Request *request, Stash__V1__Response__ResultCase expected,
                                   void **result) {
    if (result) *result = NULL;
    if (m->status == STASH_OK) m->status = client_call(m->client, request, expected, result);
    arena_destroy(m->arena);
    return m->status;
}

#define REQUIRE(client, value, field)                                                                        \
    do {                                                                                                     \
        if (!(value)) return client_fail(client, STASH_INVALID_ARGUMENT, "%s: NULL; a value is required", field); \
    } while (0)

/* A time range goes only to a daemon that knows it: an older one ignores the fields and takes
 * the whole stream (PROTOCOL.md, "Time ranges"). A capture client (tests) stands for the newest. */
static stash_status require_time_range(stash_client *client) {
    if (client->capture || stash_client_has_feature(client, "time-range")) return STASH_OK;
    return client_fail(client, STASH_UNIMPLEMENTED,
                       "stashd %s does not support time ranges (feature \"time-range\"); it would take the whole stream",
                       stash_client_daemon_version(client));
}

static stash_status require_priority(stash_client *client) {
    if (client->capture || stash_client_has_feature(client, "priority")) return STASH_OK;
    return client_fail(client, STASH_UNIMPLEMENTED, "stashd %s does not support priorities and queue moves (feature \"priority\")",
                       stash_client_daemon_version(client));
}

/* A priority the wire knows, or INVALID_ARGUMENT naming `field` and the value. */
static stash_status check_priority(stash_client *client, stash_priority priority, const char *field) {
    if (priority >= STASH_PRIORITY_NORMAL && priority <= STASH_PRIORITY_HIGH) return STASH_OK;
    return client_fail(client, STASH_INVALID_ARGUMENT, "%s: %d is not a priority (0 normal, 1 low, 2 high)", field, (int)priority);
}

/* Hands a result to an optional out pointer, or frees it. */
static void hand_over(void *result, void **out) {
    if (out) *out = result;
    else owned_free(result);
}

/* ------------------------------------------------------------------ simple shapes */

/* Operations on one id (IdRequest). They share one union member type in Stash__V1__Request. */
static stash_status id_call(stash_client *client, const char *id, Stash__V1__Request__OpCase op,
                            Stash__V1__Response__ResultCase expected, void **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    Stash__V1__IdRequest body = STASH__V1__ID_REQUEST__INIT;
    body.id = text(id);
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = op;
    request.get_download = &body;
    void *result;
    status = client_call(client, &request, expected, &result);
    if (status == STASH_OK) hand_over(result, out);
    return status;
}

/* Operations without arguments (EmptyRequest). */
static stash_status empty_call(stash_client *client, Stash__V1__Request__OpCase op, Stash__V1__Response__ResultCase expected,
                               void **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    Stash__V1__EmptyRequest body = STASH__V1__EMPTY_REQUEST__INIT;
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = op;
    request.pause_all = &body;
    void *result;
    status = client_call(client, &request, expected, &result);
    if (status == STASH_OK) hand_over(result, out);
    return status;
}

/* Reads a CountResult into the optional *affected and frees it. `result` is read only after the
 * call that fills it returned: an argument next to that call would be read before it. */
static stash_status take_count(stash_status status, count_result *result, uint32_t *affected) {
    if (status == STASH_OK) {
        if (affected) *affected = result->affected;
        owned_free(result);
    }
    return status;
}

static stash_status count_call(stash_client *client, Stash__V1__Request__OpCase op, uint32_t *affected) {
    count_result *result;
    stash_status status = empty_call(client, op, STASH__V1__RESPONSE__RESULT_COUNT, (void **)&result);
    return take_count(status, result, affected);
}

/* Operations on a group (GroupRequest), answered with a count. They share one union member type
 * in Stash__V1__Request. */
static stash_status group_call(stash_client *client, Stash__V1__Request__OpCase op, const char *group, bool include_failed,
                               uint32_t *affected) {
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, group, "group");
    Stash__V1__GroupRequest body = STASH__V1__GROUP_REQUEST__INIT;
    body.group = text(group);
    body.include_failed = include_failed;
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = op;
    request.pause_group = &body;
    count_result *result;
    status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_COUNT, (void **)&result);
    return take_count(status, result, affected);
}

/* ------------------------------------------------------------------ operations */

stash_status stash_hello(stash_client *client, stash_hello_result **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    Stash__V1__HelloRequest hello;
    Stash__V1__Request request;
    hello_request(client, &request, &hello);
    void *result;
    status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_HELLO, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_add(stash_client *client, const char *url, const char *id, const char *title,
                       const stash_add_options *options, stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    request_memory m;
    if (!begin_request(&m, client)) return m.status;
    stash_add_options o;
    stash_hls_options o_hls;
    stash_drm_params o_drm;
    m.status = options_view(client, options, sizeof o, STASH_ADD_OPTIONS_FIRST_SIZE, "options", "stash_add_options", &o);
    if (m.status == STASH_OK)
        m.status = options_view(client, o.hls, sizeof o_hls, STASH_HLS_OPTIONS_FIRST_SIZE, "options->hls",
                                "stash_hls_options", &o_hls);
    if (m.status == STASH_OK)
        m.status = options_view(client, o.drm, sizeof o_drm, STASH_DRM_PARAMS_FIRST_SIZE, "options->drm",
                                "stash_drm_params", &o_drm);
    Stash__V1__AddDownloadRequest body = STASH__V1__ADD_DOWNLOAD_REQUEST__INIT;
    body.id = text(id);
    body.uri = text(url);
    body.title = text(title);
    body.sha256 = text(o.sha256);
    body.rate_limit = o.rate_limit;
    body.headers = headers(&m, o.headers, o.n_headers, "options->headers");
    body.n_headers = body.headers ? o.n_headers : 0;
    if (array_given(&m, o.files, o.n_files, "options->files")) {
        Stash__V1__BundleFile **files = request_array(&m, o.n_files, sizeof *files);
        Stash__V1__BundleFile *items = request_array(&m, o.n_files, sizeof *items);
        for (size_t i = 0; files && items && i < o.n_files; i++) {
            stash__v1__bundle_file__init(&items[i]);
            items[i].url = text(o.files[i].url);
            items[i].path = text(o.files[i].path);
            items[i].size = o.files[i].size;
            items[i].sha256 = text(o.files[i].sha256);
            if (o.file_rules && i < o.n_file_rules) {
                items[i].expect = text(o.file_rules[i].expect);
                items[i].min_size = o.file_rules[i].min_size;
            }
            files[i] = &items[i];
        }
        body.files = files;
        body.n_files = files && items ? o.n_files : 0;
    }
    Stash__V1__HlsOptions hls = STASH__V1__HLS_OPTIONS__INIT;
    if (o.hls) {
        hls.quality = text(o_hls.quality);
        hls.max_height = o_hls.max_height;
        hls.bandwidth = o_hls.bandwidth;
        hls.subtitles = string_list(&m, o_hls.subtitles, o_hls.n_subtitles, "options->hls->subtitles");
        hls.n_subtitles = hls.subtitles ? o_hls.n_subtitles : 0;
        hls.audio = string_list(&m, o_hls.audio, o_hls.n_audio, "options->hls->audio");
        hls.n_audio = hls.audio ? o_hls.n_audio : 0;
        hls.segment_concurrency = o_hls.segment_concurrency;
        if (o_hls.has_start) {
            hls.start_given_case = STASH__V1__HLS_OPTIONS__START_GIVEN_START;
            hls.start = o_hls.start;
        }
        if (o_hls.has_end) {
            hls.end_given_case = STASH__V1__HLS_OPTIONS__END_GIVEN_END;
            hls.end = o_hls.end;
        }
        if ((o_hls.has_start || o_hls.has_end) && m.status == STASH_OK) m.status = require_time_range(client);
        body.hls = &hls;
    }
    Stash__V1__DrmParams drm = STASH__V1__DRM_PARAMS__INIT;
    if (o.drm) {
        drm.type = text(o_drm.type);
        drm.license_server = text(o_drm.license_server);
        drm.license_headers =
            headers(&m, o_drm.license_headers, o_drm.n_license_headers, "options->drm->license_headers");
        drm.n_license_headers = drm.license_headers ? o_drm.n_license_headers : 0;
        drm.content_id = text(o_drm.content_id);
        drm.certificate_url = text(o_drm.certificate_url);
        body.drm = &drm;
    }
    body.force = o.force;
    if (array_given(&m, o.app_data, o.n_app_data, "options->app_data")) {
        body.app_data.data = (uint8_t *)o.app_data;
        body.app_data.len = o.n_app_data;
    }
    body.group = text(o.group);
    body.append = o.append;
    body.text_tracks = text_tracks(&m, o.text_tracks, o.n_text_tracks, "options->text_tracks");
    body.n_text_tracks = body.text_tracks ? o.n_text_tracks : 0;
    if (m.status == STASH_OK && (o.file_rules ? o.n_file_rules != o.n_files : o.n_file_rules != 0))
        m.status = client_fail(client, STASH_INVALID_ARGUMENT,
                               "options->n_file_rules: %zu; file_rules needs one entry per file (n_files %zu), or none", o.n_file_rules,
                               o.n_files);
    body.expect = text(o.expect);
    body.min_size = o.min_size;
    if ((o.expect && *o.expect) || o.min_size || o.file_rules) {
        if (m.status == STASH_OK && !client->capture && !stash_client_has_feature(client, "content-check"))
            m.status = client_fail(client, STASH_UNIMPLEMENTED,
                                   "stashd %s does not check content (feature \"content-check\"); it would keep any body",
                                   stash_client_daemon_version(client));
    }
    if (m.status == STASH_OK) m.status = check_priority(client, o.priority, "options->priority");
    if (o.priority != STASH_PRIORITY_NORMAL && m.status == STASH_OK) m.status = require_priority(client);
    body.priority = (Stash__V1__Priority)o.priority;
    body.replace = o.replace;
    body.network = text(o.network);
    body.on_battery = text(o.on_battery);
    if ((*body.network || *body.on_battery) && m.status == STASH_OK && !client->capture && !stash_client_has_feature(client, "desktop"))
        m.status = client_fail(client, STASH_UNIMPLEMENTED,
                               "stashd %s does not follow the desktop (feature \"desktop\"); it would ignore network and on_battery",
                               stash_client_daemon_version(client));
    if (o.replace && m.status == STASH_OK && !client->capture && !stash_client_has_feature(client, "replace"))
        m.status = client_fail(client, STASH_UNIMPLEMENTED,
                               "stashd %s does not support replace (feature \"replace\"); it would keep the old copy without fetching it again",
                               stash_client_daemon_version(client));
    if (o.replace && (o.n_files || o.hls || o.n_text_tracks) && m.status == STASH_OK && !client->capture &&
        !stash_client_has_feature(client, "replace-any"))
        m.status = client_fail(client, STASH_UNIMPLEMENTED,
                               "stashd %s replaces single files only (feature \"replace-any\" replaces bundles, HLS streams and downloads with text tracks)",
                               stash_client_daemon_version(client));
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_ADD_DOWNLOAD;
    request.add_download = &body;
    void *result;
    stash_status status = finish_request(&m, &request, STASH__V1__RESPONSE__RESULT_DOWNLOAD, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_get(stash_client *client, const char *id, stash_download **out) {
    return id_call(client, id, STASH__V1__REQUEST__OP_GET_DOWNLOAD, STASH__V1__RESPONSE__RESULT_DOWNLOAD, (void **)out);
}

stash_status stash_has(stash_client *client, const char *id, bool *exists, stash_state *state) {
    has_result *result;
    stash_status status =
        id_call(client, id, STASH__V1__REQUEST__OP_HAS_DOWNLOAD, STASH__V1__RESPONSE__RESULT_HAS, (void **)&result);
    if (status == STASH_OK) {
        if (exists) *exists = result->exists;
        if (state) *state = result->state;
        owned_free(result);
    }
    return status;
}

stash_status stash_list(stash_client *client, const stash_list_options *options, stash_download_list **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    request_memory m;
    if (!begin_request(&m, client)) return m.status;
    stash_list_options view;
    const stash_list_options *o = &view;
    m.status = options_view(client, options, sizeof view, STASH_LIST_OPTIONS_FIRST_SIZE, "options", "stash_list_options",
                            &view);
    Stash__V1__ListDownloadsRequest body = STASH__V1__LIST_DOWNLOADS_REQUEST__INIT;
    body.states = state_list(&m, o->states, o->n_states, "options->states");
    body.n_states = body.states ? o->n_states : 0;
    body.page_size = o->page_size;
    body.page_token = text(o->page_token);
    body.group = text(o->group);
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_LIST_DOWNLOADS;
    request.list_downloads = &body;
    void *result;
    stash_status status = finish_request(&m, &request, STASH__V1__RESPONSE__RESULT_LIST, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_pause(stash_client *client, const char *id, stash_download **out) {
    return id_call(client, id, STASH__V1__REQUEST__OP_PAUSE, STASH__V1__RESPONSE__RESULT_DOWNLOAD, (void **)out);
}

stash_status stash_resume(stash_client *client, const char *id, stash_download **out) {
    return id_call(client, id, STASH__V1__REQUEST__OP_RESUME, STASH__V1__RESPONSE__RESULT_DOWNLOAD, (void **)out);
}

stash_status stash_cancel(stash_client *client, const char *id) {
    return id_call(client, id, STASH__V1__REQUEST__OP_CANCEL, STASH__V1__RESPONSE__RESULT__NOT_SET, NULL);
}

stash_status stash_stop(stash_client *client, const char *id, const char *reason, stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    Stash__V1__StopRequest body = STASH__V1__STOP_REQUEST__INIT;
    body.id = text(id);
    body.reason = text(reason);
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_STOP;
    request.stop = &body;
    void *result;
    status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_DOWNLOAD, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

/* Sends a SetDownload whose fields the caller filled in; the changed record goes to *out. */
static stash_status send_set_download(stash_client *client, Stash__V1__SetDownloadRequest *body, stash_download **out) {
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_SET_DOWNLOAD;
    request.set_download = body;
    void *result;
    stash_status status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_DOWNLOAD, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_set_priority(stash_client *client, const char *id, stash_priority priority, stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    if ((status = check_priority(client, priority, "priority")) != STASH_OK) return status;
    if ((status = require_priority(client)) != STASH_OK) return status;
    Stash__V1__SetDownloadRequest body = STASH__V1__SET_DOWNLOAD_REQUEST__INIT;
    body.id = text(id);
    body.priority_given_case = STASH__V1__SET_DOWNLOAD_REQUEST__PRIORITY_GIVEN_PRIORITY;
    body.priority = (Stash__V1__Priority)priority;
    return send_set_download(client, &body, out);
}

stash_status stash_set_rate_limit(stash_client *client, const char *id, uint64_t bytes_per_second, stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    if (bytes_per_second > (uint64_t)INT64_MAX) {
        return client_fail(client, STASH_INVALID_ARGUMENT, "bytes_per_second: %llu is above the limit %lld",
                           (unsigned long long)bytes_per_second, (long long)INT64_MAX);
    }
    if (!client->capture && !stash_client_has_feature(client, "set-download")) {
        return client_fail(client, STASH_UNIMPLEMENTED, "stashd %s cannot change a download's rate limit (feature \"set-download\")",
                           stash_client_daemon_version(client));
    }
    Stash__V1__SetDownloadRequest body = STASH__V1__SET_DOWNLOAD_REQUEST__INIT;
    body.id = text(id);
    body.rate_limit_given_case = STASH__V1__SET_DOWNLOAD_REQUEST__RATE_LIMIT_GIVEN_RATE_LIMIT;
    body.rate_limit = bytes_per_second;
    return send_set_download(client, &body, out);
}

stash_status stash_set_desktop_rules(stash_client *client, const char *id, const char *network, const char *on_battery,
                                     stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    /* On the wire "" reads as not given. */
    if ((!network || !*network) && (!on_battery || !*on_battery)) {
        return client_fail(client, STASH_INVALID_ARGUMENT, "network and on_battery are both empty; give one or both");
    }
    if (!client->capture && !stash_client_has_feature(client, "desktop")) {
        return client_fail(client, STASH_UNIMPLEMENTED, "stashd %s does not follow the desktop (feature \"desktop\")",
                           stash_client_daemon_version(client));
    }
    Stash__V1__SetDownloadRequest body = STASH__V1__SET_DOWNLOAD_REQUEST__INIT;
    body.id = text(id);
    body.network = text(network);
    body.on_battery = text(on_battery);
    return send_set_download(client, &body, out);
}

/* The checks of stash_set_uri and stash_set_file_uri (for_file: path is required). */
static stash_status send_set_uri(stash_client *client, const char *id, bool for_file, const char *path, const char *uri,
                                 stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    REQUIRE(client, uri, "uri");
    if (for_file) REQUIRE(client, path, "path");
    /* On the wire an empty URL or path reads as none given. */
    if (!*uri) return client_fail(client, STASH_INVALID_ARGUMENT, "uri is empty; give an http:// or https:// URL");
    if (path && !*path) {
        return client_fail(client, STASH_INVALID_ARGUMENT, "path is empty; give the path of the bundle file whose URL changes");
    }
    const char *feature = path ? "set-file-uri" : "set-uri";
    if (!client->capture && !stash_client_has_feature(client, feature)) {
        return client_fail(client, STASH_UNIMPLEMENTED, "stashd %s cannot change %s (feature \"%s\")",
                           stash_client_daemon_version(client), path ? "a bundle file's URL" : "a download's URL", feature);
    }
    Stash__V1__SetDownloadRequest body = STASH__V1__SET_DOWNLOAD_REQUEST__INIT;
    body.id = text(id);
    body.uri = text(uri);
    if (path) body.file = text(path);
    return send_set_download(client, &body, out);
}

stash_status stash_set_uri(stash_client *client, const char *id, const char *uri, stash_download **out) {
    return send_set_uri(client, id, false, NULL, uri, out);
}

stash_status stash_set_file_uri(stash_client *client, const char *id, const char *path, const char *uri, stash_download **out) {
    return send_set_uri(client, id, true, path, uri, out);
}

/* The checks and request of stash_set_headers and stash_set_license_headers. */
static stash_status send_set_headers(stash_client *client, const char *id, const stash_header *in, size_t n, bool clear,
                                     bool license, stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    request_memory m;
    if (!begin_request(&m, client)) return m.status;
    const char *field = license ? "license_headers" : "headers";
    if (!id) m.status = client_fail(client, STASH_INVALID_ARGUMENT, "id: NULL; a value is required");
    /* On the wire neither a header nor a clear reads as none given. */
    if (m.status == STASH_OK && n == 0 && !clear) {
        m.status = client_fail(client, STASH_INVALID_ARGUMENT, "%s: none given and no clear; give a header or clear", field);
    }
    if (m.status == STASH_OK && !client->capture && !stash_client_has_feature(client, "set-headers")) {
        m.status = client_fail(client, STASH_UNIMPLEMENTED, "stashd %s cannot change a download's headers (feature \"set-headers\")",
                               stash_client_daemon_version(client));
    }
    Stash__V1__Header **list = headers(&m, in, n, field);
    Stash__V1__SetDownloadRequest body = STASH__V1__SET_DOWNLOAD_REQUEST__INIT;
    body.id = text(id);
    if (license) {
        body.license_headers = list;
        body.n_license_headers = list ? n : 0;
        body.clear_license_headers = clear;
    } else {
        body.headers = list;
        body.n_headers = list ? n : 0;
        body.clear_headers = clear;
    }
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_SET_DOWNLOAD;
    request.set_download = &body;
    void *result;
    stash_status status = finish_request(&m, &request, STASH__V1__RESPONSE__RESULT_DOWNLOAD, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_set_headers(stash_client *client, const char *id, const stash_header *headers_in, size_t n_headers, bool clear,
                               stash_download **out) {
    return send_set_headers(client, id, headers_in, n_headers, clear, false, out);
}

stash_status stash_set_license_headers(stash_client *client, const char *id, const stash_header *headers_in, size_t n_headers,
                                       bool clear, stash_download **out) {
    return send_set_headers(client, id, headers_in, n_headers, clear, true, out);
}

stash_status stash_move(stash_client *client, const char *id, stash_move_place place, const char *other, stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    if (place < STASH_MOVE_TOP || place > STASH_MOVE_AFTER) {
        return client_fail(client, STASH_INVALID_ARGUMENT, "place: %d is not a place (1 top, 2 bottom, 3 before, 4 after)", (int)place);
    }
    bool relative = place == STASH_MOVE_BEFORE || place == STASH_MOVE_AFTER;
    if (relative && (!other || !*other)) {
        return client_fail(client, STASH_INVALID_ARGUMENT, "other: a move before or after names a queued download");
    }
    if (!relative && other) {
        return client_fail(client, STASH_INVALID_ARGUMENT, "other: a move to the top or bottom takes none (NULL)");
    }
    if ((status = require_priority(client)) != STASH_OK) return status;
    Stash__V1__MoveRequest body = STASH__V1__MOVE_REQUEST__INIT;
    body.id = text(id);
    body.place = (Stash__V1__MovePlace)place;
    body.other = text(other);
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_MOVE;
    request.move = &body;
    void *result;
    status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_DOWNLOAD, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_forget(stash_client *client, const char *id, const char *move_to, stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    REQUIRE(client, move_to, "move_to");
    Stash__V1__ForgetRequest body = STASH__V1__FORGET_REQUEST__INIT;
    body.id = text(id);
    body.move_to = text(move_to);
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_FORGET;
    request.forget = &body;
    void *result;
    status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_DOWNLOAD, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_adopt(stash_client *client, const char *path, const char *id, const stash_adopt_options *options,
                         stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, path, "path");
    REQUIRE(client, id, "id");
    stash_adopt_options o;
    status = options_view(client, options, sizeof o, STASH_ADOPT_OPTIONS_FIRST_SIZE, "options", "stash_adopt_options", &o);
    if (status != STASH_OK) return status;
    Stash__V1__AdoptRequest body = STASH__V1__ADOPT_REQUEST__INIT;
    body.path = text(path);
    body.id = text(id);
    body.url = text(o.url);
    body.sha256 = text(o.sha256);
    body.link = o.link;
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_ADOPT;
    request.adopt = &body;
    void *result;
    status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_DOWNLOAD, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_pause_all(stash_client *client, uint32_t *affected) {
    return count_call(client, STASH__V1__REQUEST__OP_PAUSE_ALL, affected);
}

stash_status stash_resume_all(stash_client *client, uint32_t *affected) {
    return count_call(client, STASH__V1__REQUEST__OP_RESUME_ALL, affected);
}

stash_status stash_cancel_all(stash_client *client, uint32_t *affected) {
    return count_call(client, STASH__V1__REQUEST__OP_CANCEL_ALL, affected);
}

stash_status stash_pause_group(stash_client *client, const char *group, uint32_t *affected) {
    return group_call(client, STASH__V1__REQUEST__OP_PAUSE_GROUP, group, false, affected);
}

stash_status stash_resume_group(stash_client *client, const char *group, bool include_failed, uint32_t *affected) {
    return group_call(client, STASH__V1__REQUEST__OP_RESUME_GROUP, group, include_failed, affected);
}

stash_status stash_cancel_group(stash_client *client, const char *group, uint32_t *affected) {
    return group_call(client, STASH__V1__REQUEST__OP_CANCEL_GROUP, group, false, affected);
}

stash_status stash_subscribe(stash_client *client, const stash_subscribe_options *options) {
    if (!client) return STASH_INVALID_ARGUMENT;
    request_memory m;
    if (!begin_request(&m, client)) return m.status;
    stash_subscribe_options view;
    const stash_subscribe_options *o = &view;
    m.status = options_view(client, options, sizeof view, STASH_SUBSCRIBE_OPTIONS_FIRST_SIZE, "options",
                            "stash_subscribe_options", &view);
    Stash__V1__SubscribeRequest body = STASH__V1__SUBSCRIBE_REQUEST__INIT;
    body.ids = string_list(&m, o->ids, o->n_ids, "options->ids");
    body.n_ids = body.ids ? o->n_ids : 0;
    body.min_progress_step = o->min_progress_step;
    body.min_interval_ms = o->min_interval_ms;
    body.replay_from_seq = o->replay_from_seq;
    body.states = state_list(&m, o->states, o->n_states, "options->states");
    body.n_states = body.states ? o->n_states : 0;
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_SUBSCRIBE;
    request.subscribe = &body;
    return finish_request(&m, &request, STASH__V1__RESPONSE__RESULT__NOT_SET, NULL);
}

stash_status stash_get_stats(stash_client *client, stash_stats **out) {
    return empty_call(client, STASH__V1__REQUEST__OP_GET_STATS, STASH__V1__RESPONSE__RESULT_STATS, (void **)out);
}

stash_status stash_get_info(stash_client *client, stash_system_info **out) {
    return empty_call(client, STASH__V1__REQUEST__OP_GET_SYSTEM_INFO, STASH__V1__RESPONSE__RESULT_SYSTEM_INFO,
                      (void **)out);
}

stash_status stash_config_get(stash_client *client, stash_config *out) {
    stash_config *result;
    stash_status status =
        empty_call(client, STASH__V1__REQUEST__OP_GET_CONFIG, STASH__V1__RESPONSE__RESULT_CONFIG, (void **)&result);
    if (status == STASH_OK) {
        if (out) *out = *result;
        owned_free(result);
    }
    return status;
}

stash_status stash_config_set(stash_client *client, const stash_config_entry *entries, size_t n_entries,
                              stash_config *out) {
    if (!client) return STASH_INVALID_ARGUMENT;
    request_memory m;
    if (!begin_request(&m, client)) return m.status;
    Stash__V1__SetConfigRequest body = STASH__V1__SET_CONFIG_REQUEST__INIT;
    if (array_given(&m, entries, n_entries, "entries")) {
        Stash__V1__ConfigEntry **list = request_array(&m, n_entries, sizeof *list);
        Stash__V1__ConfigEntry *items = request_array(&m, n_entries, sizeof *items);
        for (size_t i = 0; list && items && i < n_entries; i++) {
            stash__v1__config_entry__init(&items[i]);
            items[i].key = text(entries[i].key);
            items[i].value = text(entries[i].value);
            list[i] = &items[i];
        }
        body.entries = list;
        body.n_entries = list && items ? n_entries : 0;
    }
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_SET_CONFIG;
    request.set_config = &body;
    stash_config *result;
    stash_status status = finish_request(&m, &request, STASH__V1__RESPONSE__RESULT_CONFIG, (void **)&result);
    if (status == STASH_OK) {
        if (out) *out = *result;
        owned_free(result);
    }
    return status;
}

stash_status stash_verify(stash_client *client, unsigned flags, stash_verify_report **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    unsigned known = STASH_VERIFY_DEEP | STASH_VERIFY_REPAIR | STASH_VERIFY_DRY_RUN;
    if (flags & ~known) {
        return client_fail(client, STASH_INVALID_ARGUMENT, "flags: 0x%x has bits other than STASH_VERIFY_* (0x%x)", flags,
                           known);
    }
    Stash__V1__VerifyRequest body = STASH__V1__VERIFY_REQUEST__INIT;
    body.deep = (flags & STASH_VERIFY_DEEP) != 0;
    body.repair = (flags & STASH_VERIFY_REPAIR) != 0;
    body.dry_run = (flags & STASH_VERIFY_DRY_RUN) != 0;
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_VERIFY;
    request.verify = &body;
    void *result;
    status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_VERIFY, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_purge(stash_client *client, stash_purge_result **out) {
    return empty_call(client, STASH__V1__REQUEST__OP_PURGE, STASH__V1__RESPONSE__RESULT_PURGE, (void **)out);
}

stash_status stash_plan(stash_client *client, const char *uri, const stash_header *headers_in, size_t n_headers,
                        stash_manifest_info **out) {
    stash_plan_options options = STASH_PLAN_OPTIONS_INIT;
    options.headers = headers_in;
    options.n_headers = n_headers;
    return stash_plan_with(client, uri, &options, out);
}

stash_status stash_plan_with(stash_client *client, const char *uri, const stash_plan_options *options,
                             stash_manifest_info **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    request_memory m;
    if (!begin_request(&m, client)) return m.status;
    stash_plan_options o;
    m.status = options_view(client, options, sizeof o, STASH_PLAN_OPTIONS_FIRST_SIZE, "options", "stash_plan_options", &o);
    Stash__V1__GetManifestInfoRequest body = STASH__V1__GET_MANIFEST_INFO_REQUEST__INIT;
    body.uri = text(uri);
    body.headers = headers(&m, o.headers, o.n_headers, "options->headers");
    body.n_headers = body.headers ? o.n_headers : 0;
    if (o.has_start) {
        body.start_given_case = STASH__V1__GET_MANIFEST_INFO_REQUEST__START_GIVEN_START;
        body.start = o.start;
    }
    if (o.has_end) {
        body.end_given_case = STASH__V1__GET_MANIFEST_INFO_REQUEST__END_GIVEN_END;
        body.end = o.end;
    }
    if ((o.has_start || o.has_end) && m.status == STASH_OK) m.status = require_time_range(client);
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_GET_MANIFEST_INFO;
    request.get_manifest_info = &body;
    void *result;
    stash_status status = finish_request(&m, &request, STASH__V1__RESPONSE__RESULT_MANIFEST_INFO, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_export(stash_client *client, const char *id, const char *dir, bool decrypt,
                          stash_export_result **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    REQUIRE(client, dir, "dir");
    Stash__V1__ExportRequest body = STASH__V1__EXPORT_REQUEST__INIT;
    body.id = text(id);
    body.dir = text(dir);
    body.decrypt = decrypt;
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_EXPORT;
    request.export = &body;
    void *result;
    status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_EXPORT, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_export_file(stash_client *client, const char *id, const char *file,
                               const stash_export_options *options, stash_export_result **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    REQUIRE(client, file, "file");
    stash_export_options o;
    status = options_view(client, options, sizeof o, STASH_EXPORT_OPTIONS_FIRST_SIZE, "options", "stash_export_options", &o);
    if (status != STASH_OK) return status;
    Stash__V1__ExportRequest body = STASH__V1__EXPORT_REQUEST__INIT;
    body.id = text(id);
    body.file = text(file);
    if (!o.format || !*o.format) body.format = STASH__V1__EXPORT_FORMAT__EXPORT_FORMAT_UNSPECIFIED;
    else if (strcmp(o.format, "mp4") == 0) body.format = STASH__V1__EXPORT_FORMAT__EXPORT_FORMAT_MP4;
    else if (strcmp(o.format, "mkv") == 0) body.format = STASH__V1__EXPORT_FORMAT__EXPORT_FORMAT_MKV;
    else
        return client_fail(client, STASH_INVALID_ARGUMENT, "options->format: '%.40s' is not mp4 or mkv (or NULL: from the extension)",
                           o.format);
    body.force = o.force;
    body.link = o.link;
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_EXPORT;
    request.export = &body;
    void *result;
    status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_EXPORT, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

static stash_status subtitles_call(stash_client *client, Stash__V1__Request__OpCase op, const char *id,
                                   const char *const *languages, size_t n_languages, const stash_text_track *tracks,
                                   size_t n_tracks, stash_download **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    request_memory m;
    if (!begin_request(&m, client)) return m.status;
    if (!id) {
        arena_destroy(m.arena);
        return client_fail(client, STASH_INVALID_ARGUMENT, "id: NULL; a value is required");
    }
    Stash__V1__SubtitlesRequest body = STASH__V1__SUBTITLES_REQUEST__INIT;
    body.id = text(id);
    body.languages = string_list(&m, languages, n_languages, "languages");
    body.n_languages = body.languages ? n_languages : 0;
    body.text_tracks = text_tracks(&m, tracks, n_tracks, "text_tracks");
    body.n_text_tracks = body.text_tracks ? n_tracks : 0;
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = op;
    request.add_subtitles = &body;
    void *result;
    stash_status status = finish_request(&m, &request, STASH__V1__RESPONSE__RESULT_DOWNLOAD, &result);
    if (status == STASH_OK) hand_over(result, (void **)out);
    return status;
}

stash_status stash_subtitles_add(stash_client *client, const char *id, const char *const *languages, size_t n_languages,
                                 const stash_text_track *tracks, size_t n_tracks, stash_download **out) {
    return subtitles_call(client, STASH__V1__REQUEST__OP_ADD_SUBTITLES, id, languages, n_languages, tracks, n_tracks, out);
}

stash_status stash_subtitles_remove(stash_client *client, const char *id, const char *const *languages,
                                    size_t n_languages, stash_download **out) {
    return subtitles_call(client, STASH__V1__REQUEST__OP_REMOVE_SUBTITLES, id, languages, n_languages, NULL, 0, out);
}

stash_status stash_subtitles_get(stash_client *client, const char *id, stash_subtitles **out) {
    return id_call(client, id, STASH__V1__REQUEST__OP_GET_SUBTITLES, STASH__V1__RESPONSE__RESULT_SUBTITLES, (void **)out);
}

stash_status stash_license_get(stash_client *client, const char *id, stash_license_status **out) {
    return id_call(client, id, STASH__V1__REQUEST__OP_DOWNLOAD_LICENSE, STASH__V1__RESPONSE__RESULT_LICENSE, (void **)out);
}

stash_status stash_license_check(stash_client *client, const char *id, stash_license_status **out) {
    return id_call(client, id, STASH__V1__REQUEST__OP_CHECK_LICENSE, STASH__V1__RESPONSE__RESULT_LICENSE, (void **)out);
}

stash_status stash_license_renew(stash_client *client, const char *id, stash_license_status **out) {
    return id_call(client, id, STASH__V1__REQUEST__OP_RENEW_LICENSE, STASH__V1__RESPONSE__RESULT_LICENSE, (void **)out);
}

stash_status stash_license_release(stash_client *client, const char *id, stash_license_status **out) {
    return id_call(client, id, STASH__V1__REQUEST__OP_RELEASE_LICENSE, STASH__V1__RESPONSE__RESULT_LICENSE, (void **)out);
}

stash_status stash_license_release_all(stash_client *client, uint32_t *affected) {
    return count_call(client, STASH__V1__REQUEST__OP_RELEASE_ALL_LICENSES, affected);
}

stash_status stash_get_playback_key(stash_client *client, const char *id, const char *key_id, stash_playback_key **out) {
    if (out) *out = NULL;
    if (!client) return STASH_INVALID_ARGUMENT;
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    REQUIRE(client, id, "id");
    Stash__V1__PlaybackKeyRequest body = STASH__V1__PLAYBACK_KEY_REQUEST__INIT;
    body.id = text(id);
    body.key_id = text(key_id);
    Stash__V1__Request request = STASH__V1__REQUEST__INIT;
    request.op_case = STASH__V1__REQUEST__OP_GET_PLAYBACK_KEY;
    request.get_playback_key = &body;
    void *result;
    status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_PLAYBACK_KEY, &result);
    if (status == STASH_OK) {
        if (out) *out = result;
        else stash_playback_key_free(result);
    }
    return status;
}
