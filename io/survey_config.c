/* The survey section of a job file: the shots (a list, or a regular grid
 * of source positions), per-shot overrides of the source keys, how many
 * ranks compute each shot, and whether the receivers stay put or move
 * with the source. Checks that need the whole job (positions against the
 * grid, moving receivers) come after parsing, from config_geometry.c. */
#include "survey_config.h"

#include "grid_bounds.h"
#include "sf_error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


enum { MAX_SHOTS = 1000000 };

/* The keys of a survey, of its grid and of its shot and overrides
 * entries, in the order an unknown key is told them. The readers below
 * take each key's name, range and choices from its row. */
enum { PLACE, DEPTH, WAVELET_KEYS, DELAY, AMPLITUDE };

/* What a shot entry may change, after its place (position or shot). */
#define SHOT_CHANGES                                                                           \
    [DEPTH] = {.name = "depth", .type = CFG_KEY_NUMBER, .range = CFG_RANGE_COORDINATE,        \
               .fallback = "its position's z", .unit = "m",                                   \
               .help = "the shot's z; with a position of [x, y], required"},                  \
    [WAVELET_KEYS] = {.name = "wavelet", .type = CFG_KEY_SPECIAL, .group = 1,                  \
                      .keys = &CFG_WAVELET_KEYS, .form = "the wavelet keys (above)",          \
                      .fallback = "the source's",                                             \
                      .help = "another kind with its keys, or keys of the source's kind"},    \
    [DELAY] = {.name = "delay", .type = CFG_KEY_SPECIAL, .form = "number or `auto`",          \
               .range = CFG_RANGE_DELAY, .fallback = "the source's", .unit = "s",             \
               .help = "where the wavelet's time zero lies; `auto`: the shot wavelet's own"}, \
    [AMPLITUDE] = {.name = "amplitude", .type = CFG_KEY_NUMBER, .range = CFG_RANGE_SCALE,      \
                   .fallback = "the source's", .help = "scale of the injected wavelet"}

static const cfg_key SHOT_ROWS[] = {
    [PLACE] = {.name = "position", .type = CFG_KEY_SPECIAL, .range = CFG_RANGE_COORDINATE,
               .form = "list of 3, or of 2 with depth", .required = 1, .unit = "m",
               .help = "[x, y, z], or [x, y] with depth"},
    SHOT_CHANGES,
};
static const cfg_table SHOT_KEYS =
    CFG_TABLE("survey.shots[N]", NULL, "Each entry of survey.shots, numbered 1, 2, ... in order.",
              SHOT_ROWS);

static const cfg_key OVERRIDE_ROWS[] = {
    [PLACE] = {.name = "shot", .type = CFG_KEY_SPECIAL, .form = "whole number", .required = 1,
               .help = "the number of the shot it changes (1 .. the number of shots)"},
    SHOT_CHANGES,
};
static const cfg_table OVERRIDE_KEYS =
    CFG_TABLE("survey.overrides[N]", NULL, "Each entry changes only the keys it gives.",
              OVERRIDE_ROWS);

enum { START, STEP, COUNT };

static const cfg_key SHOT_GRID_ROWS[] = {
    [START] = {.name = "start", .type = CFG_KEY_VECTOR, .count = 3, .range = CFG_RANGE_COORDINATE,
               .required = 1, .unit = "m", .help = "the first shot [x, y, z]"},
    [STEP] = {.name = "step", .type = CFG_KEY_VECTOR, .count = 2, .range = CFG_RANGE_SPACING,
              .required = 1, .unit = "m", .help = "[x, y] between shots"},
    [COUNT] = {.name = "count", .type = CFG_KEY_VECTOR, .count = 2, .range = {1, MAX_SHOTS, 0, 0},
               .required = 1, .unit = "shots",
               .help = "[x, y] whole numbers of shots, 1000000 in all at most; x runs fastest"},
};
static const cfg_table SHOT_GRID_KEYS = CFG_TABLE("survey.grid", NULL, NULL, SHOT_GRID_ROWS);

enum { RANKS_PER_SHOT, MOTION, SHOTS, GRID, OVERRIDES };

