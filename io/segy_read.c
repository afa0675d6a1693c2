/* Opening a SEG-Y file for reading (models, signatures): its binary
 * header, sample format and trace count checked, with the reason a file
 * does not open told in words. */
#include "segy_read.h"
#include "sf_file_read.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *sf_segy_error_text(int rc)
{
    switch (rc) {
    case SEGY_FOPEN_ERROR: return "cannot open the file";
    case SEGY_FSEEK_ERROR: return "seek failed";
    case SEGY_FREAD_ERROR: return "read failed (the file is shorter than its headers say)";
    case SEGY_TRACE_SIZE_MISMATCH: return "the file is truncated or not SEG-Y: its size after the "
                                          "headers is not a whole number of traces";
    case SEGY_INVALID_SORTING: return "traces are not sorted by inline or crossline";
    default: return "libsegyio error";
    }
}

void sf_segy_input_close(sf_segy_input *s)
{
    if (s->fp) segy_close(s->fp);
    s->fp = NULL;
}

int sf_segy_input_open(const char *path, int min_samples, const char *need, sf_segy_input *s,
                       char *reason, size_t len)
{
    memset(s, 0, sizeof *s);
    char why[256] = "";
    /* fopen takes a directory too; its reads would then fail obscurely. */
    if (sf_file_size(path, why, sizeof why) >= 0) {
        s->fp = segy_open(path, "rb");
        if (!s->fp) snprintf(why, sizeof why, "%s", strerror(errno));
    }
    if (!s->fp) {
        snprintf(reason, len, "cannot open SEG-Y file '%s': %s", path, why);
        return -1;
    }
    int rc = segy_binheader(s->fp, s->bin);
    if (rc != SEGY_OK) {
        snprintf(reason, len, "'%s': cannot read the SEG-Y binary header: %s", path,
                 sf_segy_error_text(rc));
        sf_segy_input_close(s);
        return -1;
    }
    s->samples = segy_samples(s->bin);
    s->format = segy_format(s->bin);
    if (s->samples < min_samples || (s->format != SEGY_IBM_FLOAT_4_BYTE &&
                                     s->format != SEGY_IEEE_FLOAT_4_BYTE)) {
        snprintf(reason, len, "'%s': binary header gives %d samples per trace in format %d; %s",
                 path, s->samples, s->format, need);
        sf_segy_input_close(s);
        return -1;
    }
    s->trace0 = segy_trace0(s->bin);
    s->trace_bsize = segy_trsize(s->format, s->samples);
    rc = segy_traces(s->fp, &s->traces, s->trace0, s->trace_bsize);
    if (rc != SEGY_OK) {
        snprintf(reason, len, "'%s': %s", path, sf_segy_error_text(rc));
        sf_segy_input_close(s);
        return -1;
    }
    return 0;
}
