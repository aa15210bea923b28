/* The floor under a control-plane round trip on this machine: two processes pass one byte
 * back and forth over a Unix socketpair, and each round trip is timed. `make bench` prints
 * GetDownload's p50 as a ratio to this one's, measured in the same run.
 *
 * usage: pingpong [ROUND_TRIPS]   prints `pingpong_p50_us X` and `pingpong_p99_us Y` */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
    if (rounds < 1 || rounds > 10000000) {
        fprintf(stderr, "pingpong: ROUND_TRIPS must be 1 to 10000000, not %s\n", argv[1]);
        return 64;
    }
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) { perror("socketpair"); return 1; }
    pid_t child = fork();
    if (child < 0) { perror("fork"); return 1; }
    char byte = 'x';
    if (child == 0) {
        close(pair[0]);
        for (long i = 0; i < rounds; i++) {
            if (read(pair[1], &byte, 1) != 1 || write(pair[1], &byte, 1) != 1) _exit(1);
        }
        _exit(0);
    }
    close(pair[1]);
    double *samples = malloc(sizeof(double) * (size_t)rounds);
    if (!samples) { perror("malloc"); return 1; }
    for (long i = 0; i < rounds; i++) {
        double start = now_us();
        if (write(pair[0], &byte, 1) != 1 || read(pair[0], &byte, 1) != 1) { perror("ping"); return 1; }
        samples[i] = now_us() - start;
    }
    int status = 0;
    waitpid(child, &status, 0);
    qsort(samples, (size_t)rounds, sizeof(double), compare);
    printf("pingpong_p50_us %.1f\n", samples[rounds / 2]);
    printf("pingpong_p99_us %.1f\n", samples[(rounds * 99) / 100]);
    free(samples);
    return 0;
}
