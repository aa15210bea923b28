/* libstash-client: the C client of stashd, the stash offline-download daemon.
 *
 * It speaks the frames of PROTOCOL.md (a u32 big-endian length, then one protobuf message of
 * proto/stash/v1/stash.proto) over the daemon's Unix socket. Every operation of PROTOCOL.md is
 * a blocking call: it sends one request and waits for its answer. Events (Subscribe) fit any
 * main loop: watch stash_client_fd() for input (poll, epoll, a GLib or Qt socket watch), then
 * take the events that arrived with stash_next_event() until it gives NULL.
 *
 * Status. Every call returns a stash_status whose values are PROTOCOL.md's status codes.
 * STASH_OK is success; for any other, stash_client_error_message() says what went wrong
 * (the daemon's message names the field, the value and the limit). The library itself
 * reports a daemon it cannot reach or a connection that closed as STASH_UNAVAILABLE, a
 * message from the daemon it cannot read as STASH_INTERNAL, and a bad argument as
 * STASH_INVALID_ARGUMENT. A message the daemon should not have sent is one it cannot read: a
 * string that is not UTF-8 or holds a NUL, or a record whose numbers cannot be (a percent above
 * 100, files done above files total, a size or time left below -1; PROTOCOL.md section 8),
 * each named by field and value. After STASH_UNAVAILABLE, STASH_INTERNAL from a message it
 * could not read, or a refusal of the whole connection, every later call on the client fails
 * the same way: close it and connect again.
 *
 * Ownership. Strings and arrays passed in are only read during the call. Every pointer a call
 * returns through an `out` parameter is owned by the caller and freed with the function named
 * beside the call (stash_download_free, ...); everything reachable from it (its strings, arrays
 * and nested records) belongs to it and goes with it. The free functions accept NULL. Strings
 * in results are UTF-8 and NUL-terminated; absent strings are "" (never NULL); absent
 * sub-records are NULL where the field says so.
 *
 * Option structs. The structs a caller fills and passes in (stash_add_options,
 * stash_list_options, stash_adopt_options, stash_subscribe_options, stash_hls_options,
 * stash_drm_params, stash_plan_options, stash_export_options) start with `size_t struct_size`, the size of the struct the caller was
 * compiled with, so a later library can append fields without breaking a program built
 * against this header. Set it with the struct's init macro or function and never by hand:
 *
 *     stash_add_options options = STASH_ADD_OPTIONS_INIT;   or   stash_add_options_init(&options);
 *     options.force = true;
 *
 * Both leave every other field zero ("not given"); the function, inline in this header, zeroes
 * the padding too. The library reads the fields that fit in struct_size and takes the rest as
 * zero, so a program built against an older header keeps working with a newer library. A
 * struct_size larger than this library's struct (a program built against a newer header) is
 * accepted when every byte past this library's fields is zero: a field this library does not
 * know must be unset, since ignoring a field the caller set would do something other than asked.
 * The library refuses with STASH_INVALID_ARGUMENT, naming the struct, the value and the size it
 * expects: a struct_size of 0 or below the struct's first version (this header's size: the
 * field appeared in libstash-client 0.2), one above STASH_MAX_OPTIONS_SIZE (no version will
 * be that large: an uninitialised field), and a larger one with a non-zero byte past the fields
 * it knows. Arrays of records passed in (stash_header, stash_bundle_file, stash_text_track,
 * stash_config_entry) have no such field: their stride is the caller's sizeof, so they keep their
 * layout, and a later version that needs more per item adds an array of a new type behind a new
 * field of the options struct. The records the library returns keep their layout within a
 * soname too: they sit in arrays (a list's downloads, a record's files) that a caller steps
 * through with its own sizeof, so a field added to one comes with a new soname; so does
 * stash_config, which the caller allocates and the library fills whole.
 *
 * Threads. A stash_client is not thread-safe: use one per thread, or hold a lock around each
 * call. The library never raises SIGPIPE and never touches signal handlers.
 *
 * Limits. A frame from the daemon whose length is 0 or above STASH_MAX_FRAME_LENGTH is refused
 * before anything is allocated for it, and a message that would take more than
 * STASH_MAX_DECODED_BYTES once decoded is refused too (both STASH_RESOURCE_EXHAUSTED, and the
 * connection is closed). */
#ifndef STASH_CLIENT_H
#define STASH_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest struct_size an options struct may declare (see "Option structs" above). */
#define STASH_MAX_OPTIONS_SIZE 4096u

/* An options struct with struct_size set and every other field zero. C++ before C++20 has no
 * designated initializers, and {sizeof(type)} draws -Wmissing-field-initializers there. */
#ifdef __cplusplus
#define STASH_OPTIONS_INIT_(type) ([] { type options_ = type(); options_.struct_size = sizeof options_; return options_; }())
#else
#define STASH_OPTIONS_INIT_(type) {.struct_size = sizeof(type)}
#endif

#if defined(__GNUC__) && defined(STASH_CLIENT_BUILDING)
#define STASH_API __attribute__((visibility("default")))
#else
#define STASH_API
#endif

/* The version of PROTOCOL.md this library speaks. */
#define STASH_PROTOCOL_VERSION 1
/* The largest payload of one frame, either way (PROTOCOL.md section 2). */
#define STASH_MAX_FRAME_LENGTH (4u * 1024u * 1024u)
/* The most memory one decoded message from the daemon may take. */
#define STASH_MAX_DECODED_BYTES (64u * 1024u * 1024u)

/* PROTOCOL.md section 6. */
typedef enum stash_status {
    STASH_OK = 0,
    STASH_INVALID_ARGUMENT = 1,
    STASH_NOT_FOUND = 2,
    STASH_ALREADY_EXISTS = 3,
    STASH_FAILED_PRECONDITION = 4,
    STASH_PERMISSION_DENIED = 5,
    STASH_UNIMPLEMENTED = 6,
    STASH_INTERNAL = 7,
    STASH_UNAVAILABLE = 8,
    STASH_RESOURCE_EXHAUSTED = 9,
} stash_status;

