/* The wavelet keys of the source section and of a survey's shot entries,
 * and the loading of a parsed job's wavelets: signature files read by
 * rank 0 and broadcast, every wavelet built, the auto delay resolved. */
#include "config_keys.h"
#include "config_reader.h"
#include "sf_error.h"
#include "fingerprint.h"
#include "signature_file.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The wavelet keys, in the order they are read: the readers below take
 * each key's name, range and choices from its row. Which kinds take a
 * key, and what it inherits in a survey shot, the readers decide. */
enum { WAVELET, FREQUENCY, FREQUENCIES, SWEEP_LENGTH, SWEEP_TAPER, LENGTH, FILE_KEY, DATASET,
       TRACE, FORMAT };

static const cfg_key WAVELET_ROWS[] = {
    [WAVELET] = {.name = "wavelet", .type = CFG_KEY_CHOICE,
                 .choices = "ricker|gaussian|gaussian_derivative|ormsby|klauder|file",
                 .fallback = "ricker", .help = "the kind of signature (user guide, \"Source "
                 "signatures\")"},
    [FREQUENCY] = {.name = "frequency", .type = CFG_KEY_NUMBER, .range = CFG_RANGE_FREQUENCY,
                   .fallback = "required for ricker, gaussian, gaussian_derivative", .unit = "Hz",
                   .help = "ricker: the peak frequency; the gaussians: their f (user guide)"},
    [FREQUENCIES] = {.name = "frequencies", .type = CFG_KEY_SPECIAL, .range = {0.0, 1e6, 0, 0},
                     .form = "list of 4 (ormsby) or 2 (klauder) numbers",
                     .fallback = "required for ormsby, klauder", .unit = "Hz",
                     .help = "ormsby: corners f1 < f2 <= f3 < f4; klauder: the sweep's [start, end]"},
    [SWEEP_LENGTH] = {.name = "sweep_length", .type = CFG_KEY_NUMBER, .range = {0.0, 1e4, 1, 0},
                      .fallback = "required for klauder", .unit = "s",
                      .help = "klauder: the sweep's length, at least one period of its lower "
                              "frequency"},
    [SWEEP_TAPER] = {.name = "sweep_taper", .type = CFG_KEY_NUMBER, .range = {0.0, 1e4, 0, 0},
                     .fallback = "0.25, or a quarter of a sweep shorter than 1 s", .unit = "s",
                     .help = "klauder: the cosine tapers at both ends of the sweep"},
    [LENGTH] = {.name = "length", .type = CFG_KEY_SPECIAL, .range = {0.0, 1e4, 1, 0},
                .form = "number or `auto`", .fallback = "`auto`: twice the time to stay below 1% "
                "of the peak", .unit = "s", .help = "ormsby, klauder: the Hann window's length"},
    [FILE_KEY] = {.name = "file", .type = CFG_KEY_TEXT, .form = "path",
                  .fallback = "required for file", .help = "file: the signature file"},
    [DATASET] = {.name = "dataset", .type = CFG_KEY_TEXT, .fallback = "wavelet",
                 .help = "file: the HDF5 dataset of the samples"},
    [TRACE] = {.name = "trace", .type = CFG_KEY_INTEGER, .lo = 0, .hi = 2147483646L,
               .fallback = "0", .help = "file: the SEG-Y trace, counted from 0"},
    [FORMAT] = {.name = "format", .type = CFG_KEY_CHOICE, .choices = "auto|hdf5|segy|text",
                .fallback = "auto: from the file name's extension",
                .help = "file: the signature file's format"},
};
const cfg_table CFG_WAVELET_KEYS =
    CFG_TABLE("source", "source: the wavelet keys",
              "A survey shot takes them too, changing the source's. Each key is for the kinds "
              "its meaning names.", WAVELET_ROWS);

#define NAME(k) (WAVELET_ROWS[k].name)
#define RANGE(k) (WAVELET_ROWS[k].range)

