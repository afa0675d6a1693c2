#include "sf_raw_io.h"

#include <errno.h>
#include <fcntl.h>
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

int sf_raw_read_planes(const char *path, long nx, long ny, long z0, long nz, sf_endian endian,
                       float *out, char *reason, size_t reason_len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(reason, reason_len, "cannot open: %s", strerror(errno));
        return -1;
    }
    size_t bytes = (size_t)nx * (size_t)ny * (size_t)nz * sizeof(float);
    off_t offset = (off_t)z0 * nx * ny * (off_t)sizeof(float);
    size_t done = 0;
    while (done < bytes) {
        ssize_t got = pread(fd, (char *)out + done, bytes - done, offset + (off_t)done);
        if (got <= 0) {
            snprintf(reason, reason_len, "read failed at byte %lld: %s",
                     (long long)(offset + (off_t)done), got == 0 ? "file too short" : strerror(errno));
            close(fd);
            return -1;
        }
        done += (size_t)got;
    }
    close(fd);
    if ((endian == SF_ENDIAN_LITTLE) != host_is_little_endian())
        swap_bytes(out, bytes / sizeof(float));
    return 0;
}
