/* Measured source signatures read from a file: an HDF5 dataset (its
 * sample interval in the attribute `sample_interval`, its first sample's
 * time in `start_time`), a SEG-Y trace (interval from the headers, the
 * first sample at the trace's delay recording time), or a text file of
 * two columns, time (s) and value. */
#include "signature_file.h"
#include "sf_error.h"
#include "sf_file_read.h"
#include "hdf5_read.h"
#include "segy_read.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The most samples a signature may hold, and the most bytes of a text one. */
enum { MAX_SAMPLES = 1000000, MAX_TEXT_BYTES = 1 << 28 };
/* Text times are uniform when each lies within this share of an interval
 * of the line through the first and last: times printed rounded pass. */
static const double UNIFORM_TOLERANCE = 0.01;

sf_signature_format sf_signature_format_of(const char *path)
{
    static const struct {
        const char *ext;
        sf_signature_format format;
    } known[] = {{".h5", SF_SIGNATURE_HDF5},  {".hdf5", SF_SIGNATURE_HDF5},
                 {".hdf", SF_SIGNATURE_HDF5}, {".sgy", SF_SIGNATURE_SEGY},
                 {".segy", SF_SIGNATURE_SEGY}, {".txt", SF_SIGNATURE_TEXT},
                 {".dat", SF_SIGNATURE_TEXT}, {".csv", SF_SIGNATURE_TEXT},
                 {".asc", SF_SIGNATURE_TEXT}};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return SF_SIGNATURE_AUTO;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
        if (!strcasecmp(dot, known[i].ext)) return known[i].format;
    return SF_SIGNATURE_AUTO;
}

static int read_hdf5(const char *path, const char *name, sf_signature *out, char *reason,
                     size_t len)
{
    hid_t file = sf_h5_open_read(path, reason, len);
    if (file < 0) return -1;
    hid_t d = sf_h5_open_dataset(file, path, name, reason, len);
    int rc = d < 0 ? -1 : 0;
    hid_t space = rc == 0 ? H5Dget_space(d) : -1;
    int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    hsize_t n = 0;
    if (rc == 0 && rank < 0)
        rc = sf_h5_failed(reason, len, "cannot read the shape of the dataset in", path);
    if (rc == 0 && rank != 1) {
        snprintf(reason, len, "'%s': dataset '%s' has %d dimension%s; a signature is a "
                 "1-dimensional list of samples", path, name, rank, rank == 1 ? "" : "s");
        rc = -1;
    }
    if (rc == 0) H5Sget_simple_extent_dims(space, &n, NULL);
    if (rc == 0 && (n < 2 || n > MAX_SAMPLES)) {
        snprintf(reason, len, "'%s': dataset '%s' holds %llu samples (allowed: 2 to %d)", path,
                 name, (unsigned long long)n, MAX_SAMPLES);
        rc = -1;
    }
    if (rc == 0) {
        out->count = (long)n;
        out->value = sf_malloc((size_t)n * sizeof(double), "a signature");
        if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out->value) < 0) {
            char what[512];
            snprintf(what, sizeof what, "cannot read dataset '%.400s' as numbers in", name);
            rc = sf_h5_failed(reason, len, what, path);
        }
    }
    const char *attrs[2] = {"sample_interval", "start_time"};
    double *values[2] = {&out->interval, &out->start};
    for (int a = 0; a < 2 && rc == 0; ++a) {
        if (H5Aexists(d, attrs[a]) <= 0) {
            if (a == 0) {
                snprintf(reason, len, "'%s': dataset '%s' has no attribute 'sample_interval' "
                         "(seconds)", path, name);
                rc = -1;
            }
            continue;
        }
        hid_t at = H5Aopen(d, attrs[a], H5P_DEFAULT);
        hid_t as = at >= 0 ? H5Aget_space(at) : -1;
        if (as < 0 || H5Sget_simple_extent_npoints(as) != 1 ||
            H5Aread(at, H5T_NATIVE_DOUBLE, values[a]) < 0) {
            snprintf(reason, len, "'%s': attribute '%s' of dataset '%s' is not one number", path,
                     attrs[a], name);
            rc = -1;
        }
        if (as >= 0) H5Sclose(as);
        if (at >= 0) H5Aclose(at);
    }
    if (space >= 0) H5Sclose(space);
    if (d >= 0) H5Dclose(d);
    H5Fclose(file);
    return rc;
}

