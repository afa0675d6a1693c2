/* SEG-Y velocity volumes, read with libsegyio: 2D sections (one trace per
 * x position) and 3D volumes (inline/crossline sorted), samples along
 * depth. Every rank reads the sample range of its own planes from every
 * trace, so the volume is read in parallel by slab. */
#include "sf_error.h"
#include "segy_read.h"
#include "sf_volume.h"

#include <segyio/segy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int sf_segy_volume_read(const char *path, const sf_volume_grid *g, long k0, long nk, float *out,
                        char *reason, size_t len)
{
    if (nk == 0) return 0;
    sf_segy_input s;
    if (sf_segy_input_open(path, 1, "models must be IBM (1) or IEEE (5) floats", &s, reason, len) != 0) return -1;
    segy_mmap(s.fp); /* faster when it works; plain reads otherwise */
    float *trace = sf_malloc((size_t)nk * sizeof(float), "a SEG-Y trace");
    const long plane = g->n[0] * g->n[1];
    int rc = SEGY_OK;
    for (long t = 0; t < plane && rc == SEGY_OK; ++t) {
        rc = segy_readsubtr(s.fp, (int)t, (int)k0, (int)(k0 + nk), 1, trace, NULL, s.trace0,
                            s.trace_bsize);
        if (rc == SEGY_OK) rc = segy_to_native(s.format, nk, trace);
        for (long k = 0; rc == SEGY_OK && k < nk; ++k) out[k * plane + t] = trace[k];
        if (rc != SEGY_OK)
            snprintf(reason, len, "'%s': reading samples %ld..%ld of trace %ld: %s", path, k0,
                     k0 + nk - 1, t + 1, sf_segy_error_text(rc));
    }
    free(trace);
    sf_segy_input_close(&s);
    return rc == SEGY_OK ? 0 : -1;
}
