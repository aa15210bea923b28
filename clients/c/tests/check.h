/* The tests' checks: each failed one is printed with its line and counted; main returns the
 * count, so one run reports every failure. */
#ifndef STASH_TEST_CHECK_H
#define STASH_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(condition, ...)                                             \
    do {                                                                  \
        if (!(condition)) {                                               \
            failures++;                                                   \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #condition); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
        }                                                                 \
    } while (0)

/* A call that must succeed; the client's message says why it did not. */
#define CHECK_OK(call, client)                                                                 \
    do {                                                                                       \
        stash_status check_status_ = (call);                                                   \
        CHECK(check_status_ == STASH_OK, "%s: %s", stash_status_name(check_status_),           \
              stash_client_error_message(client));                                             \
    } while (0)

/* A call that must fail with `expected`, its message mentioning `part`. */
#define CHECK_FAILS(call, client, expected, part)                                               \
    do {                                                                                        \
        stash_status check_status_ = (call);                                                    \
        const char *check_message_ = stash_client_error_message(client);                        \
        CHECK(check_status_ == (expected), "got %s (%s), expected %s", stash_status_name(check_status_), \
              check_message_, stash_status_name(expected));                                     \
        CHECK(strstr(check_message_, (part)) != NULL, "'%s' should mention '%s'", check_message_, (part)); \
    } while (0)

#endif
