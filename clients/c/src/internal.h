/* What the library's files share; not installed. The tests include it to reach the codec. */
#ifndef STASH_INTERNAL_H
#define STASH_INTERNAL_H

#include "arena.h"
#include "stash/client.h"
#include "stash/v1/stash.pb-c.h"

#include <stdarg.h>
#include <stddef.h>

/* Events kept while a blocking call waits for its answer; past this they are counted as lost. */
#define STASH_EVENT_QUEUE_LIMIT 1024

typedef struct queued_event {
    struct queued_event *next;
    stash_event *event;
    /* The EVENTS_LOST entry that counts what was dropped past the limit (not itself counted). */
    bool marker;
} queued_event;

struct stash_client {
    int fd;
    uint64_t next_id;
    int timeout_ms;
    /* How long a call watches for its answer before it sleeps (stash_client_set_busy_poll). */
    int busy_poll_us;
    /* The last failure's message, malloc'd; NULL after a success. */
    char *message;
    /* Once the connection is unusable: the status every later call returns, with `failure`. */
    stash_status broken;
    char *failure;
    /* Received bytes not yet consumed: frames start at `start`, `end` is the fill level. */
    uint8_t *buffer;
    size_t start;
    size_t end;
    size_t capacity;
    /* Events read while a call waited, oldest first. */
    queued_event *queue_head;
    queued_event *queue_tail;
    size_t queued;
    /* The name sent in Hello, malloc'd, and the answer to the Hello of stash_client_connect. */
    char *name;
    stash_hello_result *hello;
    /* Tests only: frames are stored here instead of sent, and calls return STASH_UNAVAILABLE. */
    uint8_t *captured;
    size_t captured_length;
    bool capture;
};

/* The start of every public call: a client that can still be used, and no message from an
 * earlier call. */
stash_status client_begin(stash_client *client);

