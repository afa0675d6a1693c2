#include "sf_segy.h"
#include "sf_error.h"
#include "sf_output.h"
#include "sf_version.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <segyio/segy.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    TEXT_CARDS = 40,
    CARD_WIDTH = 80,
    CARD_PREFIX = 4,                 /* "Cnn " */
    TRACE0 = SEGY_TEXT_HEADER_SIZE + SEGY_BINARY_HEADER_SIZE,   /* no extended headers */
    TRACE_ID_SEISMIC = 1,
    SORTING_COMMON_SOURCE = 5,
    METRES = 1,                      /* measurement system */
    COORDINATES_AS_LENGTH = 1,       /* coordinate units */
    REVISION_1 = 0x0100,
    FIXED_LENGTH_TRACES = 1,
    MESSAGE_SIZE = 1024
};
static const double US_PER_S = 1e6;
/* Intervals written in decimal seconds miss whole microseconds by rounding
 * error only; anything further off is a genuinely fractional interval. */
static const double WHOLE_US_TOLERANCE = 1e-6;
static const int SCALARS[] = {SF_SEGY_CENTIMETRES, -10, 1};   /* finest first */

int sf_segy_interval_us(double interval, long nsamples, int *us, char *reason, size_t len)
{
    double micro = interval * US_PER_S, whole = round(micro);
    if (whole < 1 || whole > SF_SEGY_MAX_INTERVAL_US) {
        snprintf(reason, len,
                 "the record interval %.9g s is outside what SEG-Y can store (allowed: "
                 "0.000001 to %.6f s in whole microseconds)",
                 interval, SF_SEGY_MAX_INTERVAL_US / US_PER_S);
        return -1;
    }
    if (fabs(micro - whole) > WHOLE_US_TOLERANCE) {
        snprintf(reason, len,
                 "the record interval %.9g s is not a whole number of microseconds, which "
                 "SEG-Y needs (allowed: 0.000001 to %.6f s in whole microseconds, e.g. %.6f s)",
                 interval, SF_SEGY_MAX_INTERVAL_US / US_PER_S, whole / US_PER_S);
        return -1;
    }
    if (nsamples > SF_SEGY_MAX_SAMPLES) {
        /* nsamples * interval bounds the record length from above. */
        double fewest = ceil((double)nsamples * whole / (SF_SEGY_MAX_SAMPLES - 1));
        if (fewest <= SF_SEGY_MAX_INTERVAL_US)
            snprintf(reason, len,
                     "%ld samples per trace at %.9g s exceed the SEG-Y maximum of %d (allowed: "
                     "an interval of at least %.6f s for this record length)",
                     nsamples, interval, SF_SEGY_MAX_SAMPLES, fewest / US_PER_S);
        else
            snprintf(reason, len,
                     "%ld samples per trace at %.9g s exceed the SEG-Y maximum of %d, and no "
                     "interval up to %.6f s makes this record fit; shorten the record",
                     nsamples, interval, SF_SEGY_MAX_SAMPLES, SF_SEGY_MAX_INTERVAL_US / US_PER_S);
        return -1;
    }
    *us = (int)whole;
    return 0;
}

void sf_segy_component_path(const char *path, const char *component, char *out, size_t len)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    size_t stem = dot && (!slash || dot > slash) && dot != path && (!slash || dot > slash + 1)
                      ? (size_t)(dot - path)
                      : strlen(path);
    snprintf(out, len, "%.*s_%s%s", (int)stem, path, component, path + stem);
}

/* Stored value = metres x factor; a negative scalar divides on reading. */
static double scalar_factor(int scalar) { return scalar < 0 ? -scalar : 1.0 / scalar; }

static int fits_int32(double v) { return fabs(round(v)) <= INT32_MAX; }

static int finest_scalar(double largest)
{
    for (size_t i = 0; i < sizeof SCALARS / sizeof SCALARS[0]; ++i)
        if (fits_int32(largest * scalar_factor(SCALARS[i]))) return SCALARS[i];
    return 0;
}

const char *sf_segy_precision(int scalar)
{
    return scalar == SF_SEGY_CENTIMETRES ? "centimetres" : scalar == -10 ? "decimetres" : "metres";
}