/* PROTOCOL.md section 9: the 13 states, in this order. */
typedef enum stash_state {
    STASH_STATE_NOT_DOWNLOADED = 0,
    STASH_STATE_PREPARING = 1,
    STASH_STATE_QUEUED = 2,
    STASH_STATE_DOWNLOADING = 3,
    STASH_STATE_PAUSED = 4,
    STASH_STATE_COMPLETED = 5,
    STASH_STATE_FAILED = 6,
    STASH_STATE_REMOVING = 7,
    STASH_STATE_STOPPED = 8,
    STASH_STATE_WAITING_FOR_NETWORK = 9,
    STASH_STATE_LICENSE_EXPIRED = 10,
    STASH_STATE_DRM_EXPIRED = 11,
    STASH_STATE_RESTARTING = 12,
} stash_state;

/* Where a queued download waits (PROTOCOL.md, "Priority and queue order"); the wire's numbers. */
typedef enum stash_priority {
    STASH_PRIORITY_NORMAL = 0,
    STASH_PRIORITY_LOW = 1,
    STASH_PRIORITY_HIGH = 2,
} stash_priority;

/* Where stash_move puts a queued download. */
typedef enum stash_move_place {
    STASH_MOVE_TOP = 1,    /* first among the queued downloads of its priority */
    STASH_MOVE_BOTTOM = 2, /* last among them */
    STASH_MOVE_BEFORE = 3, /* just before `other` (taking its priority) */
    STASH_MOVE_AFTER = 4,  /* just after `other` */
} stash_move_place;

typedef enum stash_error_kind {
    STASH_ERROR_NONE = 0,
    STASH_ERROR_NETWORK = 1,
    STASH_ERROR_HTTP = 2,
    STASH_ERROR_STORAGE = 3,
    STASH_ERROR_VALIDATION = 4,
    STASH_ERROR_INTERNAL = 5,
} stash_error_kind;

typedef enum stash_finding_kind {
    STASH_FINDING_UNKNOWN = 0,
    STASH_FINDING_MISSING_FILE = 1,
    STASH_FINDING_WRONG_SIZE = 2,
    STASH_FINDING_WRONG_DIGEST = 3,
    STASH_FINDING_ORPHAN_FOLDER = 4,
    STASH_FINDING_ORPHAN_FILE = 5,
    STASH_FINDING_STALE_PART = 6,
} stash_finding_kind;

typedef enum stash_license_event_kind {
    STASH_LICENSE_EVENT_UNKNOWN = 0,
    STASH_LICENSE_EVENT_DOWNLOADED = 1,
    STASH_LICENSE_EVENT_RENEWED = 2,
    STASH_LICENSE_EVENT_EXPIRED = 3,
    STASH_LICENSE_EVENT_RELEASED = 4,
    STASH_LICENSE_EVENT_ERROR = 5,
} stash_license_event_kind;

/* The name of a status ("NOT_FOUND"), state ("COMPLETED"), error kind ("ERROR_HTTP"), finding
 * kind or licence event kind as PROTOCOL.md spells it; "UNKNOWN" for a value outside the
 * table. Static strings: never free them. */
STASH_API const char *stash_status_name(stash_status status);
STASH_API const char *stash_state_name(stash_state state);
STASH_API const char *stash_error_kind_name(stash_error_kind kind);
STASH_API const char *stash_finding_kind_name(stash_finding_kind kind);
STASH_API const char *stash_license_event_kind_name(stash_license_event_kind kind);

/* ------------------------------------------------------------------ records */

typedef struct stash_header {
    const char *name;
    const char *value;
} stash_header;

/* One file of a bundle. In stash_add: url, and optionally path ("" or NULL: the URL's file
 * name), size (0: unknown) and sha256. In a record, also downloaded_bytes and done. */
typedef struct stash_bundle_file {
    const char *url;
    const char *path;
    uint64_t size;
    const char *sha256;
    uint64_t downloaded_bytes;
    bool done;
} stash_bundle_file;

/* A file's content rules in stash_add (daemon feature "content-check"): what it must be and
 * its fewest bytes. An array of them rides beside stash_add_options.files, one per file in the
 * same order, since stash_bundle_file keeps its layout (see "Option structs"). */
typedef struct stash_file_rules {
    const char *expect; /* "image", "video", "audio", "text" or a MIME type; NULL or "": the download's */
    uint64_t min_size;  /* 0: the download's */
} stash_file_rules;

/* A side-loaded subtitle file. In a request: uri, lang and the optional title and type ("vtt",
 * "srt"; NULL or "": from the URI); path only in records (its file in the asset folder). */
typedef struct stash_text_track {
    const char *uri;
    const char *lang;
    const char *title;
    const char *type;
    const char *path;
} stash_text_track;

/* An HLS download's choice (PROTOCOL.md, AddDownload, "HLS streams"). In a record, struct_size
 * is the library's own: a field past it is not there (read start and end only when struct_size
 * covers has_end). */
typedef struct stash_hls_options {
    size_t struct_size; /* STASH_HLS_OPTIONS_INIT or stash_hls_options_init */
    const char *quality; /* "low", "medium", "high", "auto"; NULL or "": auto */
    uint32_t max_height; /* 0: no limit */
    uint64_t bandwidth;  /* bits/s; 0: use quality */
    const char *const *subtitles; /* languages, or "all" */
    size_t n_subtitles;
    const char *const *audio;
    size_t n_audio;
    uint32_t segment_concurrency; /* 0: 8 */
    /* Appended with daemon 0.10.0: a time range (PROTOCOL.md, "Time ranges"), seconds on the
     * stream's timeline; only the segments that overlap [start, end) are fetched. Each counts
     * only with its has_ flag (a start of 0 given differs from none). Send them only to a
     * daemon with the feature "time-range" (stash_client_has_feature): an older one fetches
     * the whole stream. In a record, end is clamped to the stream's duration once read. */
    double start;
    double end;
    bool has_start;
    bool has_end;
} stash_hls_options;
#define STASH_HLS_OPTIONS_INIT STASH_OPTIONS_INIT_(stash_hls_options)
static inline void stash_hls_options_init(stash_hls_options *options) {
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
}

/* Where a protected stream's keys come from (PROTOCOL.md, "Licence exchange"). In a record,
 * struct_size is the library's own. */
typedef struct stash_drm_params {
    size_t struct_size; /* STASH_DRM_PARAMS_INIT or stash_drm_params_init */
    const char *type; /* "clearkey" */
    const char *license_server;
    const stash_header *license_headers;
    size_t n_license_headers;
    const char *content_id;
    const char *certificate_url;
} stash_drm_params;
#define STASH_DRM_PARAMS_INIT STASH_OPTIONS_INIT_(stash_drm_params)
static inline void stash_drm_params_init(stash_drm_params *params) {
    memset(params, 0, sizeof *params);
    params->struct_size = sizeof *params;
}

