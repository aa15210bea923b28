// download_floor DIR LIST THREADS: stash's promise for single-file downloads kept as plainly as
// C allows, for `make bench` to weigh stashd against. For each URL of LIST (one a line): a row
// in a SQLite registry (WAL, synchronous=FULL, group commits at least 6 ms apart, as stash's)
// committed as QUEUED before its transfer starts, then DOWNLOADING at the first body bytes and
// COMPLETED once the file is durable; the body fetched by libcurl's multi interface, 16 at once,
// held in memory and written as durable_floor.c writes it (durable_work.h: a folder, the part
// file written, fdatasync'd and renamed, the folder and a shared fsync of assets/ synced) by
// THREADS threads.
// Nothing is told to anyone: no socket, no events, no progress. What stashd spends above this
// is the cost of its engine, its protocol and its events.
//
// Prints one line: "<CPU seconds, user + system> <wall seconds>", from the first commit to the
// last. With FLOOR_THREADS set, also writes to that file the CPU seconds of each kind of thread,
// one "<kind> <seconds>" a line: the transfer thread (main), the sync threads, the commit thread.
// Exits 1 if a transfer fails or a file's size differs from its Content-Length.
#define _GNU_SOURCE
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "durable_work.h"

enum { PARALLEL = 16, SPACING_NS = 6000000 };

// CPU seconds of each kind of thread, each added by its thread when it ends.
static pthread_mutex_t thread_cpu_lock = PTHREAD_MUTEX_INITIALIZER;
static double syncers_cpu, committer_cpu;

static double thread_cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void add_thread_cpu(double *kind) {
    double seconds = thread_cpu_seconds();
    pthread_mutex_lock(&thread_cpu_lock);
    *kind += seconds;
    pthread_mutex_unlock(&thread_cpu_lock);
}
enum State { QUEUED, DOWNLOADING, COMPLETED };
static const char *state_names[] = {"QUEUED", "DOWNLOADING", "COMPLETED"};

struct Download {
    char id[16];
    char *url;
    char *body;
    size_t size, capacity;
    int started;
    CURL *easy;
    struct Download *next_synced;
};