static const cfg_key SURVEY_ROWS[] = {
    [RANKS_PER_SHOT] = {.name = "ranks_per_shot", .type = CFG_KEY_INTEGER, .lo = 1, .hi = 1 << 20,
                        .fallback = "all ranks, one group", .unit = "ranks",
                        .help = "ranks computing each shot; must divide the rank count"},
    [MOTION] = {.name = "receivers", .type = CFG_KEY_CHOICE, .choices = "fixed|moving",
                .fallback = "fixed", .help = "moving: receivers' x and y are offsets from the shot"},
    [SHOTS] = {.name = "shots", .type = CFG_KEY_SPECIAL, .keys = &SHOT_KEYS,
               .form = "list of shots (survey.shots[N])", .fallback = "give shots or grid",
               .help = "the shots, numbered 1, 2, ... in order"},
    [GRID] = {.name = "grid", .type = CFG_KEY_SPECIAL, .keys = &SHOT_GRID_KEYS,
              .form = "mapping (survey.grid)", .fallback = "give shots or grid",
              .help = "a regular grid of shots"},
    [OVERRIDES] = {.name = "overrides", .type = CFG_KEY_SPECIAL, .keys = &OVERRIDE_KEYS,
                   .form = "list of changes (survey.overrides[N])", .fallback = "none",
                   .help = "changes to numbered shots"},
};
const cfg_table CFG_SURVEY_KEYS =
    CFG_TABLE("survey", NULL, "Optional: a job with it is a survey (surveys.md).", SURVEY_ROWS);

#define NAME(rows, k) (rows[k].name)

static sf_shot_spec *add_shot(sf_survey_config *sv, long *capacity, sf_mark mark)
{
    if (sv->count == *capacity) {
        *capacity = *capacity ? 2 * *capacity : 64;
        sv->shots = realloc(sv->shots, (size_t)*capacity * sizeof *sv->shots);
        if (!sv->shots) sf_fatal("out of memory listing the survey's shots");
    }
    sf_shot_spec *shot = &sv->shots[sv->count++];
    memset(shot, 0, sizeof *shot);
    shot->mark = mark;
    return shot;
}

/* The source keys a shot may change: its wavelet (another kind with its
 * keys, or keys of the same kind), delay (a number or auto), amplitude
 * and depth. Keys given here replace what the shot had (an overrides
 * entry after the shot's own entry); keys not given leave it as it was.
 * A new wavelet replaces shot->wavelet without freeing what was there:
 * the caller owns both. */
static void read_overrides(cfg_reader *r, sf_yaml_node *map, const char *path,
                           const sf_config *c, sf_shot_spec *shot, int *depth_given,
                           double *depth)
{
    sf_wavelet_spec spec;
    if (cfg_read_wavelet(r, map, path, shot->wavelet ? shot->wavelet : &c->source.wavelet,
                         &spec)) {
        shot->wavelet = sf_malloc(sizeof spec, "a shot's wavelet");
        *shot->wavelet = spec;
    } else {
        sf_wavelet_spec_free(&spec);
    }
    const sf_yaml_node *delay = sf_yaml_peek(map, NAME(SHOT_ROWS, DELAY));
    if (cfg_is_auto(delay)) {
        sf_yaml_take(map, NAME(SHOT_ROWS, DELAY));
        shot->delay_auto = 1;
        shot->has_delay = 0;
    } else if (cfg_number(r, map, NAME(SHOT_ROWS, DELAY), path, SHOT_ROWS[DELAY].range, 0,
                          &shot->delay, NULL) > 0) {
        shot->has_delay = 1;
        shot->delay_auto = 0;
    }
    if (cfg_number(r, map, NAME(SHOT_ROWS, AMPLITUDE), path, SHOT_ROWS[AMPLITUDE].range, 0,
                   &shot->amplitude, &shot->amplitude_mark) > 0)
        shot->has_amplitude = 1;
    *depth_given = cfg_number(r, map, NAME(SHOT_ROWS, DEPTH), path, SHOT_ROWS[DEPTH].range, 0,
                              depth, NULL) > 0;
}

