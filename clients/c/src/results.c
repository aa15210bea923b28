/* Names of the protocol's enumerations, and the free functions of stash/client.h. */
#include "internal.h"

#include <string.h>

static const char *name_in(const char *const *names, size_t count, int value) {
    return value >= 0 && (size_t)value < count ? names[value] : "UNKNOWN";
}

#define NAMES(array, value) name_in(array, sizeof array / sizeof *array, (int)(value))

const char *stash_status_name(stash_status status) {
    static const char *const names[] = {"OK",        "INVALID_ARGUMENT",  "NOT_FOUND",     "ALREADY_EXISTS",
                                        "FAILED_PRECONDITION", "PERMISSION_DENIED", "UNIMPLEMENTED", "INTERNAL",
                                        "UNAVAILABLE", "RESOURCE_EXHAUSTED"};
    return NAMES(names, status);
}

const char *stash_state_name(stash_state state) {
    static const char *const names[] = {"NOT_DOWNLOADED", "PREPARING",           "QUEUED",          "DOWNLOADING",
                                        "PAUSED",         "COMPLETED",           "FAILED",          "REMOVING",
                                        "STOPPED",        "WAITING_FOR_NETWORK", "LICENSE_EXPIRED", "DRM_EXPIRED",
                                        "RESTARTING"};
    return NAMES(names, state);
}

const char *stash_priority_name(stash_priority priority) {
    static const char *const names[] = {"PRIORITY_NORMAL", "PRIORITY_LOW", "PRIORITY_HIGH"};
    return NAMES(names, priority);
}

const char *stash_error_kind_name(stash_error_kind kind) {
    static const char *const names[] = {"ERROR_NONE",    "ERROR_NETWORK",    "ERROR_HTTP",
                                        "ERROR_STORAGE", "ERROR_VALIDATION", "ERROR_INTERNAL"};
    return NAMES(names, kind);
}

const char *stash_finding_kind_name(stash_finding_kind kind) {
    static const char *const names[] = {"FINDING_UNKNOWN",       "FINDING_MISSING_FILE", "FINDING_WRONG_SIZE",
                                        "FINDING_WRONG_DIGEST",  "FINDING_ORPHAN_FOLDER", "FINDING_ORPHAN_FILE",
                                        "FINDING_STALE_PART"};
    return NAMES(names, kind);
}

const char *stash_license_event_kind_name(stash_license_event_kind kind) {
    static const char *const names[] = {"LICENSE_EVENT_UNKNOWN", "LICENSE_EVENT_DOWNLOADED", "LICENSE_EVENT_RENEWED",
                                        "LICENSE_EVENT_EXPIRED", "LICENSE_EVENT_RELEASED",   "LICENSE_EVENT_ERROR"};
    return NAMES(names, kind);
}

/* Every result is the owner of its arena (decode.c), so one free takes all it points to. */
void stash_download_free(stash_download *download) { owned_free(download); }
void stash_download_list_free(stash_download_list *list) { owned_free(list); }
void stash_hello_result_free(stash_hello_result *result) { owned_free(result); }
void stash_stats_free(stash_stats *stats) { owned_free(stats); }
void stash_system_info_free(stash_system_info *info) { owned_free(info); }
void stash_verify_report_free(stash_verify_report *report) { owned_free(report); }
void stash_purge_result_free(stash_purge_result *result) { owned_free(result); }
void stash_manifest_info_free(stash_manifest_info *info) { owned_free(info); }
void stash_export_result_free(stash_export_result *result) { owned_free(result); }
void stash_subtitles_free(stash_subtitles *subtitles) { owned_free(subtitles); }
void stash_license_status_free(stash_license_status *status) { owned_free(status); }
void stash_event_free(stash_event *event) { owned_free(event); }

void stash_playback_key_free(stash_playback_key *key) {
    if (!key) return;
    /* The key points into the decoded message: wipe it before the memory goes back. */
    if (key->key) explicit_bzero((void *)key->key, key->n_key);
    owned_free(key);
}
