// durable_floor DIR FILES THREADS: the disk work stash must do to keep FILES single-file
// downloads of 64 KiB so that a power cut loses none once it is announced, and nothing else
// (no network, no registry, no events): per file a folder DIR/assets/<n>, its file made there
// without a name, written in one pwrite with O_DIRECT, fdatasync'd and linked at its final
// name, then an fsync of the folder and one of assets/ that started after the folder was made
// (shared between files, as stash's FolderSync shares it), as durable_work.h says. THREADS
// threads, as many as stash's sync threads.
//
// Prints one line: "<CPU seconds, user + system> <wall seconds>". `make bench` compares
// stashd's CPU per file with it: what stash spends above this floor is its own.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "durable_work.h"

enum { FILE_SIZE = 64 << 10 };

// Page-aligned, as stash keeps a body in memory, so it is written with O_DIRECT.
static char body[FILE_SIZE] __attribute__((aligned(4096)));
static int files;
static atomic_int next_file;

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void *worker(void *unused) {
    (void)unused;
    char name[32];
    for (;;) {
        int n = atomic_fetch_add(&next_file, 1);
        if (n >= files) return NULL;
        snprintf(name, sizeof name, "%08d", n);
        write_durable(name, "f.bin", body, FILE_SIZE);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s DIR FILES THREADS\n", argv[0]);
        return 2;
    }
    files = atoi(argv[2]);
    int threads = atoi(argv[3]);
    if (files < 1 || threads < 1 || threads > 256) {
        fprintf(stderr, "FILES and THREADS (1-256) must be positive\n");
        return 2;
    }
    memset(body, 0x5a, sizeof body);
    open_assets(argv[1]);

    struct timespec begin, end;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    pthread_t pool[256];
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&pool[i], NULL, worker, NULL) != 0) die("pthread_create");
    }
    for (int i = 0; i < threads; i++) pthread_join(pool[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &end);

    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    double wall = (end.tv_sec - begin.tv_sec) + (end.tv_nsec - begin.tv_nsec) / 1e9;
    printf("%.3f %.3f\n", cpu, wall);
    return 0;
}
