#include "sf_file_read.h"
#include "sf_error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0 for a regular file; else -1 with what it is instead. */
static int regular(const struct stat *st, char *reason, size_t len)
{
    if (S_ISREG(st->st_mode)) return 0;
    snprintf(reason, len, "%s",
             S_ISDIR(st->st_mode)    ? "a directory, not a file"
             : S_ISFIFO(st->st_mode) ? "a FIFO (named pipe), not a regular file"
                                     : "not a regular file (a device or socket)");
    return -1;
}

long long sf_file_size(const char *path, char *reason, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(reason, len, "%s", strerror(errno));
        return -1;
    }
    return regular(&st, reason, len) == 0 ? (long long)st.st_size : -1;
}

/* Reads exactly size bytes from fd; 0, or -1 with the reason. */
static int read_exactly(int fd, char *out, size_t size, char *reason, size_t len)
{
    size_t done = 0;
    while (done < size) {
        ssize_t got = read(fd, out + done, size - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            snprintf(reason, len, "%s", got == 0 ? "the file shrank while it was read"
                                                 : strerror(errno));
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

int sf_pread_exactly(int fd, void *out, size_t bytes, long long offset, long long *failed_at)
{
    for (size_t done = 0; done < bytes;) {
        const ssize_t got = pread(fd, (char *)out + done, bytes - done, (off_t)(offset + (long long)done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            if (got == 0) errno = 0;
            if (failed_at) *failed_at = offset + (long long)done;
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

/* The opened file is regular and at most max bytes; 0, or -1 with the reason. */
static int check_opened(int fd, size_t max, struct stat *st, char *reason, size_t len)
{
    if (fstat(fd, st) != 0) {
        snprintf(reason, len, "%s", strerror(errno));
        return -1;
    }
    if (regular(st, reason, len) != 0) return -1;
    if ((unsigned long long)st->st_size <= max) return 0;
    snprintf(reason, len, "it holds %lld bytes, more than the %zu allowed", (long long)st->st_size,
             max);
    return -1;
}

char *sf_file_read_text(const char *path, size_t max, size_t *length, char *reason, size_t len)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int saved = errno;
        snprintf(reason, len, "%s", strerror(saved));
        errno = saved;
        return NULL;
    }
    struct stat st;
    char *text = NULL;
    int failed = check_opened(fd, max, &st, reason, len) != 0;
    if (!failed) {
        text = sf_malloc((size_t)st.st_size + 1, "the text of a file");
        failed = read_exactly(fd, text, (size_t)st.st_size, reason, len) != 0;
    }
    close(fd);
    if (failed) {
        free(text);
        errno = EINVAL;   /* not ENOENT: the file exists */
        return NULL;
    }
    text[st.st_size] = '\0';
    *length = (size_t)st.st_size;
    return text;
}