typedef struct stash_license_status {
    const char *id;
    bool valid;
    const char *verdict; /* valid, license_expired, playback_expired, refused, none */
    int64_t license_seconds_left;  /* -1: never expires */
    int64_t playback_seconds_left; /* -1: no playback window */
    int64_t expires_at;            /* unix ms, 0: never */
    int64_t acquired_at;
    int64_t first_playback_at;
    uint32_t keys;
    stash_state state;
    int64_t playback_duration; /* seconds, -1: none */
    const char *const *key_ids;
    size_t n_key_ids;
} stash_license_status;

typedef struct stash_download_error {
    stash_error_kind kind;
    const char *message;
    uint32_t http_status; /* 0 when no HTTP status is involved */
} stash_download_error;

/* The public record of a download (PROTOCOL.md section 8). */
typedef struct stash_download {
    const char *id;
    const char *uri; /* "" for a bundle */
    const char *title;
    stash_state state;
    uint32_t progress; /* integer percent 0-100 */
    uint64_t downloaded_bytes;
    int64_t total_bytes; /* -1 while unknown */
    uint64_t speed;      /* bytes per second */
    int64_t remaining_time; /* seconds, -1 while unknown */
    const char *quality;
    bool has_subtitles;
    bool has_drm;
    const char *asset_path;
    const stash_download_error *error; /* NULL: no error */
    int64_t created_at;   /* unix ms */
    int64_t completed_at; /* unix ms, 0 when not completed */
    const char *sha256;
    const stash_header *headers;
    size_t n_headers;
    const char *state_reason;
    bool bundle;
    const stash_bundle_file *files; /* a bundle's files (GetDownload); none in lists and events */
    size_t n_files;
    uint32_t files_done;
    uint32_t files_total;
    const stash_hls_options *hls;        /* NULL unless HLS */
    const stash_drm_params *drm;         /* NULL unless DRM */
    const stash_license_status *license; /* NULL when no licence is held */
    const uint8_t *app_data; /* the app's own bytes; NULL when n_app_data is 0 */
    size_t n_app_data;
    const char *group;
    const stash_text_track *text_tracks;
    size_t n_text_tracks;
    bool created; /* stash_add only: this call added it (false: it was there already) */
    /* Appended with daemon 0.11.0 (the library allocates records, so a program built against
     * an older header reads the fields before it): */
    uint64_t rate_limit; /* bytes per second over its transfers, 0: none (soname 0.3) */
    stash_priority priority;
    /* Its content rules as added (feature "content-check"; soname 0.3): what each file must be
     * ("" for any) and each file's fewest bytes (0 for none). file_rules: the rules in force for
     * each file (its own, else the download's), one per entry of files in the same order, NULL
     * when n_files is 0; stash_bundle_file keeps its layout, so they ride beside it as in
     * stash_add. */
    const char *expect;
    uint64_t min_size;
    const stash_file_rules *file_rules;
    /* Feature "desktop" (docs/DESKTOP.md): its own rules, "any" or "unmetered" and "continue" or
     * "pause"; "" follows the daemon's config keys network and on-battery. */
    const char *network;
    const char *on_battery;
} stash_download;

/* ------------------------------------------------------------------ connection */

typedef struct stash_client stash_client;

/* Connects to stashd and says Hello (protocol version 1).
 *
 * socket_path NULL means the daemon's default: $XDG_RUNTIME_DIR/stash/stashd.sock, or
 * /tmp/stash-$UID/stashd.sock when XDG_RUNTIME_DIR is unset or empty.
 *
 * On success *out is a new client; close it with stash_client_close. On failure *out is set
 * too, so stash_client_error_message can say why (how to start the daemon, when nothing
 * listens); close it as well. Only when memory runs out is *out NULL.
 * Returns STASH_UNAVAILABLE when nothing listens, or the daemon's refusal. */
STASH_API stash_status stash_client_connect(const char *socket_path, stash_client **out);

/* stash_client_connect with the name the daemon's log shows for this client (Hello's
 * client_name; NULL: "libstash-client"). */
STASH_API stash_status stash_client_connect_as(const char *socket_path, const char *client_name, stash_client **out);

/* Closes the connection and frees the client and any event it still holds. NULL is allowed. */
STASH_API void stash_client_close(stash_client *client);

/* The message of the last call that failed on this client, naming the field, the value and
 * the limit; "" when the last call succeeded. Owned by the client: valid until the next call
 * on it. NULL gives a message saying there is no client. */
STASH_API const char *stash_client_error_message(const stash_client *client);

/* The connection's file descriptor, for poll/epoll/a main loop's watch (wait for input).
 * Owned by the client: do not read, write or close it. */
STASH_API int stash_client_fd(const stash_client *client);

/* How long a blocking call waits for the daemon's answer, in milliseconds; 0 (the default)
 * waits as long as it takes. A call that times out returns STASH_UNAVAILABLE and the client
 * is closed for further calls, since its answer may still come. */
STASH_API void stash_client_set_timeout(stash_client *client, int timeout_ms);

/* The most a call may watch for its answer without sleeping: one second. */
#define STASH_MAX_BUSY_POLL_US 1000000

/* After sending a request, a blocking call first watches the socket for up to `microseconds`
 * without sleeping, then waits as usual; 0 (the default) sleeps at once. The answer then finds
 * the thread awake: on a machine whose idle CPUs sleep (most virtual machines, laptops on
 * battery) waking it costs more than the call itself. It spends CPU time while it watches;
 * pair it with `stashd --busy-poll-us`. STASH_INVALID_ARGUMENT for a value below 0 or above
 * STASH_MAX_BUSY_POLL_US, the setting unchanged. */
STASH_API stash_status stash_client_set_busy_poll(stash_client *client, int microseconds);

/* What the daemon said to this client's Hello: its version ("0.7.0") and whether it offers
 * an optional part (PROTOCOL.md, Hello: "append", "text-tracks", ...). Owned by the client. */
STASH_API const char *stash_client_daemon_version(const stash_client *client);
STASH_API bool stash_client_has_feature(const stash_client *client, const char *feature);

