/* Raw binary float32 volumes, x fastest then y then z (C order
 * [nz][ny][nx]), little or big endian. */
#ifndef SF_RAW_IO_H
#define SF_RAW_IO_H

#include "sf_config.h"

/* Reads planes [z0, z0 + nz) of an nx*ny*nz volume that starts `start`
 * bytes into the file into out (compact), on every thread; returns 0, or
 * -1 with reason filled. */
int sf_raw_read_planes(const char *path, long long start, long nx, long ny, long z0, long nz,
                       sf_endian endian, float *out, char *reason, size_t reason_len);

#endif