/* Which kinds take each key. */
enum { RICKERS = 1 << SF_WAVELET_RICKER | 1 << SF_WAVELET_GAUSSIAN |
                 1 << SF_WAVELET_GAUSSIAN_DERIVATIVE,
       ORMSBY = 1 << SF_WAVELET_ORMSBY, KLAUDER = 1 << SF_WAVELET_KLAUDER,
       FILE_KIND = 1 << SF_WAVELET_FILE };

typedef struct {
    cfg_reader *r;
    sf_yaml_node *map;
    const char *path;
    sf_wavelet_spec *spec;
    int inherited;       /* spec started as the base's (same kind) */
    int given;           /* a wavelet key was given */
} wavelet_reader;

static const char *owners(int mask)
{
    switch (mask) {
    case RICKERS: return "ricker, gaussian or gaussian_derivative";
    case ORMSBY: return "ormsby";
    case KLAUDER: return "klauder";
    case ORMSBY | KLAUDER: return "ormsby or klauder";
    default: return "file";
    }
}

/* 1 when key may be read for this kind; a key given to a kind that does
 * not take it is a problem. */
static int takes(wavelet_reader *w, const char *key, int mask)
{
    if (mask & (1 << w->spec->kind)) return 1;
    const sf_yaml_node *n = sf_yaml_take(w->map, key);
    if (n) {
        char full[128];
        snprintf(full, sizeof full, "%s.%s", w->path, key);
        cfg_problem(w->r, n->line, n->column, full, "only for wavelet: %s (this one is %s)",
                    owners(mask), sf_wavelet_kind_name(w->spec->kind));
    }
    return 0;
}

/* Marks the key as the one setting the wavelet's band. */
static void set_band_key(wavelet_reader *w, const char *key, sf_mark mark)
{
    snprintf(w->spec->key, sizeof w->spec->key, "%s.%s", w->path, key);
    w->spec->line = mark.line, w->spec->column = mark.column;
}

static void read_number(wavelet_reader *w, int key, int mask, int required, double *out, int band)
{
    if (!takes(w, NAME(key), mask)) return;
    sf_mark mark;
    int rc = cfg_number(w->r, w->map, NAME(key), w->path, RANGE(key), required && !w->inherited,
                        out, &mark);
    w->given |= rc != 0;
    if (rc > 0 && band) set_band_key(w, NAME(key), mark);
}

static void read_band(wavelet_reader *w)
{
    sf_wavelet_spec *s = w->spec;
    int n = s->kind == SF_WAVELET_ORMSBY ? 4 : 2;
    if (!takes(w, NAME(FREQUENCIES), ORMSBY | KLAUDER)) return;
    sf_mark mark;
    char full[128];
    snprintf(full, sizeof full, "%s.%s", w->path, NAME(FREQUENCIES));
    int rc = cfg_vector_key(w->r, w->map, NAME(FREQUENCIES), w->path, n, RANGE(FREQUENCIES),
                            !w->inherited, s->band, &mark);
    w->given |= rc != 0;
    if (rc <= 0) return;
    set_band_key(w, NAME(FREQUENCIES), mark);
    const double *f = s->band;
    if (n == 4 && !(f[0] < f[1] && f[1] <= f[2] && f[2] < f[3]))
        cfg_problem(w->r, mark.line, mark.column, full, "Ormsby corners [f1, f2, f3, f4] must "
                    "satisfy f1 < f2 <= f3 < f4 (Hz); got [%g, %g, %g, %g]", f[0], f[1], f[2],
                    f[3]);
    if (n == 2 && (f[0] <= 0.0 || f[1] <= 0.0 || f[0] == f[1]))
        cfg_problem(w->r, mark.line, mark.column, full, "a sweep's [start, end] frequencies "
                    "must be positive and differ (Hz); got [%g, %g]", f[0], f[1]);
}