static struct Download *downloads;
static int count;

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void die_sqlite(sqlite3 *db, const char *what) {
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

// ---- the registry: changes queue up and commit together, at least SPACING_NS apart ----

static pthread_mutex_t commit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t commit_wake = PTHREAD_COND_INITIALIZER, committed_cond = PTHREAD_COND_INITIALIZER;
static int *pending_state;  // per download: the newest state not yet committed, or -1
static int *pending_list, pending_count;
static long submitted, committed;  // changes submitted, and how many of them are durable
static int closing;

static void submit(int index, enum State state) {
    pthread_mutex_lock(&commit_lock);
    if (pending_state[index] < 0) pending_list[pending_count++] = index;
    pending_state[index] = state;
    submitted++;
    pthread_cond_signal(&commit_wake);
    pthread_mutex_unlock(&commit_lock);
}

static void *committer(void *path) {
    sqlite3 *db;
    if (sqlite3_open((const char *)path, &db) != SQLITE_OK) die_sqlite(db, "open registry");
    if (sqlite3_exec(db,
                     "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                     "CREATE TABLE download (id TEXT PRIMARY KEY, uri TEXT NOT NULL, state TEXT NOT NULL,"
                     " downloaded_bytes INTEGER NOT NULL, total_bytes INTEGER, asset_path TEXT NOT NULL,"
                     " created_at INTEGER NOT NULL, completed_at INTEGER)",
                     NULL, NULL, NULL) != SQLITE_OK)
        die_sqlite(db, "create registry");
    sqlite3_stmt *upsert;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO download VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET"
                           " state = excluded.state, downloaded_bytes = excluded.downloaded_bytes,"
                           " total_bytes = excluded.total_bytes, completed_at = excluded.completed_at",
                           -1, &upsert, NULL) != SQLITE_OK)
        die_sqlite(db, "prepare");
    int *batch = malloc(sizeof(int) * count), *states = malloc(sizeof(int) * count);
    double last = 0;
    char asset[64];
    for (;;) {
        pthread_mutex_lock(&commit_lock);
        while (pending_count == 0 && !closing) pthread_cond_wait(&commit_wake, &commit_lock);
        if (pending_count == 0) {
            pthread_mutex_unlock(&commit_lock);
            break;
        }
        pthread_mutex_unlock(&commit_lock);
        double wait = last + SPACING_NS / 1e9 - now_seconds();
        if (wait > 0) {
            struct timespec pause = {0, (long)(wait * 1e9)};
            nanosleep(&pause, NULL);
        }
        pthread_mutex_lock(&commit_lock);
        int n = pending_count;
        long through = submitted;
        for (int i = 0; i < n; i++) {
            batch[i] = pending_list[i];
            states[i] = pending_state[batch[i]];
            pending_state[batch[i]] = -1;
        }
        pending_count = 0;
        pthread_mutex_unlock(&commit_lock);
        last = now_seconds();
        if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) die_sqlite(db, "begin");
        for (int i = 0; i < n; i++) {
            struct Download *d = &downloads[batch[i]];
            snprintf(asset, sizeof asset, "assets/%s/%s.bin", d->id, d->id);
            sqlite3_bind_text(upsert, 1, d->id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(upsert, 2, d->url, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(upsert, 3, state_names[states[i]], -1, SQLITE_STATIC);
            sqlite3_bind_int64(upsert, 4, states[i] == COMPLETED ? (sqlite3_int64)d->size : 0);
            sqlite3_bind_int64(upsert, 5, (sqlite3_int64)d->size);
            sqlite3_bind_text(upsert, 6, asset, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(upsert, 7, (sqlite3_int64)time(NULL) * 1000);
            if (states[i] == COMPLETED) sqlite3_bind_int64(upsert, 8, (sqlite3_int64)time(NULL) * 1000);
            else sqlite3_bind_null(upsert, 8);
            if (sqlite3_step(upsert) != SQLITE_DONE) die_sqlite(db, "upsert");
            sqlite3_reset(upsert);
        }
        if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) die_sqlite(db, "commit");
        pthread_mutex_lock(&commit_lock);
        committed = through;
        pthread_cond_broadcast(&committed_cond);
        pthread_mutex_unlock(&commit_lock);
    }
    sqlite3_finalize(upsert);
    sqlite3_close(db);
    free(batch);
    free(states);
    add_thread_cpu(&committer_cpu);
    return NULL;
}

// ---- durable files (durable_work.h), by THREADS threads ----

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_work = PTHREAD_COND_INITIALIZER;
static int fetching_over;
static struct Download *to_sync;

static void make_durable(struct Download *d) {
    char name[32];
    snprintf(name, sizeof name, "%s.bin", d->id);
    write_durable(d->id, name, d->body, d->size);
    free(d->body);
    d->body = NULL;
}

static void *syncer(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        while (!to_sync && !fetching_over) pthread_cond_wait(&queue_work, &queue_lock);
        struct Download *d = to_sync;
        if (!d) {
            pthread_mutex_unlock(&queue_lock);
            add_thread_cpu(&syncers_cpu);
            return NULL;
        }
        to_sync = d->next_synced;
        pthread_mutex_unlock(&queue_lock);
        make_durable(d);
        submit((int)(d - downloads), COMPLETED);
    }
}

// ---- transfers ----

static size_t on_body(char *data, size_t size, size_t items, void *user) {
    struct Download *d = user;
    size_t length = size * items;
    if (!d->started) {
        d->started = 1;
        submit((int)(d - downloads), DOWNLOADING);
    }
    if (d->size + length > d->capacity) {
        size_t capacity = d->capacity ? d->capacity * 2 : 128 << 10;
        while (capacity < d->size + length) capacity *= 2;
        // Page-aligned, as stash keeps a body in memory, so it is written with O_DIRECT.
        char *grown = aligned_alloc(4096, capacity);
        if (!grown) return 0;
        if (d->size > 0) memcpy(grown, d->body, d->size);
        free(d->body);
        d->body = grown;
        d->capacity = capacity;
    }
    memcpy(d->body + d->size, data, length);
    d->size += length;
    return length;
}

static void start(CURLM *multi, struct Download *d) {
    CURL *easy = curl_easy_init();
    if (!easy) die("curl_easy_init");
    curl_easy_setopt(easy, CURLOPT_URL, d->url);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_USERAGENT, "download_floor");
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 256L * 1024);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    // Over HTTPS every transfer waits to share the first connection (HTTP/2 streams), as
    // stashd's do: 16 transfers started at once would otherwise make 16 TLS handshakes, each
    // loading the system's CA bundle, which cost this floor about 70 us a file.
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, d);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, d);
    d->easy = easy;
    curl_multi_add_handle(multi, easy);
}

