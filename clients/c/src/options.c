/* The struct_size rule of the options structs (client.h, "Option structs"): a caller built
 * against an older header declares fewer bytes, one built against a newer header more. */
#include "internal.h"

#include <string.h>

stash_status options_view(stash_client *client, const void *given, size_t known_size, size_t first_size,
                          const char *field, const char *type, void *view) {
    memset(view, 0, known_size);
    if (!given) return STASH_OK;
    size_t declared;
    memcpy(&declared, given, sizeof declared);
    if (declared < first_size)
        return client_fail(client, STASH_INVALID_ARGUMENT,
                           "%s->struct_size: %zu is below %zu, the size of the first %s; set it with %s_init() or "
                           "the _INIT macro", field, declared, first_size, type, type);
    /* Checked before any byte past the known ones is read: a size this large is an unset field,
     * not a struct, and reading that far could leave the caller's memory. */
    if (declared > STASH_MAX_OPTIONS_SIZE)
        return client_fail(client, STASH_INVALID_ARGUMENT,
                           "%s->struct_size: %zu is above %u (STASH_MAX_OPTIONS_SIZE), and this library's %s is %zu "
                           "bytes; set it with %s_init() or the _INIT macro",
                           field, declared, STASH_MAX_OPTIONS_SIZE, type, known_size, type);
    const unsigned char *bytes = given;
    for (size_t at = known_size; at < declared; at++) {
        if (bytes[at] != 0)
            return client_fail(client, STASH_INVALID_ARGUMENT,
                               "%s->struct_size: %zu, past this library's %s of %zu bytes, and byte %zu is not zero: "
                               "a field this libstash-client does not know is set (a newer one knows it)",
                               field, declared, type, known_size, at);
    }
    memcpy(view, given, declared < known_size ? declared : known_size);
    return STASH_OK;
}