/* position [x, y, z], or [x, y] with depth. */
static void read_listed_position(cfg_reader *r, sf_yaml_node *entry, const char *path,
                                 sf_shot_spec *shot, int depth_given, double depth)
{
    char full[96];
    snprintf(full, sizeof full, "%s.%s", path, NAME(SHOT_ROWS, PLACE));
    sf_yaml_node *p = sf_yaml_take(entry, NAME(SHOT_ROWS, PLACE));
    if (!p) {
        cfg_problem(r, entry->line, entry->column, full, "required key is missing");
        return;
    }
    int n = p->kind == SF_YAML_SEQUENCE && p->count == 2 ? 2 : 3;
    if (cfg_vector(r, p, full, n, SHOT_ROWS[PLACE].range, shot->position) <= 0) return;
    if (n == 3 && depth_given)
        cfg_problem(r, p->line, p->column, full,
                    "gives z and the entry gives depth too; give [x, y, z], or [x, y] with depth");
    else if (n == 2 && !depth_given)
        cfg_problem(r, p->line, p->column, full, "[x, y] needs depth; give [x, y, z], or [x, y] "
                    "with depth");
    else if (n == 2)
        shot->position[2] = depth;
}

/* An entry's keys: the table's, its path the entry's own ("survey.shots[3]"). */
static void reject_unknown_entry_keys(cfg_reader *r, const sf_yaml_node *entry, const char *path,
                                      const cfg_table *table, const sf_config *c)
{
    char allowed[640];
    cfg_key_names(table, c, allowed, sizeof allowed);
    cfg_reject_unknown(r, entry, path, allowed);
}

static void read_shot_list(cfg_reader *r, sf_yaml_node *list, sf_config *c, long *cap)
{
    sf_survey_config *sv = &c->survey;
    if (list->kind != SF_YAML_SEQUENCE || list->count == 0) {
        cfg_problem(r, list->line, list->column, "survey.shots",
                    "expected a list of shots, each a mapping such as {position: [x, y, z]}");
        return;
    }
    for (size_t i = 0; i < list->count && sv->count < MAX_SHOTS; ++i) {
        sf_yaml_node *entry = list->items[i];
        char path[48];
        snprintf(path, sizeof path, "survey.shots[%zu]", i);
        if (entry->kind != SF_YAML_MAPPING) {
            cfg_problem(r, entry->line, entry->column, path,
                        "expected a mapping such as {position: [x, y, z], amplitude: 2}");
            continue;
        }
        sf_shot_spec *shot = add_shot(sv, cap, cfg_mark(entry));
        snprintf(shot->where, sizeof shot->where, "%s", path);
        int depth_given = 0;
        double depth = 0.0;
        read_overrides(r, entry, path, c, shot, &depth_given, &depth);
        read_listed_position(r, entry, path, shot, depth_given, depth);
        reject_unknown_entry_keys(r, entry, path, &SHOT_KEYS, c);
    }
}

/* count[0] x count[1] shots from start, x fastest. */
static void read_shot_grid(cfg_reader *r, sf_yaml_node *g, sf_survey_config *sv, long *cap)
{
    double start[3], step[2], count[2];
    sf_mark cmark;
    const cfg_key *k = SHOT_GRID_ROWS;
    int ok = cfg_vector_key(r, g, k[START].name, SHOT_GRID_KEYS.path, 3, k[START].range, 1, start,
                            NULL) > 0;
    ok &= cfg_vector_key(r, g, k[STEP].name, SHOT_GRID_KEYS.path, 2, k[STEP].range, 1, step,
                         NULL) > 0;
    ok &= cfg_vector_key(r, g, k[COUNT].name, SHOT_GRID_KEYS.path, 2, k[COUNT].range, 1, count,
                         &cmark) > 0;
    cfg_reject_unknown_keys(r, g, &SHOT_GRID_KEYS, NULL);
    if (!ok) return;
    if (count[0] != floor(count[0]) || count[1] != floor(count[1]) ||
        count[0] * count[1] > MAX_SHOTS) {
        cfg_problem(r, cmark.line, cmark.column, "survey.grid.count",
                    "counts must be whole numbers with at most %d shots in all", MAX_SHOTS);
        return;
    }
    for (long j = 0; j < (long)count[1]; ++j)
        for (long i = 0; i < (long)count[0]; ++i) {
            sf_shot_spec *shot = add_shot(sv, cap, cfg_mark(g));
            snprintf(shot->where, sizeof shot->where, "survey.grid");
            shot->position[0] = start[0] + (double)i * step[0];
            shot->position[1] = start[1] + (double)j * step[1];
            shot->position[2] = start[2];
        }
}

