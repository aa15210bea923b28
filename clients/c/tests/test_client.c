/* libstash-client against a real stashd and a real HTTP server (clients/tests/harness.py
 * starts both and passes them in STASH_TEST_SOCKET and STASH_TEST_BASE_URL). Every operation
 * of PROTOCOL.md is called at least once, successes and refusals; built with
 * AddressSanitizer, so a leak or a bad access fails the run too. */
#include "check.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stash/client.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static const char *base_url;
static const char *socket_path;
static const char *work;

static char *url(const char *path) {
    static char buffers[8][512];
    static int next;
    char *out = buffers[next++ % 8];
    snprintf(out, sizeof buffers[0], "%s%s", base_url, path);
    return out;
}

static stash_client *connect_or_exit(void) {
    stash_client *client = NULL;
    stash_status status = stash_client_connect(socket_path, &client);
    if (status != STASH_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", socket_path, stash_client_error_message(client));
        exit(1);
    }
    return client;
}

/* Takes events until `id` enters `state` (true) or timeout_ms pass (false); counts the
 * progress events of `id` seen meanwhile into *progress_seen when given. */
static bool wait_for_state(stash_client *events, const char *id, stash_state state, int timeout_ms, int *progress_seen) {
    for (int waited = 0; waited < timeout_ms; waited += 100) {
        stash_event *event;
        stash_status status;
        while ((status = stash_wait_event(events, 100, &event)) == STASH_OK && event) {
            bool done = false;
            if (event->kind == STASH_EVENT_PROGRESS && strcmp(event->progress.id, id) == 0 && progress_seen) {
                CHECK(event->progress.progress <= 100, "progress %u", event->progress.progress);
                (*progress_seen)++;
            }
            if (event->kind == STASH_EVENT_STATE_CHANGED && strcmp(event->state_changed.download->id, id) == 0) {
                done = event->state_changed.download->state == state;
            }
            if (event->kind == STASH_EVENT_REMOVED && strcmp(event->removed.id, id) == 0) {
                done = state == STASH_STATE_NOT_DOWNLOADED;
            }
            stash_event_free(event);
            if (done) return true;
        }
        CHECK(status == STASH_OK, "events: %s", stash_client_error_message(events));
        if (status != STASH_OK) return false;
    }
    return false;
}

/* Waits for the SettingsChanged event of download id naming `what`; *n_headers is the number of
 * headers of the record it carries. */
static bool wait_for_settings(stash_client *events, const char *id, const char *what, size_t *n_headers, int timeout_ms) {
    for (int waited = 0; waited < timeout_ms; waited += 100) {
        stash_event *event;
        while (stash_wait_event(events, 100, &event) == STASH_OK && event) {
            bool done = event->kind == STASH_EVENT_SETTINGS_CHANGED && strcmp(event->settings_changed.download->id, id) == 0
                        && event->settings_changed.n_changed == 1 && strcmp(event->settings_changed.changed[0], what) == 0;
            if (done) *n_headers = event->settings_changed.download->n_headers;
            stash_event_free(event);
            if (done) return true;
        }
    }
    return false;
}

static void test_connect_failures(void) {
    stash_client *client = NULL;
    char missing[256];
    snprintf(missing, sizeof missing, "%s/nothing/here.sock", work);
    CHECK_FAILS(stash_client_connect(missing, &client), client, STASH_UNAVAILABLE, "cannot reach stashd");
    CHECK(client != NULL, "a failed connect still gives a client for its message");
    /* Every later call fails the same way. */
    CHECK_FAILS(stash_get(client, "x", NULL), client, STASH_UNAVAILABLE, "cannot reach stashd");
    stash_client_close(client);

    char long_path[300];
    memset(long_path, 'a', sizeof long_path - 1);
    long_path[0] = '/';
    long_path[sizeof long_path - 1] = '\0';
    CHECK_FAILS(stash_client_connect(long_path, &client), client, STASH_INVALID_ARGUMENT, "at most 107");
    stash_client_close(client);
    CHECK(stash_client_connect(NULL, NULL) == STASH_INVALID_ARGUMENT, "no out pointer");
    stash_client_close(NULL);
}

static void test_hello(stash_client *client) {
    CHECK(strlen(stash_client_daemon_version(client)) > 0, "daemon version");
    CHECK(stash_client_has_feature(client, "bundles"), "feature bundles");
    CHECK(stash_client_has_feature(client, "events"), "feature events");
    CHECK(!stash_client_has_feature(client, "no-such-feature"), "unknown feature");
    CHECK(stash_client_fd(client) >= 0, "fd");
    stash_hello_result *hello = NULL;
    CHECK_OK(stash_hello(client, &hello), client);
    if (hello) {
        CHECK(hello->protocol_version == STASH_PROTOCOL_VERSION, "protocol %u", hello->protocol_version);
        CHECK(strcmp(hello->daemon_version, stash_client_daemon_version(client)) == 0, "version %s", hello->daemon_version);
        CHECK(hello->n_features >= 2, "%zu features", hello->n_features);
    }
    stash_hello_result_free(hello);
}

/* A single file with every plain option; returns its id (static). */
static const char *test_single_file(stash_client *client, stash_client *events) {
    static const uint8_t app_data[] = {0, 1, 2, 255, 'x'};
    stash_header headers[] = {{"X-Test", "c client"}, {"Authorization", "Bearer t"}};
    stash_add_options options = STASH_ADD_OPTIONS_INIT;
    options.headers = headers;
    options.n_headers = 2;
    options.app_data = app_data;
    options.n_app_data = sizeof app_data;
    options.group = "c/tests";
    stash_download *added = NULL;
    CHECK_OK(stash_add(client, url("/slow/600000/c-file.bin"), "c-file", "Épisode 1", &options, &added), client);
    if (!added) return "c-file";
    CHECK(added->created, "created");
    CHECK(strcmp(added->id, "c-file") == 0, "id %s", added->id);
    CHECK(strcmp(added->title, "Épisode 1") == 0, "title %s", added->title);
    CHECK(added->state == STASH_STATE_QUEUED || added->state == STASH_STATE_PREPARING, "state %s",
          stash_state_name(added->state));
    CHECK(added->error == NULL, "no error");
    CHECK(added->hls == NULL && added->drm == NULL && added->license == NULL, "no HLS, DRM or licence");
    stash_download_free(added);

    int progress = 0;
    CHECK(wait_for_state(events, "c-file", STASH_STATE_COMPLETED, 20000, &progress), "c-file completed");
    CHECK(progress > 0, "progress events: %d", progress);

    stash_download *record = NULL;
    CHECK_OK(stash_get(client, "c-file", &record), client);
    if (record) {
        CHECK(record->state == STASH_STATE_COMPLETED, "state %s", stash_state_name(record->state));
        CHECK(record->progress == 100, "progress %u", record->progress);
        CHECK(record->downloaded_bytes == 600000 && record->total_bytes == 600000, "bytes %llu of %lld",
              (unsigned long long)record->downloaded_bytes, (long long)record->total_bytes);
        CHECK(record->remaining_time == 0, "remaining %lld", (long long)record->remaining_time);
        CHECK(record->n_app_data == sizeof app_data && memcmp(record->app_data, app_data, sizeof app_data) == 0,
              "app_data of %zu bytes", record->n_app_data);
        CHECK(strcmp(record->group, "c/tests") == 0, "group %s", record->group);
        CHECK(record->n_headers == 2 && strcmp(record->headers[1].name, "Authorization") == 0, "%zu headers",
              record->n_headers);
        CHECK(record->created_at > 1700000000000 && record->completed_at >= record->created_at, "times");
        CHECK(record->files_total == 1 && record->files_done == 1, "files %u/%u", record->files_done, record->files_total);
        struct stat st;
        CHECK(stat(record->asset_path, &st) == 0 && st.st_size == 600000, "file at %s", record->asset_path);
        CHECK(!record->created, "created is for stash_add only");
    }
    stash_download_free(record);

    /* The same URL again without an id is the download that holds it. */
    stash_download *again = NULL;
    CHECK_OK(stash_add(client, url("/slow/600000/c-file.bin"), NULL, NULL, NULL, &again), client);
    CHECK(again && !again->created && strcmp(again->id, "c-file") == 0, "dedupe gives c-file");
    stash_download_free(again);

    bool exists = false;
    stash_state state = STASH_STATE_NOT_DOWNLOADED;
    CHECK_OK(stash_has(client, "c-file", &exists, &state), client);
    CHECK(exists && state == STASH_STATE_COMPLETED, "has: %d %s", exists, stash_state_name(state));
    CHECK_OK(stash_has(client, "c-nothing", &exists, &state), client);
    CHECK(!exists && state == STASH_STATE_NOT_DOWNLOADED, "has unknown: %d %s", exists, stash_state_name(state));
    CHECK_OK(stash_has(client, "c-file", NULL, NULL), client);
    return "c-file";
}

