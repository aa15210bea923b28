/* stash-fetch: asks stashd to keep a URL and prints its progress from events until it is done.
 *
 *   stash-fetch URL [ID]     (the socket: $STASH_SOCKET, else the daemon's default)
 *
 * Build: cc stash-fetch.c $(pkg-config --cflags --libs stash-client)
 *
 * Events come on a connection of their own (PROTOCOL.md advises one for events and one for
 * requests), watched with poll() the way a GLib or Qt main loop would watch it. Exit status:
 * 0 completed, 1 failed or cancelled, 2 usage, 3 the daemon refused or cannot be reached. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stash/client.h>

static int refused(const char *what, stash_status status, stash_client *client) {
    fprintf(stderr, "stash-fetch: %s: %s: %s\n", what, stash_status_name(status), stash_client_error_message(client));
    return 3;
}

static void print_progress(const stash_progress *p) {
    if (p->total_bytes >= 0) {
        printf("%3u%%  %llu of %lld bytes  %llu B/s\n", p->progress, (unsigned long long)p->downloaded_bytes,
               (long long)p->total_bytes, (unsigned long long)p->speed);
    } else {
        printf("      %llu bytes  %llu B/s\n", (unsigned long long)p->downloaded_bytes, (unsigned long long)p->speed);
    }
}

/* 0 completed, 1 failed or gone, -1 still going. */
static int outcome(const stash_download *d) {
    switch (d->state) {
    case STASH_STATE_COMPLETED:
        printf("completed: %s (%llu bytes)\n", d->asset_path, (unsigned long long)d->downloaded_bytes);
        return 0;
    case STASH_STATE_FAILED:
        printf("failed: %s\n", d->error ? d->error->message : d->state_reason);
        return 1;
    case STASH_STATE_REMOVING:
        printf("cancelled\n");
        return 1;
    default:
        printf("%s%s%s\n", stash_state_name(d->state), *d->state_reason ? ": " : "", d->state_reason);
        return -1;
    }
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: stash-fetch URL [ID]\n");
        return 2;
    }
    const char *socket_path = getenv("STASH_SOCKET");
    if (socket_path && !*socket_path) socket_path = NULL;

    stash_client *events = NULL, *requests = NULL;
    stash_status status = stash_client_connect(socket_path, &events);
    if (status != STASH_OK) {
        int code = refused("connect", status, events);
        stash_client_close(events);
        return code;
    }
    /* Subscribed before the add, so no event of the new download can slip between the two. */
    if ((status = stash_subscribe(events, NULL)) != STASH_OK) {
        int code = refused("subscribe", status, events);
        stash_client_close(events);
        return code;
    }
    int result = 3;
    stash_download *download = NULL;
    if ((status = stash_client_connect(socket_path, &requests)) != STASH_OK) {
        result = refused("connect", status, requests);
        goto done;
    }
    if ((status = stash_add(requests, argv[1], argc > 2 ? argv[2] : NULL, NULL, NULL, &download)) != STASH_OK) {
        result = refused("add", status, requests);
        goto done;
    }
    printf("%s %s\n", download->created ? "added" : "already there:", download->id);
    /* A download that was there already may be finished: then no event will come. */
    if ((result = outcome(download)) >= 0) goto done;

    struct pollfd watch = {.fd = stash_client_fd(events), .events = POLLIN};
    while (result < 0) {
        if (poll(&watch, 1, -1) < 0) continue;
        stash_event *event;
        while (result < 0 && (status = stash_next_event(events, &event)) == STASH_OK && event) {
            if (event->kind == STASH_EVENT_PROGRESS && strcmp(event->progress.id, download->id) == 0) {
                print_progress(&event->progress);
            } else if (event->kind == STASH_EVENT_STATE_CHANGED &&
                       strcmp(event->state_changed.download->id, download->id) == 0) {
                result = outcome(event->state_changed.download);
            } else if (event->kind == STASH_EVENT_EVENTS_LOST) {
                /* Some events were dropped: the record says where the download is now. */
                stash_download *now = NULL;
                if (stash_get(requests, download->id, &now) == STASH_OK) result = outcome(now);
                stash_download_free(now);
            }
            stash_event_free(event);
        }
        if (status != STASH_OK) {
            result = refused("events", status, events);
        }
    }
done:
    stash_download_free(download);
    stash_client_close(requests);
    stash_client_close(events);
    return result;
}