int sf_segy_plan_headers(const sf_gather_info *info, sf_segy_plan *plan, char *reason,
                         size_t len)
{
    if (sf_segy_interval_us(info->interval, info->nsamples, &plan->interval_us, reason, len))
        return -1;
    if (info->nrec > INT32_MAX) {
        snprintf(reason, len, "%ld traces exceed the 32-bit trace numbers of SEG-Y", info->nrec);
        return -1;
    }
    const double *s = info->source_position;
    double xy = fmax(fabs(s[0]), fabs(s[1])), z = fabs(s[2]), offset = 0;
    for (long r = 0; r < info->nrec; ++r) {
        const double *p = info->receiver_position[r];
        xy = fmax(xy, fmax(fabs(p[0]), fabs(p[1])));
        z = fmax(z, fabs(p[2]));
        offset = fmax(offset, fabs(sf_receiver_offset(&info->receiver_line, r, s, p)));
    }
    plan->coordinate_scalar = finest_scalar(xy);
    plan->elevation_scalar = finest_scalar(z);
    if (plan->coordinate_scalar && plan->elevation_scalar && fits_int32(offset)) return 0;
    snprintf(reason, len,
             "coordinates up to %g m (x, y), %g m (z) or offsets up to %g m do not fit the "
             "32-bit integers of SEG-Y even in whole metres",
             xy, z, offset);
    return -1;
}

/* The first failure on this rank, in words, shared with every rank before
 * anyone exits so that the run ends with that one message. */
typedef struct {
    const char *path;        /* the partial file being written */
    int rank;
    char message[MESSAGE_SIZE];
} write_status;

static const char *segy_error_name(int rc)
{
    switch (rc) {
    case SEGY_FOPEN_ERROR: return "cannot open the file";
    case SEGY_FSEEK_ERROR: return "seek failed";
    case SEGY_FREAD_ERROR: return "read failed";
    case SEGY_FWRITE_ERROR: return "write failed";
    case SEGY_INVALID_FIELD: return "invalid header field";
    case SEGY_INVALID_ARGS: return "invalid arguments";
    case SEGY_READONLY: return "the file is read-only";
    default: return "segyio error";
    }
}

