/* The struct_size rule of the options structs (client.h, "Option structs"), through the public
 * calls of a capture client: what the library packs (or refuses) for a caller built against
 * this header, an older one and a newer one. No daemon: a refused call packs nothing, an
 * accepted one packs its request (and the capture client answers STASH_UNAVAILABLE). */
#include "check.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* A caller built against a later header: this one's struct with a field appended. */
typedef struct later_add_options {
    stash_add_options known;
    uint64_t later_field;
} later_add_options;

static stash_client *capture(void) {
    stash_client *client = client_new_capture(1, "test_options");
    if (!client) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return client;
}

/* The AddDownloadRequest the last call packed, or NULL when it packed nothing (then forgets it). */
static Stash__V1__Request *packed(stash_client *client) {
    Stash__V1__Request *request = NULL;
    if (client->captured_length > 4)
        request = stash__v1__request__unpack(NULL, client->captured_length - 4, client->captured + 4);
    free(client->captured);
    client->captured = NULL;
    client->captured_length = 0;
    return request;
}

static void refused(stash_client *client, stash_status status, const char *first, const char *second, int line) {
    const char *message = stash_client_error_message(client);
    CHECK(status == STASH_INVALID_ARGUMENT, "line %d: got %s (%s), expected INVALID_ARGUMENT", line,
          stash_status_name(status), message);
    CHECK(strstr(message, first) != NULL, "line %d: '%s' should mention '%s'", line, message, first);
    CHECK(strstr(message, second) != NULL, "line %d: '%s' should mention '%s'", line, message, second);
    Stash__V1__Request *request = packed(client);
    CHECK(request == NULL, "line %d: a refused call packed a request", line);
    stash__v1__request__free_unpacked(request, NULL);
}

static void test_the_init_macro_and_function_set_the_size_and_nothing_else(void) {
    stash_add_options from_macro = STASH_ADD_OPTIONS_INIT;
    CHECK(from_macro.struct_size == sizeof(stash_add_options), "macro: %zu", from_macro.struct_size);
    CHECK(!from_macro.sha256 && !from_macro.force && !from_macro.group, "macro: the rest is zero");
    stash_add_options from_function;
    memset(&from_function, 0xff, sizeof from_function);
    stash_add_options_init(&from_function);
    stash_add_options zero;
    memset(&zero, 0, sizeof zero);
    zero.struct_size = sizeof zero;
    CHECK(memcmp(&from_function, &zero, sizeof zero) == 0, "the function zeroes every byte, padding too");
    stash_list_options list = STASH_LIST_OPTIONS_INIT;
    stash_adopt_options adopt = STASH_ADOPT_OPTIONS_INIT;
    stash_subscribe_options subscribe = STASH_SUBSCRIBE_OPTIONS_INIT;
    stash_hls_options hls = STASH_HLS_OPTIONS_INIT;
    stash_drm_params drm = STASH_DRM_PARAMS_INIT;
    stash_plan_options plan = STASH_PLAN_OPTIONS_INIT;
    stash_export_options export_options = STASH_EXPORT_OPTIONS_INIT;
    CHECK(list.struct_size == sizeof list && adopt.struct_size == sizeof adopt && subscribe.struct_size == sizeof subscribe
              && hls.struct_size == sizeof hls && drm.struct_size == sizeof drm && plan.struct_size == sizeof plan
              && export_options.struct_size == sizeof export_options,
          "every INIT macro sets its own size");
}

static void test_this_headers_size_is_read_whole(void) {
    stash_client *client = capture();
    stash_hls_options hls;
    stash_hls_options_init(&hls);
    hls.quality = "low";
    stash_add_options options;
    stash_add_options_init(&options);
    options.force = true;
    options.group = "g";
    options.hls = &hls;
    CHECK(stash_add(client, "https://example.org/a", "a", NULL, &options, NULL) == STASH_UNAVAILABLE, "packed");
    Stash__V1__Request *request = packed(client);
    CHECK(request && request->add_download, "an AddDownload");
    if (request && request->add_download) {
        const Stash__V1__AddDownloadRequest *add = request->add_download;
        CHECK(add->force && strcmp(add->group, "g") == 0, "force and group: %d %s", add->force, add->group);
        CHECK(add->hls && strcmp(add->hls->quality, "low") == 0, "hls.quality");
    }
    stash__v1__request__free_unpacked(request, NULL);
    /* NULL options are still "none given". */
    CHECK(stash_add(client, "https://example.org/a", "a", NULL, NULL, NULL) == STASH_UNAVAILABLE, "packed");
    request = packed(client);
    CHECK(request && request->add_download && !request->add_download->force, "no options");
    stash__v1__request__free_unpacked(request, NULL);
    stash_client_close(client);
}