static void test_bundle(stash_client *client, stash_client *events) {
    stash_bundle_file files[] = {
        {.url = url("/data/70000/c-b1.bin"), .path = "pages/1.bin", .size = 70000},
        {.url = url("/data/80000/c-b2.bin"), .path = "pages/2.bin"},
        {.url = url("/data/90000/c-b3.bin")},
    };
    stash_add_options options = STASH_ADD_OPTIONS_INIT;
    options.files = files;
    options.n_files = 3;
    stash_download *added = NULL;
    CHECK_OK(stash_add(client, NULL, "c-bundle", "Chapter 1", &options, &added), client);
    CHECK(added && added->bundle && added->files_total == 3, "a bundle of 3");
    stash_download_free(added);
    CHECK(wait_for_state(events, "c-bundle", STASH_STATE_COMPLETED, 20000, NULL), "c-bundle completed");
    stash_download *record = NULL;
    CHECK_OK(stash_get(client, "c-bundle", &record), client);
    if (record) {
        CHECK(record->n_files == 3, "%zu files", record->n_files);
        for (size_t i = 0; i < record->n_files; i++) CHECK(record->files[i].done, "file %zu done", i);
        CHECK(record->n_files == 3 && strcmp(record->files[2].path, "c-b3.bin") == 0, "path from the URL");
        CHECK(record->downloaded_bytes == 240000, "bytes %llu", (unsigned long long)record->downloaded_bytes);
        CHECK(strcmp(record->uri, "") == 0, "a bundle has no uri");
    }
    stash_download_free(record);
    /* A file's new URL, by its path: a COMPLETED file keeps its bytes and takes the URL. */
    const char *renewed = url("/data/80000/c-b2.bin?sig=2");
    CHECK_OK(stash_set_file_uri(client, "c-bundle", "pages/2.bin", renewed, &record), client);
    CHECK(record && record->n_files == 3 && strcmp(record->files[1].url, renewed) == 0, "file uri set");
    CHECK(record && strcmp(record->files[0].url, url("/data/70000/c-b1.bin")) == 0, "the other files keep theirs");
    CHECK(record && record->state == STASH_STATE_COMPLETED, "still complete");
    stash_download_free(record);
    CHECK_FAILS(stash_set_file_uri(client, "c-bundle", "nope.bin", renewed, NULL), client, STASH_NOT_FOUND, "no file 'nope.bin'");
    CHECK_FAILS(stash_set_file_uri(client, "c-bundle", "", renewed, NULL), client, STASH_INVALID_ARGUMENT, "path is empty");
    CHECK_FAILS(stash_set_file_uri(client, "c-bundle", NULL, renewed, NULL), client, STASH_INVALID_ARGUMENT, "path");
    CHECK_FAILS(stash_set_uri(client, "c-bundle", renewed, NULL), client, STASH_INVALID_ARGUMENT, "--file");

    /* Headers: one of a name replaced in any case, others kept; clear drops them first. */
    stash_header two[] = {{.name = "Authorization", .value = "Bearer old"}, {.name = "X-App", .value = "7"}};
    CHECK_OK(stash_set_headers(client, "c-bundle", two, 2, false, NULL), client);
    size_t n_headers = 0;
    CHECK(wait_for_settings(events, "c-bundle", "headers", &n_headers, 20000) && n_headers == 2, "a SettingsChanged event, %zu headers",
          n_headers);
    stash_header renewed_token = {.name = "authorization", .value = "Bearer new"};
    CHECK_OK(stash_set_headers(client, "c-bundle", &renewed_token, 1, false, &record), client);
    CHECK(record && record->n_headers == 2 && strcmp(record->headers[0].value, "Bearer new") == 0
              && strcmp(record->headers[1].name, "X-App") == 0,
          "header replaced in place");
    stash_download_free(record);
    CHECK_OK(stash_set_headers(client, "c-bundle", NULL, 0, true, &record), client);
    CHECK(record && record->n_headers == 0, "headers cleared");
    stash_download_free(record);
    stash_header bad[] = {{.name = "", .value = "v"}, {.name = "X-Bad", .value = "a\r\nInjected: 1"}};
    CHECK_FAILS(stash_set_headers(client, "c-bundle", &bad[0], 1, false, NULL), client, STASH_INVALID_ARGUMENT, "header name ''");
    CHECK_FAILS(stash_set_headers(client, "c-bundle", &bad[1], 1, false, NULL), client, STASH_INVALID_ARGUMENT, "CR, LF or NUL");
    CHECK_FAILS(stash_set_headers(client, "c-bundle", NULL, 2, false, NULL), client, STASH_INVALID_ARGUMENT, "NULL with a count of 2");
    CHECK_FAILS(stash_set_headers(client, "c-bundle", NULL, 0, false, NULL), client, STASH_INVALID_ARGUMENT, "none given");
    CHECK_FAILS(stash_set_headers(client, "c-nothing", two, 1, false, NULL), client, STASH_NOT_FOUND, "'c-nothing'");
    CHECK_FAILS(stash_set_license_headers(client, "c-bundle", two, 1, false, NULL), client, STASH_INVALID_ARGUMENT,
                "no licence server");
}

/* An error page served with 200 as a chapter page fails the file when an image is expected,
 * naming it, what was expected and what came; a bundle file's own rule travels beside it. */
