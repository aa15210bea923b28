/* ListDownloads through libstash-client, for `make bench`: every record of the registry, page
 * after page of PAGE_SIZE, on one connection, as an app drawing its whole library would.
 * Checks that the pages hold every record once, and the number the daemon says it has.
 *
 * usage: list_bench SOCKET [EXPECTED [PAGE_SIZE [REPEAT]]]
 * prints `c_list_records N`, `c_list_pages P`, `c_list_seconds S` (the fastest of REPEAT full
 * listings, default 3) and `c_list_page_ms_max M` (the slowest page of that listing).
 * Exits 1 when a listing is not the registry: a record twice or missing, a total that moves.
 * Build: cc -O2 list_bench.c $(pkg-config --cflags --libs stash-client) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stash/client.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One full listing: its time, pages, slowest page; the ids seen, for the check. */
static int list_all(stash_client *client, uint32_t page_size, char ***ids, size_t *count, size_t *pages,
                    double *seconds, double *slowest, uint32_t *total) {
    char token[256] = "";
    size_t capacity = 1024;
    *ids = malloc(capacity * sizeof **ids);
    *count = 0;
    *pages = 0;
    *slowest = 0;
    double began = now_s();
    for (;;) {
        stash_list_options options = STASH_LIST_OPTIONS_INIT;
        options.page_size = page_size;
        options.page_token = token;
        stash_download_list *list = NULL;
        double start = now_s();
        if (stash_list(client, &options, &list) != STASH_OK) {
            fprintf(stderr, "list_bench: ListDownloads: %s\n", stash_client_error_message(client));
            return 1;
        }
        double took = now_s() - start;
        if (took > *slowest) *slowest = took;
        if (*pages == 0) *total = list->total;
        if (list->total != *total) {
            fprintf(stderr, "list_bench: the total moved from %u to %u during the listing\n", *total, list->total);
            return 1;
        }
        (*pages)++;
        for (size_t i = 0; i < list->n_downloads; i++) {
            if (*count == capacity) {
                capacity *= 2;
                *ids = realloc(*ids, capacity * sizeof **ids);
            }
            (*ids)[(*count)++] = strdup(list->downloads[i].id);
        }
        size_t length = strlen(list->next_page_token);
        if (length >= sizeof token) {
            fprintf(stderr, "list_bench: a page token of %zu bytes\n", length);
            return 1;
        }
        memcpy(token, list->next_page_token, length + 1);
        stash_download_list_free(list);
        if (length == 0) break;
    }
    *seconds = now_s() - began;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: list_bench SOCKET [EXPECTED [PAGE_SIZE [REPEAT]]]\n");
        return 2;
    }
    long expected = argc > 2 ? strtol(argv[2], NULL, 10) : -1;
    long page_size = argc > 3 ? strtol(argv[3], NULL, 10) : 1000;
    long repeat = argc > 4 ? strtol(argv[4], NULL, 10) : 3;
    if (page_size < 1 || page_size > 1000 || repeat < 1 || repeat > 100) {
        fprintf(stderr, "list_bench: PAGE_SIZE must be 1 to 1000, REPEAT 1 to 100\n");
        return 2;
    }
    stash_client *client = NULL;
    if (stash_client_connect_as(argv[1], "list_bench", &client) != STASH_OK) {
        fprintf(stderr, "list_bench: %s\n", stash_client_error_message(client));
        return 1;
    }
    double best = -1, best_slowest = 0;
    size_t best_pages = 0, records = 0;
    for (long run = 0; run < repeat; run++) {
        char **ids = NULL;
        size_t count = 0, pages = 0;
        double seconds = 0, slowest = 0;
        uint32_t total = 0;
        if (list_all(client, (uint32_t)page_size, &ids, &count, &pages, &seconds, &slowest, &total) != 0) return 1;
        qsort(ids, count, sizeof *ids, compare_strings);
        for (size_t i = 1; i < count; i++) {
            if (strcmp(ids[i - 1], ids[i]) == 0) {
                fprintf(stderr, "list_bench: %s listed twice\n", ids[i]);
                return 1;
            }
        }
        if (count != total || (expected >= 0 && count != (size_t)expected)) {
            fprintf(stderr, "list_bench: %zu records listed, the daemon says %u, expected %ld\n", count, total, expected);
            return 1;
        }
        for (size_t i = 0; i < count; i++) free(ids[i]);
        free(ids);
        if (best < 0 || seconds < best) {
            best = seconds;
            best_pages = pages;
            best_slowest = slowest;
        }
        records = count;
    }
    stash_client_close(client);
    printf("c_list_records %zu\n", records);
    printf("c_list_pages %zu\n", best_pages);
    printf("c_list_seconds %.3f\n", best);
    printf("c_list_page_ms_max %.1f\n", best_slowest * 1000);
    return 0;
}