/* ------------------------------------------------------------------ operations */

typedef struct stash_hello_result {
    uint32_t protocol_version;
    const char *daemon_version;
    const char *const *features;
    size_t n_features;
} stash_hello_result;

/* Hello again (stash_client_connect already said it). Free *out with stash_hello_result_free. */
STASH_API stash_status stash_hello(stash_client *client, stash_hello_result **out);
STASH_API void stash_hello_result_free(stash_hello_result *result);

/* Everything of AddDownload beyond url, id and title. Start from STASH_ADD_OPTIONS_INIT (or
 * stash_add_options_init) and set what you need; NULL pointers and zero counts are "not given". */
typedef struct stash_add_options {
    size_t struct_size; /* see "Option structs" at the top */
    const char *sha256; /* 64 hex digits: the file's expected digest */
    const stash_header *headers;
    size_t n_headers;
    const stash_bundle_file *files; /* a bundle: give files and a NULL url */
    size_t n_files;
    const stash_hls_options *hls;
    const stash_drm_params *drm;
    bool force;  /* add even when another download holds the same content */
    const uint8_t *app_data; /* the app's own bytes, at most 64 KiB, returned as given */
    size_t n_app_data;
    const char *group; /* e.g. "one-piece/chapter-12" */
    bool append; /* add files to the existing bundle `id` (daemon feature "append") */
    const stash_text_track *text_tracks;
    size_t n_text_tracks;
    /* Appended with daemon 0.11.0: bytes per second over all of the download's transfers, within
     * the global limit; 0: none; at most INT64_MAX (the daemon refuses more, naming the field).
     * Send it only to a daemon with the feature "rate-limit": an older one fetches at full speed. */
    uint64_t rate_limit;
    /* Appended with daemon 0.11.0 (feature "content-check"; PROTOCOL.md, "Content checks"): what
     * each file must be ("image", "video", "audio", "text" or a MIME type; NULL or "": any) and
     * its fewest bytes (0: none). A file that is not fails with STASH_ERROR_VALIDATION naming it,
     * and nothing of it is kept. file_rules, when given, has n_files entries, each a file's own. */
    const char *expect;
    uint64_t min_size;
    const stash_file_rules *file_rules;
    size_t n_file_rules;
    /* Appended with daemon 0.11.0: where it waits in the queue; 0 is normal. Send another only
     * to a daemon with the feature "priority" (stash_add refuses it with STASH_UNIMPLEMENTED
     * otherwise: an older one would add it as normal). */
    stash_priority priority;
    /* Appended with daemon 0.11.0 (feature "replace"; PROTOCOL.md, "Replace"): fetch the COMPLETED
     * download holding `id` (or, without an id, `url` or `files`) again beside the old copy and
     * swap it in once complete; the old copy stays, COMPLETED, until then and if the replace fails
     * (the record's state_reason says how it goes). stash_add refuses it with STASH_UNIMPLEMENTED
     * from a daemon without the feature: an older one would answer the old copy as it is; and
     * with `files`, `hls` or `text_tracks` from a daemon without "replace-any" (one with "replace"
     * only replaces single files). */
    bool replace;
    /* Feature "desktop" (docs/DESKTOP.md): its own rules in place of the config's, "any" or
     * "unmetered" and "continue" or "pause"; NULL or "" follows the config. stash_add refuses
     * them with STASH_UNIMPLEMENTED from a daemon without the feature, which would ignore them. */
    const char *network;
    const char *on_battery;
} stash_add_options;
#define STASH_ADD_OPTIONS_INIT STASH_OPTIONS_INIT_(stash_add_options)
static inline void stash_add_options_init(stash_add_options *options) {
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
}

/* AddDownload: url (NULL for a bundle), id (NULL or "": the daemon picks one), title (NULL:
 * none), options (NULL: none). *out (optional: NULL discards it) is the record, with created
 * false when the same content or id was there already; free it with stash_download_free. */
STASH_API stash_status stash_add(stash_client *client, const char *url, const char *id, const char *title,
                                 const stash_add_options *options, stash_download **out);

/* GetDownload. Free *out with stash_download_free. */
STASH_API stash_status stash_get(stash_client *client, const char *id, stash_download **out);

/* Frees a record from stash_add, stash_get, stash_pause, ...; not one inside a list or an
 * event (those belong to it). NULL is allowed. */
STASH_API void stash_download_free(stash_download *download);

/* HasDownload: cheap; an unknown id is *exists false and STASH_STATE_NOT_DOWNLOADED. Either
 * out pointer may be NULL. */
STASH_API stash_status stash_has(stash_client *client, const char *id, bool *exists, stash_state *state);

/* ListDownloads' filter and page: STASH_LIST_OPTIONS_INIT or stash_list_options_init. */
typedef struct stash_list_options {
    size_t struct_size;
    const stash_state *states; /* only these states; none: every state */
    size_t n_states;
    uint32_t page_size;     /* 0: 100; at most 1000 */
    const char *page_token; /* NULL or "": the first page; else a next_page_token */
    const char *group;      /* NULL or "": every download; else this group and those under it */
} stash_list_options;
#define STASH_LIST_OPTIONS_INIT STASH_OPTIONS_INIT_(stash_list_options)
static inline void stash_list_options_init(stash_list_options *options) {
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
}

typedef struct stash_state_count {
    stash_state state;
    uint32_t count;
} stash_state_count;

typedef struct stash_group_totals {
    uint64_t bytes_downloaded;
    uint64_t bytes_total;
    uint32_t files_done;
    uint32_t files_total;
    const stash_state_count *states;
    size_t n_states;
} stash_group_totals;

typedef struct stash_download_list {
    const stash_download *downloads; /* belong to the list */
    size_t n_downloads;
    const char *next_page_token; /* "" on the last page */
    uint32_t total;              /* matching downloads over all pages */
    stash_group_totals totals;   /* over all pages */
} stash_download_list;

/* ListDownloads, one page (options NULL: the first page of every download). Free *out with
 * stash_download_list_free. */
STASH_API stash_status stash_list(stash_client *client, const stash_list_options *options, stash_download_list **out);
STASH_API void stash_download_list_free(stash_download_list *list);

/* Pause, Resume, Stop (reason NULL: "stopped by a client"), Forget (move_to: an existing
 * absolute folder). *out (optional) is the record after the change; free it with
 * stash_download_free. */