static void test_content_check(stash_client *client, stash_client *events) {
    stash_add_options options = STASH_ADD_OPTIONS_INIT;
    options.expect = "image";
    options.min_size = 10;
    CHECK_OK(stash_add(client, url("/page/c-page.jpg"), "c-page", NULL, &options, NULL), client);
    CHECK(wait_for_state(events, "c-page", STASH_STATE_FAILED, 20000, NULL), "c-page failed");
    stash_download *record = NULL;
    CHECK_OK(stash_get(client, "c-page", &record), client);
    if (record) {
        CHECK(strcmp(record->expect, "image") == 0 && record->min_size == 10, "rules in the record: '%s' %llu", record->expect,
              (unsigned long long)record->min_size);
        CHECK(record->file_rules == NULL, "no file rules without files");
        CHECK(record->error && record->error->kind == STASH_ERROR_VALIDATION, "a validation error");
        CHECK(record->error && strcmp(record->error->message,
                                      "c-page.jpg: expected an image, got text/html (58 bytes starting '<!DOCTYPE html>')") == 0,
              "message: %s", record->error ? record->error->message : "none");
    }
    stash_download_free(record);
    /* Gone again, so ResumeAll below finds only its own downloads to resume. */
    CHECK_OK(stash_cancel(client, "c-page"), client);
    CHECK(wait_for_state(events, "c-page", STASH_STATE_NOT_DOWNLOADED, 20000, NULL), "c-page removed");

    stash_bundle_file files[] = {{.url = url("/data/3000/c-notes.txt")}, {.url = url("/data/3000/c-cover.jpg")}};
    stash_file_rules rules[] = {{.expect = "text/plain"}, {.min_size = 1}};
    stash_add_options bundle = STASH_ADD_OPTIONS_INIT;
    bundle.files = files;
    bundle.n_files = 2;
    bundle.file_rules = rules;
    bundle.n_file_rules = 1;
    CHECK_FAILS(stash_add(client, NULL, "c-rules", NULL, &bundle, NULL), client, STASH_INVALID_ARGUMENT, "n_file_rules");
    bundle.n_file_rules = 2;
    bundle.expect = "picture";
    CHECK_FAILS(stash_add(client, NULL, "c-rules", NULL, &bundle, NULL), client, STASH_INVALID_ARGUMENT, "expect 'picture'");
    bundle.expect = NULL;
    rules[0].expect = "image/";
    CHECK_FAILS(stash_add(client, NULL, "c-rules", NULL, &bundle, NULL), client, STASH_INVALID_ARGUMENT, "files[0]");

    /* The rules in force for each file come back beside its entry of files: its own, else the
     * download's. */
    rules[0].expect = "text/plain";
    bundle.min_size = 2;
    CHECK_OK(stash_add(client, NULL, "c-rules", NULL, &bundle, NULL), client);
    CHECK_OK(stash_get(client, "c-rules", &record), client);
    if (record) {
        CHECK(record->expect[0] == 0 && record->min_size == 2, "the bundle's rules: '%s' %llu", record->expect,
              (unsigned long long)record->min_size);
        CHECK(record->n_files == 2 && record->file_rules, "%zu files with rules", record->n_files);
        if (record->n_files == 2 && record->file_rules) {
            CHECK(strcmp(record->file_rules[0].expect, "text/plain") == 0 && record->file_rules[0].min_size == 2,
                  "files[0]'s rules: '%s' %llu", record->file_rules[0].expect, (unsigned long long)record->file_rules[0].min_size);
            CHECK(record->file_rules[1].expect[0] == 0 && record->file_rules[1].min_size == 1, "files[1]'s rules: '%s' %llu",
                  record->file_rules[1].expect, (unsigned long long)record->file_rules[1].min_size);
        }
    }
    stash_download_free(record);
    CHECK_OK(stash_cancel(client, "c-rules"), client);
    CHECK(wait_for_state(events, "c-rules", STASH_STATE_NOT_DOWNLOADED, 20000, NULL), "c-rules removed");
}

static void test_list(stash_client *client) {
    stash_state completed = STASH_STATE_COMPLETED;
    stash_list_options options = STASH_LIST_OPTIONS_INIT;
    options.states = &completed;
    options.n_states = 1;
    options.group = "c";
    stash_download_list *list = NULL;
    CHECK_OK(stash_list(client, &options, &list), client);
    if (list) {
        CHECK(list->n_downloads == 1 && strcmp(list->downloads[0].id, "c-file") == 0, "%zu in group c",
              list->n_downloads);
        CHECK(list->total == 1 && strcmp(list->next_page_token, "") == 0, "one page");
        CHECK(list->totals.bytes_downloaded == 600000, "totals %llu", (unsigned long long)list->totals.bytes_downloaded);
        CHECK(list->totals.n_states == 1 && list->totals.states[0].state == STASH_STATE_COMPLETED &&
                  list->totals.states[0].count == 1,
              "state totals");
    }
    stash_download_list_free(list);

    stash_list_options paged = STASH_LIST_OPTIONS_INIT;
    paged.page_size = 1;
    CHECK_OK(stash_list(client, &paged, &list), client);
    if (list) {
        CHECK(list->n_downloads == 1 && list->total >= 2 && strlen(list->next_page_token) > 0, "first page of %u",
              list->total);
        stash_list_options next = STASH_LIST_OPTIONS_INIT;
        next.page_size = 1;
        next.page_token = list->next_page_token;
        stash_download_list *second = NULL;
        CHECK_OK(stash_list(client, &next, &second), client);
        CHECK(second && second->n_downloads == 1 && strcmp(second->downloads[0].id, list->downloads[0].id) != 0,
              "second page");
        stash_download_list_free(second);
    }
    stash_download_list_free(list);
    CHECK_OK(stash_list(client, NULL, &list), client);
    stash_download_list_free(list);
    stash_list_options bad = STASH_LIST_OPTIONS_INIT;
    bad.page_size = 5000;
    CHECK_FAILS(stash_list(client, &bad, &list), client, STASH_INVALID_ARGUMENT, "5000");
    CHECK(list == NULL, "no list on failure");
}

static void test_pause_resume_stop_cancel(stash_client *client, stash_client *events) {
    CHECK_OK(stash_add(client, url("/slow/40000000/c-big.bin"), "c-big", NULL, NULL, NULL), client);
    CHECK(wait_for_state(events, "c-big", STASH_STATE_DOWNLOADING, 20000, NULL), "c-big downloading");
    stash_download *record = NULL;
    CHECK_OK(stash_pause(client, "c-big", &record), client);
    CHECK(record && record->state == STASH_STATE_PAUSED, "paused");
    stash_download_free(record);
    CHECK_FAILS(stash_pause(client, "c-file", NULL), client, STASH_FAILED_PRECONDITION, "COMPLETED");
    CHECK_OK(stash_resume(client, "c-big", &record), client);
    CHECK(record && record->state != STASH_STATE_PAUSED, "resumed: %s", record ? stash_state_name(record->state) : "-");
    stash_download_free(record);
    CHECK_OK(stash_stop(client, "c-big", "waiting for Wi-Fi", &record), client);
    CHECK(record && record->state == STASH_STATE_STOPPED && strcmp(record->state_reason, "waiting for Wi-Fi") == 0,
          "stopped with the reason");
    stash_download_free(record);
    CHECK_OK(stash_cancel(client, "c-big"), client);
    CHECK(wait_for_state(events, "c-big", STASH_STATE_NOT_DOWNLOADED, 10000, NULL), "c-big removed");
    CHECK_FAILS(stash_get(client, "c-big", &record), client, STASH_NOT_FOUND, "c-big");
    CHECK(record == NULL, "no record on failure");
    CHECK_FAILS(stash_cancel(client, "c-big"), client, STASH_NOT_FOUND, "c-big");
}

static void test_all_at_once(stash_client *client) {
    CHECK_OK(stash_add(client, url("/slow/40000000/c-all-1.bin"), "c-all-1", NULL, NULL, NULL), client);
    CHECK_OK(stash_add(client, url("/slow/40000000/c-all-2.bin"), "c-all-2", NULL, NULL, NULL), client);
    uint32_t affected = 0;
    CHECK_OK(stash_pause_all(client, &affected), client);
    CHECK(affected == 2, "paused %u", affected);
    CHECK_OK(stash_resume_all(client, &affected), client);
    CHECK(affected == 2, "resumed %u", affected);
    /* Every download goes, the completed ones too. */
    CHECK_OK(stash_cancel_all(client, &affected), client);
    CHECK(affected >= 4, "cancelled %u", affected);
    stash_download_list *list = NULL;
    CHECK_OK(stash_list(client, NULL, &list), client);
    CHECK(list && list->n_downloads == 0 && list->total == 0, "nothing left");
    stash_download_list_free(list);
}

