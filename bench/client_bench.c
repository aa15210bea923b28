/* GetDownload through libstash-client, for `make bench`: the latency of sequential calls on
 * one connection, and the requests per second of THREADS threads with a connection each.
 *
 * usage: client_bench SOCKET ID [SECONDS [THREADS [BUSY_POLL_US]]]
 * prints `c_getdownload_p50_us X`, `c_getdownload_p99_us Y`, `c_getdownload_rps Z`, `c_threads N`.
 * BUSY_POLL_US (default 0) is given to stash_client_set_busy_poll on every connection.
 * Build: cc -O2 client_bench.c $(pkg-config --cflags --libs stash-client) -lpthread */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <stash/client.h>

#define WARMUP 2000
#define CALLS 20000

static const char *socket_path, *id;
static double seconds = 3;
static int busy_poll_us;
static atomic_bool stop;
static atomic_long completed;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stash_client *connect_or_exit(void) {
    stash_client *client = NULL;
    if (stash_client_connect_as(socket_path, "client_bench", &client) != STASH_OK) {
        fprintf(stderr, "client_bench: %s\n", stash_client_error_message(client));
        exit(1);
    }
    if (stash_client_set_busy_poll(client, busy_poll_us) != STASH_OK) {
        fprintf(stderr, "client_bench: %s\n", stash_client_error_message(client));
        exit(2);
    }
    return client;
}

static void get_or_exit(stash_client *client) {
    stash_download *record = NULL;
    if (stash_get(client, id, &record) != STASH_OK) {
        fprintf(stderr, "client_bench: GetDownload %s: %s\n", id, stash_client_error_message(client));
        exit(1);
    }
    stash_download_free(record);
}

static void *hammer(void *unused) {
    (void)unused;
    stash_client *client = connect_or_exit();
    long calls = 0;
    while (!atomic_load(&stop)) {
        get_or_exit(client);
        calls++;
    }
    atomic_fetch_add(&completed, calls);
    stash_client_close(client);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 6) {
        fprintf(stderr, "usage: client_bench SOCKET ID [SECONDS [THREADS [BUSY_POLL_US]]]\n");
        return 2;
    }
    socket_path = argv[1];
    id = argv[2];
    if (argc > 3) seconds = strtod(argv[3], NULL);
    long threads = argc > 4 ? strtol(argv[4], NULL, 10) : 16;
    if (argc > 5) busy_poll_us = (int)strtol(argv[5], NULL, 10);
    if (seconds <= 0 || seconds > 600 || threads < 1 || threads > 1024) {
        fprintf(stderr, "client_bench: SECONDS must be above 0 and at most 600, THREADS 1 to 1024\n");
        return 2;
    }

    stash_client *client = connect_or_exit();
    for (int i = 0; i < WARMUP; i++) get_or_exit(client);
    static double samples[CALLS];
    for (int i = 0; i < CALLS; i++) {
        double start = now_us();
        get_or_exit(client);
        samples[i] = now_us() - start;
    }
    stash_client_close(client);
    qsort(samples, CALLS, sizeof *samples, compare);
    printf("c_getdownload_p50_us %.1f\n", samples[CALLS / 2]);
    printf("c_getdownload_p99_us %.1f\n", samples[CALLS * 99 / 100]);

    pthread_t *workers = calloc((size_t)threads, sizeof *workers);
    double began = now_us();
    for (long i = 0; i < threads; i++) pthread_create(&workers[i], NULL, hammer, NULL);
    struct timespec pause = {.tv_sec = (time_t)seconds, .tv_nsec = (long)((seconds - (time_t)seconds) * 1e9)};
    nanosleep(&pause, NULL);
    atomic_store(&stop, true);
    for (long i = 0; i < threads; i++) pthread_join(workers[i], NULL);
    double elapsed = (now_us() - began) / 1e6;
    free(workers);
    printf("c_getdownload_rps %.0f\n", (double)atomic_load(&completed) / elapsed);
    printf("c_threads %ld\n", threads);
    return 0;
}
