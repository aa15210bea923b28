// The disk work stash's promise needs for one single-file download, shared by durable_floor.c
// and download_floor.c: the download's folder made in assets/, its file made there without a
// name, written in one pwrite (O_DIRECT from a page-aligned body), fdatasync'd and linked at its
// final name, then an fsync of the folder and one of assets/ that started after the folder was
// made (shared between files, as stash's FolderSync shares it): what stash does for a body held
// whole in memory (PartFile). The including program calls `open_assets` and defines `die`.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int assets_fd;
static void die(const char *what);

// Makes DIR (if need be) and DIR/assets (new) and opens the latter as `assets_fd`.
static void open_assets(const char *dir) {
    char path[4096];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) die("mkdir DIR");
    snprintf(path, sizeof path, "%s/assets", dir);
    if (mkdir(path, 0755) != 0) die("mkdir assets");
    assets_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (assets_fd < 0) die("open assets");
}

// Shared fsyncs of assets/: `started` counts fsyncs begun, `done` the highest begun number
// that has finished. A folder made when `started` was s is durable once done > s.
static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sync_done = PTHREAD_COND_INITIALIZER;
static unsigned long started, done;
static int syncing;

static void sync_assets_after(unsigned long mark) {
    pthread_mutex_lock(&sync_lock);
    while (done <= mark) {
        if (syncing) {
            pthread_cond_wait(&sync_done, &sync_lock);
            continue;
        }
        syncing = 1;
        unsigned long number = ++started;
        pthread_mutex_unlock(&sync_lock);
        if (fsync(assets_fd) != 0) die("fsync assets");
        pthread_mutex_lock(&sync_lock);
        syncing = 0;
        done = number;
        pthread_cond_broadcast(&sync_done);
    }
    pthread_mutex_unlock(&sync_lock);
}

// Writes `size` bytes as assets/<folder>/<name>, durable when it returns.
static void write_durable(const char *folder_name, const char *name, const void *body, size_t size) {
    if (mkdirat(assets_fd, folder_name, 0755) != 0) die("mkdir");
    pthread_mutex_lock(&sync_lock);
    unsigned long mark = started;
    pthread_mutex_unlock(&sync_lock);
    int folder = openat(assets_fd, folder_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder < 0) die("open folder");
    // As stash's PartFile does with a body held whole in memory, committed into a folder its
    // commit made: a file without a name (O_TMPFILE), its page-aligned part written with
    // O_DIRECT and the rest (under a page) through the page cache once O_DIRECT is off, synced,
    // then linked at its final name through /proc/self/fd.
    int direct = (uintptr_t)body % 4096 == 0 && size >= 4096;
    int fd = openat(folder, ".", O_TMPFILE | O_RDWR | O_CLOEXEC | (direct ? O_DIRECT : 0), 0644);
    if (fd < 0) die("open unnamed");
    size_t aligned = direct ? size - size % 4096 : 0;
    if (aligned > 0 && pwrite(fd, body, aligned, 0) != (ssize_t)aligned) die("pwrite direct");
    if (aligned < size) {
        if (direct && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_DIRECT) != 0) die("fcntl");
        if (pwrite(fd, (const char *)body + aligned, size - aligned, aligned) != (ssize_t)(size - aligned)) die("pwrite");
    }
    if (fdatasync(fd) != 0) die("fdatasync");
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, source, folder, name, AT_SYMLINK_FOLLOW) != 0) die("linkat");
    if (fsync(folder) != 0) die("fsync folder");
    sync_assets_after(mark);
    close(fd);
    close(folder);
}