/* A group and the one under it change in one request each; the group next to it ("c-grp-2")
 * does not. */
static void test_groups(stash_client *client) {
    stash_add_options top = STASH_ADD_OPTIONS_INIT;
    top.group = "c-grp";
    stash_add_options under = STASH_ADD_OPTIONS_INIT;
    under.group = "c-grp/sub";
    stash_add_options next = STASH_ADD_OPTIONS_INIT;
    next.group = "c-grp-2";
    CHECK_OK(stash_add(client, url("/slow/40000000/c-grp-top.bin"), "c-grp-top", NULL, &top, NULL), client);
    CHECK_OK(stash_add(client, url("/slow/40000000/c-grp-sub.bin"), "c-grp-sub", NULL, &under, NULL), client);
    CHECK_OK(stash_add(client, url("/slow/40000000/c-grp-next.bin"), "c-grp-next", NULL, &next, NULL), client);
    uint32_t affected = 0;
    CHECK_OK(stash_pause_group(client, "c-grp", &affected), client);
    CHECK(affected == 2, "paused %u", affected);
    stash_download *record = NULL;
    CHECK_OK(stash_get(client, "c-grp-next", &record), client);
    CHECK(record && record->state != STASH_STATE_PAUSED, "c-grp-2 left alone: %s", record ? stash_state_name(record->state) : "-");
    stash_download_free(record);
    CHECK_OK(stash_resume_group(client, "c-grp/sub", false, &affected), client);
    CHECK(affected == 1, "resumed %u under c-grp/sub", affected);
    CHECK_OK(stash_resume_group(client, "c-grp", true, &affected), client);
    CHECK(affected == 1, "resumed %u: c-grp-top, still paused", affected);
    CHECK_OK(stash_cancel_group(client, "c-grp", &affected), client);
    CHECK(affected == 2, "cancelled %u", affected);
    CHECK_FAILS(stash_get(client, "c-grp-sub", &record), client, STASH_NOT_FOUND, "c-grp-sub");
    CHECK_OK(stash_cancel_group(client, "c-grp-2", &affected), client);
    CHECK(affected == 1, "cancelled %u of c-grp-2", affected);

    CHECK_FAILS(stash_pause_group(client, "", &affected), client, STASH_INVALID_ARGUMENT, "PauseAll");
    CHECK_FAILS(stash_cancel_group(client, "a//b", &affected), client, STASH_INVALID_ARGUMENT, "'a//b'");
    CHECK_FAILS(stash_resume_group(client, NULL, false, &affected), client, STASH_INVALID_ARGUMENT, "group");
}

/* The QUEUED downloads of group c-prio but c-prio-run, in run order, joined by spaces. */
static void queue_of(stash_client *client, char *out, size_t size) {
    stash_state queued = STASH_STATE_QUEUED;
    stash_list_options options = STASH_LIST_OPTIONS_INIT;
    options.states = &queued;
    options.n_states = 1;
    options.group = "c-prio";
    stash_download_list *list = NULL;
    out[0] = 0;
    CHECK_OK(stash_list(client, &options, &list), client);
    for (size_t i = 0; list && i < list->n_downloads; i++) {
        if (strcmp(list->downloads[i].id, "c-prio-run") == 0) continue;
        if (out[0]) strncat(out, " ", size - strlen(out) - 1);
        strncat(out, list->downloads[i].id, size - strlen(out) - 1);
    }
    stash_download_list_free(list);
}

/* Priority and moves with one slot and no preemption: the queue's order is what they say. */
static void test_priority(stash_client *client) {
    stash_config_entry one[] = {{"max-parallel", "1"}, {"preempt", "0"}};
    CHECK_OK(stash_config_set(client, one, 2, NULL), client);
    stash_add_options normal = STASH_ADD_OPTIONS_INIT;
    normal.group = "c-prio";
    stash_add_options low = STASH_ADD_OPTIONS_INIT;
    low.group = "c-prio";
    low.priority = STASH_PRIORITY_LOW;
    stash_download *record = NULL;
    CHECK_OK(stash_add(client, url("/slow/40000000/c-prio-run.bin"), "c-prio-run", NULL, &normal, NULL), client);
    CHECK_OK(stash_add(client, url("/slow/40000000/c-prio-a.bin"), "c-prio-a", NULL, &normal, NULL), client);
    CHECK_OK(stash_add(client, url("/slow/40000000/c-prio-b.bin"), "c-prio-b", NULL, &normal, NULL), client);
    CHECK_OK(stash_add(client, url("/slow/40000000/c-prio-low.bin"), "c-prio-low", NULL, &low, &record), client);
    CHECK(record && record->priority == STASH_PRIORITY_LOW, "added low: %s", record ? stash_priority_name(record->priority) : "-");
    stash_download_free(record);
    char order[256];
    queue_of(client, order, sizeof order);
    CHECK(strcmp(order, "c-prio-a c-prio-b c-prio-low") == 0, "queue: %s", order);
    CHECK_OK(stash_move(client, "c-prio-b", STASH_MOVE_TOP, NULL, NULL), client);
    CHECK_OK(stash_move(client, "c-prio-low", STASH_MOVE_BEFORE, "c-prio-a", &record), client);
    CHECK(record && record->priority == STASH_PRIORITY_NORMAL, "took c-prio-a's priority");
    stash_download_free(record);
    queue_of(client, order, sizeof order);
    CHECK(strcmp(order, "c-prio-b c-prio-low c-prio-a") == 0, "queue after moves: %s", order);
    CHECK_OK(stash_set_priority(client, "c-prio-a", STASH_PRIORITY_HIGH, &record), client);
    CHECK(record && record->priority == STASH_PRIORITY_HIGH && strcmp(stash_priority_name(record->priority), "PRIORITY_HIGH") == 0,
          "set high");
    stash_download_free(record);
    queue_of(client, order, sizeof order);
    CHECK(strcmp(order, "c-prio-a c-prio-b c-prio-low") == 0, "queue after set: %s", order);

    CHECK_FAILS(stash_move(client, "c-nothing", STASH_MOVE_TOP, NULL, NULL), client, STASH_NOT_FOUND, "'c-nothing'");
    CHECK_FAILS(stash_move(client, "c-prio-a", STASH_MOVE_AFTER, "c-prio-a", NULL), client, STASH_INVALID_ARGUMENT, "itself");
    CHECK_FAILS(stash_move(client, "c-prio-a", STASH_MOVE_BEFORE, NULL, NULL), client, STASH_INVALID_ARGUMENT, "other");
    CHECK_FAILS(stash_move(client, "c-prio-a", (stash_move_place)9, NULL, NULL), client, STASH_INVALID_ARGUMENT, "9");
    CHECK_FAILS(stash_set_priority(client, "c-prio-a", (stash_priority)7, NULL), client, STASH_INVALID_ARGUMENT, "7");
    CHECK_OK(stash_set_rate_limit(client, "c-prio-a", 512 * 1024, &record), client);
    CHECK(record && record->rate_limit == 512 * 1024, "rate limit set");
    stash_download_free(record);
    CHECK_OK(stash_get(client, "c-prio-a", &record), client);
    CHECK(record && record->rate_limit == 512 * 1024, "rate limit kept");
    stash_download_free(record);
    CHECK_OK(stash_set_rate_limit(client, "c-prio-a", 0, &record), client);
    CHECK(record && record->rate_limit == 0, "rate limit lifted");
    stash_download_free(record);
    CHECK_FAILS(stash_set_rate_limit(client, "c-prio-a", UINT64_MAX, NULL), client, STASH_INVALID_ARGUMENT, "18446744073709551615");
    CHECK_FAILS(stash_set_rate_limit(client, "c-nothing", 1, NULL), client, STASH_NOT_FOUND, "'c-nothing'");
    const char *renewed = url("/slow/40000000/c-prio-a.bin?sig=2");
    CHECK_OK(stash_set_uri(client, "c-prio-a", renewed, &record), client);
    CHECK(record && strcmp(record->uri, renewed) == 0, "uri set");
    stash_download_free(record);
    CHECK_FAILS(stash_set_uri(client, "c-prio-a", "ftp://h/x", NULL), client, STASH_INVALID_ARGUMENT, "'ftp://h/x'");
    CHECK_FAILS(stash_set_uri(client, "c-prio-a", "", NULL), client, STASH_INVALID_ARGUMENT, "uri is empty");
    CHECK_FAILS(stash_set_uri(client, "c-nothing", "http://h/x", NULL), client, STASH_NOT_FOUND, "'c-nothing'");
    /* The desktop's rules of one download (docs/DESKTOP.md). */
    CHECK_OK(stash_set_desktop_rules(client, "c-prio-a", "any", NULL, &record), client);
    CHECK(record && strcmp(record->network, "any") == 0 && record->on_battery[0] == 0, "network rule set: '%s' '%s'",
          record ? record->network : "", record ? record->on_battery : "");
    stash_download_free(record);
    CHECK_FAILS(stash_set_desktop_rules(client, "c-prio-a", "cellular", NULL, NULL), client, STASH_INVALID_ARGUMENT, "'cellular'");
    CHECK_FAILS(stash_set_desktop_rules(client, "c-prio-a", NULL, "", NULL), client, STASH_INVALID_ARGUMENT, "both empty");
    stash_add_options ruled = STASH_ADD_OPTIONS_INIT;
    ruled.on_battery = "pause";
    CHECK_OK(stash_add(client, url("/data/10/c-ruled"), "c-ruled", NULL, &ruled, &record), client);
    CHECK(record && strcmp(record->on_battery, "pause") == 0, "on-battery rule added: '%s'", record ? record->on_battery : "");
    stash_download_free(record);
    CHECK_OK(stash_cancel(client, "c-ruled"), client);
    stash_add_options odd = STASH_ADD_OPTIONS_INIT;
    odd.priority = (stash_priority)-1;
    CHECK_FAILS(stash_add(client, url("/data/10/c-prio-odd"), NULL, NULL, &odd, NULL), client, STASH_INVALID_ARGUMENT,
                "options->priority");

    const char *ids[] = {"c-prio-run", "c-prio-a", "c-prio-b", "c-prio-low"};
    for (size_t i = 0; i < 4; i++) CHECK_OK(stash_cancel(client, ids[i]), client);
    stash_config_entry back[] = {{"max-parallel", "3"}, {"preempt", "1"}};
    CHECK_OK(stash_config_set(client, back, 2, NULL), client);
}