/* length: a number, or auto (the default) for the 1% window. */
static void read_length(wavelet_reader *w)
{
    if (!takes(w, NAME(LENGTH), ORMSBY | KLAUDER)) return;
    const sf_yaml_node *n = sf_yaml_peek(w->map, NAME(LENGTH));
    if (cfg_is_auto(n)) {
        sf_yaml_take(w->map, NAME(LENGTH));
        w->spec->length = 0.0;
        w->given = 1;
    } else if (n) {
        w->given = 1;
        cfg_number(w->r, w->map, NAME(LENGTH), w->path, RANGE(LENGTH), 0, &w->spec->length, NULL);
    } else if (!w->inherited) {
        w->spec->length = 0.0;
    }
}

/* sweep_taper: a number, or the default (-1 until built: a quarter of a
 * sweep shorter than 1 s, else 0.25 s); a sweep of at least one period
 * of its lower frequency. */
static void read_sweep(wavelet_reader *w)
{
    sf_wavelet_spec *s = w->spec;
    sf_mark length_mark = cfg_mark(w->map);
    if (takes(w, NAME(SWEEP_LENGTH), KLAUDER)) {
        int rc = cfg_number(w->r, w->map, NAME(SWEEP_LENGTH), w->path, RANGE(SWEEP_LENGTH),
                            !w->inherited, &s->sweep_length, &length_mark);
        w->given |= rc != 0;
        double lowest = fmin(s->band[0], s->band[1]);
        if (rc > 0 && lowest > 0.0 && s->sweep_length * lowest < 1.0) {
            char full[128];
            snprintf(full, sizeof full, "%s.%s", w->path, NAME(SWEEP_LENGTH));
            cfg_problem(w->r, length_mark.line, length_mark.column, full, "a sweep of %g s holds "
                        "less than one period of its lower frequency, %g Hz", s->sweep_length,
                        lowest);
        }
    }
    if (!takes(w, NAME(SWEEP_TAPER), KLAUDER)) return;
    sf_mark mark = cfg_mark(w->map);
    int rc = cfg_number(w->r, w->map, NAME(SWEEP_TAPER), w->path, RANGE(SWEEP_TAPER), 0,
                        &s->sweep_taper, &mark);
    w->given |= rc != 0;
    if (rc == 0 && !w->inherited) s->sweep_taper = -1.0;
    if (rc > 0 && s->sweep_length > 0.0 && 2.0 * s->sweep_taper > s->sweep_length) {
        char full[128];
        snprintf(full, sizeof full, "%s.%s", w->path, NAME(SWEEP_TAPER));
        cfg_problem(w->r, mark.line, mark.column, full, "tapers of %g s at both ends do not fit "
                    "a sweep of %g s", s->sweep_taper, s->sweep_length);
    }
}

static void read_text_key(wavelet_reader *w, int key, int required, char **out, sf_mark *mark)
{
    char *value = NULL;
    int rc = cfg_string(w->r, w->map, NAME(key), w->path, required && !w->inherited, &value, mark);
    w->given |= rc != 0;
    if (rc <= 0) return;
    free(*out);
    *out = value;
}

/* Any of the file keys given makes it the key messages about the file
 * name: a shot that changes only its dataset is named by that. */
static void read_file_keys(wavelet_reader *w)
{
    sf_wavelet_spec *s = w->spec;
    sf_mark mark;
    if (takes(w, NAME(FILE_KEY), FILE_KIND)) {
        char *before = s->file;
        read_text_key(w, FILE_KEY, 1, &s->file, &mark);
        if (s->file != before) set_band_key(w, NAME(FILE_KEY), mark);
    }
    if (takes(w, NAME(DATASET), FILE_KIND)) {
        char *before = s->dataset;
        read_text_key(w, DATASET, 0, &s->dataset, &mark);
        if (s->dataset != before) set_band_key(w, NAME(DATASET), mark);
    }
    if (takes(w, NAME(TRACE), FILE_KIND)) {
        const cfg_key *k = &WAVELET_ROWS[TRACE];
        int rc = cfg_integer(w->r, w->map, k->name, w->path, k->lo, k->hi, 0, &s->trace, &mark);
        w->given |= rc != 0;
        if (rc > 0) set_band_key(w, k->name, mark);
    }
    if (takes(w, NAME(FORMAT), FILE_KIND)) {
        int format = s->format;
        int rc = cfg_choice(w->r, w->map, NAME(FORMAT), w->path, WAVELET_ROWS[FORMAT].choices, 0,
                            &format, &mark);
        w->given |= rc != 0;
        if (rc > 0) s->format = (sf_signature_format)format, set_band_key(w, NAME(FORMAT), mark);
    }
}