/* Later changes of numbered shots: {shot: N, amplitude: ..., ...}. */
static void read_override_list(cfg_reader *r, sf_yaml_node *list, sf_config *c)
{
    sf_survey_config *sv = &c->survey;
    if (list->kind != SF_YAML_SEQUENCE) {
        cfg_problem(r, list->line, list->column, "survey.overrides",
                    "expected a list of mappings such as {shot: 3, amplitude: 0.5}");
        return;
    }
    for (size_t i = 0; i < list->count; ++i) {
        sf_yaml_node *entry = list->items[i];
        char path[48];
        snprintf(path, sizeof path, "survey.overrides[%zu]", i);
        if (entry->kind != SF_YAML_MAPPING) {
            cfg_problem(r, entry->line, entry->column, path,
                        "expected a mapping such as {shot: 3, amplitude: 0.5}");
            continue;
        }
        long number = 0;
        int ok = cfg_integer(r, entry, NAME(OVERRIDE_ROWS, PLACE), path, 1,
                             sv->count > 0 ? sv->count : 1, 1, &number, NULL) > 0 && sv->count > 0;
        sf_shot_spec scratch = {0}, *shot = ok ? &sv->shots[number - 1] : &scratch;
        sf_shot_spec given = *shot;
        int depth_given = 0;
        double depth = 0.0;
        read_overrides(r, entry, path, c, &given, &depth_given, &depth);
        reject_unknown_entry_keys(r, entry, path, &OVERRIDE_KEYS, c);
        if (given.wavelet != shot->wavelet) {
            /* The replaced wavelet, or the new one of an entry that names no shot. */
            sf_wavelet_spec *unused = ok ? shot->wavelet : given.wavelet;
            if (unused) sf_wavelet_spec_free(unused);
            free(unused);
        }
        if (!ok) continue;
        if (depth_given) given.position[2] = depth;
        snprintf(given.where, sizeof given.where, "%s", path);
        given.mark = cfg_mark(entry);
        *shot = given;
    }
}

/* Whether ranks_per_shot suits the rank count is for the run (or the check)
 * to say (sf_rank_counts.h): the file alone does not know the count. */
static void read_ranks_per_shot(cfg_reader *r, sf_yaml_node *s, sf_survey_config *sv)
{
    long g = 0;
    const cfg_key *k = &SURVEY_ROWS[RANKS_PER_SHOT];
    if (cfg_integer(r, s, k->name, "survey", k->lo, k->hi, 0, &g, &sv->ranks_mark) > 0)
        sv->ranks_per_shot = (int)g;
}

void cfg_read_survey(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *s = cfg_section(r, root, "survey", "", 0);
    if (!s) return;
    sf_survey_config *sv = &c->survey;
    sv->enabled = 1;
    sv->mark = cfg_mark(s);
    read_ranks_per_shot(r, s, sv);
    int motion = 0;
    if (cfg_choice(r, s, NAME(SURVEY_ROWS, MOTION), "survey", SURVEY_ROWS[MOTION].choices, 0,
                   &motion, NULL) > 0)
        sv->receivers = (sf_receiver_motion)motion;
    long capacity = 0;
    sf_yaml_node *list = sf_yaml_take(s, NAME(SURVEY_ROWS, SHOTS));
    sf_yaml_node *grid = cfg_section(r, s, NAME(SURVEY_ROWS, GRID), "survey", 0);
    if (list && grid)
        cfg_problem(r, grid->line, grid->column, "survey.grid",
                    "give the shots either as a list (shots) or as a grid, not both");
    if (list)
        read_shot_list(r, list, c, &capacity);
    else if (grid)
        read_shot_grid(r, grid, sv, &capacity);
    else if (!sf_yaml_peek(s, NAME(SURVEY_ROWS, GRID)))
        cfg_problem(r, s->line, s->column, "survey",
                    "give the shots, as a list (shots) or as a grid (start, step, count)");
    sf_yaml_node *overrides = sf_yaml_take(s, NAME(SURVEY_ROWS, OVERRIDES));
    if (overrides) read_override_list(r, overrides, c);
    cfg_reject_unknown_keys(r, s, &CFG_SURVEY_KEYS, c);
}

void sf_survey_receiver_position(const sf_config *job, const sf_shot_spec *shot, long q,
                                 double out[3])
{
    const double *r = job->receivers.position[q];
    int moving = job->survey.receivers == SF_RECEIVERS_MOVING;
    out[0] = r[0] + (moving ? shot->position[0] : 0.0);
    out[1] = r[1] + (moving ? shot->position[1] : 0.0);
    out[2] = r[2];
}

