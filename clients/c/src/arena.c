#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Blocks of this size serve the many small allocations protobuf-c makes; a larger request
 * gets a block of its own. */
#define BLOCK_SIZE (16u * 1024u)
#define ALIGN alignof(max_align_t)

typedef struct block {
    struct block *next;
    size_t used;
    size_t size;
    alignas(max_align_t) unsigned char data[];
} block;

struct stash_arena {
    block *blocks;
    size_t handed_out;
    size_t budget;
    bool over_budget;
};

stash_arena *arena_create(size_t budget) {
    stash_arena *arena = calloc(1, sizeof *arena);
    if (arena) arena->budget = budget;
    return arena;
}

void arena_destroy(stash_arena *arena) {
    if (!arena) return;
    block *b = arena->blocks;
    while (b) {
        block *next = b->next;
        free(b);
        b = next;
    }
    free(arena);
}

bool arena_over_budget(const stash_arena *arena) { return arena->over_budget; }

void *arena_alloc(stash_arena *arena, size_t size) {
    if (size == 0) size = 1;
    if (size > SIZE_MAX - ALIGN) return NULL;
    size = (size + ALIGN - 1) / ALIGN * ALIGN;
    if (size > arena->budget - arena->handed_out) {
        arena->over_budget = true;
        return NULL;
    }
    block *b = arena->blocks;
    if (!b || b->size - b->used < size) {
        size_t capacity = size > BLOCK_SIZE ? size : BLOCK_SIZE;
        block *fresh = malloc(sizeof *fresh + capacity);
        if (!fresh) return NULL;
        fresh->used = 0;
        fresh->size = capacity;
        if (b && size > BLOCK_SIZE) {
            /* A large block goes behind the current one, which keeps serving small requests. */
            fresh->next = b->next;
            b->next = fresh;
        } else {
            fresh->next = b;
            arena->blocks = fresh;
        }
        b = fresh;
    }
    void *p = b->data + b->used;
    b->used += size;
    arena->handed_out += size;
    memset(p, 0, size);
    return p;
}

void *arena_array(stash_arena *arena, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) {
        arena->over_budget = true;
        return NULL;
    }
    return arena_alloc(arena, count * size);
}

static void *protobuf_alloc(void *data, size_t size) { return arena_alloc(data, size); }

/* Everything goes when the arena does. */
static void protobuf_free(void *data, void *pointer) {
    (void)data;
    (void)pointer;
}

ProtobufCAllocator arena_allocator(stash_arena *arena) {
    return (ProtobufCAllocator){.alloc = protobuf_alloc, .free = protobuf_free, .allocator_data = arena};
}

/* The arena's address sits in the aligned slot just before the result. */
void *owned_alloc(stash_arena *arena, size_t size) {
    if (size > SIZE_MAX - ALIGN) return NULL;
    unsigned char *p = arena_alloc(arena, ALIGN + size);
    if (!p) return NULL;
    memcpy(p, &arena, sizeof arena);
    return p + ALIGN;
}

void owned_free(void *result) {
    if (!result) return;
    stash_arena *arena;
    memcpy(&arena, (unsigned char *)result - ALIGN, sizeof arena);
    arena_destroy(arena);
}