static void test_a_size_of_zero_or_below_the_first_version_is_refused_naming_it(void) {
    stash_client *client = capture();
    char expected[32];
    snprintf(expected, sizeof expected, "below %zu", (size_t)STASH_ADD_OPTIONS_FIRST_SIZE);
    stash_add_options options = {0}; /* the mistake the field catches: struct_size left 0 */
    options.force = true;
    refused(client, stash_add(client, "https://example.org/a", "a", NULL, &options, NULL),
            "options->struct_size: 0 is", expected, __LINE__);
    refused(client, stash_add(client, "https://example.org/a", "a", NULL, &options, NULL), "stash_add_options",
            "stash_add_options_init()", __LINE__);
    options.struct_size = STASH_ADD_OPTIONS_FIRST_SIZE - 1;
    char value[64];
    snprintf(value, sizeof value, "options->struct_size: %zu is", options.struct_size);
    refused(client, stash_add(client, "https://example.org/a", "a", NULL, &options, NULL), value, expected, __LINE__);

    /* A nested struct is named by its path. */
    stash_hls_options hls = {0};
    stash_add_options_init(&options);
    options.hls = &hls;
    refused(client, stash_add(client, "https://example.org/a", "a", NULL, &options, NULL),
            "options->hls->struct_size: 0", "stash_hls_options", __LINE__);
    stash_drm_params drm = {0};
    stash_add_options_init(&options);
    options.drm = &drm;
    refused(client, stash_add(client, "https://example.org/a", "a", NULL, &options, NULL),
            "options->drm->struct_size: 0", "stash_drm_params", __LINE__);

    /* Every call that takes an options struct. */
    stash_list_options list = {0};
    refused(client, stash_list(client, &list, NULL), "options->struct_size: 0", "stash_list_options", __LINE__);
    stash_subscribe_options subscribe = {0};
    refused(client, stash_subscribe(client, &subscribe), "options->struct_size: 0", "stash_subscribe_options", __LINE__);
    stash_export_options export_options = {0};
    refused(client, stash_export_file(client, "a", "/tmp/a.mkv", &export_options, NULL), "options->struct_size: 0",
            "stash_export_options", __LINE__);
    stash_adopt_options adopt = {0};
    refused(client, stash_adopt(client, "/tmp/a", "a", &adopt, NULL), "options->struct_size: 0", "stash_adopt_options",
            __LINE__);
    stash_client_close(client);
}

static void test_a_later_callers_struct_is_taken_when_its_unknown_fields_are_zero(void) {
    stash_client *client = capture();
    later_add_options later;
    memset(&later, 0, sizeof later);
    later.known.struct_size = sizeof later;
    later.known.force = true;
    later.known.group = "later";
    CHECK(stash_add(client, "https://example.org/a", "a", NULL, &later.known, NULL) == STASH_UNAVAILABLE, "%s",
          stash_client_error_message(client));
    Stash__V1__Request *request = packed(client);
    CHECK(request && request->add_download && request->add_download->force
              && strcmp(request->add_download->group, "later") == 0,
          "the fields this library knows are read");
    stash__v1__request__free_unpacked(request, NULL);

    /* A field this library does not know, set: doing the call without it would not be what the
     * caller asked. */
    later.later_field = 7;
    char where[64];
    snprintf(where, sizeof where, "byte %zu is not zero", offsetof(later_add_options, later_field));
    char size[64];
    snprintf(size, sizeof size, "options->struct_size: %zu, past", sizeof later);
    refused(client, stash_add(client, "https://example.org/a", "a", NULL, &later.known, NULL), size, where, __LINE__);

    /* A size no version will reach is an unset field, refused before anything past it is read. */
    stash_add_options options;
    stash_add_options_init(&options);
    options.struct_size = (size_t)STASH_MAX_OPTIONS_SIZE + 1;
    refused(client, stash_add(client, "https://example.org/a", "a", NULL, &options, NULL), "4097 is above 4096",
            "STASH_MAX_OPTIONS_SIZE", __LINE__);
    options.struct_size = (size_t)0xdeadbeefcafe;
    refused(client, stash_add(client, "https://example.org/a", "a", NULL, &options, NULL), "244837814094590 is above",
            "stash_add_options", __LINE__);
    stash_client_close(client);
}

/* An older caller of a struct with one version is one whose first version ended earlier: here
 * stash_add_options as if group, append and the text tracks had come later. The fields past the caller's size are read as zero, whatever its
 * memory holds there. */
static void test_an_earlier_callers_struct_is_read_as_far_as_it_goes(void) {
    stash_client *client = capture();
    const size_t earlier = offsetof(stash_add_options, group);
    stash_add_options given;
    memset(&given, 0xa5, sizeof given); /* what lies past an older caller's struct */
    given.struct_size = earlier;
    given.sha256 = NULL;
    given.headers = NULL;
    given.n_headers = 0;
    given.files = NULL;
    given.n_files = 0;
    given.hls = NULL;
    given.drm = NULL;
    given.force = true;
    given.app_data = NULL;
    given.n_app_data = 0;
    stash_add_options view;
    CHECK(options_view(client, &given, sizeof view, earlier, "options", "stash_add_options", &view) == STASH_OK, "%s",
          stash_client_error_message(client));
    CHECK(view.force, "a field it has is read");
    CHECK(view.group == NULL && !view.append && view.text_tracks == NULL && view.n_text_tracks == 0,
          "the fields past its size are zero");
    CHECK(options_view(client, &given, sizeof view, earlier + 1, "options", "stash_add_options", &view)
              == STASH_INVALID_ARGUMENT,
          "one byte short of the first version");
    stash_client_close(client);
}

