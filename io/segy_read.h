/* Opening a SEG-Y file for reading (models, signatures). */
#ifndef SF_SEGY_READ_H
#define SF_SEGY_READ_H

#include <segyio/segy.h>
#include <stddef.h>

typedef struct {
    segy_file *fp;
    char bin[SEGY_BINARY_HEADER_SIZE];   /* the binary header */
    int samples, format, traces, trace_bsize;
    long trace0;
} sf_segy_input;

/* Opens path, reads its binary header and counts its traces; a file of
 * fewer than min_samples samples per trace or of samples other than IBM
 * or IEEE floats is refused with need ("models must be ...") after what
 * the header gives. 0, or -1 with the reason (the file closed). */
int sf_segy_input_open(const char *path, int min_samples, const char *need, sf_segy_input *s,
                       char *reason, size_t len);
void sf_segy_input_close(sf_segy_input *s);

/* A libsegyio return code in words. */
const char *sf_segy_error_text(int rc);

#endif
