/* Linux calls and constants that glibc declares only under _GNU_SOURCE, which Swift's Glibc
   module is built without. The declarations are glibc's own. */
#ifndef STASH_CLINUX_SHIM_H
#define STASH_CLINUX_SHIM_H

#include <stdint.h>
#include <malloc.h> /* mallopt(3), M_ARENA_MAX */
#include <sys/inotify.h> /* inotify(7): the disk watch over complete downloads' folders */

/* sync_file_range(2): starts and waits for a large file's writeback as it is written
   (WriteBehind), without the device flush an fdatasync asks for. */
int sync_file_range(int fd, int64_t offset, int64_t nbytes, unsigned int flags);
#define SYNC_FILE_RANGE_WAIT_BEFORE 1
#define SYNC_FILE_RANGE_WRITE 2
#define SYNC_FILE_RANGE_WAIT_AFTER 4

/* pthread_setname_np(3): the name of a thread of stashd's own, as top -H and perf show it. */
#include <pthread.h>
int pthread_setname_np(pthread_t thread, const char *name);

/* sched(7)'s SCHED_BATCH: a thread that waits for the disk does not preempt the running
   thread when it wakes (DiskThreadPolicy). */
#ifndef SCHED_BATCH
#define SCHED_BATCH 3
#endif
/* What DiskThreadPolicy knows of the calling thread (0: nothing yet), so a job on a disk
   thread costs no sched_getscheduler(2) call. Only DiskThreadPolicy.swift uses it, so the one
   copy a `static inline` function gets per file that calls it is the only copy. */
static inline int *stash_disk_thread_state(void) {
    static __thread int state;
    return &state;
}

/* pipe2(2): a pipe whose ends are close-on-exec and non-blocking from the start. */
int pipe2(int pipefd[2], int flags);

/* renameat2(2) with RENAME_NOREPLACE: a rename that fails with EEXIST instead of replacing
   what is at the new name, in one step (no window between a check and the rename). */
int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif
/* renameat2(2) with RENAME_EXCHANGE: two names swap their entries in one step (a replace's
   new folder takes the asset folder's name, the old folder the new one's). */
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE 2
#endif

/* open(2)'s O_TMPFILE: a file without a name in a folder, given one by linkat(2) only once it
   is whole (an export to one file), so a crash or a full disk leaves no part of it behind.
   Its value on x86-64 and AArch64 (glibc's __O_TMPFILE | O_DIRECTORY). */
#include <fcntl.h>
static inline int stash_o_tmpfile(void) { return 020000000 | O_DIRECTORY; }

/* open(2)'s O_DIRECT: a small file's one write straight from memory to the disk (PartFile).
   glibc names it __O_DIRECT without _GNU_SOURCE; its value differs between architectures. */
static inline int stash_o_direct(void) { return __O_DIRECT; }

/* sched(7): a thread at this policy runs only when its CPU has nothing else to run. */
#define STASH_SCHED_IDLE 5

#endif