/* Replace (PROTOCOL.md, "Replace"): a COMPLETED file fetched again and swapped in; a bundle refused. */
static void test_replace(stash_client *client, stash_client *events) {
    CHECK(stash_client_has_feature(client, "replace"), "feature replace");
    CHECK_OK(stash_add(client, url("/data/3000/c-rep.bin"), "c-rep", NULL, NULL, NULL), client);
    CHECK(wait_for_state(events, "c-rep", STASH_STATE_COMPLETED, 20000, NULL), "c-rep completed");
    stash_add_options options = STASH_ADD_OPTIONS_INIT;
    options.replace = true;
    stash_download *record = NULL;
    CHECK_OK(stash_add(client, url("/data/3000/c-rep.bin"), "c-rep", NULL, &options, &record), client);
    CHECK(record && !record->created && record->state == STASH_STATE_COMPLETED, "still COMPLETED during the replace");
    stash_download_free(record);
    bool replaced = false;
    for (int i = 0; i < 2000 && !replaced; i++) {
        record = NULL;
        CHECK_OK(stash_get(client, "c-rep", &record), client);
        replaced = record && strcmp(record->state_reason, "replaced by a new copy") == 0;
        stash_download_free(record);
        if (!replaced) usleep(10000);
    }
    CHECK(replaced, "c-rep replaced");

    stash_bundle_file files[] = {{.url = url("/data/100/c-rep-page.jpg"), .path = "p.jpg"}};
    stash_add_options bundle = STASH_ADD_OPTIONS_INIT;
    bundle.files = files;
    bundle.n_files = 1;
    CHECK_OK(stash_add(client, NULL, "c-rep-bundle", NULL, &bundle, NULL), client);
    CHECK(wait_for_state(events, "c-rep-bundle", STASH_STATE_COMPLETED, 20000, NULL), "c-rep-bundle completed");
    CHECK(stash_client_has_feature(client, "replace-any"), "feature replace-any");
    bundle.replace = true;
    CHECK_OK(stash_add(client, NULL, "c-rep-bundle", NULL, &bundle, NULL), client);
    replaced = false;
    for (int i = 0; i < 2000 && !replaced; i++) {
        record = NULL;
        CHECK_OK(stash_get(client, "c-rep-bundle", &record), client);
        replaced = record && strcmp(record->state_reason, "replaced by a new copy") == 0;
        stash_download_free(record);
        if (!replaced) usleep(10000);
    }
    CHECK(replaced, "c-rep-bundle replaced");
    CHECK_OK(stash_cancel(client, "c-rep"), client);
    CHECK_OK(stash_cancel(client, "c-rep-bundle"), client);
}

static void test_refusals(stash_client *client) {
    CHECK_FAILS(stash_add(client, url("/data/10/x"), "../bad", NULL, NULL, NULL), client, STASH_INVALID_ARGUMENT, "../bad");
    CHECK_FAILS(stash_add(client, "ftp://example.org/x", NULL, NULL, NULL, NULL), client, STASH_INVALID_ARGUMENT, "ftp");
    CHECK_FAILS(stash_add(client, url("/data/10/other"), "c-file", NULL, NULL, NULL), client, STASH_ALREADY_EXISTS,
                "c-file");
    stash_add_options bad_headers = STASH_ADD_OPTIONS_INIT;
    bad_headers.headers = NULL;
    bad_headers.n_headers = 3;
    CHECK_FAILS(stash_add(client, url("/data/10/x"), NULL, NULL, &bad_headers, NULL), client, STASH_INVALID_ARGUMENT,
                "options->headers");
    CHECK_FAILS(stash_get(client, "c-nothing", NULL), client, STASH_NOT_FOUND, "c-nothing");
    CHECK_FAILS(stash_get(client, NULL, NULL), client, STASH_INVALID_ARGUMENT, "id");
    CHECK_FAILS(stash_verify(client, 64, NULL), client, STASH_INVALID_ARGUMENT, "flags");
    /* A refusal leaves the connection usable, and a success clears the message. */
    CHECK_OK(stash_has(client, "c-file", NULL, NULL), client);
    CHECK(strcmp(stash_client_error_message(client), "") == 0, "message cleared: %s", stash_client_error_message(client));
    CHECK(stash_get(NULL, "x", NULL) == STASH_INVALID_ARGUMENT, "no client");
    CHECK(strstr(stash_client_error_message(NULL), "no client") != NULL, "message without a client");
}