STASH_API stash_status stash_pause(stash_client *client, const char *id, stash_download **out);
STASH_API stash_status stash_resume(stash_client *client, const char *id, stash_download **out);
STASH_API stash_status stash_stop(stash_client *client, const char *id, const char *reason, stash_download **out);
STASH_API stash_status stash_forget(stash_client *client, const char *id, const char *move_to, stash_download **out);

/* Cancel: stops the download and deletes its files and record before it returns. */
STASH_API stash_status stash_cancel(stash_client *client, const char *id);

/* PauseAll, ResumeAll, CancelAll; *affected (optional) is how many downloads changed. */
STASH_API stash_status stash_pause_all(stash_client *client, uint32_t *affected);
STASH_API stash_status stash_resume_all(stash_client *client, uint32_t *affected);
STASH_API stash_status stash_cancel_all(stash_client *client, uint32_t *affected);

/* PauseGroup, ResumeGroup, CancelGroup: the same for the downloads of `group` and the groups
 * under it ("one-piece" takes "one-piece/chapter-12", not "one-piece-2"), in one request.
 * ResumeGroup resumes the PAUSED ones, the FAILED ones too with include_failed, never a STOPPED
 * one. An empty group is INVALID_ARGUMENT (the *_all calls take every download). Needs a daemon
 * that announces "group-ops"; an older one answers STASH_UNIMPLEMENTED and changes nothing.
 * *affected (optional) is how many downloads changed. */
STASH_API stash_status stash_pause_group(stash_client *client, const char *group, uint32_t *affected);
STASH_API stash_status stash_resume_group(stash_client *client, const char *group, bool include_failed, uint32_t *affected);
STASH_API stash_status stash_cancel_group(stash_client *client, const char *group, uint32_t *affected);

/* SetDownload's priority and Move (PROTOCOL.md, "Priority and queue order"; daemon feature
 * "priority", STASH_UNIMPLEMENTED without it). stash_set_priority: a QUEUED download goes to the
 * end of its new priority's queue. stash_move: a QUEUED download to the top or bottom of its
 * priority, or before or after `other` (another QUEUED download, NULL for top and bottom). A
 * refusal names the ids and states (stash_client_last_error). *out (optional) is the record. */
STASH_API stash_status stash_set_priority(stash_client *client, const char *id, stash_priority priority, stash_download **out);
STASH_API stash_status stash_move(stash_client *client, const char *id, stash_move_place place, const char *other,
                                  stash_download **out);
STASH_API const char *stash_priority_name(stash_priority priority);

/* SetDownload's rate limit: the download's own limit in bytes per second (0 = none, up to
 * INT64_MAX), within the global one; its running transfers take it at once. Needs a daemon that
 * announces "set-download" (STASH_UNIMPLEMENTED without it: an older one would ignore the field).
 * *out (optional) is the record. */
STASH_API stash_status stash_set_rate_limit(stash_client *client, const char *id, uint64_t bytes_per_second,
                                            stash_download **out);

/* SetDownload's network and on-battery rules (feature "desktop", STASH_UNIMPLEMENTED without
 * it): "any" or "unmetered", "continue" or "pause"; NULL leaves one as it is, and at least one
 * is given. The download waits or goes on under them at once. *out (optional) is the record. */
STASH_API stash_status stash_set_desktop_rules(stash_client *client, const char *id, const char *network, const char *on_battery,
                                               stash_download **out);

/* SetDownload's URL: a single-file download's new http(s) URL (a renewed signed one). The bytes
 * held are kept when the new URL serves the same content (its ETag, else Last-Modified); a
 * running download restarts on it, a failed one stays FAILED until stash_resume. Needs a daemon
 * that announces "set-uri" (STASH_UNIMPLEMENTED without it: an older one would ignore the field).
 * *out (optional) is the record. */
STASH_API stash_status stash_set_uri(stash_client *client, const char *id, const char *uri, stash_download **out);

/* SetDownload's URL for one file of a bundle: the file at path (as the record's files list it)
 * gets the new http(s) URL, its bytes kept as stash_set_uri keeps them. A running download
 * restarts on it when that file is being fetched. Needs a daemon that announces "set-file-uri"
 * (STASH_UNIMPLEMENTED without it). An unknown path fails with STASH_NOT_FOUND naming it.
 * *out (optional) is the record. */
STASH_API stash_status stash_set_file_uri(stash_client *client, const char *id, const char *path, const char *uri,
                                          stash_download **out);

/* SetDownload's headers: clear drops the download's request headers first, then each of the
 * n_headers given replaces those of its name (in any case) or is added. The transfers started
 * from then on carry them; a running download restarts on them, keeping its bytes. Each header
 * is checked as stash_add checks it (an HTTP token name; a value of at most 8192 bytes without
 * CR, LF or NUL), the refusal naming the header, the value and the rule. Giving no header and
 * no clear is STASH_INVALID_ARGUMENT. Needs a daemon that announces "set-headers"
 * (STASH_UNIMPLEMENTED without it). *out (optional) is the record. */
STASH_API stash_status stash_set_headers(stash_client *client, const char *id, const stash_header *headers, size_t n_headers,
                                         bool clear, stash_download **out);

/* The same for the headers of the download's licence requests (stash_drm_params'
 * license_headers). A licence whose renewal the server refused (an expired token's 401) is
 * asked for again at once with them. A download without DRM parameters is
 * STASH_INVALID_ARGUMENT. */
STASH_API stash_status stash_set_license_headers(stash_client *client, const char *id, const stash_header *headers,
                                                 size_t n_headers, bool clear, stash_download **out);

/* STASH_ADOPT_OPTIONS_INIT or stash_adopt_options_init. */
typedef struct stash_adopt_options {
    size_t struct_size;
    const char *url;    /* a file: where it came from */
    const char *sha256; /* a file: checked before it is taken */
    bool link;          /* hard-link instead of moving */
} stash_adopt_options;
#define STASH_ADOPT_OPTIONS_INIT STASH_OPTIONS_INIT_(stash_adopt_options)
static inline void stash_adopt_options_init(stash_adopt_options *options) {
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
}

/* Adopt: a file or folder at the absolute `path` becomes the COMPLETED download `id`.
 * options may be NULL. Free *out (optional) with stash_download_free. */