static void record_failure(write_status *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void record_failure(write_status *st, const char *fmt, ...)
{
    if (st->message[0]) return;
    int n = snprintf(st->message, sizeof st->message, "cannot write SEG-Y gather '%s' (rank %d): ",
                     st->path, st->rank);
    if (n < 0 || (size_t)n >= sizeof st->message) return;   /* the path alone fills it */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->message + n, sizeof st->message - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Checks a segyio return code; non-zero (and recorded) on failure. */
static int segy_failed(write_status *st, int rc, const char *action)
{
    if (rc == SEGY_OK) return 0;
    int io = rc == SEGY_FOPEN_ERROR || rc == SEGY_FSEEK_ERROR || rc == SEGY_FREAD_ERROR ||
             rc == SEGY_FWRITE_ERROR;
    const char *detail = io && errno ? strerror(errno) : "";
    record_failure(st, "%s: %s (segyio code %d)%s%s", action, segy_error_name(rc), rc,
                   *detail ? ": " : "", detail);
    return 1;
}

/* A synchronisation point between the phases of the write: every rank
 * learns whether any failed (-1) and gets the lowest failing rank's
 * message. */
static int agree(MPI_Comm comm, write_status *st)
{
    return sf_first_flagged_rank(comm, st->message[0] != 0, st->message, MESSAGE_SIZE,
                                 "sharing the SEG-Y write status") < 0 ? 0 : -1;
}

/* One 80-column card "Cnn text"; characters that are not printable ASCII
 * become '?' so the EBCDIC conversion has a counterpart for each. */
static void text_card(char *text, int card, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void text_card(char *text, int card, const char *fmt, ...)
{
    char line[4 * CARD_WIDTH], prefix[CARD_PREFIX + 1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char *slot = text + (size_t)(card - 1) * CARD_WIDTH;
    snprintf(prefix, sizeof prefix, "C%2d ", card);
    memcpy(slot, prefix, CARD_PREFIX);
    for (size_t i = 0; line[i] && i < CARD_WIDTH - CARD_PREFIX; ++i)
        slot[CARD_PREFIX + i] = isprint((unsigned char)line[i]) ? line[i] : '?';
}

/* The end of a path too long for a card, which names the file. */
static const char *path_tail(const char *path, size_t room, char *buf, size_t len)
{
    size_t n = strlen(path);
    if (n <= room) return path;
    snprintf(buf, len, "...%s", path + n - (room - 3));
    return buf;
}

static void scalar_meaning(int scalar, char *buf, size_t len)
{
    snprintf(buf, len, "metres = value %s %d (%s)", scalar < 0 ? "/" : "x",
             abs(scalar), sf_segy_precision(scalar));
}

static void describe_job(const sf_gather_info *g, const sf_segy_plan *plan, char *text)
{
    static const char job_label[] = "job file: ";
    char job[CARD_WIDTH], coord[96], elev[96];
    const double *s = g->source_position;
    scalar_meaning(plan->coordinate_scalar, coord, sizeof coord);
    scalar_meaning(plan->elevation_scalar, elev, sizeof elev);
    memset(text, ' ', SEGY_TEXT_HEADER_SIZE);
    for (int card = 1; card <= TEXT_CARDS; ++card) text_card(text, card, "%s", "");
    text_card(text, 1, "seisfd %s synthetic shot gather, 3D finite-difference modelling",
              SEISFD_VERSION);
    text_card(text, 2, "%s%s", job_label,
              path_tail(g->config_path, CARD_WIDTH - CARD_PREFIX - (sizeof job_label - 1), job,
                        sizeof job));
    text_card(text, 3, "physics: %s, spatial order %d; samples: component %s (C21-C22)",
              g->physics, g->order, g->component[0]);
    text_card(text, 4, "grid: %ld x %ld x %ld points, spacing %g x %g x %g m", g->grid_n[0],
              g->grid_n[1], g->grid_n[2], g->grid_spacing[0], g->grid_spacing[1],
              g->grid_spacing[2]);
    text_card(text, 5, "grid origin (x, y, z): %g, %g, %g m", g->grid_origin[0],
              g->grid_origin[1], g->grid_origin[2]);
    char wavelet[1200];
    sf_wavelet_describe(g->wavelet, wavelet, sizeof wavelet);
    text_card(text, 6, "source: %s", wavelet);
    text_card(text, 7, "source position (x, y, z): %.2f, %.2f, %.2f m", s[0], s[1], s[2]);
    text_card(text, 8, "record: %ld samples at %d us (%g s), t0 = 0, length %g s",
              g->nsamples, plan->interval_us, g->interval, (double)(g->nsamples - 1) * g->interval);
    text_card(text, 9, "traces: %ld, one per receiver in job order (trace number = index + 1)",
              g->nrec);
    text_card(text, 10, "samples: 4-byte IEEE float (format 5), big-endian, fixed length");
    text_card(text, 11, "source X/Y bytes 73-80, group X/Y bytes 81-88, coordinate units 1");
    text_card(text, 12, "coordinate scalar %d (bytes 71-72): %s", plan->coordinate_scalar, coord);
    text_card(text, 13, "group elevation (bytes 41-44) = -z, source depth (bytes 49-52) = z");
    text_card(text, 14, "elevation scalar %d (bytes 69-70): %s", plan->elevation_scalar, elev);
    text_card(text, 15,
              "offset (bytes 37-40): horizontal source-receiver distance, whole m, sign C18");
    text_card(text, 16, "units: metres and seconds; z is depth, positive down");
    text_card(text, 17, "source delay %g s, amplitude %g, field record %ld", g->source_delay,
              g->source_amplitude, g->shot_number);
    text_card(text, 18, "offset sign (receivers.line): - behind the source, + abreast or ahead:");
    text_card(text, 19,
              "the sign of horizontal (receiver - source) . line direction (start to end)");
    text_card(text, 20, "points, grid and vertical lines: the distance itself, never negative");
    text_card(text, 21, "sample quantity: %s", g->quantity[0]);
    text_card(text, 22, "sample units: %s", g->units[0]);
    text_card(text, 39, "SEG Y REV1");
    text_card(text, 40, "END TEXTUAL HEADER");
}

typedef struct {
    int field;
    long value;
} header_value;

static int set_fields(write_status *st, int (*set)(char *, int, int32_t), char *header,
                      const header_value *v, size_t n, const char *what)
{
    for (size_t i = 0; i < n; ++i) {
        char action[96];
        snprintf(action, sizeof action, "setting byte %d of the %s", v[i].field, what);
        if (segy_failed(st, set(header, v[i].field, (int32_t)v[i].value), action)) return -1;
    }
    return 0;
}

/* Traces per ensemble is a signed 16-bit field; 0 means not given. */
static long ensemble_size(long nrec) { return nrec <= INT16_MAX ? nrec : 0; }

static int binary_header(write_status *st, const sf_gather_info *g, const sf_segy_plan *plan,
                         char *bin)
{
    const header_value values[] = {
        {SEGY_BIN_JOB_ID, 1},
        {SEGY_BIN_LINE_NUMBER, 1},
        {SEGY_BIN_REEL_NUMBER, 1},
        {SEGY_BIN_TRACES, ensemble_size(g->nrec)},
        {SEGY_BIN_INTERVAL, plan->interval_us},
        {SEGY_BIN_INTERVAL_ORIG, plan->interval_us},
        {SEGY_BIN_SAMPLES, g->nsamples},
        {SEGY_BIN_SAMPLES_ORIG, g->nsamples},
        {SEGY_BIN_FORMAT, SEGY_IEEE_FLOAT_4_BYTE},
        {SEGY_BIN_SORTING_CODE, SORTING_COMMON_SOURCE},
        {SEGY_BIN_MEASUREMENT_SYSTEM, METRES},
        {SEGY_BIN_SEGY_REVISION, REVISION_1},
        {SEGY_BIN_TRACE_FLAG, FIXED_LENGTH_TRACES},
        {SEGY_BIN_EXT_HEADERS, 0},
    };
    memset(bin, 0, SEGY_BINARY_HEADER_SIZE);
    return set_fields(st, segy_set_bfield, bin, values, sizeof values / sizeof values[0],
                      "binary header");
}

static long scaled(double metres, int scalar) { return lround(metres * scalar_factor(scalar)); }

static int trace_header(write_status *st, const sf_gather_info *g, const sf_segy_plan *plan,
                        long index, char *header)
{
    const double *s = g->source_position, *r = g->receiver_position[index];
    int cs = plan->coordinate_scalar, es = plan->elevation_scalar;
    const header_value values[] = {
        {SEGY_TR_SEQ_LINE, index + 1},
        {SEGY_TR_SEQ_FILE, index + 1},
        {SEGY_TR_FIELD_RECORD, g->shot_number},
        {SEGY_TR_NUMBER_ORIG_FIELD, index + 1},
        {SEGY_TR_TRACE_ID, TRACE_ID_SEISMIC},
        {SEGY_TR_OFFSET, lround(sf_receiver_offset(&g->receiver_line, index, s, r))},
        {SEGY_TR_RECV_GROUP_ELEV, scaled(-r[2], es)},
        {SEGY_TR_SOURCE_DEPTH, scaled(s[2], es)},
        {SEGY_TR_ELEV_SCALAR, es},
        {SEGY_TR_SOURCE_GROUP_SCALAR, cs},
        {SEGY_TR_SOURCE_X, scaled(s[0], cs)},
        {SEGY_TR_SOURCE_Y, scaled(s[1], cs)},
        {SEGY_TR_GROUP_X, scaled(r[0], cs)},
        {SEGY_TR_GROUP_Y, scaled(r[1], cs)},
        {SEGY_TR_COORD_UNITS, COORDINATES_AS_LENGTH},
        {SEGY_TR_SAMPLE_COUNT, g->nsamples},
        {SEGY_TR_SAMPLE_INTER, plan->interval_us},
    };
    memset(header, 0, SEGY_TRACE_HEADER_SIZE);
    return set_fields(st, segy_set_field, header, values, sizeof values / sizeof values[0],
                      "trace header");
}

static long long file_size(const sf_gather_info *g)
{
    long long trace = SEGY_TRACE_HEADER_SIZE + (long long)sizeof(float) * g->nsamples;
    return TRACE0 + (long long)g->nrec * trace;
}

/* Rank 0: the partial file with its textual and binary headers, extended
 * to its final size so that every rank can write its traces in place. */
static void create_file(write_status *st, const sf_gather_info *g, const sf_segy_plan *plan)
{
    char reason[512] = "";
    if (sf_output_make_parents(g->path, reason, sizeof reason) != 0 ||
        sf_output_check_writable(g->path, reason, sizeof reason) != 0) {
        record_failure(st, "%s", reason);
        return;
    }
    char text[SEGY_TEXT_HEADER_SIZE], bin[SEGY_BINARY_HEADER_SIZE];
    describe_job(g, plan, text);
    if (binary_header(st, g, plan, bin) != 0) return;
    segy_file *fp = segy_open(st->path, "w+b");
    if (!fp) {
        record_failure(st, "creating the file: %s", strerror(errno));
        return;
    }
    if (!segy_failed(st, segy_write_textheader(fp, 0, text), "writing the textual header"))
        segy_failed(st, segy_write_binheader(fp, bin), "writing the binary header");
    segy_failed(st, segy_close(fp), "closing the file after its headers");
    if (!st->message[0] && truncate(st->path, (off_t)file_size(g)) != 0)
        record_failure(st, "extending the file to %lld bytes: %s", file_size(g), strerror(errno));
}

static int write_trace(write_status *st, segy_file *fp, const sf_gather_info *g,
                       const sf_segy_plan *plan, long index, const float *samples, float *buf)
{
    char header[SEGY_TRACE_HEADER_SIZE], action[96];
    int bsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, (int)g->nsamples);
    if (bsize < 0) {
        record_failure(st, "segyio has no trace size for %ld IEEE float samples", g->nsamples);
        return -1;
    }
    if (trace_header(st, g, plan, index, header) != 0) return -1;
    snprintf(action, sizeof action, "writing the header of trace %ld", index + 1);
    if (segy_failed(st, segy_write_traceheader(fp, (int)index, header, TRACE0, bsize), action))
        return -1;
    memcpy(buf, samples, (size_t)g->nsamples * sizeof *buf);
    if (segy_failed(st, segy_from_native(SEGY_IEEE_FLOAT_4_BYTE, g->nsamples, buf),
                    "converting samples to big-endian IEEE floats"))
        return -1;
    snprintf(action, sizeof action, "writing the samples of trace %ld", index + 1);
    return segy_failed(st, segy_writetrace(fp, (int)index, buf, TRACE0, bsize), action) ? -1 : 0;
}

static void write_traces(write_status *st, const sf_gather_info *g, const sf_segy_plan *plan,
                         long nlocal, const long *global_index, const float *traces)
{
    if (nlocal == 0) return;
    segy_file *fp = segy_open(st->path, "r+b");
    if (!fp) {
        record_failure(st, "opening the file to write traces: %s", strerror(errno));
        return;
    }
    if (!segy_failed(st, segy_set_format(fp, SEGY_IEEE_FLOAT_4_BYTE | SEGY_MSB),
                     "declaring big-endian IEEE float samples")) {
        float *buf = sf_malloc((size_t)g->nsamples * sizeof *buf, "a SEG-Y trace");
        for (long r = 0; r < nlocal; ++r)
            if (write_trace(st, fp, g, plan, global_index[r], traces + r * g->nsamples, buf))
                break;
        free(buf);
    }
    segy_failed(st, segy_close(fp), "closing the file after writing traces");
}

int sf_gather_write_segy(const sf_gather_info *info, MPI_Comm comm, long nlocal,
                         const long *global_index, const float *traces, char *error,
                         size_t len)
{
    char partial[4200], reason[512];
    sf_output_partial_name(info->path, partial, sizeof partial);
    write_status st = {.path = partial};
    SF_MPI_CHECK(MPI_Comm_rank(comm, &st.rank), "querying the rank writing SEG-Y");
    sf_segy_plan plan;
    if (sf_segy_plan_headers(info, &plan, reason, sizeof reason) != 0) {
        snprintf(error, len, "cannot write SEG-Y gather '%s': %s", info->path, reason);
        return -1;
    }
    if (st.rank == 0) create_file(&st, info, &plan);
    int failed = agree(comm, &st);
    if (!failed) {
        write_traces(&st, info, &plan, nlocal, global_index, traces);
        failed = agree(comm, &st);
    }
    if (failed) snprintf(error, len, "%s", st.message);
    return failed;
}
