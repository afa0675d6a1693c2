#include "sf_raw_io.h"
#include "sf_file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

static void swap_bytes(float *values, size_t count)
{
    for (size_t n = 0; n < count; ++n) {
        uint32_t u;
        memcpy(&u, &values[n], 4);
        u = (u >> 24) | ((u >> 8) & 0xff00u) | ((u << 8) & 0xff0000u) | (u << 24);
        memcpy(&values[n], &u, 4);
    }
}

int sf_raw_read_planes(const char *path, long long start, long nx, long ny, long z0, long nz,
                       sf_endian endian, float *out, char *reason, size_t reason_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(reason, reason_len, "cannot open: %s", strerror(errno));
        return -1;
    }
    const size_t plane = (size_t)nx * (size_t)ny * sizeof(float);
    const long long offset = start + z0 * (long long)plane;
    const int swap = (endian == SF_ENDIAN_LITTLE) != host_is_little_endian();
    long long failed_at = LLONG_MAX;   /* the first byte any thread failed at */
    int failed_errno = 0;
    /* Each thread reads (and swaps) the planes it would fill, so that
     * their pages land by the core that steps them, and the copies out
     * of the page cache run on every core. */
    #pragma omp parallel for schedule(static)
    for (long k = 0; k < nz; ++k) {
        float *values = (float *)((char *)out + (size_t)k * plane);
        long long at;
        if (sf_pread_exactly(fd, values, plane, offset + k * (long long)plane, &at) == 0) {
            if (swap) swap_bytes(values, plane / sizeof(float));
            continue;
        }
        const int why = errno;
        #pragma omp critical(sf_raw_read_failure)
        if (at < failed_at) failed_at = at, failed_errno = why;
    }
    close(fd);
    if (failed_at == LLONG_MAX) return 0;
    snprintf(reason, reason_len, "read failed at byte %lld: %s", failed_at,
             failed_errno == 0 ? "file too short" : strerror(failed_errno));
    return -1;
}