int cfg_read_wavelet(cfg_reader *r, sf_yaml_node *map, const char *path,
                     const sf_wavelet_spec *base, sf_wavelet_spec *spec)
{
    int kind = base ? (int)base->kind : SF_WAVELET_RICKER;
    int named = cfg_choice(r, map, NAME(WAVELET), path, WAVELET_ROWS[WAVELET].choices, 0, &kind,
                           NULL);
    wavelet_reader w = {.r = r, .map = map, .path = path, .spec = spec, .given = named != 0};
    memset(spec, 0, sizeof *spec);
    if (base && (int)base->kind == kind) {
        sf_wavelet_spec_copy(spec, base);
        spec->built = NULL;
        w.inherited = 1;
    }
    spec->kind = (sf_wavelet_kind)kind;
    if (!w.inherited) {
        /* Messages about the band point at the wavelet's section. */
        sf_mark mark = cfg_mark(map);
        snprintf(spec->key, sizeof spec->key, "%s.%s", path, NAME(WAVELET));
        spec->line = mark.line, spec->column = mark.column;
    }
    read_number(&w, FREQUENCY, RICKERS, 1, &spec->frequency, 1);
    read_band(&w);
    read_sweep(&w);
    read_length(&w);
    read_file_keys(&w);
    return w.given;
}

/* ---- loading: files, builds, delays -------------------------------------- */

/* Signatures sampled so coarsely that more of their energy than this lies
 * above COARSE_FRACTION of their Nyquist frequency are refused: the file
 * does not tell what it holds there. */
static const double COARSE_SHARE = 0.01, COARSE_FRACTION = 0.8;

static sf_signature_format format_of(const sf_wavelet_spec *s)
{
    return s->format != SF_SIGNATURE_AUTO ? s->format : sf_signature_format_of(s->file);
}

/* Rank 0 reads the file and broadcasts it; -1 (reported) when it fails. */
static int read_signature(cfg_reader *r, sf_wavelet_spec *s, sf_signature *sig)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char reason[1024] = "";
    memset(sig, 0, sizeof *sig);
    long count = -1;
    if (rank == 0 &&
        sf_signature_read(s->file, s->format, s->dataset, s->trace, sig, reason, sizeof reason) == 0)
        count = sig->count;
    SF_MPI_CHECK(MPI_Bcast(&count, 1, MPI_LONG, 0, MPI_COMM_WORLD), "broadcasting a signature");
    if (count < 0) {
        cfg_problem(r, s->line, s->column, s->key, "%s", reason);
        return -1;
    }
    double times[2] = {sig->interval, sig->start};
    SF_MPI_CHECK(MPI_Bcast(times, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD), "broadcasting a signature");
    if (rank != 0) {
        sig->count = count, sig->interval = times[0], sig->start = times[1];
        sig->value = sf_malloc((size_t)count * sizeof(double), "a signature");
    }
    for (long at = 0; at < count; at += 1 << 28) {
        long n = count - at < (1L << 28) ? count - at : 1L << 28;
        SF_MPI_CHECK(MPI_Bcast(sig->value + at, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD),
                     "broadcasting a signature");
    }
    return 0;
}