/* stash_hls_options has two versions: 0.2's ended at segment_concurrency, and the time range
 * came after. A caller built against 0.2 declares 0.2's sizeof, and whatever its memory holds
 * past that, or in the tail padding before it, is never read as a range. */
static void test_a_first_version_hls_struct_asks_for_the_whole_stream(void) {
    stash_client *client = capture();
    stash_hls_options given;
    memset(&given, 0xa5, sizeof given);
    given.struct_size = STASH_FIRST_SIZEOF(stash_hls_options, STASH_HLS_OPTIONS_FIRST_SIZE);
    given.quality = "low";
    given.max_height = 0;
    given.bandwidth = 0;
    given.subtitles = NULL;
    given.n_subtitles = 0;
    given.audio = NULL;
    given.n_audio = 0;
    given.segment_concurrency = 0;
    CHECK(given.struct_size <= offsetof(stash_hls_options, start), "0.2's struct ends before the range: %zu", given.struct_size);
    stash_add_options options;
    stash_add_options_init(&options);
    options.hls = &given;
    CHECK(stash_add(client, "https://example.org/a.m3u8", "a", NULL, &options, NULL) == STASH_UNAVAILABLE, "%s",
          stash_client_error_message(client));
    Stash__V1__Request *request = packed(client);
    const Stash__V1__HlsOptions *hls = request && request->add_download ? request->add_download->hls : NULL;
    CHECK(hls && strcmp(hls->quality, "low") == 0, "the first version's fields are read");
    CHECK(hls && hls->start_given_case == STASH__V1__HLS_OPTIONS__START_GIVEN__NOT_SET
              && hls->end_given_case == STASH__V1__HLS_OPTIONS__END_GIVEN__NOT_SET,
          "no range: the whole stream");
    stash__v1__request__free_unpacked(request, NULL);
    stash_client_close(client);
}

static void test_a_time_range_is_sent_with_its_presence(void) {
    stash_client *client = capture();
    stash_hls_options hls = STASH_HLS_OPTIONS_INIT;
    hls.has_start = true; /* a start of 0 given is sent, unlike one left out */
    hls.has_end = true;
    hls.end = 120.5;
    stash_add_options options = STASH_ADD_OPTIONS_INIT;
    options.hls = &hls;
    CHECK(stash_add(client, "https://example.org/a.m3u8", "a", NULL, &options, NULL) == STASH_UNAVAILABLE, "%s",
          stash_client_error_message(client));
    Stash__V1__Request *request = packed(client);
    const Stash__V1__HlsOptions *sent = request && request->add_download ? request->add_download->hls : NULL;
    CHECK(sent && sent->start_given_case == STASH__V1__HLS_OPTIONS__START_GIVEN_START && sent->start == 0,
          "start 0, given");
    CHECK(sent && sent->end_given_case == STASH__V1__HLS_OPTIONS__END_GIVEN_END && sent->end == 120.5, "end 120.5");
    stash__v1__request__free_unpacked(request, NULL);

    stash_plan_options plan = STASH_PLAN_OPTIONS_INIT;
    plan.has_start = true;
    plan.start = 60.25;
    CHECK(stash_plan_with(client, "https://example.org/a.m3u8", &plan, NULL) == STASH_UNAVAILABLE, "%s",
          stash_client_error_message(client));
    request = packed(client);
    const Stash__V1__GetManifestInfoRequest *info = request ? request->get_manifest_info : NULL;
    CHECK(info && info->start_given_case == STASH__V1__GET_MANIFEST_INFO_REQUEST__START_GIVEN_START && info->start == 60.25
              && info->end_given_case == STASH__V1__GET_MANIFEST_INFO_REQUEST__END_GIVEN__NOT_SET,
          "the plan's range: a start, no end");
    stash__v1__request__free_unpacked(request, NULL);

    stash_plan_options unset = {0};
    refused(client, stash_plan_with(client, "https://example.org/a.m3u8", &unset, NULL), "options->struct_size: 0",
            "stash_plan_options", __LINE__);
    stash_client_close(client);
}

int main(void) {
    test_the_init_macro_and_function_set_the_size_and_nothing_else();
    test_this_headers_size_is_read_whole();
    test_a_size_of_zero_or_below_the_first_version_is_refused_naming_it();
    test_a_later_callers_struct_is_taken_when_its_unknown_fields_are_zero();
    test_an_earlier_callers_struct_is_read_as_far_as_it_goes();
    test_a_first_version_hls_struct_asks_for_the_whole_stream();
    test_a_time_range_is_sent_with_its_presence();
    if (failures) fprintf(stderr, "test_options: %d checks failed\n", failures);
    else printf("test_options: all checks passed\n");
    return failures != 0;
}
