/* libstash-client against a hostile peer: a thread on a real Unix socket answers the client's
 * frames with what a broken or malicious daemon could send (lengths past the limit, garbage,
 * unknown numbers, a flood of events, a message that explodes when decoded). Each must end in
 * a status and a message naming the value and the limit, never in a crash, a leak or an
 * allocation sized by the peer. */
#include "check.h"
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

typedef void (*script)(int fd);

typedef struct peer {
    char path[108];
    int listener;
    script run;
    pthread_t thread;
} peer;

static void write_all(int fd, const void *data, size_t length) {
    const uint8_t *p = data;
    while (length > 0) {
        ssize_t wrote = send(fd, p, length, MSG_NOSIGNAL);
        if (wrote <= 0) return; /* the client has gone: the test checks what it saw */
        p += wrote;
        length -= (size_t)wrote;
    }
}

static bool read_all(int fd, void *data, size_t length) {
    uint8_t *p = data;
    while (length > 0) {
        ssize_t got = recv(fd, p, length, 0);
        if (got <= 0) return false;
        p += got;
        length -= (size_t)got;
    }
    return true;
}

/* Reads one request frame; returns its id (0 when the client went away). */
static uint64_t read_request(int fd, Stash__V1__Request__OpCase *op) {
    uint8_t prefix[4];
    if (!read_all(fd, prefix, 4)) return 0;
    uint32_t length = (uint32_t)prefix[0] << 24 | (uint32_t)prefix[1] << 16 | (uint32_t)prefix[2] << 8 | prefix[3];
    uint8_t *payload = malloc(length);
    uint64_t id = 0;
    if (payload && read_all(fd, payload, length)) {
        Stash__V1__Request *request = stash__v1__request__unpack(NULL, length, payload);
        if (request) {
            id = request->id;
            if (op) *op = request->op_case;
            stash__v1__request__free_unpacked(request, NULL);
        }
    }
    free(payload);
    return id;
}

static void send_frame(int fd, const uint8_t *payload, uint32_t length) {
    uint8_t prefix[4] = {(uint8_t)(length >> 24), (uint8_t)(length >> 16), (uint8_t)(length >> 8), (uint8_t)length};
    write_all(fd, prefix, 4);
    write_all(fd, payload, length);
}

static void send_message(int fd, const Stash__V1__ServerMessage *message) {
    size_t size = stash__v1__server_message__get_packed_size(message);
    uint8_t *bytes = malloc(size ? size : 1);
    stash__v1__server_message__pack(message, bytes);
    send_frame(fd, bytes, (uint32_t)size);
    free(bytes);
}

static void send_response(int fd, Stash__V1__Response *response) {
    Stash__V1__ServerMessage message = STASH__V1__SERVER_MESSAGE__INIT;
    message.msg_case = STASH__V1__SERVER_MESSAGE__MSG_RESPONSE;
    message.response = response;
    send_message(fd, &message);
}

static void answer_hello(int fd) {
    uint64_t id = read_request(fd, NULL);
    char *features[] = {"events"};
    Stash__V1__HelloResult hello = STASH__V1__HELLO_RESULT__INIT;
    hello.protocol_version = 1;
    hello.daemon_version = "9.9.9-hostile";
    hello.features = features;
    hello.n_features = 1;
    Stash__V1__Response response = STASH__V1__RESPONSE__INIT;
    response.id = id;
    response.result_case = STASH__V1__RESPONSE__RESULT_HELLO;
    response.hello = &hello;
    send_response(fd, &response);
}

static void *serve(void *argument) {
    peer *p = argument;
    int fd = accept(p->listener, NULL, NULL);
    if (fd >= 0) {
        p->run(fd);
        /* Waits for the client to close, so nothing it sends after the script is refused. */
        char byte;
        while (recv(fd, &byte, 1, 0) > 0) {}
        close(fd);
    }
    return NULL;
}