static int check_sampling(cfg_reader *r, const sf_wavelet_spec *s, const sf_wavelet *w)
{
    double nyquist = w->top, share = sf_wavelet_energy_share_above(w, COARSE_FRACTION * nyquist);
    if (share <= COARSE_SHARE) return 0;
    cfg_problem(r, s->line, s->column, s->key, "'%s' is sampled too coarsely for what it "
                "holds: %.3g%% of its energy lies above %g Hz, %.0f%% of its Nyquist frequency "
                "(%g Hz at %g s); give it sampled finer", s->file, 100.0 * share,
                COARSE_FRACTION * nyquist, 100.0 * COARSE_FRACTION, nyquist,
                0.5 / nyquist);
    return -1;
}

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Two specs that build the same wavelet (their keys aside). */
static int same_spec(const sf_wavelet_spec *a, const sf_wavelet_spec *b)
{
    return a->kind == b->kind && a->frequency == b->frequency &&
           !memcmp(a->band, b->band, sizeof a->band) && a->sweep_length == b->sweep_length &&
           a->sweep_taper == b->sweep_taper && a->length == b->length && a->trace == b->trace &&
           a->format == b->format && same_text(a->file, b->file) &&
           same_text(a->dataset, b->dataset);
}

static int build(cfg_reader *r, sf_config *c, sf_wavelet_spec *s, unsigned long long *hash)
{
    if (s->kind == SF_WAVELET_FILE) {
        s->format = format_of(s);
        if (s->format == SF_SIGNATURE_HDF5 && !s->dataset) s->dataset = sf_strdup("wavelet");
    }
    /* Shots that all give the same wavelet share one (its tables are
     * 64 KiB and more). */
    for (long k = c->nwavelets - 1; k >= 0 && k >= c->nwavelets - 2; --k)
        if (c->wavelets_spec[k] && same_spec(c->wavelets_spec[k], s)) {
            s->built = c->wavelets[k];
            return 0;
        }
    sf_signature sig = {0};
    if (s->kind == SF_WAVELET_FILE && read_signature(r, s, &sig) != 0) return -1;
    sf_wavelet *w = sf_calloc(1, sizeof *w, "a wavelet");
    char reason[512];
    int rc = sf_wavelet_build(w, s, s->kind == SF_WAVELET_FILE ? &sig : NULL, reason,
                              sizeof reason);
    free(sig.value);
    if (rc != 0) {
        cfg_problem(r, s->line, s->column, s->key, "%s", reason);
        free(w);
        return -1;
    }
    c->wavelets = realloc(c->wavelets, (size_t)(c->nwavelets + 1) * sizeof *c->wavelets);
    c->wavelets_spec = realloc(c->wavelets_spec,
                               (size_t)(c->nwavelets + 1) * sizeof *c->wavelets_spec);
    if (!c->wavelets || !c->wavelets_spec) sf_fatal("out of memory building the wavelets");
    c->wavelets_spec[c->nwavelets] = s;
    c->wavelets[c->nwavelets++] = w;
    s->built = w;
    if (s->kind != SF_WAVELET_FILE) return 0;
    /* A changed file changes the results: the job's fingerprint says so. */
    *hash = sf_fnv1a(*hash, w->samples.value, (size_t)w->samples.count * sizeof(double));
    *hash = sf_fnv1a(*hash, &w->samples.interval, sizeof w->samples.interval);
    *hash = sf_fnv1a(*hash, &w->samples.start, sizeof w->samples.start);
    return check_sampling(r, s, w);
}

int cfg_load_wavelets(sf_config *c)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    cfg_reader r = {.file = c->source_path, .print = rank == 0};
    unsigned long long hash = strtoull(c->hash, NULL, 16);
    build(&r, c, &c->source.wavelet, &hash);
    for (long n = 0; c->survey.enabled && n < c->survey.count; ++n)
        if (c->survey.shots[n].wavelet) build(&r, c, c->survey.shots[n].wavelet, &hash);
    if (c->source.delay_auto && c->source.wavelet.built)
        c->source.delay = sf_wavelet_auto_delay(c->source.wavelet.built);
    sf_hash_text(hash, c->hash);
    return r.problems;
}