static double distance(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

/* The farthest of the receivers listed in `which` (all when NULL) from the
 * shot's source. */
static double farthest_from_shot(const sf_config *job, const sf_shot_spec *shot,
                                 const long *which, long count)
{
    double far = 0.0, r[3];
    for (long i = 0; i < count; ++i) {
        sf_survey_receiver_position(job, shot, which ? which[i] : i, r);
        far = fmax(far, distance(r, shot->position));
    }
    return far;
}

enum { DIRECTIONS = 13, EXACT_PAIRS = 10000000 };

/* The receivers of greatest and least projection on the axes and the face
 * and body diagonals: at most 26 indices into out. */
static long extreme_receivers(const sf_config *job, long out[2 * DIRECTIONS])
{
    static const double d[DIRECTIONS][3] = {
        {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {1, -1, 0}, {1, 0, 1}, {1, 0, -1},
        {0, 1, 1}, {0, 1, -1}, {1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {-1, 1, 1}};
    long n = 0;
    for (int k = 0; k < DIRECTIONS; ++k) {
        long lo = 0, hi = 0;
        double low = INFINITY, high = -INFINITY;
        for (long q = 0; q < job->receivers.count; ++q) {
            const double *r = job->receivers.position[q];
            double x = d[k][0] * r[0] + d[k][1] * r[1] + d[k][2] * r[2];
            if (x < low) low = x, lo = q;
            if (x > high) high = x, hi = q;
        }
        out[n++] = lo, out[n++] = hi;
    }
    return n;
}

double sf_farthest_receiver(const sf_config *job, long *shot_number)
{
    const sf_survey_config *sv = &job->survey;
    const long nrec = job->receivers.count;
    long candidates[2 * DIRECTIONS], ncandidates = nrec;
    const long *which = NULL;
    *shot_number = 1;
    if (!sv->enabled) {
        sf_shot_spec only;
        memset(&only, 0, sizeof only);
        memcpy(only.position, job->source.position, sizeof only.position);
        return farthest_from_shot(job, &only, NULL, nrec);
    }
    if (sv->receivers == SF_RECEIVERS_MOVING) {
        /* Offsets (rx, ry, rz - depth): the distance is convex in the
         * depth, so the shallowest or the deepest shot holds the farthest. */
        long deep = 0, shallow = 0;
        for (long n = 1; n < sv->count; ++n) {
            if (sv->shots[n].position[2] > sv->shots[deep].position[2]) deep = n;
            if (sv->shots[n].position[2] < sv->shots[shallow].position[2]) shallow = n;
        }
        double a = farthest_from_shot(job, &sv->shots[shallow], NULL, nrec);
        double b = farthest_from_shot(job, &sv->shots[deep], NULL, nrec);
        *shot_number = (a >= b ? shallow : deep) + 1;
        return fmax(a, b);
    }
    if ((double)sv->count * (double)nrec > EXACT_PAIRS) {
        ncandidates = extreme_receivers(job, candidates);
        which = candidates;
    }
    double far = 0.0;
    for (long n = 0; n < sv->count; ++n) {
        double d = farthest_from_shot(job, &sv->shots[n], which, ncandidates);
        if (d > far) far = d, *shot_number = n + 1;
    }
    return far;
}

const sf_wavelet_spec *sf_shot_wavelet(const sf_config *job, long index)
{
    const sf_wavelet_spec *own = job->survey.enabled ? job->survey.shots[index].wavelet : NULL;
    return own ? own : &job->source.wavelet;
}

const sf_wavelet_spec *sf_widest_band_wavelet(const sf_config *job, long *shot_number)
{
    const sf_wavelet_spec *top = &job->source.wavelet;
    *shot_number = 1;
    for (long n = 0; job->survey.enabled && n < job->survey.count; ++n) {
        const sf_wavelet_spec *w = sf_shot_wavelet(job, n);
        if (n == 0 || w->built->upper_frequency > top->built->upper_frequency)
            top = w, *shot_number = n + 1;
    }
    return top;
}

double sf_highest_band_edge(const sf_config *job, double fraction)
{
    /* A survey's source section is only the shots' default: its shots
     * alone count. */
    const sf_wavelet *last = sf_shot_wavelet(job, 0)->built;
    double top = sf_wavelet_band_edge(last, fraction);
    for (long n = 1; job->survey.enabled && n < job->survey.count; ++n) {
        const sf_wavelet *w = sf_shot_wavelet(job, n)->built;
        if (w != last) top = fmax(top, sf_wavelet_band_edge(w, fraction));
        last = w;
    }
    return top;
}

/* A shot as messages name it: "shot 3 (survey.shots[2])". */
static void shot_name(const sf_shot_spec *shot, long number, char *out, size_t len)
{
    snprintf(out, len, "shot %ld (%s)", number, shot->where);
}

/* The box of the receivers' positions (offsets, with moving receivers). */
static void receiver_box(const sf_config *c, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; ++a) lo[a] = INFINITY, hi[a] = -INFINITY;
    for (long q = 0; q < c->receivers.count; ++q)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], c->receivers.position[q][a]);
            hi[a] = fmax(hi[a], c->receivers.position[q][a]);
        }
}