static peer *start_peer(script run) {
    peer *p = calloc(1, sizeof *p);
    snprintf(p->path, sizeof p->path, "/tmp/stash-hostile-%d-%p.sock", getpid(), (void *)p);
    p->run = run;
    p->listener = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    memcpy(address.sun_path, p->path, strlen(p->path) + 1);
    unlink(p->path);
    if (bind(p->listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(p->listener, 1) != 0) {
        perror("hostile peer");
        exit(1);
    }
    pthread_create(&p->thread, NULL, serve, p);
    return p;
}

static void stop_peer(peer *p) {
    pthread_join(p->thread, NULL);
    close(p->listener);
    unlink(p->path);
    free(p);
}

/* Connects to a peer running `run` and returns the connect status; *client is left open. */
static stash_status connect_to(script run, peer **p, stash_client **client) {
    *p = start_peer(run);
    return stash_client_connect((*p)->path, client);
}

/* ------------------------------------------------------------------ scripts */

static void huge_length(int fd) {
    read_request(fd, NULL);
    const uint8_t prefix[] = {0xff, 0xff, 0xff, 0xff};
    write_all(fd, prefix, 4);
}

static void zero_length(int fd) {
    read_request(fd, NULL);
    const uint8_t prefix[] = {0, 0, 0, 0};
    write_all(fd, prefix, 4);
}

static void garbage(int fd) {
    read_request(fd, NULL);
    const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    send_frame(fd, junk, sizeof junk);
}

static void refuse_connection(int fd) {
    read_request(fd, NULL);
    Stash__V1__Status status = STASH__V1__STATUS__INIT;
    status.code = STASH__V1__STATUS_CODE__PERMISSION_DENIED;
    status.message = "uid 1234 is not the daemon's uid 0";
    Stash__V1__Response response = STASH__V1__RESPONSE__INIT;
    response.status = &status;
    send_response(fd, &response);
}

static void cut_mid_frame(int fd) {
    read_request(fd, NULL);
    const uint8_t partial[] = {0, 0, 0, 10, 0x0a, 0x02};
    write_all(fd, partial, sizeof partial);
    shutdown(fd, SHUT_WR);
}

/* Hello answered one byte per write: frames may arrive split anyhow. */
static void trickle(int fd) {
    uint64_t id = read_request(fd, NULL);
    Stash__V1__HelloResult hello = STASH__V1__HELLO_RESULT__INIT;
    hello.daemon_version = "slow";
    Stash__V1__Response response = STASH__V1__RESPONSE__INIT;
    response.id = id;
    response.result_case = STASH__V1__RESPONSE__RESULT_HELLO;
    response.hello = &hello;
    Stash__V1__ServerMessage message = STASH__V1__SERVER_MESSAGE__INIT;
    message.msg_case = STASH__V1__SERVER_MESSAGE__MSG_RESPONSE;
    message.response = &response;
    size_t size = stash__v1__server_message__get_packed_size(&message);
    uint8_t frame[256] = {0, 0, 0, (uint8_t)size};
    stash__v1__server_message__pack(&message, frame + 4);
    for (size_t i = 0; i < size + 4; i++) {
        write_all(fd, frame + i, 1);
        usleep(1000);
    }
}

static void answer_get(int fd, int state, int status_code, Stash__V1__Response__ResultCase result_case) {
    answer_hello(fd);
    uint64_t id = read_request(fd, NULL);
    Stash__V1__Download record = STASH__V1__DOWNLOAD__INIT;
    record.id = "x";
    record.state = (Stash__V1__DownloadState)state;
    Stash__V1__DownloadResult download = STASH__V1__DOWNLOAD_RESULT__INIT;
    download.download = &record;
    Stash__V1__HasDownloadResult has = STASH__V1__HAS_DOWNLOAD_RESULT__INIT;
    Stash__V1__Status status = STASH__V1__STATUS__INIT;
    status.code = (Stash__V1__StatusCode)status_code;
    status.message = "from a later version";
    Stash__V1__Response response = STASH__V1__RESPONSE__INIT;
    response.id = id;
    response.status = &status;
    response.result_case = result_case;
    if (result_case == STASH__V1__RESPONSE__RESULT_DOWNLOAD) response.download = &download;
    else response.has = &has;
    send_response(fd, &response);
}

static void unknown_state(int fd) { answer_get(fd, 99, 0, STASH__V1__RESPONSE__RESULT_DOWNLOAD); }
static void unknown_status(int fd) { answer_get(fd, 5, 42, STASH__V1__RESPONSE__RESULT_DOWNLOAD); }
static void wrong_result(int fd) { answer_get(fd, 5, 0, STASH__V1__RESPONSE__RESULT_HAS); }

/* A list of 2 million empty records: 4 MiB on the wire, over 600 MB once decoded by
 * protobuf-c, unless the decoded budget stops it. */
static void exploding_list(int fd) {
    answer_hello(fd);
    uint64_t id = read_request(fd, NULL);
    const uint32_t records = 2000000;
    uint32_t list_length = records * 2;
    uint8_t head[32];
    size_t n = 0;
    head[n++] = 0x08; /* Response.id */
    for (uint64_t v = id; ; v >>= 7) {
        head[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        if (v <= 0x7f) break;
    }
    head[n++] = 0x62; /* Response.list = 12, length-delimited */
    for (uint32_t v = list_length; ; v >>= 7) {
        head[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        if (v <= 0x7f) break;
    }
    /* Wrap the Response in ServerMessage.response (field 1). */
    uint32_t response_length = (uint32_t)n + list_length;
    uint8_t outer[8];
    size_t m = 0;
    outer[m++] = 0x0a;
    for (uint32_t v = response_length; ; v >>= 7) {
        outer[m++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        if (v <= 0x7f) break;
    }
    uint32_t total = (uint32_t)m + response_length;
    uint8_t *payload = malloc(total);
    memcpy(payload, outer, m);
    memcpy(payload + m, head, n);
    for (uint32_t i = 0; i < records; i++) {
        payload[m + n + 2 * i] = 0x0a; /* ListDownloadsResult.downloads, empty */
        payload[m + n + 2 * i + 1] = 0x00;
    }
    send_frame(fd, payload, total);
    free(payload);
}

static void send_progress(int fd, uint64_t seq) {
    Stash__V1__Progress progress = STASH__V1__PROGRESS__INIT;
    progress.id = "x";
    progress.downloaded_bytes = seq;
    Stash__V1__Event event = STASH__V1__EVENT__INIT;
    event.seq = seq;
    event.kind_case = STASH__V1__EVENT__KIND_PROGRESS;
    event.progress = &progress;
    Stash__V1__ServerMessage message = STASH__V1__SERVER_MESSAGE__INIT;
    message.msg_case = STASH__V1__SERVER_MESSAGE__MSG_EVENT;
    message.event = &event;
    send_message(fd, &message);
}

/* 1100 events, one of an unknown kind, then the answer to the call that waits meanwhile. */
static void event_flood(int fd) {
    answer_hello(fd);
    uint64_t id = read_request(fd, NULL);
    for (uint64_t seq = 1; seq <= 1100; seq++) {
        if (seq == 500) {
            /* ServerMessage.event = Event{seq 500, field 111 (a kind of a later version) = 1} */
            const uint8_t later_kind[] = {0x12, 0x06, 0x08, 0xf4, 0x03, 0xf8, 0x06, 0x01};
            send_frame(fd, later_kind, sizeof later_kind);
            continue;
        }
        send_progress(fd, seq);
    }
    Stash__V1__HasDownloadResult has = STASH__V1__HAS_DOWNLOAD_RESULT__INIT;
    has.exists = true;
    has.state = STASH__V1__DOWNLOAD_STATE__PAUSED;
    Stash__V1__Response response = STASH__V1__RESPONSE__INIT;
    response.id = id;
    response.result_case = STASH__V1__RESPONSE__RESULT_HAS;
    response.has = &has;
    send_response(fd, &response);
}

/* ------------------------------------------------------------------ impossible records */

/* What answer_hostile sends: the answer to the call after Hello, built by `hostile_answer`,
 * after `hostile_event` when set. A C string cannot hold a NUL but the wire can: where the
 * packed bytes hold the string `hostile_nul`, its DEL bytes (0x7f) are sent as NULs. */
static void (*hostile_answer)(Stash__V1__Response *response);
static Stash__V1__Event *hostile_event;
static const char *hostile_nul;
static Stash__V1__Download hostile_record;
static Stash__V1__GroupTotals hostile_totals;
static Stash__V1__LicenseStatus hostile_license;
static Stash__V1__PlaybackKeyResult hostile_key;

static void answer_record(Stash__V1__Response *response) {
    static Stash__V1__DownloadResult result = STASH__V1__DOWNLOAD_RESULT__INIT;
    result.download = &hostile_record;
    response->result_case = STASH__V1__RESPONSE__RESULT_DOWNLOAD;
    response->download = &result;
}

static void answer_list(Stash__V1__Response *response) {
    static Stash__V1__ListDownloadsResult list = STASH__V1__LIST_DOWNLOADS_RESULT__INIT;
    list.totals = &hostile_totals;
    response->result_case = STASH__V1__RESPONSE__RESULT_LIST;
    response->list = &list;
}

static void answer_license(Stash__V1__Response *response) {
    response->result_case = STASH__V1__RESPONSE__RESULT_LICENSE;
    response->license = &hostile_license;
}

static void answer_key(Stash__V1__Response *response) {
    response->result_case = STASH__V1__RESPONSE__RESULT_PLAYBACK_KEY;
    response->playback_key = &hostile_key;
}

static void answer_has(Stash__V1__Response *response) {
    static Stash__V1__HasDownloadResult has = STASH__V1__HAS_DOWNLOAD_RESULT__INIT;
    response->result_case = STASH__V1__RESPONSE__RESULT_HAS;
    response->has = &has;
}

static void send_with_nul(int fd, const Stash__V1__ServerMessage *message) {
    size_t size = stash__v1__server_message__get_packed_size(message);
    uint8_t *bytes = malloc(size);
    stash__v1__server_message__pack(message, bytes);
    size_t marked = hostile_nul ? strlen(hostile_nul) : 0;
    uint8_t *found = marked ? memmem(bytes, size, hostile_nul, marked) : NULL;
    for (size_t i = 0; found && i < marked; i++) {
        if (found[i] == 0x7f) found[i] = 0;
    }
    send_frame(fd, bytes, (uint32_t)size);
    free(bytes);
}

static void answer_hostile(int fd) {
    answer_hello(fd);
    uint64_t id = read_request(fd, NULL);
    if (hostile_event) {
        Stash__V1__ServerMessage event = STASH__V1__SERVER_MESSAGE__INIT;
        event.msg_case = STASH__V1__SERVER_MESSAGE__MSG_EVENT;
        event.event = hostile_event;
        send_with_nul(fd, &event);
    }
    Stash__V1__Response response = STASH__V1__RESPONSE__INIT;
    response.id = id;
    hostile_answer(&response);
    Stash__V1__ServerMessage message = STASH__V1__SERVER_MESSAGE__INIT;
    message.msg_case = STASH__V1__SERVER_MESSAGE__MSG_RESPONSE;
    message.response = &response;
    send_with_nul(fd, &message);
}

static void reset_hostile(void) {
    hostile_answer = answer_record;
    hostile_event = NULL;
    hostile_nul = NULL;
    hostile_record = (Stash__V1__Download)STASH__V1__DOWNLOAD__INIT;
    hostile_record.id = "x";
    hostile_record.state = STASH__V1__DOWNLOAD_STATE__DOWNLOADING;
    hostile_record.total_bytes = -1;
    hostile_record.remaining_time = -1;
    hostile_totals = (Stash__V1__GroupTotals)STASH__V1__GROUP_TOTALS__INIT;
    hostile_license = (Stash__V1__LicenseStatus)STASH__V1__LICENSE_STATUS__INIT;
    hostile_license.license_seconds_left = -1;
    hostile_license.playback_seconds_left = -1;
    hostile_license.playback_duration = -1;
    hostile_key = (Stash__V1__PlaybackKeyResult)STASH__V1__PLAYBACK_KEY_RESULT__INIT;
}

/* ------------------------------------------------------------------ tests */

static void expect_connect_failure(script run, stash_status expected, const char *part, const char *second_part) {
    peer *p;
    stash_client *client = NULL;
    stash_status status = connect_to(run, &p, &client);
    const char *message = stash_client_error_message(client);
    CHECK(status == expected, "got %s (%s), expected %s", stash_status_name(status), message, stash_status_name(expected));
    CHECK(strstr(message, part) != NULL, "'%s' should mention '%s'", message, part);
    CHECK(!second_part || strstr(message, second_part) != NULL, "'%s' should mention '%s'", message, second_part);
    stash_client_close(client);
    stop_peer(p);
}

/* A client connected to `run` after its Hello; the call is the test's. */
static stash_client *connected(script run, peer **p) {
    stash_client *client = NULL;
    stash_status status = connect_to(run, p, &client);
    CHECK(status == STASH_OK, "connect: %s", stash_client_error_message(client));
    return client;
}

/* The call `which` against answer_hostile as set up: it fails INTERNAL naming `part`. */
static void expect_refused(int which, const char *part, int line) {
    peer *p;
    stash_client *client = connected(answer_hostile, &p);
    stash_download *record = NULL;
    stash_download_list *list = NULL;
    stash_license_status *license = NULL;
    stash_playback_key *key = NULL;
    stash_status status;
    switch (which) {
    case 0: status = stash_get(client, "x", &record); break;
    case 1: status = stash_list(client, NULL, &list); break;
    case 2: status = stash_license_check(client, "x", &license); break;
    case 3: status = stash_get_playback_key(client, "x", NULL, &key); break;
    default: status = stash_has(client, "x", NULL, NULL); break;
    }
    const char *message = stash_client_error_message(client);
    CHECK(status == STASH_INTERNAL, "line %d: got %s (%s), expected INTERNAL", line, stash_status_name(status), message);
    CHECK(strstr(message, part) != NULL, "line %d: '%s' should mention '%s'", line, message, part);
    CHECK(!record && !list && !license && !key, "line %d: nothing returned", line);
    stash_client_close(client);
    stop_peer(p);
    reset_hostile();
}

enum { GET, LIST, LICENSE, KEY, HAS };
#define REFUSED(which, part) expect_refused(which, part, __LINE__)

static void impossible_records(void) {
    reset_hostile();
    hostile_record.progress = 4000000000u;
    REFUSED(GET, "Download.progress 4000000000, above 100");
    hostile_record.total_bytes = INT64_MIN;
    REFUSED(GET, "Download.total_bytes -9223372036854775808, below -1");
    hostile_record.remaining_time = -2;
    REFUSED(GET, "Download.remaining_time -2");
    hostile_record.files_done = 7;
    hostile_record.files_total = 5;
    REFUSED(GET, "Download.files_done 7, above files_total 5");
    hostile_totals.files_done = 3;
    hostile_answer = answer_list;
    REFUSED(LIST, "GroupTotals.files_done 3, above files_total 0");
    hostile_license.playback_seconds_left = -5;
    hostile_answer = answer_license;
    REFUSED(LICENSE, "LicenseStatus.playback_seconds_left -5");
    hostile_key.playback_seconds_left = INT64_MIN;
    hostile_answer = answer_key;
    REFUSED(KEY, "PlaybackKeyResult.playback_seconds_left -9223372036854775808");

    /* The same numbers in a progress event read while a call waits. */
    Stash__V1__Progress progress = STASH__V1__PROGRESS__INIT;
    progress.id = "x";
    progress.total_bytes = -1;
    progress.remaining_time = -1;
    progress.progress = 4000000000u;
    Stash__V1__Event event = STASH__V1__EVENT__INIT;
    event.seq = 1;
    event.kind_case = STASH__V1__EVENT__KIND_PROGRESS;
    event.progress = &progress;
    hostile_event = &event;
    hostile_answer = answer_has;
    REFUSED(HAS, "Progress.progress 4000000000");
    progress.progress = 0;
    progress.files_done = 2;
    progress.files_total = 1;
    hostile_event = &event;
    hostile_answer = answer_has;
    REFUSED(HAS, "Progress.files_done 2, above files_total 1");

    /* Strings: a NUL inside one (the DEL becomes a NUL on the wire) and bytes that are not UTF-8. */
    static char nul_title[] = "nul1\x7f" "evil", nul_lang[] = "e\x7fs";
    hostile_record.title = nul_title;
    hostile_nul = nul_title;
    REFUSED(GET, "ServerMessage.response.download.download.title: \"nul1\\0evil\" (9 bytes) holds a NUL at byte 4");
    hostile_record.title = "caf\xc3";
    REFUSED(GET, "ServerMessage.response.download.download.title: \"caf\\xc3\" (4 bytes) is not UTF-8 at byte 3");
    hostile_record.asset_path = "/data/\xed\xa0\x80"; /* a surrogate, U+D800 */
    REFUSED(GET, "download.download.asset_path: \"/data/\\xed\\xa0\\x80\" (9 bytes) is not UTF-8 at byte 6");
    Stash__V1__TextTrack tracks[2] = {STASH__V1__TEXT_TRACK__INIT, STASH__V1__TEXT_TRACK__INIT};
    Stash__V1__TextTrack *track_pointers[2] = {&tracks[0], &tracks[1]};
    tracks[0].lang = "es";
    tracks[1].lang = nul_lang;
    hostile_nul = nul_lang;
    hostile_record.text_tracks = track_pointers;
    hostile_record.n_text_tracks = 2;
    REFUSED(GET, "download.download.text_tracks[1].lang: \"e\\0s\" (3 bytes) holds a NUL at byte 1");
    Stash__V1__Removed removed = STASH__V1__REMOVED__INIT;
    removed.id = "\xc0\xaf"; /* an overlong '/' */
    event.kind_case = STASH__V1__EVENT__KIND_REMOVED;
    event.removed = &removed;
    hostile_event = &event;
    hostile_answer = answer_has;
    REFUSED(HAS, "ServerMessage.event.removed.id: \"\\xc0\\xaf\" (2 bytes) is not UTF-8 at byte 0");

    /* What can be: the documented -1s, 100 % and every file done, and UTF-8 of every length. */
    peer *p;
    hostile_record.progress = 100;
    hostile_record.files_done = 3;
    hostile_record.files_total = 3;
    hostile_record.title = "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xac \xf4\x8f\xbf\xbf";
    stash_client *client = connected(answer_hostile, &p);
    stash_download *record = NULL;
    CHECK_OK(stash_get(client, "x", &record), client);
    CHECK(record && record->progress == 100 && record->total_bytes == -1 && strcmp(record->title, hostile_record.title) == 0,
          "a possible record is read");
    stash_download_free(record);
    stash_client_close(client);
    stop_peer(p);
}

int main(void) {
    expect_connect_failure(huge_length, STASH_RESOURCE_EXHAUSTED, "4294967295", "4194304");
    expect_connect_failure(zero_length, STASH_INTERNAL, "length 0", NULL);
    expect_connect_failure(garbage, STASH_INTERNAL, "not a stash.v1.ServerMessage", NULL);
    expect_connect_failure(refuse_connection, STASH_PERMISSION_DENIED, "uid 1234", NULL);
    expect_connect_failure(cut_mid_frame, STASH_UNAVAILABLE, "middle of a frame", NULL);

    peer *p;
    stash_client *client = connected(trickle, &p);
    CHECK(strcmp(stash_client_daemon_version(client), "slow") == 0, "a frame in 1-byte pieces");
    stash_client_close(client);
    stop_peer(p);

    client = connected(unknown_state, &p);
    stash_download *record = NULL;
    CHECK_FAILS(stash_get(client, "x", &record), client, STASH_INTERNAL, "Download.state 99");
    CHECK(record == NULL, "no record");
    CHECK_FAILS(stash_has(client, "x", NULL, NULL), client, STASH_INTERNAL, "Download.state 99");
    stash_client_close(client);
    stop_peer(p);

    client = connected(unknown_status, &p);
    CHECK_FAILS(stash_get(client, "x", &record), client, STASH_INTERNAL, "status code 42");
    CHECK(strstr(stash_client_error_message(client), "from a later version") != NULL, "the daemon's text kept");
    stash_client_close(client);
    stop_peer(p);

    client = connected(wrong_result, &p);
    CHECK_FAILS(stash_get(client, "x", &record), client, STASH_INTERNAL, "expected 'download'");
    stash_client_close(client);
    stop_peer(p);

    client = connected(exploding_list, &p);
    stash_download_list *list = NULL;
    CHECK_FAILS(stash_list(client, NULL, &list), client, STASH_RESOURCE_EXHAUSTED, "STASH_MAX_DECODED_BYTES");
    CHECK(list == NULL, "no list");
    stash_client_close(client);
    stop_peer(p);

    client = connected(event_flood, &p);
    bool exists = false;
    stash_state state = STASH_STATE_NOT_DOWNLOADED;
    CHECK_OK(stash_has(client, "x", &exists, &state), client);
    CHECK(exists && state == STASH_STATE_PAUSED, "the answer after the flood");
    stash_event *event;
    uint64_t expected_seq = 1;
    size_t progress = 0;
    bool lost = false;
    while (stash_next_event(client, &event) == STASH_OK && event) {
        if (event->kind == STASH_EVENT_PROGRESS) {
            if (expected_seq == 500) expected_seq++; /* the unknown kind was skipped */
            CHECK(event->seq == expected_seq && event->progress.downloaded_bytes == expected_seq, "seq %llu, expected %llu",
                  (unsigned long long)event->seq, (unsigned long long)expected_seq);
            expected_seq++;
            progress++;
        } else if (event->kind == STASH_EVENT_EVENTS_LOST) {
            lost = true;
            CHECK(event->events_lost.first_seq == 1026 && event->events_lost.last_seq == 1100 &&
                      event->events_lost.count == 75,
                  "lost %llu to %llu (%u)", (unsigned long long)event->events_lost.first_seq,
                  (unsigned long long)event->events_lost.last_seq, event->events_lost.count);
        }
        stash_event_free(event);
    }
    CHECK(progress == STASH_EVENT_QUEUE_LIMIT && lost, "%zu events kept, then the loss", progress);
    stash_client_close(client);
    stop_peer(p);

    impossible_records();

    if (failures) fprintf(stderr, "test_hostile: %d checks failed\n", failures);
    else printf("test_hostile: all checks passed\n");
    return failures ? 1 : 0;
}
