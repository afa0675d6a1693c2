#include "fingerprint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const unsigned long long FNV_PRIME = 0x100000001b3ull;
enum { READ_BLOCK = 1 << 20 };

unsigned long long sf_fnv1a(unsigned long long hash, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * FNV_PRIME;
    return hash;
}

void sf_hash_text(unsigned long long hash, char out[17])
{
    snprintf(out, 17, "%016llx", hash);
}

int sf_file_fingerprint(const char *path, int sync, long long *size, unsigned long long *hash,
                        char *reason, size_t len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(reason, len, "cannot open '%.600s': %s", path, strerror(errno));
        return -1;
    }
    unsigned char *block = malloc(READ_BLOCK);
    long long total = 0;
    unsigned long long h = SF_FNV_OFFSET;
    ssize_t got = 0;
    while (block && (got = read(fd, block, READ_BLOCK)) > 0) {
        h = sf_fnv1a(h, block, (size_t)got);
        total += got;
    }
    int failed = !block || got < 0;
    if (failed) snprintf(reason, len, "cannot read '%.600s': %s", path, block ? strerror(errno) : "out of memory");
    if (!failed && sync && fsync(fd) != 0) {
        snprintf(reason, len, "cannot flush '%.600s' to disk: %s", path, strerror(errno));
        failed = 1;
    }
    free(block);
    close(fd);
    *size = total;
    *hash = h;
    return failed ? -1 : 0;
}