static void test_config(stash_client *client) {
    stash_config config = {0};
    CHECK_OK(stash_config_get(client, &config), client);
    CHECK(config.max_parallel >= 1 && config.retry_max_attempts >= 1, "config read");
    stash_config_entry entries[] = {{"max-parallel", "4"}, {"files-per-download", "6"}};
    CHECK_OK(stash_config_set(client, entries, 2, &config), client);
    CHECK(config.max_parallel == 4 && config.files_per_download == 6, "config set: %u %u", config.max_parallel,
          config.files_per_download);
    stash_config_entry bad[] = {{"max-parallel", "0"}};
    CHECK_FAILS(stash_config_set(client, bad, 1, NULL), client, STASH_INVALID_ARGUMENT, "max-parallel");
    stash_config_entry unknown[] = {{"no-such-key", "1"}};
    CHECK_FAILS(stash_config_set(client, unknown, 1, NULL), client, STASH_INVALID_ARGUMENT, "no-such-key");
    /* A setting that is text, not a number: the schedule comes back as the daemon reads it. */
    stash_config_entry schedule[] = {{"rate-schedule", "Mon-Fri 09:00-18:00 1M"}};
    CHECK_OK(stash_config_set(client, schedule, 1, &config), client);
    CHECK(strcmp(config.rate_schedule, "Mon,Tue,Wed,Thu,Fri 09:00-18:00 1M") == 0, "rate schedule set: '%s'", config.rate_schedule);
    stash_config_entry bad_schedule[] = {{"rate-schedule", "Mon 25:00-26:00 1M"}};
    CHECK_FAILS(stash_config_set(client, bad_schedule, 1, NULL), client, STASH_INVALID_ARGUMENT, "25:00");
    stash_config_entry no_schedule[] = {{"rate-schedule", ""}};
    CHECK_OK(stash_config_set(client, no_schedule, 1, &config), client);
    CHECK(config.rate_schedule[0] == 0, "rate schedule cleared: '%s'", config.rate_schedule);
    CHECK(config.preempt, "preempt is on by default");
    stash_config_entry no_preempt[] = {{"preempt", "0"}};
    CHECK_OK(stash_config_set(client, no_preempt, 1, &config), client);
    CHECK(!config.preempt, "preempt off");
    stash_config_entry preempt[] = {{"preempt", "1"}};
    CHECK_OK(stash_config_set(client, preempt, 1, &config), client);
    CHECK(config.preempt, "preempt on again");
    /* The desktop's settings are words (docs/DESKTOP.md). */
    stash_config_entry desktop[] = {{"network", "unmetered"}, {"on-battery", "pause"}, {"notify", "groups"}};
    CHECK_OK(stash_config_set(client, desktop, 3, &config), client);
    CHECK(strcmp(config.network, "unmetered") == 0 && strcmp(config.on_battery, "pause") == 0 && strcmp(config.notify, "groups") == 0,
          "desktop settings: %s %s %s", config.network, config.on_battery, config.notify);
    stash_config_entry bad_network[] = {{"network", "cellular"}};
    CHECK_FAILS(stash_config_set(client, bad_network, 1, NULL), client, STASH_INVALID_ARGUMENT, "cellular");
    stash_config_entry back_desktop[] = {{"network", "any"}, {"on-battery", "continue"}, {"notify", "none"}};
    CHECK_OK(stash_config_set(client, back_desktop, 3, &config), client);
    CHECK(config.network[0] == 0 && config.on_battery[0] == 0, "the defaults read as \"\": '%s' '%s'", config.network, config.on_battery);
}

static void test_info(stash_client *client) {
    stash_stats *stats = NULL;
    CHECK_OK(stash_get_stats(client, &stats), client);
    CHECK(stats && stats->n_counts >= 1, "stats with counts");
    stash_stats_free(stats);
    stash_system_info *info = NULL;
    CHECK_OK(stash_get_info(client, &info), client);
    if (info) {
        CHECK(strstr(info->data_dir, work) == info->data_dir, "data dir %s", info->data_dir);
        CHECK(strcmp(info->socket_path, socket_path) == 0, "socket %s", info->socket_path);
        CHECK(info->download_count >= 2 && info->bytes_held >= 840000, "%u downloads, %llu bytes, %u assets",
              info->download_count, (unsigned long long)info->bytes_held, info->asset_count);
        CHECK(info->last_verify != NULL, "the verify at start");
        /* No NetworkManager on the tests' buses: said in words, and nothing holds. */
        CHECK(info->network_service[0] && info->power_service[0] && info->sleep_inhibitor[0] && !info->metered && !info->on_battery,
              "desktop: '%s' '%s' '%s'", info->network_service, info->power_service, info->sleep_inhibitor);
    }
    stash_system_info_free(info);
    stash_verify_report *report = NULL;
    CHECK_OK(stash_verify(client, STASH_VERIFY_DEEP | STASH_VERIFY_DRY_RUN, &report), client);
    CHECK(report && report->deep && report->n_findings == 0 && report->downloads_checked >= 2, "verify: %zu findings, %u downloads",
          report ? report->n_findings : 0, report ? report->downloads_checked : 0);
    for (size_t i = 0; report && i < report->n_findings; i++) {
        fprintf(stderr, "  %s %s %s\n", stash_finding_kind_name(report->findings[i].kind), report->findings[i].path, report->findings[i].detail);
    }
    stash_verify_report_free(report);

    char orphan[512];
    snprintf(orphan, sizeof orphan, "%s/data/assets/c-orphan", work);
    CHECK(mkdir(orphan, 0700) == 0, "mkdir %s", orphan);
    stash_purge_result *purge = NULL;
    CHECK_OK(stash_purge(client, &purge), client);
    CHECK(purge && purge->n_paths == 1 && strstr(purge->paths[0], "c-orphan"), "purged the orphan");
    stash_purge_result_free(purge);
}

