/* Memory for one decoded message and everything made from it: protobuf-c unpacks into it, the
 * public result is built in it pointing at the unpacked strings, and one free releases it all.
 * A budget bounds what a hostile daemon can make the client allocate for one message. */
#ifndef STASH_ARENA_H
#define STASH_ARENA_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct stash_arena stash_arena;

/* A new arena that hands out at most `budget` bytes; NULL when memory runs out. */
stash_arena *arena_create(size_t budget);
void arena_destroy(stash_arena *arena);

/* `size` bytes aligned for any type, zeroed; NULL past the budget or without memory. */
void *arena_alloc(stash_arena *arena, size_t size);
/* An array of `count` elements of `size` bytes, zeroed; NULL on overflow too. */
void *arena_array(stash_arena *arena, size_t count, size_t size);
/* Whether an allocation failed because the budget was spent (not for want of memory). */
bool arena_over_budget(const stash_arena *arena);

/* protobuf-c's allocator interface over the arena (its frees do nothing). */
ProtobufCAllocator arena_allocator(stash_arena *arena);

/* A result the caller owns: `size` zeroed bytes in the arena that the result alone frees,
 * with owned_free(result). */
void *owned_alloc(stash_arena *arena, size_t size);
void owned_free(void *result);

#endif
