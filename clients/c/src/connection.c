/* The connection: connect and Hello, framing (PROTOCOL.md section 2), one call at a time,
 * and the events that arrive on it. */
#include "internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The receive buffer starts at this size and grows, one frame at a time, up to a whole frame
 * of the largest length; past SHRINK_ABOVE it is given back once empty. */
#define BUFFER_START (64u * 1024u)
#define SHRINK_ABOVE (256u * 1024u)
#define PREFIX_LENGTH 4u

/* Whether read_more found nothing to read before its deadline (not an error). */
#define NOTHING_YET (-1)

static char *format_message(const char *format, va_list args) {
    char *message = NULL;
    if (vasprintf(&message, format, args) < 0) return NULL;
    return message;
}

stash_status client_fail(stash_client *client, stash_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    free(client->message);
    client->message = format_message(format, args);
    va_end(args);
    return status;
}

/* The connection cannot be used any more: this call and every later one fail with `status`.
 * The descriptor stays open (shut down) until stash_client_close, so a main loop watching it
 * sees it hang up instead of watching a number the process may reuse. */
__attribute__((format(printf, 3, 4))) static stash_status client_break(stash_client *client, stash_status status,
                                                                       const char *format, ...) {
    va_list args;
    va_start(args, format);
    char *message = format_message(format, args);
    va_end(args);
    if (client->broken == STASH_OK) {
        client->broken = status;
        client->failure = message ? strdup(message) : NULL;
        if (client->fd >= 0) shutdown(client->fd, SHUT_RDWR);
    }
    free(client->message);
    client->message = message;
    return status;
}

/* The start of every call: a usable client, and no message from an earlier call. */
static stash_status begin(stash_client *client) {
    free(client->message);
    client->message = NULL;
    if (client->broken != STASH_OK) {
        return client_fail(client, client->broken, "%s", client->failure ? client->failure : "the connection failed");
    }
    return STASH_OK;
}

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int64_t now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* -1: no deadline. */
static int64_t deadline_after(int timeout_ms) { return timeout_ms > 0 ? now_ms() + timeout_ms : -1; }