STASH_API stash_status stash_adopt(stash_client *client, const char *path, const char *id,
                                   const stash_adopt_options *options, stash_download **out);

typedef struct stash_stats {
    uint64_t speed; /* bytes per second over all downloads */
    const stash_state_count *counts;
    size_t n_counts;
    uint32_t active_transfers;
    uint64_t downloaded_bytes; /* since the daemon started */
} stash_stats;

/* GetStats. Free *out with stash_stats_free. */
STASH_API stash_status stash_get_stats(stash_client *client, stash_stats **out);
STASH_API void stash_stats_free(stash_stats *stats);

typedef struct stash_finding {
    stash_finding_kind kind;
    const char *id;
    const char *path;
    const char *detail;
    bool repaired;
} stash_finding;

typedef struct stash_verify_report {
    const stash_finding *findings;
    size_t n_findings;
    uint32_t downloads_checked;
    uint32_t files_checked;
    int64_t finished_at; /* unix ms, 0: no verify ran */
    uint32_t duration_ms;
    bool deep;
    bool repaired;
    uint32_t requeued;
    uint32_t files_deleted;
    uint64_t bytes_freed;
} stash_verify_report;

typedef struct stash_state_bytes {
    stash_state state;
    uint64_t bytes;
} stash_state_bytes;

typedef struct stash_system_info {
    const char *data_dir;
    uint64_t disk_total;
    uint64_t disk_free;
    uint64_t bytes_held;
    const char *daemon_version;
    const char *socket_path;
    uint32_t download_count;
    const stash_state_bytes *bytes_by_state;
    size_t n_bytes_by_state;
    uint32_t asset_count;
    const stash_verify_report *last_verify; /* NULL when the daemon sent none */
    const char *const *warnings;
    size_t n_warnings;
    /* Daemon 0.11.0: the global rate limit in force (bytes/s, 0 unlimited), when the rate
     * schedule next changes it (unix seconds, 0: never) and the limit from then on. */
    uint64_t rate_limit_now;
    int64_t rate_limit_changes_at;
    uint64_t rate_limit_next;
    /* Feature "desktop": NetworkManager says the network is metered, UPower that the machine
     * runs on battery, and what the daemon sees of each in words ("not metered", "no system
     * bus", ...; "" from an older daemon). */
    bool metered;
    bool on_battery;
    const char *network_service;
    const char *power_service;
    /* Feature "desktop": logind's sleep lock while downloads run, in words ("held (delay)", "not
     * held", "no logind on the system bus", ...). */
    const char *sleep_inhibitor;
    /* Feature "desktop": what the daemon sees of org.freedesktop.Notifications ("sent (last id
     * 3)", "not used yet", "no session bus", ...). */
    const char *notification_service;
} stash_system_info;

/* GetSystemInfo (`stash info`). Free *out with stash_system_info_free. */
STASH_API stash_status stash_get_info(stash_client *client, stash_system_info **out);
STASH_API void stash_system_info_free(stash_system_info *info);

/* The longest rate schedule stash_config holds, in bytes. */
#define STASH_MAX_RATE_SCHEDULE 4096u
/* The longest word setting (network, on-battery) stash_config holds, in bytes. */
#define STASH_MAX_CONFIG_WORD 31u

/* Config (PROTOCOL.md section 10): plain values, returned by value. */
typedef struct stash_config {
    uint32_t max_parallel;
    uint32_t retry_max_attempts;
    uint32_t retry_base_delay_ms;
    uint32_t retry_max_delay_ms;
    uint64_t rate_limit;
    uint32_t low_speed_limit;
    uint32_t low_speed_time;
    uint32_t files_per_download;
    uint32_t max_connections;
    uint32_t max_connections_per_host;
    uint64_t storage_reserve;
    /* Daemon 0.11.0 (soname 0.3): the global rate limit by weekday and hour as the daemon read
     * it (PROTOCOL.md section 10), NUL-terminated; "" for none. 64 rules fit with room to spare. */
    char rate_schedule[STASH_MAX_RATE_SCHEDULE + 1];
    /* Daemon 0.11.0 (soname 0.3): a queued download takes the slot of a running one of lower
     * priority, which goes back to QUEUED keeping its bytes (config key "preempt", "1" or "0"). */
    bool preempt;
    /* Feature "desktop": "unmetered" or "" for any network (config key "network"), "pause" or
     * "" for continue (config key "on-battery"); NUL-terminated (docs/DESKTOP.md). */
    char network[STASH_MAX_CONFIG_WORD + 1];
    char on_battery[STASH_MAX_CONFIG_WORD + 1];
    /* Feature "desktop": "groups" or "all" (config key "notify"), "" for none; "block" or "no"
     * (config key "inhibit-sleep"), "" for delay. */
    char notify[STASH_MAX_CONFIG_WORD + 1];
    char inhibit_sleep[STASH_MAX_CONFIG_WORD + 1];
} stash_config;

typedef struct stash_config_entry {
    const char *key;   /* "max-parallel", ... */
    const char *value; /* a decimal integer; for "rate-schedule" the schedule (PROTOCOL.md section 10) */
} stash_config_entry;

/* GetConfig and SetConfig (all entries or none); *out is the config after the call. */
STASH_API stash_status stash_config_get(stash_client *client, stash_config *out);
STASH_API stash_status stash_config_set(stash_client *client, const stash_config_entry *entries, size_t n_entries,
                                        stash_config *out);

enum {
    STASH_VERIFY_DEEP = 1,    /* also check each file's sha256 where one was given */
    STASH_VERIFY_REPAIR = 2,  /* re-queue damaged downloads, delete orphans */
    STASH_VERIFY_DRY_RUN = 4, /* only report, even with REPAIR */
};

/* Verify with a mask of STASH_VERIFY_* flags. Free *out with stash_verify_report_free. */
STASH_API stash_status stash_verify(stash_client *client, unsigned flags, stash_verify_report **out);
STASH_API void stash_verify_report_free(stash_verify_report *report);

typedef struct stash_purge_result {
    uint32_t files_deleted;
    uint64_t bytes_freed;
    const char *const *paths;
    size_t n_paths;
} stash_purge_result;

/* Purge. Free *out (optional) with stash_purge_result_free. */
STASH_API stash_status stash_purge(stash_client *client, stash_purge_result **out);
STASH_API void stash_purge_result_free(stash_purge_result *result);