static void test_hls_subtitles_licences(stash_client *client, stash_client *events) {
    stash_manifest_info *plan = NULL;
    CHECK_OK(stash_plan(client, url("/hls/master.m3u8"), NULL, 0, &plan), client);
    if (plan) {
        CHECK(plan->n_variants == 2, "%zu variants", plan->n_variants);
        if (plan->n_variants == 2) {
            CHECK(plan->variants[0].height == 360 && plan->variants[1].height == 720, "heights");
            CHECK(plan->variants[0].n_codecs == 2, "codecs");
            CHECK(plan->variants[0].duration == 6.5, "duration %f", plan->variants[0].duration);
        }
    }
    stash_manifest_info_free(plan);
    CHECK_FAILS(stash_plan(client, "ftp://x/master.m3u8", NULL, 0, NULL), client, STASH_INVALID_ARGUMENT, "ftp");

    stash_hls_options hls = STASH_HLS_OPTIONS_INIT;
    hls.quality = "low";
    hls.max_height = 720;
    stash_add_options options = STASH_ADD_OPTIONS_INIT;
    options.hls = &hls;
    CHECK_OK(stash_add(client, url("/hls/master.m3u8"), "c-hls", NULL, &options, NULL), client);
    CHECK(wait_for_state(events, "c-hls", STASH_STATE_COMPLETED, 20000, NULL), "c-hls completed");
    stash_download *record = NULL;
    CHECK_OK(stash_get(client, "c-hls", &record), client);
    CHECK(record && record->hls && strcmp(record->hls->quality, "low") == 0 && record->hls->max_height == 720,
          "HLS choice kept");
    stash_download_free(record);

    /* Part of the stream: seg1 alone (4 s to 6.5 s); an end past the stream is clamped. */
    CHECK(stash_client_has_feature(client, "time-range"), "feature time-range");
    stash_plan_options window = STASH_PLAN_OPTIONS_INIT;
    window.has_start = true;
    window.start = 4;
    window.has_end = true;
    window.end = 100;
    CHECK_OK(stash_plan_with(client, url("/hls/master.m3u8"), &window, &plan), client);
    if (plan) {
        CHECK(plan->has_range && plan->start == 4 && plan->end == 6.5, "range %d %f-%f", plan->has_range, plan->start, plan->end);
        CHECK(plan->n_warnings >= 1 && strstr(plan->warnings[0], "hls.end 100"), "the clamp said");
        CHECK(plan->n_variants == 2 && plan->variants[0].estimated_bytes == 700000 * 5 / 16, "the range's size");
    }
    stash_manifest_info_free(plan);
    window.start = 6.5;
    CHECK_FAILS(stash_plan_with(client, url("/hls/master.m3u8"), &window, NULL), client, STASH_INVALID_ARGUMENT,
                "lasts 6.5 s");
    hls.has_start = true;
    hls.start = 4;
    hls.has_end = true;
    hls.end = 100;
    CHECK_OK(stash_add(client, url("/hls/master.m3u8"), "c-clip", NULL, &options, NULL), client);
    CHECK(wait_for_state(events, "c-clip", STASH_STATE_COMPLETED, 20000, NULL), "c-clip completed");
    CHECK_OK(stash_get(client, "c-clip", &record), client);
    CHECK(record && record->hls && record->hls->struct_size >= sizeof(stash_hls_options) && record->files_total == 1,
          "one segment");
    CHECK(record && record->hls && record->hls->has_start && record->hls->start == 4 && record->hls->has_end
              && record->hls->end == 6.5,
          "the range kept, its end clamped");
    stash_download_free(record);
    hls.has_start = hls.has_end = false;

    char out_dir[512];
    snprintf(out_dir, sizeof out_dir, "%s/export", work);
    stash_export_result *exported = NULL;
    CHECK_OK(stash_export(client, "c-hls", out_dir, false, &exported), client);
    CHECK(exported && exported->files >= 4 && exported->bytes > 8000 && !exported->decrypted, "export");
    stash_export_result_free(exported);
    CHECK_FAILS(stash_export(client, "c-file", out_dir, false, NULL), client, STASH_FAILED_PRECONDITION, "HLS");

    /* One file: a single file is copied, or linked; the harness's segments are no media, so
     * the HLS download cannot be remuxed, and that is said. */
    char copy_path[600];
    snprintf(copy_path, sizeof copy_path, "%s/c-file.copy", work);
    CHECK_OK(stash_export_file(client, "c-file", copy_path, NULL, &exported), client);
    CHECK(exported && strcmp(exported->file, copy_path) == 0 && exported->bytes > 0 && !exported->linked
              && strcmp(exported->format, "") == 0 && exported->n_tracks == 0 && strcmp(exported->dir, "") == 0,
          "a copy");
    stash_export_result_free(exported);
    CHECK_FAILS(stash_export_file(client, "c-file", copy_path, NULL, NULL), client, STASH_ALREADY_EXISTS, "force");
    stash_export_options export_options = STASH_EXPORT_OPTIONS_INIT;
    export_options.force = true;
    export_options.link = true;
    exported = NULL;
    CHECK_OK(stash_export_file(client, "c-file", copy_path, &export_options, &exported), client);
    CHECK(exported && exported->linked, "linked");
    stash_export_result_free(exported);
    export_options = (stash_export_options)STASH_EXPORT_OPTIONS_INIT;
    export_options.format = "avi";
    CHECK_FAILS(stash_export_file(client, "c-hls", copy_path, &export_options, NULL), client, STASH_INVALID_ARGUMENT, "avi");
    char film[600];
    snprintf(film, sizeof film, "%s/c-hls.mkv", work);
    CHECK_FAILS(stash_export_file(client, "c-hls", film, NULL, NULL), client, STASH_FAILED_PRECONDITION, "cannot write");

    stash_text_track track = {.uri = url("/data/300/c-en.vtt"), .lang = "en", .title = "English"};
    CHECK_OK(stash_subtitles_add(client, "c-file", NULL, 0, &track, 1, &record), client);
    CHECK(record && record->has_subtitles && record->n_text_tracks == 1, "a text track");
    stash_download_free(record);
    CHECK(wait_for_state(events, "c-file", STASH_STATE_COMPLETED, 20000, NULL), "c-file completed with its track");
    stash_subtitles *subtitles = NULL;
    CHECK_OK(stash_subtitles_get(client, "c-file", &subtitles), client);
    CHECK(subtitles && subtitles->n_text_tracks == 1 && strcmp(subtitles->text_tracks[0].path, "subtitles/en.vtt") == 0,
          "track path");
    stash_subtitles_free(subtitles);
    const char *en = "en";
    CHECK_OK(stash_subtitles_remove(client, "c-file", &en, 1, &record), client);
    CHECK(record && record->n_text_tracks == 0, "track removed");
    stash_download_free(record);

    stash_license_status *licence = NULL;
    CHECK_FAILS(stash_license_check(client, "c-file", &licence), client, STASH_FAILED_PRECONDITION, "c-file");
    CHECK_FAILS(stash_license_get(client, "c-file", NULL), client, STASH_FAILED_PRECONDITION, "c-file");
    CHECK_FAILS(stash_license_renew(client, "c-file", NULL), client, STASH_FAILED_PRECONDITION, "c-file");
    CHECK_FAILS(stash_license_release(client, "c-nothing", NULL), client, STASH_NOT_FOUND, "c-nothing");
    uint32_t released = 99;
    CHECK_OK(stash_license_release_all(client, &released), client);
    CHECK(released == 0, "released %u", released);
    stash_playback_key *key = NULL;
    CHECK_FAILS(stash_get_playback_key(client, "c-file", NULL, &key), client, STASH_FAILED_PRECONDITION, "licence");
    CHECK(key == NULL, "no key");
}

/* An MPD that ffmpeg made (clients/tests/harness.py), planned and downloaded as HLS is. */
static void test_dash(stash_client *client, stash_client *events) {
    CHECK(stash_client_has_feature(client, "dash"), "feature dash");
    stash_manifest_info *plan = NULL;
    CHECK_OK(stash_plan(client, url("/dash/manifest.mpd"), NULL, 0, &plan), client);
    if (plan) {
        CHECK(plan->n_variants == 2, "%zu variants", plan->n_variants);
        if (plan->n_variants == 2) {
            CHECK(plan->variants[0].height == 144 && plan->variants[1].height == 240, "heights");
            CHECK(plan->variants[0].bandwidth == 200000 && plan->variants[1].bandwidth == 600000, "bandwidths");
        }
        CHECK(plan->n_audio == 1 && plan->duration == 4, "%zu audio tracks, %f s", plan->n_audio, plan->duration);
    }
    stash_manifest_info_free(plan);

    stash_hls_options hls = STASH_HLS_OPTIONS_INIT;
    hls.quality = "low";
    stash_add_options options = STASH_ADD_OPTIONS_INIT;
    options.hls = &hls;
    CHECK_OK(stash_add(client, url("/dash/manifest.mpd"), "c-dash", NULL, &options, NULL), client);
    CHECK(wait_for_state(events, "c-dash", STASH_STATE_COMPLETED, 20000, NULL), "c-dash completed");
    stash_download *record = NULL;
    CHECK_OK(stash_get(client, "c-dash", &record), client);
    CHECK(record && record->quality && strncmp(record->quality, "426x240,", 8) == 0, "the 426x240 representation: %s",
          record && record->quality ? record->quality : "(none)");
    CHECK(record && record->files_done == 6 && record->files_total == 6, "video and audio, each an init and two segments");
    stash_download_free(record);
}