/* Are some of shot's moving receivers outside the grid? Exactly when a
 * corner of their box is: the grid is a box too. */
static int box_outside(const sf_config *c, const sf_shot_spec *shot, const double lo[3],
                       const double hi[3])
{
    char why[256];
    double corner[2][3] = {{lo[0] + shot->position[0], lo[1] + shot->position[1], lo[2]},
                           {hi[0] + shot->position[0], hi[1] + shot->position[1], hi[2]}};
    return cfg_outside_grid(c, corner[0], why, sizeof why) ||
           cfg_outside_grid(c, corner[1], why, sizeof why);
}

/* The first of shot's moving receivers outside the grid, and why. */
static long first_outside(const sf_config *c, const sf_shot_spec *shot, double p[3], char *why,
                          size_t len)
{
    long q = 0;
    for (; q < c->receivers.count; ++q) {
        sf_survey_receiver_position(c, shot, q, p);
        if (cfg_outside_grid(c, p, why, len)) break;
    }
    return q;
}

/* Shots named one by one in the messages; the others are counted in one
 * more line, so a million shots outside make a short report. */
enum { SHOTS_NAMED = 10 };

static void report_shot(cfg_reader *r, const sf_config *c, const sf_shot_spec *shot, long n)
{
    char why[256], name[96];
    double p[3];
    if (cfg_outside_grid(c, shot->position, why, sizeof why)) {
        cfg_problem(r, shot->mark.line, shot->mark.column, shot->where,
                    "shot %ld at (%g, %g, %g) m: %s", n + 1, shot->position[0], shot->position[1],
                    shot->position[2], why);
        return;
    }
    shot_name(shot, n + 1, name, sizeof name);
    long q = first_outside(c, shot, p, why, sizeof why);
    cfg_problem(r, c->receivers.mark.line, c->receivers.mark.column, "receivers",
                "%s: receiver %ld at (%.9g, %.9g, %.9g) m (moving with the shot): %s", name, q,
                p[0], p[1], p[2], why);
}

/* Each shot's source inside the grid; with moving receivers each of its
 * receivers too (the first outside is named, one message per shot). The
 * receivers' box makes this one pass over the shots and one over the
 * receivers, not their product. */
void cfg_check_survey_geometry(cfg_reader *r, const sf_config *c, int receivers_ok)
{
    const sf_survey_config *sv = &c->survey;
    const int moving = sv->receivers == SF_RECEIVERS_MOVING && receivers_ok;
    double lo[3], hi[3];
    if (moving) receiver_box(c, lo, hi);
    long outside = 0;
    for (long n = 0; n < sv->count; ++n) {
        const sf_shot_spec *shot = &sv->shots[n];
        char why[256];
        if (!cfg_outside_grid(c, shot->position, why, sizeof why) &&
            !(moving && box_outside(c, shot, lo, hi)))
            continue;
        if (++outside <= SHOTS_NAMED) report_shot(r, c, shot, n);
    }
    long more = outside - SHOTS_NAMED;
    if (more <= 0) return;
    r->problems += more - 1;   /* the line below counts the last */
    cfg_problem(r, sv->mark.line, sv->mark.column, "survey",
                "%ld more shot%s lie outside the grid or have receivers outside it (the first %d "
                "are named above)", more, more == 1 ? "" : "s", SHOTS_NAMED);
}