static int remaining_ms(int64_t deadline) {
    if (deadline < 0) return -1;
    int64_t left = deadline - now_ms();
    return left <= 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

/* ------------------------------------------------------------------ receiving */

/* Makes room for `needed` bytes from `start` on: moves the unread bytes to the front, then
 * grows the buffer. `needed` never exceeds a whole frame of the largest length. */
static bool reserve(stash_client *client, size_t needed) {
    if (client->start > 0) {
        memmove(client->buffer, client->buffer + client->start, client->end - client->start);
        client->end -= client->start;
        client->start = 0;
    }
    if (needed <= client->capacity) return true;
    size_t capacity = client->capacity ? client->capacity : BUFFER_START;
    while (capacity < needed) capacity *= 2;
    if (capacity > PREFIX_LENGTH + STASH_MAX_FRAME_LENGTH) capacity = PREFIX_LENGTH + STASH_MAX_FRAME_LENGTH;
    uint8_t *grown = realloc(client->buffer, capacity);
    if (!grown) return false;
    client->buffer = grown;
    client->capacity = capacity;
    return true;
}

/* The next whole frame's payload, consumed from the buffer (valid until the next read), or
 * *payload NULL while the frame is incomplete. The length is checked as soon as its 4 bytes
 * are in, before room is made for the payload. */
static stash_status buffered_frame(stash_client *client, const uint8_t **payload, size_t *length) {
    *payload = NULL;
    size_t available = client->end - client->start;
    if (available < PREFIX_LENGTH) return STASH_OK;
    const uint8_t *p = client->buffer + client->start;
    uint32_t announced = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    if (announced == 0) {
        return client_break(client, STASH_INTERNAL, "stashd sent a frame of length 0; the smallest payload is 1 byte");
    }
    if (announced > STASH_MAX_FRAME_LENGTH) {
        return client_break(client, STASH_RESOURCE_EXHAUSTED,
                            "stashd sent a frame length of %u bytes; the limit is %u (STASH_MAX_FRAME_LENGTH)", announced,
                            STASH_MAX_FRAME_LENGTH);
    }
    if (available - PREFIX_LENGTH < announced) return STASH_OK;
    *payload = p + PREFIX_LENGTH;
    *length = announced;
    client->start += PREFIX_LENGTH + announced;
    return STASH_OK;
}

/* Reads what has arrived; with `wait`, waits for something until `deadline` (-1: none).
 * Returns NOTHING_YET when nothing came in time. */
static int read_more(stash_client *client, int64_t deadline, bool wait, int spin_us) {
    if (client->start == client->end && client->capacity > SHRINK_ABOVE) {
        free(client->buffer);
        client->buffer = NULL;
        client->capacity = client->start = client->end = 0;
    }
    /* Room for the frame under way, whose length buffered_frame has checked, or a first read. */
    size_t wanted = BUFFER_START;
    if (client->end - client->start >= PREFIX_LENGTH) {
        const uint8_t *p = client->buffer + client->start;
        uint32_t announced = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        if (announced <= STASH_MAX_FRAME_LENGTH && PREFIX_LENGTH + announced > wanted) wanted = PREFIX_LENGTH + announced;
    }
    if (client->start > 0 || client->capacity < wanted || client->end == client->capacity) {
        if (!reserve(client, wanted)) {
            return client_break(client, STASH_RESOURCE_EXHAUSTED, "out of memory for a frame of %zu bytes from stashd",
                                wanted);
        }
    }
    /* Spinning: reads that never sleep until something comes or the time is up. */
    int64_t spin_until = wait && spin_us > 0 ? now_us() + spin_us : 0;
    for (;;) {
        /* Waiting without a deadline, a blocking read is one system call where poll and a
         * read would be two; the answer to a call is on its way. */
        int flags = wait && deadline < 0 && spin_until == 0 ? 0 : MSG_DONTWAIT;
        ssize_t got = recv(client->fd, client->buffer + client->end, client->capacity - client->end, flags);
        if (got > 0) {
            client->end += (size_t)got;
            return STASH_OK;
        }
        if (got == 0) {
            if (client->end > client->start) {
                return client_break(client, STASH_UNAVAILABLE,
                                    "stashd closed the connection in the middle of a frame (%zu bytes of it received)",
                                    client->end - client->start);
            }
            return client_break(client, STASH_UNAVAILABLE, "stashd closed the connection");
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            return client_break(client, STASH_UNAVAILABLE, "reading from stashd failed: %s", strerror(errno));
        }
        if (!wait) return NOTHING_YET;
        if (spin_until != 0) {
            if (now_us() >= spin_until || (deadline >= 0 && remaining_ms(deadline) == 0)) spin_until = 0;
            continue;
        }
        struct pollfd watch = {.fd = client->fd, .events = POLLIN};
        int ready = poll(&watch, 1, remaining_ms(deadline));
        if (ready < 0 && errno != EINTR) {
            return client_break(client, STASH_UNAVAILABLE, "waiting for stashd failed: %s", strerror(errno));
        }
        if (ready == 0 && deadline >= 0 && remaining_ms(deadline) == 0) return NOTHING_YET;
    }
}

/* ------------------------------------------------------------------ events kept during calls */

static stash_event *lost_marker(const stash_event *dropped) {
    stash_arena *arena = arena_create(1024);
    stash_event *marker = arena ? owned_alloc(arena, sizeof *marker) : NULL;
    if (!marker) {
        arena_destroy(arena);
        return NULL;
    }
    marker->kind = STASH_EVENT_EVENTS_LOST;
    marker->seq = dropped->seq;
    marker->time = dropped->time;
    marker->events_lost.first_seq = dropped->kind == STASH_EVENT_EVENTS_LOST ? dropped->events_lost.first_seq : dropped->seq;
    return marker;
}

static bool append(stash_client *client, stash_event *event, bool marker) {
    queued_event *entry = calloc(1, sizeof *entry);
    if (!entry) return false;
    entry->event = event;
    entry->marker = marker;
    if (client->queue_tail) client->queue_tail->next = entry;
    else client->queue_head = entry;
    client->queue_tail = entry;
    if (!marker) client->queued++;
    return true;
}

/* Keeps an event for stash_next_event. Past the limit the event is dropped and counted in an
 * EVENTS_LOST marker at the end of the queue, as the daemon does for a slow subscriber, so
 * what follows is known to come after a gap. */
static void enqueue(stash_client *client, stash_event *event) {
    if (client->queued < STASH_EVENT_QUEUE_LIMIT) {
        if (!append(client, event, false)) stash_event_free(event);
        return;
    }
    queued_event *tail = client->queue_tail;
    if (!tail->marker) {
        stash_event *marker = lost_marker(event);
        if (!marker || !append(client, marker, true)) {
            /* No memory for the marker either: the event goes unannounced, like one the
             * daemon could not send. */
            stash_event_free(marker);
            stash_event_free(event);
            return;
        }
        tail = client->queue_tail;
    }
    stash_event *marker = tail->event;
    uint32_t dropped = event->kind == STASH_EVENT_EVENTS_LOST ? event->events_lost.count : 1;
    marker->events_lost.last_seq = event->kind == STASH_EVENT_EVENTS_LOST ? event->events_lost.last_seq : event->seq;
    marker->events_lost.count =
        marker->events_lost.count > UINT32_MAX - dropped ? UINT32_MAX : marker->events_lost.count + dropped;
    stash_event_free(event);
}

static stash_event *dequeue(stash_client *client) {
    queued_event *head = client->queue_head;
    if (!head) return NULL;
    client->queue_head = head->next;
    if (!client->queue_head) client->queue_tail = NULL;
    if (!head->marker) client->queued--;
    stash_event *event = head->event;
    free(head);
    return event;
}

/* ------------------------------------------------------------------ frames to messages */

/* Decodes the next buffered frame, if any: *message->is_response or ->event says what it was
 * (neither for an event kind this library skips). *got is false while no whole frame is in. */
static stash_status next_buffered(stash_client *client, decoded_message *message, bool *got) {
    *got = false;
    const uint8_t *payload;
    size_t length;
    stash_status status = buffered_frame(client, &payload, &length);
    if (status != STASH_OK || !payload) return status;
    char *error = NULL;
    status = decode_server_message(payload, length, message, &error);
    if (status != STASH_OK) {
        stash_status broken = client_break(client, status, "%s", error ? error : "stashd sent an unreadable message");
        free(error);
        return broken;
    }
    if (message->result_case == STASH__V1__RESPONSE__RESULT_PLAYBACK_KEY) {
        /* A content key does not stay behind in the receive buffer. */
        memset((uint8_t *)payload, 0, length);
    }
    *got = true;
    return STASH_OK;
}

/* A response with id 0 is the daemon refusing the connection itself (PROTOCOL.md section 2):
 * it closes the connection after it. */
static stash_status connection_refused(stash_client *client, decoded_message *message) {
    stash_status status = message->status == STASH_OK ? STASH_INTERNAL : message->status;
    stash_status broken = client_break(client, status, "stashd refused the connection: %s",
                                       message->message ? message->message : "(no message)");
    decoded_message_clear(message);
    return broken;
}

/* Reads until the response to `id` arrives; events read meanwhile are queued. */
static stash_status await_response(stash_client *client, uint64_t id, int64_t deadline, decoded_message *out) {
    for (;;) {
        bool got;
        stash_status status = next_buffered(client, out, &got);
        if (status != STASH_OK) return status;
        if (got) {
            if (out->event) {
                enqueue(client, out->event);
                out->event = NULL;
            } else if (out->is_response && out->response_id == id) {
                return STASH_OK;
            } else if (out->is_response && out->response_id == 0 && out->status != STASH_OK) {
                return connection_refused(client, out);
            }
            /* A response to nothing in flight (an earlier call that timed out) is dropped. */
            decoded_message_clear(out);
            continue;
        }
        int read = read_more(client, deadline, true, client->busy_poll_us);
        if (read == NOTHING_YET) {
            return client_break(client, STASH_UNAVAILABLE, "no answer from stashd within %d ms", client->timeout_ms);
        }
        if (read != STASH_OK) return (stash_status)read;
    }
}

/* ------------------------------------------------------------------ sending */

stash_status pack_request(stash_client *client, const Stash__V1__Request *request, uint8_t **frame, size_t *length) {
    size_t size = stash__v1__request__get_packed_size(request);
    if (size > STASH_MAX_FRAME_LENGTH) {
        return client_fail(client, STASH_INVALID_ARGUMENT,
                           "the request is %zu bytes packed; a frame holds at most %u (STASH_MAX_FRAME_LENGTH)", size,
                           STASH_MAX_FRAME_LENGTH);
    }
    uint8_t *bytes = malloc(PREFIX_LENGTH + size);
    if (!bytes) return client_fail(client, STASH_RESOURCE_EXHAUSTED, "out of memory for a request of %zu bytes", size);
    bytes[0] = (uint8_t)(size >> 24);
    bytes[1] = (uint8_t)(size >> 16);
    bytes[2] = (uint8_t)(size >> 8);
    bytes[3] = (uint8_t)size;
    size_t packed = stash__v1__request__pack(request, bytes + PREFIX_LENGTH);
    if (packed != size) {
        free(bytes);
        return client_fail(client, STASH_INTERNAL, "protobuf-c packed %zu bytes after announcing %zu", packed, size);
    }
    *frame = bytes;
    *length = PREFIX_LENGTH + size;
    return STASH_OK;
}

/* Writes the whole frame. While the socket is full it keeps reading, so a daemon that waits
 * for this client to take its events before it reads more cannot deadlock the two. */
static stash_status send_frame(stash_client *client, const uint8_t *frame, size_t length, int64_t deadline) {
    size_t sent = 0;
    while (sent < length) {
        ssize_t wrote = send(client->fd, frame + sent, length - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (wrote > 0) {
            sent += (size_t)wrote;
            continue;
        }
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            return client_break(client, STASH_UNAVAILABLE, "writing to stashd failed: %s", strerror(errno));
        }
        struct pollfd watch = {.fd = client->fd, .events = POLLOUT | POLLIN};
        int ready = poll(&watch, 1, remaining_ms(deadline));
        if (ready < 0 && errno != EINTR) {
            return client_break(client, STASH_UNAVAILABLE, "waiting for stashd failed: %s", strerror(errno));
        }
        if (ready == 0 && deadline >= 0 && remaining_ms(deadline) == 0) {
            return client_break(client, STASH_UNAVAILABLE, "stashd took no request within %d ms", client->timeout_ms);
        }
        if (ready > 0 && (watch.revents & POLLIN)) {
            int read = read_more(client, deadline, false, 0);
            if (read != STASH_OK && read != NOTHING_YET) return (stash_status)read;
            for (;;) {
                decoded_message message;
                bool got;
                stash_status status = next_buffered(client, &message, &got);
                if (status != STASH_OK) return status;
                if (!got) break;
                if (message.event) {
                    enqueue(client, message.event);
                    message.event = NULL;
                } else if (message.is_response && message.response_id == 0 && message.status != STASH_OK) {
                    return connection_refused(client, &message);
                }
                decoded_message_clear(&message);
            }
        }
    }
    return STASH_OK;
}

static const char *op_name(const Stash__V1__Request *request) {
    const ProtobufCFieldDescriptor *field =
        protobuf_c_message_descriptor_get_field(&stash__v1__request__descriptor, (unsigned)request->op_case);
    return field ? field->name : "request";
}

stash_status client_call(stash_client *client, Stash__V1__Request *request, Stash__V1__Response__ResultCase expected,
                         void **result) {
    if (result) *result = NULL;
    request->id = client->next_id++;
    uint8_t *frame;
    size_t length;
    stash_status status = pack_request(client, request, &frame, &length);
    if (status != STASH_OK) return status;
    if (client->capture) {
        free(client->captured);
        client->captured = frame;
        client->captured_length = length;
        return client_fail(client, STASH_UNAVAILABLE, "a capture client sends nothing");
    }
    int64_t deadline = deadline_after(client->timeout_ms);
    status = send_frame(client, frame, length, deadline);
    free(frame);
    if (status != STASH_OK) return status;
    decoded_message answer;
    status = await_response(client, request->id, deadline, &answer);
    if (status != STASH_OK) return status;
    if (answer.status != STASH_OK) {
        status = client_fail(client, answer.status, "%s", answer.message ? answer.message : "");
    } else if (expected != STASH__V1__RESPONSE__RESULT__NOT_SET && answer.result_case != expected) {
        status = client_fail(client, STASH_INTERNAL, "stashd answered %s with the result '%s', expected '%s'",
                             op_name(request), result_case_name(answer.result_case), result_case_name(expected));
    } else if (result) {
        *result = answer.result;
        answer.result = NULL;
    }
    decoded_message_clear(&answer);
    return status;
}

/* ------------------------------------------------------------------ public: connection */

static char *default_socket_path(void) {
    char *path = NULL;
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    int made = runtime && *runtime ? asprintf(&path, "%s/stash/stashd.sock", runtime)
                                   : asprintf(&path, "/tmp/stash-%u/stashd.sock", (unsigned)getuid());
    return made < 0 ? NULL : path;
}

void hello_request(stash_client *client, Stash__V1__Request *request, Stash__V1__HelloRequest *hello) {
    stash__v1__hello_request__init(hello);
    hello->protocol_version = STASH_PROTOCOL_VERSION;
    hello->client_name = client->name;
    stash__v1__request__init(request);
    request->op_case = STASH__V1__REQUEST__OP_HELLO;
    request->hello = hello;
}

static stash_status say_hello(stash_client *client) {
    Stash__V1__HelloRequest hello;
    Stash__V1__Request request;
    hello_request(client, &request, &hello);
    void *result;
    stash_status status = client_call(client, &request, STASH__V1__RESPONSE__RESULT_HELLO, &result);
    if (status == STASH_OK) client->hello = result;
    return status;
}

stash_status stash_client_connect(const char *socket_path, stash_client **out) {
    return stash_client_connect_as(socket_path, NULL, out);
}

stash_status stash_client_connect_as(const char *socket_path, const char *client_name, stash_client **out) {
    if (!out) return STASH_INVALID_ARGUMENT;
    stash_client *client = calloc(1, sizeof *client);
    *out = client;
    if (!client) return STASH_RESOURCE_EXHAUSTED;
    client->fd = -1;
    client->next_id = 1;
    client->name = strdup(client_name ? client_name : "libstash-client");
    if (!client->name) {
        free(client);
        *out = NULL;
        return STASH_RESOURCE_EXHAUSTED;
    }
    char *owned_path = socket_path ? NULL : default_socket_path();
    const char *path = socket_path ? socket_path : owned_path;
    stash_status status;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (!path) {
        status = client_break(client, STASH_RESOURCE_EXHAUSTED, "out of memory for the socket path");
    } else if (strlen(path) >= sizeof address.sun_path) {
        status = client_break(client, STASH_INVALID_ARGUMENT,
                              "socket_path '%s' is %zu bytes; a Unix socket path holds at most %zu", path, strlen(path),
                              sizeof address.sun_path - 1);
    } else if ((client->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
        status = client_break(client, STASH_UNAVAILABLE, "cannot make a socket: %s", strerror(errno));
    } else {
        memcpy(address.sun_path, path, strlen(path) + 1);
        int connected;
        do {
            connected = connect(client->fd, (struct sockaddr *)&address, sizeof address);
        } while (connected != 0 && errno == EINTR);
        if (connected != 0) {
            int error = errno;
            status = client_break(client, STASH_UNAVAILABLE, "cannot reach stashd at %s: %s%s", path, strerror(error),
                                  error == ENOENT || error == ECONNREFUSED ? " (is it running? start it with `systemctl --user start stashd.socket` where stash is installed as a service, else `stashd`)" : "");
        } else {
            status = say_hello(client);
        }
    }
    free(owned_path);
    return status;
}

void stash_client_close(stash_client *client) {
    if (!client) return;
    if (client->fd >= 0) close(client->fd);
    stash_event *event;
    while ((event = dequeue(client))) stash_event_free(event);
    stash_hello_result_free(client->hello);
    free(client->buffer);
    free(client->message);
    free(client->failure);
    free(client->captured);
    free(client->name);
    free(client);
}

const char *stash_client_error_message(const stash_client *client) {
    if (!client) return "no client: stash_client_connect ran out of memory";
    return client->message ? client->message : "";
}

int stash_client_fd(const stash_client *client) { return client ? client->fd : -1; }

void stash_client_set_timeout(stash_client *client, int timeout_ms) {
    if (client) client->timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
}

stash_status stash_client_set_busy_poll(stash_client *client, int microseconds) {
    stash_status status = client_begin(client);
    if (status != STASH_OK) return status;
    if (microseconds < 0 || microseconds > STASH_MAX_BUSY_POLL_US) {
        return client_fail(client, STASH_INVALID_ARGUMENT, "busy poll %d us is outside 0 to %d us (STASH_MAX_BUSY_POLL_US)",
                           microseconds, STASH_MAX_BUSY_POLL_US);
    }
    client->busy_poll_us = microseconds;
    return STASH_OK;
}

const char *stash_client_daemon_version(const stash_client *client) {
    return client && client->hello ? client->hello->daemon_version : "";
}

bool stash_client_has_feature(const stash_client *client, const char *feature) {
    if (!client || !client->hello || !feature) return false;
    for (size_t i = 0; i < client->hello->n_features; i++) {
        if (strcmp(client->hello->features[i], feature) == 0) return true;
    }
    return false;
}

stash_client *client_new_capture(uint64_t first_id, const char *name) {
    stash_client *client = calloc(1, sizeof *client);
    if (!client) return NULL;
    client->name = strdup(name);
    client->fd = -1;
    client->next_id = first_id;
    client->capture = true;
    return client;
}

/* ------------------------------------------------------------------ public: calls and events */

stash_status client_begin(stash_client *client) {
    if (!client) return STASH_INVALID_ARGUMENT;
    return begin(client);
}

static stash_status take_event(stash_client *client, int timeout_ms, stash_event **out) {
    if (!out) return client_fail(client, STASH_INVALID_ARGUMENT, "out: NULL; expected where to put the event");
    *out = NULL;
    free(client->message);
    client->message = NULL;
    /* Events kept during calls come first, even from a connection that has failed since. */
    if ((*out = dequeue(client))) return STASH_OK;
    stash_status status = begin(client);
    if (status != STASH_OK) return status;
    int64_t deadline = deadline_after(timeout_ms);
    for (;;) {
        decoded_message message;
        bool got;
        status = next_buffered(client, &message, &got);
        if (status != STASH_OK) return status;
        if (got) {
            if (message.event) {
                *out = message.event;
                return STASH_OK;
            }
            if (message.is_response && message.response_id == 0 && message.status != STASH_OK) {
                return connection_refused(client, &message);
            }
            decoded_message_clear(&message);
            continue;
        }
        int read = read_more(client, deadline, timeout_ms != 0, 0);
        if (read == NOTHING_YET) return STASH_OK;
        if (read != STASH_OK) return (stash_status)read;
    }
}

stash_status stash_next_event(stash_client *client, stash_event **out) {
    if (!client) return STASH_INVALID_ARGUMENT;
    return take_event(client, 0, out);
}

stash_status stash_wait_event(stash_client *client, int timeout_ms, stash_event **out) {
    if (!client) return STASH_INVALID_ARGUMENT;
    return take_event(client, timeout_ms < 0 ? -1 : timeout_ms, out);
}