static void test_forget_adopt(stash_client *client) {
    char folder[512], file[600];
    snprintf(folder, sizeof folder, "%s/handed-over", work);
    CHECK(mkdir(folder, 0700) == 0, "mkdir %s", folder);
    stash_download *record = NULL;
    CHECK_OK(stash_forget(client, "c-file", folder, &record), client);
    CHECK(record && strstr(record->asset_path, folder) == record->asset_path, "files moved to %s",
          record ? record->asset_path : "-");
    snprintf(file, sizeof file, "%s", record ? record->asset_path : "-");
    stash_download_free(record);
    struct stat st;
    CHECK(stat(file, &st) == 0 && st.st_size == 600000, "%s", file);
    stash_adopt_options options = STASH_ADOPT_OPTIONS_INIT;
    options.url = url("/slow/600000/c-file.bin");
    CHECK_OK(stash_adopt(client, file, "c-adopted", &options, &record), client);
    CHECK(record && record->state == STASH_STATE_COMPLETED && record->created, "adopted");
    stash_download_free(record);
    CHECK_FAILS(stash_adopt(client, "relative/path", "c-x", NULL, NULL), client, STASH_INVALID_ARGUMENT, "relative/path");
}

/* Events that arrive while a call waits are kept for stash_next_event, in order. */
static void test_events_during_calls(void) {
    stash_client *client = connect_or_exit();
    stash_subscribe_options options = STASH_SUBSCRIBE_OPTIONS_INIT;
    options.ids = (const char *[]){"c-queued"};
    options.n_ids = 1;
    CHECK_OK(stash_subscribe(client, &options), client);
    CHECK_OK(stash_add(client, url("/data/5000/c-queued.bin"), "c-queued", NULL, NULL, NULL), client);
    bool exists;
    stash_state state = STASH_STATE_QUEUED;
    for (int i = 0; i < 200 && state != STASH_STATE_COMPLETED; i++) {
        CHECK_OK(stash_has(client, "c-queued", &exists, &state), client);
        usleep(10000);
    }
    CHECK(state == STASH_STATE_COMPLETED, "c-queued completed");
    stash_event *event;
    uint64_t last_seq = 0;
    bool completed = false;
    while (stash_next_event(client, &event) == STASH_OK && event) {
        CHECK(event->seq > last_seq, "seq %llu after %llu", (unsigned long long)event->seq, (unsigned long long)last_seq);
        last_seq = event->seq;
        if (event->kind == STASH_EVENT_STATE_CHANGED) completed = event->state_changed.download->state == STASH_STATE_COMPLETED;
        stash_event_free(event);
    }
    CHECK(completed, "the events kept during the calls end with COMPLETED");
    CHECK_OK(stash_cancel(client, "c-queued"), client);
    /* Closing with events still waiting frees them. */
    stash_client_close(client);
}

/* Whether /proc says the process is stopped: a signal is delivered after kill() returns. */
static bool stopped(pid_t pid) {
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *end = strrchr(stat, ')');
    return end && end[1] == ' ' && end[2] == 'T';
}

/* A daemon that does not answer: the call gives up after the timeout, and the client with it. */
static void test_timeout(pid_t daemon) {
    stash_client *client = connect_or_exit();
    stash_client_set_timeout(client, 300);
    kill(daemon, SIGSTOP);
    for (int i = 0; i < 1000 && !stopped(daemon); i++) usleep(5000);
    CHECK(stopped(daemon), "stashd stopped");
    CHECK_FAILS(stash_get(client, "c-file", NULL), client, STASH_UNAVAILABLE, "within 300 ms");
    kill(daemon, SIGCONT);
    CHECK_FAILS(stash_has(client, "c-file", NULL, NULL), client, STASH_UNAVAILABLE, "within 300 ms");
    stash_client_close(client);
}

/* CPU time this thread has spent, in microseconds. */
static long thread_cpu_us(void) {
    struct rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000L + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
}

static void *continue_later(void *daemon) {
    usleep(200000);
    kill(*(pid_t *)daemon, SIGCONT);
    return NULL;
}

/* The CPU a call spends while stashd holds its answer back for 200 ms (stopped). */
static long cpu_while_answer_held(stash_client *client, pid_t daemon) {
    kill(daemon, SIGSTOP);
    for (int i = 0; i < 1000 && !stopped(daemon); i++) usleep(5000);
    pthread_t waker;
    pthread_create(&waker, NULL, continue_later, &daemon);
    long before = thread_cpu_us();
    CHECK_OK(stash_has(client, "c-file", NULL, NULL), client);
    long spent = thread_cpu_us() - before;
    pthread_join(waker, NULL);
    return spent;
}

/* A busy-polling call watches for its answer awake, then sleeps as before; bad values are
 * refused and change nothing. */
static void test_busy_poll(pid_t daemon) {
    stash_client *client = connect_or_exit();
    CHECK_FAILS(stash_client_set_busy_poll(client, -1), client, STASH_INVALID_ARGUMENT, "-1 us is outside 0 to 1000000");
    CHECK_FAILS(stash_client_set_busy_poll(client, STASH_MAX_BUSY_POLL_US + 1), client, STASH_INVALID_ARGUMENT, "1000001");
    CHECK_FAILS(stash_client_set_busy_poll(client, INT_MIN), client, STASH_INVALID_ARGUMENT, "-2147483648");
    CHECK_FAILS(stash_client_set_busy_poll(client, INT_MAX), client, STASH_INVALID_ARGUMENT, "2147483647");
    CHECK_OK(stash_client_set_busy_poll(client, 0), client);
    long asleep = cpu_while_answer_held(client, daemon);
    CHECK(asleep < 40000, "a call without busy poll sleeps while it waits: %ld us of CPU", asleep);
    CHECK_OK(stash_client_set_busy_poll(client, STASH_MAX_BUSY_POLL_US), client);
    long awake = cpu_while_answer_held(client, daemon);
    CHECK(awake >= 40000, "a busy-polling call stays awake while it waits: %ld us of CPU", awake);
    /* Past its time it sleeps like any other: 1 ms of watching, then 200 ms of waiting. */
    CHECK_OK(stash_client_set_busy_poll(client, 1000), client);
    long brief = cpu_while_answer_held(client, daemon);
    CHECK(brief < 40000, "a call sleeps once its busy poll is over: %ld us of CPU", brief);
    for (int i = 0; i < 100; i++) CHECK_OK(stash_has(client, "c-file", NULL, NULL), client);
    stash_client_close(client);
}

int main(void) {
    socket_path = getenv("STASH_TEST_SOCKET");
    base_url = getenv("STASH_TEST_BASE_URL");
    work = getenv("STASH_TEST_WORK");
    const char *pid = getenv("STASH_TEST_DAEMON_PID");
    if (!socket_path || !base_url || !work || !pid) {
        fprintf(stderr, "run me through clients/tests/harness.py\n");
        return 2;
    }
    test_connect_failures();
    stash_client *client = connect_or_exit();
    stash_client *events = connect_or_exit();
    CHECK_OK(stash_subscribe(events, NULL), events);
    test_hello(client);
    test_single_file(client, events);
    test_bundle(client, events);
    test_content_check(client, events);
    test_list(client);
    test_pause_resume_stop_cancel(client, events);
    test_groups(client);
    test_priority(client);
    test_replace(client, events);
    test_refusals(client);
    test_config(client);
    test_info(client);
    test_hls_subtitles_licences(client, events);
    test_dash(client, events);
    test_forget_adopt(client);
    test_all_at_once(client);
    stash_client_close(events);
    stash_client_close(client);
    test_events_during_calls();
    test_busy_poll((pid_t)atol(pid));
    test_timeout((pid_t)atol(pid));
    if (failures) fprintf(stderr, "test_client: %d checks failed\n", failures);
    else printf("test_client: all checks passed\n");
    return failures ? 1 : 0;
}