typedef struct stash_variant_info {
    const char *uri;
    uint64_t bandwidth;
    uint64_t average_bandwidth; /* 0: not given */
    uint32_t width;
    uint32_t height;
    const char *const *codecs;
    size_t n_codecs;
    double frame_rate;
    const char *const *encryption;
    size_t n_encryption;
    uint64_t estimated_bytes;
    bool size_is_exact;
    double duration;
} stash_variant_info;

typedef struct stash_rendition_info {
    const char *group_id;
    const char *language;
    const char *name;
    bool is_default; /* the schema's `default` */
    bool forced;
    const char *uri;
} stash_rendition_info;

typedef struct stash_manifest_info {
    const stash_variant_info *variants;
    size_t n_variants;
    const stash_rendition_info *audio;
    size_t n_audio;
    const stash_rendition_info *subtitles;
    size_t n_subtitles;
    double duration;
    /* Appended with stash_plan_with (the library allocates this struct, so a program that calls
     * stash_plan_with always has them): with a time range, has_range and the range the sizes are
     * for, as a download would keep it (end: the duration when none was given or one past it,
     * then warnings[0] says so). */
    bool has_range;
    double start;
    double end;
    const char *const *warnings; /* what the daemon read leniently or will not download */
    size_t n_warnings;
} stash_manifest_info;

/* GetManifestInfo (`stash plan`): what an HLS stream offers; nothing is stored. headers may be
 * NULL. Free *out with stash_manifest_info_free. */
STASH_API stash_status stash_plan(stash_client *client, const char *uri, const stash_header *headers, size_t n_headers,
                                  stash_manifest_info **out);
STASH_API void stash_manifest_info_free(stash_manifest_info *info);

/* stash_plan_with's options: STASH_PLAN_OPTIONS_INIT or stash_plan_options_init. */
typedef struct stash_plan_options {
    size_t struct_size;
    const stash_header *headers;
    size_t n_headers;
    /* A time range, as in stash_hls_options: each variant's estimated_bytes are those of its
     * segments in the range (daemon feature "time-range"). */
    double start;
    double end;
    bool has_start;
    bool has_end;
} stash_plan_options;
#define STASH_PLAN_OPTIONS_INIT STASH_OPTIONS_INIT_(stash_plan_options)
static inline void stash_plan_options_init(stash_plan_options *options) {
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
}

/* GetManifestInfo with options (NULL: none, as stash_plan without headers). A range sent to a
 * daemon without the feature "time-range" is refused here with STASH_UNIMPLEMENTED: that daemon
 * would size the whole stream. Free *out with stash_manifest_info_free. */
STASH_API stash_status stash_plan_with(stash_client *client, const char *uri, const stash_plan_options *options,
                                       stash_manifest_info **out);
typedef enum stash_export_track_kind {
    STASH_EXPORT_TRACK_VIDEO = 1,
    STASH_EXPORT_TRACK_AUDIO = 2,
    STASH_EXPORT_TRACK_SUBTITLES = 3,
} stash_export_track_kind;

/* One track of a file stash_export_file wrote. */
typedef struct stash_export_track {
    stash_export_track_kind kind;
    const char *language; /* ISO 639-2 as written in the file ("eng"), "und" when unknown */
    const char *codec;    /* libavcodec's name: "h264", "aac", "webvtt", "subrip", "mov_text" */
    const char *title;    /* the rendition's NAME or the text track's title; "" for none */
} stash_export_track;

typedef struct stash_export_result {
    const char *dir; /* the folder (stash_export); "" for a file */
    uint32_t files;
    uint64_t bytes;
    bool decrypted;
    /* Since libstash-client 0.2 with daemon 0.10.0 (stash_export_file); zero for a folder. */
    const char *file;   /* the file written */
    const char *format; /* "mp4" or "mkv"; "" for a single file copied or linked as it is */
    const stash_export_track *tracks; /* the file's tracks, in its order; none for a copy */
    size_t n_tracks;
    bool linked; /* file is a hard link to the download's own file */
} stash_export_result;

/* Export a COMPLETED HLS download to the absolute folder `dir`. Free *out (optional) with
 * stash_export_result_free. */
STASH_API stash_status stash_export(stash_client *client, const char *id, const char *dir, bool decrypt,
                                    stash_export_result **out);
STASH_API void stash_export_result_free(stash_export_result *result);

/* Export to one file: STASH_EXPORT_OPTIONS_INIT or stash_export_options_init. */
typedef struct stash_export_options {
    size_t struct_size;
    const char *format; /* "mp4" or "mkv"; NULL or "": from the file's extension (.mp4, .m4v, .mkv) */
    bool force;         /* replace a file at the path */
    bool link;          /* a single-file download: a hard link to stash's file instead of a copy */
} stash_export_options;
#define STASH_EXPORT_OPTIONS_INIT STASH_OPTIONS_INIT_(stash_export_options)
static inline void stash_export_options_init(stash_export_options *options) {
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
}

/* Export a COMPLETED download as one file at the absolute path `file` (a daemon that announces
 * "export-file"; PROTOCOL.md, Export): an HLS download remuxed into MP4 or Matroska with every
 * audio and subtitle rendition a track, a single file copied or linked. The file appears only
 * once whole; an existing one is STASH_ALREADY_EXISTS unless options->force. While it runs, a
 * subscription to `id` gets STASH_EVENT_EXPORT_PROGRESS events. options may be NULL. Free *out
 * (optional) with stash_export_result_free. */
STASH_API stash_status stash_export_file(stash_client *client, const char *id, const char *file,
                                         const stash_export_options *options, stash_export_result **out);

typedef struct stash_subtitles {
    const stash_rendition_info *subtitles; /* uri: the playlist inside the asset folder */
    size_t n_subtitles;
    const stash_text_track *text_tracks;   /* path: the file inside the asset folder */
    size_t n_text_tracks;
} stash_subtitles;

/* AddSubtitles (languages of an HLS download, or text tracks of any download: one kind per
 * call), RemoveSubtitles, GetSubtitles. Free the records with stash_download_free and
 * *out of stash_subtitles_get with stash_subtitles_free. */
STASH_API stash_status stash_subtitles_add(stash_client *client, const char *id, const char *const *languages,
                                           size_t n_languages, const stash_text_track *text_tracks,
                                           size_t n_text_tracks, stash_download **out);