static int read_segy(const char *path, long trace, sf_signature *out, char *reason, size_t len)
{
    sf_segy_input s;
    if (sf_segy_input_open(path, 2, "a signature needs at least 2 samples of IBM (1) or IEEE (5) "
                           "floats", &s, reason, len) != 0)
        return -1;
    int rc = -1;
    if (trace >= s.traces) {
        snprintf(reason, len, "'%s' holds %d trace%s (indices 0 to %d); trace %ld does not exist",
                 path, s.traces, s.traces == 1 ? "" : "s", s.traces - 1, trace);
        sf_segy_input_close(&s);
        return -1;
    }
    char header[SEGY_TRACE_HEADER_SIZE];
    int32_t delay_ms = 0, scalar = 0, trace_us = 0, bin_us = 0;
    float *values = sf_malloc((size_t)s.samples * sizeof(float), "a SEG-Y trace");
    int err = segy_traceheader(s.fp, (int)trace, header, s.trace0, s.trace_bsize);
    if (err == SEGY_OK) err = segy_get_field(header, SEGY_TR_DELAY_REC_TIME, &delay_ms);
    if (err == SEGY_OK) err = segy_get_field(header, SEGY_TR_SCALAR_TRACE_HEADER, &scalar);
    if (err == SEGY_OK) err = segy_get_field(header, SEGY_TR_SAMPLE_INTER, &trace_us);
    if (err == SEGY_OK) err = segy_get_bfield(s.bin, SEGY_BIN_INTERVAL, &bin_us);
    if (err == SEGY_OK) err = segy_readtrace(s.fp, (int)trace, values, s.trace0, s.trace_bsize);
    if (err == SEGY_OK) err = segy_to_native(s.format, s.samples, values);
    if (err != SEGY_OK)
        snprintf(reason, len, "'%s': reading trace %ld and its header: %s", path, trace,
                 sf_segy_error_text(err));
    else if (bin_us > 0 && trace_us > 0 && bin_us != trace_us)
        /* The binary header's interval, else the trace's; both given must agree. */
        snprintf(reason, len, "'%s': the binary header gives a sample interval of %d us and "
                 "trace %ld's header %d us", path, (int)bin_us, trace, (int)trace_us);
    else if (bin_us <= 0 && trace_us <= 0)
        snprintf(reason, len, "'%s': neither the binary nor the trace header gives a sample "
                 "interval", path);
    else
        rc = 0;
    if (rc == 0) {
        /* SEG-Y rev 2: a time scalar in bytes 215-216 (0 or 1: none; negative: a divisor). */
        double time_scale = scalar > 1 ? scalar : scalar < -1 ? -1.0 / scalar : 1.0;
        out->count = s.samples;
        out->interval = (bin_us > 0 ? bin_us : trace_us) * 1e-6;
        out->start = delay_ms * 1e-3 * time_scale;
        out->value = sf_malloc((size_t)s.samples * sizeof(double), "a signature");
        for (int k = 0; k < s.samples; ++k) out->value[k] = values[k];
    }
    free(values);
    sf_segy_input_close(&s);
    return rc;
}

/* Lines "time value" (spaces, tabs or a comma between), '#' comments;
 * the times increasing and uniform. */
