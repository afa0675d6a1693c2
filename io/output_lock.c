/* One run at a time on an output: a POSIX record lock (fcntl) on a lock
 * file beside it, which the kernel drops when its holder dies however it
 * dies. The holder writes its host, process id and start time into the
 * file for the message another run gets, and removes the file before
 * dropping the lock; a run that locked a file someone removed meanwhile
 * sees that it is no longer the one at the path and tries again. */
#include "sf_error.h"
#include "sf_json.h"
#include "sf_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_LOCKS = 16, LOCK_PATH = 4200, ATTEMPTS = 100 };

typedef struct {
    int fd;
    char path[LOCK_PATH];
} held_lock;

static held_lock held[MAX_LOCKS];
static int nheld;

static void lock_name(const char *path, char *out, size_t len)
{
    char dir[4096];
    const char *name = sf_output_split(path, dir, sizeof dir);
    snprintf(out, len, "%s/.%s.lock", dir, name);
}

static struct flock whole_file(short type)
{
    struct flock l;
    memset(&l, 0, sizeof l);
    l.l_type = type;
    l.l_whence = SEEK_SET;
    return l;
}

/* Who holds fd's lock: what the holder wrote, else the kernel's record
 * (a holder that has not written yet). */
static void describe_holder(int fd, char *out, size_t len)
{
    char text[512], host[256], since[64];
    long pid;
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    if (got > 0) {
        text[got] = '\0';
        if (sscanf(text, "%255s %ld %63s", host, &pid, since) == 3) {
            snprintf(out, len, "host %s, pid %ld, since %s", host, pid, since);
            return;
        }
    }
    struct flock l = whole_file(F_WRLCK);
    if (fcntl(fd, F_GETLK, &l) == 0 && l.l_type != F_UNLCK)
        snprintf(out, len, "pid %ld", (long)l.l_pid);
    else
        snprintf(out, len, "which has just ended");
}

static void busy(const char *what, int fd, char *reason, size_t len)
{
    char holder[400];
    describe_holder(fd, holder, sizeof holder);
    snprintf(reason, len, "'%s' is in use by another seisfd run (%s); wait for it to end or "
             "choose another path", what, holder);
}

/* The lock is ours: the file says whose, for the message others get. */
static int keep(int fd, const char *lock_path, char *reason, size_t len)
{
    char host[256], since[32], text[512];
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    sf_utc_time(since);
    int n = snprintf(text, sizeof text, "%s %ld %s\n", host, (long)getpid(), since);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n) {
        snprintf(reason, len, "cannot write the lock file '%s': %s", lock_path, strerror(errno));
        close(fd);
        return -1;
    }
    held[nheld].fd = fd;
    snprintf(held[nheld++].path, LOCK_PATH, "%s", lock_path);
    return 0;
}

/* 1: fd is the file at lock_path; 0: that file was removed or replaced
 * since fd was opened; -1 with the reason. */
static int still_at_path(int fd, const char *lock_path, char *reason, size_t len)
{
    int same = sf_output_same_file(fd, lock_path);
    if (same < 0)
        snprintf(reason, len, "cannot examine the lock file '%s': %s", lock_path, strerror(errno));
    return same;
}

int sf_output_lock(const char *path, const char *what, char *reason, size_t len)
{
    if (nheld == MAX_LOCKS) sf_fatal("internal: more than %d output locks", MAX_LOCKS);
    char lock_path[LOCK_PATH];
    lock_name(path, lock_path, sizeof lock_path);
    for (int attempt = 0; attempt < ATTEMPTS; ++attempt) {
        int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            snprintf(reason, len, "cannot create the lock file '%s': %s", lock_path,
                     strerror(errno));
            return -1;
        }
        struct flock l = whole_file(F_WRLCK);
        if (fcntl(fd, F_SETLK, &l) != 0) {
            if (errno == EACCES || errno == EAGAIN)
                busy(what, fd, reason, len);
            else
                snprintf(reason, len, "cannot lock '%s': %s", lock_path, strerror(errno));
            close(fd);
            return -1;
        }
        int current = still_at_path(fd, lock_path, reason, len);
        if (current == 1) return keep(fd, lock_path, reason, len);
        close(fd);
        if (current < 0) return -1;
    }
    snprintf(reason, len, "cannot lock '%s': other runs keep replacing it", lock_path);
    return -1;
}

int sf_output_lock_probe(const char *path, const char *what, char *reason, size_t len)
{
    char lock_path[LOCK_PATH];
    lock_name(path, lock_path, sizeof lock_path);
    /* Opening and closing the file drops any lock this process holds on
     * it: seisfd check holds none. */
    int fd = open(lock_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return 0;   /* a holder creates the file before it locks it */
        snprintf(reason, len, "cannot open the lock file '%s': %s", lock_path, strerror(errno));
        return -1;
    }
    struct flock l = whole_file(F_WRLCK);
    int rc = 0;
    if (fcntl(fd, F_GETLK, &l) != 0) {
        snprintf(reason, len, "cannot query the lock of '%s': %s", lock_path, strerror(errno));
        rc = -1;
    } else if (l.l_type != F_UNLCK) {
        busy(what, fd, reason, len);
        rc = -1;
    }
    close(fd);
    return rc;
}

int sf_output_holds_lock(const char *path)
{
    char lock_path[LOCK_PATH];
    lock_name(path, lock_path, sizeof lock_path);
    for (int k = 0; k < nheld; ++k)
        if (!strcmp(held[k].path, lock_path)) return 1;
    return 0;
}

void sf_output_unlock_all(void)
{
    /* Removed while still locked: whoever opened it meanwhile finds, once
     * it has the lock, that the file is gone, and takes a new one. */
    for (; nheld > 0; --nheld) {
        held_lock *h = &held[nheld - 1];
        if (unlink(h->path) != 0 && errno != ENOENT)
            sf_warn("cannot remove the lock file '%s': %s", h->path, strerror(errno));
        close(h->fd);
    }
}