static char *read_list(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) die(path);
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    rewind(file);
    char *text = malloc(length + 1);
    if (fread(text, 1, length, file) != (size_t)length) die("read list");
    text[length] = 0;
    fclose(file);
    return text;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s DIR LIST THREADS\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[3]);
    if (threads < 1 || threads > 256) {
        fprintf(stderr, "THREADS must be 1-256\n");
        return 2;
    }
    char *text = read_list(argv[2]);
    for (char *c = text; *c; c++) count += *c == '\n';
    downloads = calloc(count + 1, sizeof *downloads);
    count = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        downloads[count].url = line;
        snprintf(downloads[count].id, sizeof downloads[count].id, "f%05d", count);
        count++;
    }
    if (count == 0) {
        fprintf(stderr, "%s has no URLs\n", argv[2]);
        return 2;
    }
    pending_state = malloc(sizeof(int) * count);
    pending_list = malloc(sizeof(int) * count);
    for (int i = 0; i < count; i++) pending_state[i] = -1;

    char path[4096];
    open_assets(argv[1]);
    snprintf(path, sizeof path, "%s/registry.sqlite", argv[1]);
    curl_global_init(CURL_GLOBAL_DEFAULT);

    double begin = now_seconds();
    double main_before = thread_cpu_seconds();
    struct rusage before;
    getrusage(RUSAGE_SELF, &before);
    pthread_t commit_thread, pool[256];
    if (pthread_create(&commit_thread, NULL, committer, path) != 0) die("pthread_create");
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&pool[i], NULL, syncer, NULL) != 0) die("pthread_create");
    }

    // Every download is QUEUED, and durable so, before its transfer starts.
    for (int i = 0; i < count; i++) submit(i, QUEUED);
    pthread_mutex_lock(&commit_lock);
    long queued = submitted;
    while (committed < queued) pthread_cond_wait(&committed_cond, &commit_lock);
    pthread_mutex_unlock(&commit_lock);

    CURLM *multi = curl_multi_init();
    int next = 0, running = 0, failures = 0, finished = 0;
    while (finished < count) {
        while (running < PARALLEL && next < count) {
            start(multi, &downloads[next++]);
            running++;
        }
        int still;
        curl_multi_perform(multi, &still);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            struct Download *d;
            long status = 0;
            curl_off_t length = -1;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&d);
            curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &status);
            curl_easy_getinfo(message->easy_handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
            if (message->data.result != CURLE_OK || status != 200 || length != (curl_off_t)d->size) {
                if (failures++ < 3) {
                    fprintf(stderr, "%s: %s, HTTP %ld, %zu bytes of %ld\n", d->url, curl_easy_strerror(message->data.result), status,
                            d->size, (long)length);
                }
            }
            curl_multi_remove_handle(multi, message->easy_handle);
            curl_easy_cleanup(message->easy_handle);
            running--;
            finished++;
            if (!d->started) submit((int)(d - downloads), DOWNLOADING);
            pthread_mutex_lock(&queue_lock);
            d->next_synced = to_sync;
            to_sync = d;
            pthread_cond_signal(&queue_work);
            pthread_mutex_unlock(&queue_lock);
        }
        // Freed slots are filled at once; the poll waits only for transfers under way.
        if (finished < count && !(running < PARALLEL && next < count)) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    curl_multi_cleanup(multi);
    pthread_mutex_lock(&queue_lock);
    fetching_over = 1;
    pthread_cond_broadcast(&queue_work);
    pthread_mutex_unlock(&queue_lock);
    for (int i = 0; i < threads; i++) pthread_join(pool[i], NULL);
    pthread_mutex_lock(&commit_lock);
    closing = 1;
    pthread_cond_signal(&commit_wake);
    pthread_mutex_unlock(&commit_lock);
    pthread_join(commit_thread, NULL);

    double end = now_seconds();
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double cpu = (usage.ru_utime.tv_sec - before.ru_utime.tv_sec) + (usage.ru_utime.tv_usec - before.ru_utime.tv_usec) / 1e6 +
                 (usage.ru_stime.tv_sec - before.ru_stime.tv_sec) + (usage.ru_stime.tv_usec - before.ru_stime.tv_usec) / 1e6;
    printf("%.3f %.3f\n", cpu, end - begin);
    const char *threads_path = getenv("FLOOR_THREADS");
    if (threads_path) {
        FILE *f = fopen(threads_path, "w");
        if (!f) die("open FLOOR_THREADS");
        fprintf(f, "main %.3f\nsyncers %.3f\ncommitter %.3f\n", thread_cpu_seconds() - main_before, syncers_cpu, committer_cpu);
        fclose(f);
    }
    if (failures) fprintf(stderr, "%d of %d transfers failed\n", failures, count);
    return failures ? 1 : 0;
}
