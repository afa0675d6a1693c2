/* Input files that must be regular files: a directory, a FIFO or a device
 * given where a file belongs is refused with a reason, never read (a FIFO
 * would block, a directory has no meaningful size). */
#ifndef SF_FILE_READ_H
#define SF_FILE_READ_H

#include <stddef.h>

/* The size of the regular file at path, or -1 with the reason ("No such
 * file or directory", "a directory, not a file", ...). */
long long sf_file_size(const char *path, char *reason, size_t len);

/* The whole regular file at path, NUL-terminated, its length (without the
 * NUL) in *length; a file of more than max bytes is refused. NULL with
 * the reason, errno ENOENT when the file does not exist. */
char *sf_file_read_text(const char *path, size_t max, size_t *length, char *reason, size_t len);

/* Reads exactly `bytes` at `offset` of fd into out, through short reads
 * and interruptions, without moving the file offset (so threads may
 * share fd). 0, or -1 with errno (0: the file ends first) and, unless
 * NULL, *failed_at the offset where it stopped. */
int sf_pread_exactly(int fd, void *out, size_t bytes, long long offset, long long *failed_at);

#endif