/* Records a failure on the client (printf-style message) and returns `status`. */
stash_status client_fail(stash_client *client, stash_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* A ServerMessage as the library reads it. */
typedef struct decoded_message {
    /* An event (owned), or NULL: a response, or an event of a kind this library skips. */
    stash_event *event;
    bool is_response;
    uint64_t response_id;
    stash_status status;
    /* A failed response's message, malloc'd. */
    char *message;
    Stash__V1__Response__ResultCase result_case;
    /* An OK response's result as its public type (owned; see decode.c), or NULL for none. */
    void *result;
} decoded_message;

/* Decodes one frame's payload. STASH_OK, or STASH_INTERNAL (not a ServerMessage, a value this
 * library does not know) or STASH_RESOURCE_EXHAUSTED (too large decoded) with *error set to a
 * malloc'd message. Free what it made with decoded_message_clear. */
stash_status decode_server_message(const uint8_t *payload, size_t length, decoded_message *out, char **error);
void decoded_message_clear(decoded_message *message);

/* PROTOCOL.md's rules for what the daemon sends (validate.c). check_strings: every string field
 * of the payload is UTF-8 without NUL; false with *error a malloc'd message naming the field
 * and the value (NULL when out of memory). The others: NULL, or a malloc'd message naming the
 * number that cannot be (a percent above 100, a count above its total, below -1). */
bool check_strings(const ProtobufCMessageDescriptor *descriptor, const uint8_t *payload, size_t length, char **error);
char *check_download_numbers(const Stash__V1__Download *in);
char *check_progress_numbers(const Stash__V1__Progress *in);
char *check_export_progress_numbers(const Stash__V1__ExportProgress *in);
char *check_totals_numbers(const Stash__V1__GroupTotals *in);
char *check_license_numbers(const Stash__V1__LicenseStatus *in);
char *check_playback_key_numbers(const Stash__V1__PlaybackKeyResult *in);

/* The plain results, owned like the others. */
typedef struct has_result {
    bool exists;
    stash_state state;
} has_result;

typedef struct count_result {
    uint32_t affected;
} count_result;

/* The name of a result case ("download", "list"), for messages. */
const char *result_case_name(Stash__V1__Response__ResultCase result_case);

/* Sends `request` (its id is set here) and waits for its answer. With `expected` not NOT_SET,
 * an OK answer must carry that result: *result is it (owned by the caller; NULL allowed to
 * discard it). */
stash_status client_call(stash_client *client, Stash__V1__Request *request, Stash__V1__Response__ResultCase expected,
                         void **result);

/* Packs a request into a frame (u32 big-endian length + payload), malloc'd. */
stash_status pack_request(stash_client *client, const Stash__V1__Request *request, uint8_t **frame, size_t *length);

/* The options structs' struct_size rule (client.h, "Option structs"). The smallest size each
 * may declare: the end of the last field of its first version (libstash-client 0.2, this
 * layout). A later version appends fields and keeps these; a field it appends must start at or
 * after the old sizeof (a _Static_assert beside it), so the tail padding an older caller may
 * have left unset is never read as a field. */
#define STASH_FIELD_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
#define STASH_ADD_OPTIONS_FIRST_SIZE STASH_FIELD_END(stash_add_options, n_text_tracks)
#define STASH_LIST_OPTIONS_FIRST_SIZE STASH_FIELD_END(stash_list_options, group)
#define STASH_ADOPT_OPTIONS_FIRST_SIZE STASH_FIELD_END(stash_adopt_options, link)
#define STASH_SUBSCRIBE_OPTIONS_FIRST_SIZE STASH_FIELD_END(stash_subscribe_options, replay_from_seq)
#define STASH_HLS_OPTIONS_FIRST_SIZE STASH_FIELD_END(stash_hls_options, segment_concurrency)
#define STASH_DRM_PARAMS_FIRST_SIZE STASH_FIELD_END(stash_drm_params, certificate_url)
#define STASH_PLAN_OPTIONS_FIRST_SIZE STASH_FIELD_END(stash_plan_options, has_end)

/* The sizeof of a struct's first version: its first size rounded up to its alignment (which
 * the fields appended since have not raised). */
#define STASH_FIRST_SIZEOF(type, first_size) (((first_size) + _Alignof(type) - 1) / _Alignof(type) * _Alignof(type))
_Static_assert(offsetof(stash_hls_options, start) >= STASH_FIRST_SIZEOF(stash_hls_options, STASH_HLS_OPTIONS_FIRST_SIZE),
               "stash_hls_options: the time range must start past the first version's tail padding");
_Static_assert(offsetof(stash_add_options, rate_limit) >= STASH_FIRST_SIZEOF(stash_add_options, STASH_ADD_OPTIONS_FIRST_SIZE),
               "stash_add_options: rate_limit must start past the first version's tail padding");
#define STASH_EXPORT_OPTIONS_FIRST_SIZE STASH_FIELD_END(stash_export_options, link)
_Static_assert(offsetof(stash_add_options, priority) >= STASH_FIRST_SIZEOF(stash_add_options, STASH_ADD_OPTIONS_FIRST_SIZE),
               "stash_add_options: the priority must start past the first version's tail padding");
_Static_assert(offsetof(stash_add_options, replace) >= STASH_FIRST_SIZEOF(stash_add_options, STASH_ADD_OPTIONS_FIRST_SIZE),
               "stash_add_options: replace must start past the first version's tail padding");

/* Copies the caller's options struct `given` (NULL: none) into `view`, this library's layout of
 * `known_size` bytes: the bytes that fit in the caller's struct_size, the rest zero. STASH_OK,
 * or STASH_INVALID_ARGUMENT recorded on the client naming `field` (e.g. "options->hls"), the
 * struct `type`, the value and the size expected, with `view` zeroed. */
stash_status options_view(stash_client *client, const void *given, size_t known_size, size_t first_size,
                          const char *field, const char *type, void *view);

/* Tests only: a client with no connection that keeps the last request frame it packs. */
stash_client *client_new_capture(uint64_t first_id, const char *name);

/* A Hello request for this client. */
void hello_request(stash_client *client, Stash__V1__Request *request, Stash__V1__HelloRequest *hello);

#endif