static int read_text(const char *path, sf_signature *out, char *reason, size_t len)
{
    size_t length = 0;
    char *text = sf_file_read_text(path, MAX_TEXT_BYTES, &length, reason, len);
    if (!text) return -1;
    long capacity = 0, n = 0, number = 0;
    double *t = NULL, *v = NULL;
    long *line = NULL;
    int rc = 0;
    for (char *p = text, *next; p && *p && rc == 0; p = next) {
        next = strchr(p, '\n');
        if (next) *next++ = '\0';
        ++number;
        char *hash = strchr(p, '#');
        if (hash) *hash = '\0';
        for (char *c = p; *c; ++c)
            if (*c == ',') *c = ' ';
        char *end;
        double time = strtod(p, &end), value = 0.0;
        int fields = end != p;
        if (fields) {
            char *rest = end;
            value = strtod(rest, &end);
            fields += end != rest;
        }
        while (isspace((unsigned char)*end)) ++end;
        if (!fields && !*end) continue;   /* a blank or comment line */
        if (fields != 2 || *end) {
            snprintf(reason, len, "'%s' line %ld: expected two numbers, time (s) and value", path,
                     number);
            rc = -1;
        } else if (n >= MAX_SAMPLES) {
            snprintf(reason, len, "'%s' holds more than %d samples", path, MAX_SAMPLES);
            rc = -1;
        } else if (n > 0 && !(time > t[n - 1])) {
            snprintf(reason, len, "'%s' line %ld: time %.9g s does not follow %.9g s; a "
                     "signature's times must increase", path, number, time, t[n - 1]);
            rc = -1;
        }
        if (rc != 0) break;
        if (n == capacity) {
            capacity = capacity ? 2 * capacity : 1024;
            t = realloc(t, (size_t)capacity * sizeof *t);
            v = realloc(v, (size_t)capacity * sizeof *v);
            line = realloc(line, (size_t)capacity * sizeof *line);
            if (!t || !v || !line) sf_fatal("out of memory reading the signature '%s'", path);
        }
        t[n] = time, v[n] = value, line[n] = number;
        ++n;
    }
    free(text);
    if (rc == 0 && n < 2) {
        snprintf(reason, len, "'%s' holds %ld sample%s; a signature needs at least 2", path, n,
                 n == 1 ? "" : "s");
        rc = -1;
    }
    double interval = rc == 0 ? (t[n - 1] - t[0]) / (double)(n - 1) : 0.0;
    for (long k = 1; rc == 0 && k < n - 1; ++k)
        if (fabs(t[k] - (t[0] + (double)k * interval)) > UNIFORM_TOLERANCE * interval) {
            snprintf(reason, len, "'%s' line %ld: time %.9g s is off the uniform sampling of its "
                     "first and last samples (%.9g s + %ld x %.9g s); a signature's samples must "
                     "be uniform", path, line[k], t[k], t[0], k, interval);
            rc = -1;
        }
    if (rc == 0) {
        out->count = n;
        out->start = t[0];
        out->interval = interval;
        out->value = v;
        v = NULL;
    }
    free(t);
    free(v);
    free(line);
    return rc;
}

/* What every format must give: a positive interval, a finite start,
 * finite samples, not all zero. */
static int check_samples(const char *path, const sf_signature *s, char *reason, size_t len)
{
    if (!(s->interval > 0.0) || !isfinite(s->interval)) {
        snprintf(reason, len, "'%s': sample interval %g s; the interval must be positive and "
                 "finite", path, s->interval);
        return -1;
    }
    if (!isfinite(s->start)) {
        snprintf(reason, len, "'%s': start time %g s; the first sample's time must be finite",
                 path, s->start);
        return -1;
    }
    int nonzero = 0;
    for (long k = 0; k < s->count; ++k) {
        if (!isfinite(s->value[k])) {
            snprintf(reason, len, "'%s': sample %ld (t = %g s) is %s", path, k,
                     s->start + (double)k * s->interval, isnan(s->value[k]) ? "NaN" : "infinite");
            return -1;
        }
        nonzero |= s->value[k] != 0.0;
    }
    if (!nonzero) {
        snprintf(reason, len, "'%s': every sample is zero: the source would radiate nothing",
                 path);
        return -1;
    }
    return 0;
}

int sf_signature_read(const char *path, sf_signature_format format, const char *dataset,
                      long trace, sf_signature *out, char *reason, size_t len)
{
    memset(out, 0, sizeof *out);
    int rc;
    switch (format) {
    case SF_SIGNATURE_HDF5: rc = read_hdf5(path, dataset, out, reason, len); break;
    case SF_SIGNATURE_SEGY: rc = read_segy(path, trace, out, reason, len); break;
    case SF_SIGNATURE_TEXT: rc = read_text(path, out, reason, len); break;
    default:
        snprintf(reason, len, "'%s': unknown format: name the file .h5/.hdf5 (HDF5), .sgy/.segy "
                 "(SEG-Y) or .txt/.dat/.csv/.asc (text), or give source.format", path);
        rc = -1;
    }
    if (rc == 0) rc = check_samples(path, out, reason, len);
    if (rc != 0) {
        free(out->value);
        memset(out, 0, sizeof *out);
    }
    return rc;
}
