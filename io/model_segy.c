/* SEG-Y velocity volumes: 2D sections (one trace per x position) and 3D
 * volumes (inline/crossline sorted), samples along depth. libsegyio reads
 * the headers and converts the samples; every rank reads the sample range
 * of its own planes from every trace, its threads runs of traces each. */
#include "sf_error.h"
#include "sf_file_read.h"
#include "segy_read.h"
#include "sf_volume.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <segyio/segy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The number of traces along the file's fast and slow line directions;
 * a file without two varying line numbers is one line of traces. */
static void infer_lines(sf_segy_input *s, long *fast, long *slow)
{
    int sorting = SEGY_UNKNOWN_SORTING, offsets = 0, inlines = 0, crosslines = 0;
    *fast = s->traces;
    *slow = 1;
    if (segy_sorting(s->fp, SEGY_TR_INLINE, SEGY_TR_CROSSLINE, SEGY_TR_OFFSET, &sorting,
                     s->trace0, s->trace_bsize) != SEGY_OK ||
        sorting == SEGY_UNKNOWN_SORTING ||
        segy_offsets(s->fp, SEGY_TR_INLINE, SEGY_TR_CROSSLINE, s->traces, &offsets, s->trace0,
                     s->trace_bsize) != SEGY_OK ||
        offsets != 1 ||
        segy_lines_count(s->fp, SEGY_TR_INLINE, SEGY_TR_CROSSLINE, sorting, offsets, &inlines,
                         &crosslines, s->trace0, s->trace_bsize) != SEGY_OK ||
        (long)inlines * crosslines != s->traces)
        return;
    /* Inline sorting keeps each inline's traces together: crosslines vary fastest. */
    *fast = sorting == SEGY_INLINE_SORTING ? crosslines : inlines;
    *slow = sorting == SEGY_INLINE_SORTING ? inlines : crosslines;
}

int sf_segy_volume_shape(const char *path, const long *dims, sf_volume_grid *g, char *reason,
                         size_t len)
{
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", path);
    sf_segy_input s;
    if (sf_segy_input_open(path, 1, "models must be IBM (1) or IEEE (5) floats", &s, reason, len) != 0) return -1;
    int rc = 0;
    if (dims) {
        if (dims[0] * dims[1] != s.traces || dims[2] != s.samples) {
            snprintf(reason, len, "'%s' holds %d traces of %d samples, but dims [%ld, %ld, %ld] "
                     "need %ld traces of %ld samples", path, s.traces, s.samples, dims[0],
                     dims[1], dims[2], dims[0] * dims[1], dims[2]);
            rc = -1;
        }
        memcpy(g->n, dims, sizeof g->n);
    } else {
        infer_lines(&s, &g->n[0], &g->n[1]);
        g->n[2] = s.samples;
    }
    sf_segy_input_close(&s);
    return rc;
}

/* Traces read together: consecutive in the file, so one read takes them
 * all (a read a trace ran at a third of the disk's rate). */
enum { TRACES_PER_READ = 256 };

/* Reads `count` whole traces from trace t0 on into buffer, converts
 * samples [k0, k0 + nk) of each to native floats and puts them in their
 * places of out (plane-major); 0, or -1 with the reason. */
static int read_traces(int fd, const sf_segy_input *s, const char *path, long t0, long count,
                       long k0, long nk, long plane, char *buffer, float *out, char *reason,
                       size_t len)
{
    const size_t stride = SEGY_TRACE_HEADER_SIZE + (size_t)s->trace_bsize;
    const size_t bytes = stride * (size_t)count;
    if (sf_pread_exactly(fd, buffer, bytes, s->trace0 + t0 * (long long)stride, NULL) != 0) {
        const int error = errno;
        char why[160] = "the file ends first";
        if (error && strerror_r(error, why, sizeof why) != 0)   /* threads: not strerror */
            snprintf(why, sizeof why, "error %d", error);
        snprintf(reason, len, "'%s': reading traces %ld..%ld: %s", path, t0 + 1, t0 + count, why);
        return -1;
    }
    for (long t = 0; t < count; ++t) {
        float *samples = (float *)(buffer + stride * (size_t)t + SEGY_TRACE_HEADER_SIZE) + k0;
        const int rc = segy_to_native(s->format, nk, samples);
        if (rc != SEGY_OK) {
            snprintf(reason, len, "'%s': converting samples of trace %ld: %s", path, t0 + t + 1,
                     sf_segy_error_text(rc));
            return -1;
        }
        for (long k = 0; k < nk; ++k) out[k * plane + t0 + t] = samples[k];
    }
    return 0;
}

int sf_segy_volume_read(const char *path, const sf_volume_grid *g, long k0, long nk, float *out,
                        char *reason, size_t len)
{
    if (nk == 0) return 0;
    sf_segy_input s;
    if (sf_segy_input_open(path, 1, "models must be IBM (1) or IEEE (5) floats", &s, reason, len) != 0) return -1;
    sf_segy_input_close(&s);   /* the header's layout is all the reads need */
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(reason, len, "'%s': %s", path, strerror(errno));
        return -1;
    }
    const long plane = g->n[0] * g->n[1], reads = (plane + TRACES_PER_READ - 1) / TRACES_PER_READ;
    const size_t buffer_bytes = (SEGY_TRACE_HEADER_SIZE + (size_t)s.trace_bsize) * TRACES_PER_READ;
    long failed = LONG_MAX;   /* the first read that failed, and its reason */
    /* Every thread reads its own runs of traces and converts them. */
    #pragma omp parallel
    {
        char *buffer = sf_malloc(buffer_bytes, "SEG-Y traces");
        char why[512];
        #pragma omp for schedule(static)
        for (long r = 0; r < reads; ++r) {
            const long t0 = r * TRACES_PER_READ;
            const long count = plane - t0 < TRACES_PER_READ ? plane - t0 : TRACES_PER_READ;
            if (read_traces(fd, &s, path, t0, count, k0, nk, plane, buffer, out, why, sizeof why) == 0)
                continue;
            #pragma omp critical(sf_segy_read_failure)
            if (r < failed) {
                failed = r;
                snprintf(reason, len, "%s", why);
            }
        }
        free(buffer);
    }
    close(fd);
    return failed == LONG_MAX ? 0 : -1;
}
