/* The shared scenario (README.md) through libstash-client.
 *
 * usage: scenario SOCKET BASE_URL PREFIX */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stash/client.h>

static char id_file[64], id_bundle[64], id_nothing[64];

static stash_client *connect_or_exit(const char *socket_path) {
    stash_client *client = NULL;
    if (stash_client_connect(socket_path, &client) != STASH_OK) {
        printf("connect: %s\n", stash_client_error_message(client));
        exit(1);
    }
    return client;
}

/* The next event, waiting as long as it takes; exits when the connection fails. */
static stash_event *next_event(stash_client *events) {
    stash_event *event = NULL;
    while (!event) {
        if (stash_wait_event(events, -1, &event) != STASH_OK) {
            printf("events: %s\n", stash_client_error_message(events));
            exit(1);
        }
    }
    return event;
}

static void refused(stash_status status, stash_client *client, const char *what, const char *named) {
    if (status != STASH_OK && strstr(stash_client_error_message(client), named)) {
        printf("refused %s: %s naming %s\n", what, stash_status_name(status), named);
    } else {
        printf("%s: %s %s\n", what, stash_status_name(status), stash_client_error_message(client));
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: scenario SOCKET BASE_URL PREFIX\n");
        return 2;
    }
    const char *socket_path = argv[1], *base = argv[2], *p = argv[3];
    snprintf(id_file, sizeof id_file, "%s-file", p);
    snprintf(id_bundle, sizeof id_bundle, "%s-bundle", p);
    snprintf(id_nothing, sizeof id_nothing, "%s-nothing", p);

    stash_client *client = connect_or_exit(socket_path);
    stash_hello_result *hello = NULL;
    stash_hello(client, &hello);
    bool offers = stash_client_has_feature(client, "bundles") && stash_client_has_feature(client, "events");
    printf("hello: protocol %u, features %s\n", hello ? hello->protocol_version : 0, offers ? "bundles and events" : "lacking");
    stash_hello_result_free(hello);

    stash_client *events = connect_or_exit(socket_path);
    const char *ids[] = {id_file, id_bundle};
    stash_subscribe_options subscription = STASH_SUBSCRIBE_OPTIONS_INIT;
    subscription.ids = ids;
    subscription.n_ids = 2;
    if (stash_subscribe(events, &subscription) != STASH_OK) {
        printf("subscribe: %s\n", stash_client_error_message(events));
        return 1;
    }
    printf("subscribed: %s %s\n", id_file, id_bundle);

    char url[512];
    stash_download *record = NULL;
    snprintf(url, sizeof url, "%s/slow/1048576/%s.bin", base, id_file);
    if (stash_add(client, url, id_file, "A file", NULL, &record) != STASH_OK) {
        printf("add %s: %s\n", id_file, stash_client_error_message(client));
        return 1;
    }
    printf("added %s: %s %s\n", record->id, record->created ? "created" : "not created", stash_state_name(record->state));
    stash_download_free(record);

    char urls[3][512];
    stash_bundle_file files[3];
    for (int n = 0; n < 3; n++) {
        snprintf(urls[n], sizeof urls[n], "%s/data/100000/%s-b%d.bin", base, p, n + 1);
        files[n] = (stash_bundle_file){.url = urls[n]};
    }
    stash_add_options bundle = STASH_ADD_OPTIONS_INIT;
    bundle.files = files;
    bundle.n_files = 3;
    if (stash_add(client, NULL, id_bundle, "A bundle", &bundle, &record) != STASH_OK) {
        printf("add %s: %s\n", id_bundle, stash_client_error_message(client));
        return 1;
    }
    printf("added %s: %s, a bundle of %u files\n", record->id, record->created ? "created" : "not created",
           record->files_total);
    stash_download_free(record);

    bool progress_seen = false;
    stash_event *finished[2] = {NULL, NULL}; /* the file's and the bundle's last state change */
    while (!finished[0] || !finished[1]) {
        stash_event *event = next_event(events);
        if (event->kind == STASH_EVENT_PROGRESS && strcmp(event->progress.id, id_file) == 0 && !finished[0]) {
            progress_seen = true;
        } else if (event->kind == STASH_EVENT_STATE_CHANGED &&
                   (event->state_changed.download->state == STASH_STATE_COMPLETED ||
                    event->state_changed.download->state == STASH_STATE_FAILED)) {
            int which = strcmp(event->state_changed.download->id, id_file) == 0 ? 0 : 1;
            stash_event_free(finished[which]);
            finished[which] = event;
            continue;
        }
        stash_event_free(event);
    }
    printf("progress %s: %s\n", id_file, progress_seen ? "seen before it completed" : "none");
    const stash_download *done = finished[0]->state_changed.download;
    if (done->state == STASH_STATE_COMPLETED) printf("completed %s: %llu bytes\n", id_file, (unsigned long long)done->downloaded_bytes);
    else printf("%s: %s\n", id_file, stash_state_name(done->state));
    done = finished[1]->state_changed.download;
    if (done->state == STASH_STATE_COMPLETED) {
        printf("completed %s: %u of %u files, %llu bytes\n", id_bundle, done->files_done, done->files_total,
               (unsigned long long)done->downloaded_bytes);
    } else {
        printf("%s: %s\n", id_bundle, stash_state_name(done->state));
    }
    stash_event_free(finished[0]);
    stash_event_free(finished[1]);

    bool exists = false;
    stash_state state = STASH_STATE_NOT_DOWNLOADED;
    stash_has(client, id_file, &exists, &state);
    printf("has %s: %s %s\n", id_file, exists ? "true" : "false", stash_state_name(state));
    if (stash_get(client, id_bundle, &record) == STASH_OK) {
        size_t files_done = 0;
        for (size_t i = 0; i < record->n_files; i++) files_done += record->files[i].done;
        printf("get %s: %zu files done\n", id_bundle, files_done);
        stash_download_free(record);
    }
    if (stash_cancel(client, id_file) == STASH_OK) printf("cancelled %s\n", id_file);
    for (bool removed = false; !removed;) {
        stash_event *event = next_event(events);
        removed = event->kind == STASH_EVENT_REMOVED && strcmp(event->removed.id, id_file) == 0;
        stash_event_free(event);
    }
    printf("removed %s\n", id_file);
    stash_client_close(events);
    stash_has(client, id_file, &exists, &state);
    printf("has %s: %s %s\n", id_file, exists ? "true" : "false", stash_state_name(state));

    snprintf(url, sizeof url, "%s/data/10/%s-bad.bin", base, p);
    refused(stash_add(client, url, "../bad", NULL, NULL, NULL), client, "add ../bad", "../bad");
    char what[96];
    snprintf(what, sizeof what, "get %s", id_nothing);
    refused(stash_get(client, id_nothing, NULL), client, what, id_nothing);
    if (stash_cancel(client, id_bundle) == STASH_OK) printf("cancelled %s\n", id_bundle);
    stash_client_close(client);
    return 0;
}