STASH_API stash_status stash_subtitles_remove(stash_client *client, const char *id, const char *const *languages,
                                              size_t n_languages, stash_download **out);
STASH_API stash_status stash_subtitles_get(stash_client *client, const char *id, stash_subtitles **out);
STASH_API void stash_subtitles_free(stash_subtitles *subtitles);

/* DownloadLicense (`license get`), CheckLicense, RenewLicense, ReleaseLicense. Free *out
 * (optional) with stash_license_status_free. */
STASH_API stash_status stash_license_get(stash_client *client, const char *id, stash_license_status **out);
STASH_API stash_status stash_license_check(stash_client *client, const char *id, stash_license_status **out);
STASH_API stash_status stash_license_renew(stash_client *client, const char *id, stash_license_status **out);
STASH_API stash_status stash_license_release(stash_client *client, const char *id, stash_license_status **out);
STASH_API void stash_license_status_free(stash_license_status *status);
/* ReleaseAllLicenses; *affected (optional) counts them. */
STASH_API stash_status stash_license_release_all(stash_client *client, uint32_t *affected);

typedef struct stash_playback_key {
    const uint8_t *key; /* the content key: 16 bytes */
    size_t n_key;
    const char *key_id; /* base64url */
    int64_t playback_seconds_left; /* -1: no playback window */
} stash_playback_key;

/* GetPlaybackKey: key_id NULL or "" for the licence's first key. Answered only to the
 * daemon's own user. Free *out with stash_playback_key_free (which wipes the key). */
STASH_API stash_status stash_get_playback_key(stash_client *client, const char *id, const char *key_id,
                                              stash_playback_key **out);
STASH_API void stash_playback_key_free(stash_playback_key *key);

/* ------------------------------------------------------------------ events */

/* STASH_SUBSCRIBE_OPTIONS_INIT or stash_subscribe_options_init. */
typedef struct stash_subscribe_options {
    size_t struct_size;
    const char *const *ids; /* none: every download */
    size_t n_ids;
    uint32_t min_progress_step; /* percent between progress events; 0: 1 */
    uint32_t min_interval_ms;   /* 0: 250 */
    uint64_t replay_from_seq;   /* 0: no replay; else first the kept events with seq >= this */
    /* Added after the first version (a caller built before it gets every event). None: every
     * event; else only changes into these states, removals and EVENTS_LOST: no progress,
     * settings, licence or export events, for a caller that waits for outcomes. */
    const stash_state *states;
    size_t n_states;
} stash_subscribe_options;
#define STASH_SUBSCRIBE_OPTIONS_INIT STASH_OPTIONS_INIT_(stash_subscribe_options)
static inline void stash_subscribe_options_init(stash_subscribe_options *options) {
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
}

/* Subscribe: from now on the daemon sends this connection events (options NULL: every
 * download, default pace). PROTOCOL.md advises one connection for events and another for
 * requests; requests on a subscribed connection still work, and events that arrive while a
 * call waits for its answer are kept (up to 1024, then one STASH_EVENT_EVENTS_LOST for the
 * rest) for stash_next_event. */
STASH_API stash_status stash_subscribe(stash_client *client, const stash_subscribe_options *options);

typedef enum stash_event_kind {
    STASH_EVENT_STATE_CHANGED = 10,
    STASH_EVENT_PROGRESS = 11,
    STASH_EVENT_REMOVED = 12,
    STASH_EVENT_LICENSE = 13,
    STASH_EVENT_EVENTS_LOST = 14,
    STASH_EVENT_EXPORT_PROGRESS = 15, /* since libstash-client 0.2 with daemon 0.10.0 */
    STASH_EVENT_SETTINGS_CHANGED = 16, /* since libstash-client 0.3 with daemon 0.11.0 (feature "set-headers") */
} stash_event_kind;

typedef struct stash_progress {
    const char *id;
    uint64_t downloaded_bytes;
    int64_t total_bytes; /* -1 while unknown */
    uint32_t progress;   /* percent */
    uint64_t speed;
    int64_t remaining_time; /* -1 while unknown */
    uint32_t files_done;
    uint32_t files_total;
} stash_progress;

/* One event (PROTOCOL.md section 7). Only the member named by `kind` is filled; the others
 * are zero. Kinds this library does not know are skipped, as the protocol requires. */
typedef struct stash_event {
    uint64_t seq;
    int64_t time; /* unix ms */
    stash_event_kind kind;
    struct {
        const stash_download *download; /* as committed; a bundle's without its files */
        stash_state previous;
    } state_changed;
    stash_progress progress;
    struct {
        const char *id;
    } removed;
    struct {
        const char *id;
        stash_license_event_kind kind;
        const char *message;
        const stash_license_status *status; /* NULL for errors */
    } license;
    struct {
        uint64_t first_seq;
        uint64_t last_seq;
        uint32_t count;
    } events_lost; /* resync: PROTOCOL.md section 7, "Slow subscribers" */
    struct {
        const char *id;
        const char *file; /* the target as the request named it */
        uint64_t bytes_done;
        uint64_t bytes_total;
        uint32_t progress; /* percent */
    } export_progress; /* an export to one file moved on (stash_export_file) */
    /* Appended in libstash-client 0.3 (the library allocates events): a download's settings
     * changed (stash_set_priority, _rate_limit, _uri, _headers, ...); changed names what, as
     * "priority", "rate_limit", "uri", "headers", "license_headers". */
    struct {
        const stash_download *download; /* the record after the change */
        const char *const *changed;
        size_t n_changed;
    } settings_changed;
} stash_event;

/* Takes the next event that has arrived, without blocking: *out is the event (free it with
 * stash_event_free) or NULL when no whole event is waiting. Call it until it gives NULL each
 * time the fd is readable, and after a blocking call on a subscribed connection (events that
 * arrived meanwhile wait inside the client, where poll cannot see them). */
STASH_API stash_status stash_next_event(stash_client *client, stash_event **out);

/* Like stash_next_event, but waits up to timeout_ms (-1: forever) for one; *out is NULL when
 * none came in time. */
STASH_API stash_status stash_wait_event(stash_client *client, int timeout_ms, stash_event **out);
STASH_API void stash_event_free(stash_event *event);

#ifdef __cplusplus
}
#endif

#endif
