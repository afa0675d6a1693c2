#include "sf_model.h"
#include "sf_error.h"
#include "sf_file_read.h"
#include "sf_memory_check.h"
#include "sf_model_sampling.h"
#include "sf_plane_volume.h"
#include "sf_raw_io.h"
#include "sf_simulation.h"
#include "sf_volume.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char reason_text[512];

static double layered_value(const sf_model_config *m, int p, double depth)
{
    double v = m->layers[0].value[p];
    for (int l = 0; l < m->nlayers && m->layers[l].top <= depth; ++l) v = m->layers[l].value[p];
    return v;
}

/* What physics declares of its parameter p (its index). */
static const sf_parameter_declaration *declared(const sf_config *c, int p)
{
    return sf_config_physics(c)->param[p];
}

/* The job-file key naming parameter p's file, for messages. */
static void path_key(const sf_config *c, int p, char *key, size_t len)
{
    if (sf_config_physics(c)->nparams > 1 && c->model.kind != SF_MODEL_HDF5)
        snprintf(key, len, "model.paths.%s", declared(c, p)->name);
    else
        snprintf(key, len, "model.path");
}

/* Ends the run when a step failed on any rank, with the message of the
 * lowest failing rank, pointing at the job file's key for p's file. */
static void fail_if_any(const sf_config *c, int p, const sf_slab *slab, int failed,
                        const char *reason)
{
    reason_text text;
    snprintf(text, sizeof text, "%s", reason);
    if (sf_first_flagged_rank(slab->comm, failed, text, sizeof text, "model errors") < 0) return;
    char key[64];
    path_key(c, p, key, sizeof key);
    sf_config_report(c, c->model.path_mark[p], "%s: %s", key, text);
    sf_exit_collective();
}

static void raw_shape(const sf_config *c, int p, const sf_slab *slab, sf_volume_grid *g)
{
    const sf_model_config *mc = &c->model;
    const char *path = mc->path[p];
    memcpy(g->n, mc->dims, sizeof g->n);
    snprintf(g->name, sizeof g->name, "%s", path);
    reason_text reason = "";
    long long expected = (long long)g->n[0] * g->n[1] * g->n[2] * (long long)sizeof(float);
    long long size = slab->rank == 0 ? sf_file_size(path, reason, sizeof reason) : 0;
    SF_MPI_CHECK(MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, slab->comm), "sharing the model size");
    if (size >= 0 && size != expected)
        snprintf(reason, sizeof reason, "'%s' holds %lld bytes, but dims %ld x %ld x %ld of float32 "
                 "need %lld", path, size, g->n[0], g->n[1], g->n[2], expected);
    else if (size < 0) {
        char why[256];
        snprintf(why, sizeof why, "%s", reason);
        snprintf(reason, sizeof reason, "cannot read '%s': %s", path, why);
    }
    fail_if_any(c, p, slab, slab->rank == 0 && size != expected, reason);
}

/* SEG-Y and HDF5 headers are read once, on rank 0, and shared. */
static void header_shape(const sf_config *c, int p, const sf_slab *slab,
                         sf_volume_grid *g)
{
    const sf_model_config *mc = &c->model;
    reason_text reason = "";
    int failed = 0;
    if (slab->rank == 0 && mc->kind == SF_MODEL_SEGY)
        failed = sf_segy_volume_shape(mc->path[p], mc->dims[0] ? mc->dims : NULL, g, reason,
                                      sizeof reason) != 0;
    else if (slab->rank == 0)
        failed = sf_hdf5_volume_shape(mc->path[p], mc->dataset[p], g, reason, sizeof reason) != 0;
    fail_if_any(c, p, slab, failed, reason);
    SF_MPI_CHECK(MPI_Bcast(g, sizeof *g, MPI_BYTE, 0, slab->comm), "sharing the model shape");
}

static void file_shape(const sf_config *c, int p, const sf_slab *slab, sf_volume_grid *g)
{
    const sf_model_config *mc = &c->model;
    reason_text reason = "";
    memset(g, 0, sizeof *g);
    if (mc->kind == SF_MODEL_RAW)
        raw_shape(c, p, slab, g);
    else
        header_shape(c, p, slab, g);
    static const char axis[3] = {'x', 'y', 'z'};
    for (int a = 0; a < 3; ++a)
        if (g->n[a] < 1 || g->n[a] > SF_MAX_AXIS_POINTS) {
            snprintf(reason, sizeof reason, "model file '%.300s' holds %ld x %ld x %ld samples; a "
                     "model has 1 .. %d along each axis (%c here)", g->name, g->n[0], g->n[1],
                     g->n[2], SF_MAX_AXIS_POINTS, axis[a]);
            fail_if_any(c, p, slab, 1, reason);
        }
    /* The job's keys win over the file's attributes; the simulation grid's
     * origin and spacing are the last resort. */
    for (int a = 0; a < 3; ++a) {
        g->origin[a] = mc->origin_given ? mc->origin[a] : g->has_origin ? g->origin[a] : c->origin[a];
        g->spacing[a] = mc->spacing_given ? mc->spacing[a]
                        : g->has_spacing  ? g->spacing[a]
                                          : c->spacing[a];
    }
}

static void check_coverage(const sf_config *c, int p, const sf_volume_grid *g)
{
    static const char axis[3] = {'x', 'y', 'z'};
    if (c->model.extend) return;
    for (int a = 0; a < 3; ++a) {
        if (g->n[a] == 1) continue;
        double lo = g->origin[a], hi = lo + (double)(g->n[a] - 1) * g->spacing[a];
        double glo = c->origin[a], ghi = glo + (double)(c->n[a] - 1) * c->spacing[a];
        double tol = 1e-6 * g->spacing[a];
        if (glo >= lo - tol && ghi <= hi + tol) continue;
        sf_mark mark = c->model.origin_given ? c->model.origin_mark : c->model.path_mark[p];
        sf_config_report(c, mark, "model: '%s' covers %c = %g .. %g m, but the grid spans %c = %g "
                         ".. %g m; move or enlarge the model (model.origin, model.spacing) or set "
                         "model.extend: true to repeat its edge values outward",
                         g->name, axis[a], lo, hi, axis[a], glo, ghi);
        sf_exit_collective();
    }
}

static void read_planes(const sf_config *c, int p, const sf_slab *slab,
                        const sf_volume_grid *g, long k0, long nk, float *out)
{
    const sf_model_config *mc = &c->model;
    reason_text reason = "";
    int failed = 0;
    switch (mc->kind) {
    case SF_MODEL_RAW:
        failed = nk > 0 && sf_raw_read_planes(mc->path[p], 0, g->n[0], g->n[1], k0, nk, mc->endian,
                                              out, reason, sizeof reason) != 0;
        break;
    case SF_MODEL_SEGY:
        failed = sf_segy_volume_read(mc->path[p], g, k0, nk, out, reason, sizeof reason) != 0;
        break;
    default:
        failed = sf_hdf5_volume_read(mc->path[p], mc->dataset[p], g, k0, nk, out, reason,
                                     sizeof reason) != 0;
    }
    fail_if_any(c, p, slab, failed, reason);
}

/* The lowest index any rank flags (LONG_MAX: none) and, broadcast from
 * the rank that flagged it, the `count` values it filled in for it. */
static long lowest_flagged(const sf_slab *slab, long local, float *values, int count,
                           const char *what)
{
    long lowest;
    SF_MPI_CHECK(MPI_Allreduce(&local, &lowest, 1, MPI_LONG, MPI_MIN, slab->comm), what);
    if (lowest == LONG_MAX) return lowest;
    int mine = lowest == local ? slab->rank : INT_MAX, owner;
    SF_MPI_CHECK(MPI_Allreduce(&mine, &owner, 1, MPI_INT, MPI_MIN, slab->comm), what);
    SF_MPI_CHECK(MPI_Bcast(values, count, MPI_FLOAT, owner, slab->comm), what);
    return lowest;
}

/* The least and greatest of values[n] on this rank. */
typedef struct {
    double min, max;
} value_range;

static value_range local_range(const float *values, long n)
{
    double lo = INFINITY, hi = -INFINITY;
    #pragma omp parallel for reduction(min : lo) reduction(max : hi) schedule(static)
    for (long i = 0; i < n; ++i) {
        if (values[i] < lo) lo = values[i];
        if (values[i] > hi) hi = values[i];
    }
    return (value_range){lo, hi};
}

/* Reports the first value outside the accepted range, by its index in the
 * model file, over all ranks. The planes' own range comes in the same pass:
 * on a file read straight into the slab it is the model's. */
static value_range check_values(const sf_config *c, int p, const sf_slab *slab,
                                const sf_volume_grid *g, const float *planes, long k0, long nk)
{
    const double lo = c->model.range[p][0], hi = c->model.range[p][1];
    const long plane = g->n[0] * g->n[1];
    long first_bad = LONG_MAX;
    double least = INFINITY, greatest = -INFINITY;
    #pragma omp parallel for reduction(min : first_bad, least) reduction(max : greatest) \
        schedule(static)
    for (long n = 0; n < plane * nk; ++n) {
        const float v = planes[n];
        if (n < first_bad && !(v >= lo && v <= hi)) first_bad = n;  /* NaN fails both */
        if (v < least) least = v;
        if (v > greatest) greatest = v;
    }
    const long bad_local = first_bad == LONG_MAX ? LONG_MAX : k0 * plane + first_bad;
    float value = bad_local != LONG_MAX ? planes[bad_local - k0 * plane] : 0.0f;
    const long bad = lowest_flagged(slab, bad_local, &value, 1, "checking model values");
    if (bad == LONG_MAX) return (value_range){least, greatest};
    long k = bad / plane, j = (bad % plane) / g->n[0], i = bad % g->n[0];
    char key[64];
    path_key(c, p, key, sizeof key);
    const sf_parameter_declaration *q = declared(c, p);
    sf_config_report(c, c->model.path_mark[p],
                     "%s: model file '%s': %s at index (i=%ld, j=%ld, k=%ld) is %g; "
                     "%s must be finite and within %g..%g%s%s (model.%s_range)",
                     key, g->name, q->name, i, j, k, value, q->values, lo, hi,
                     *q->unit ? " " : "", q->unit, q->name);
    sf_exit_collective();
    return (value_range){0.0, 0.0};
}

/* Reads the model planes this slab needs and samples them onto its planes;
 * returns the range of the slab's values. */
static value_range build_from_file(float *out, const sf_config *c, int p, const sf_slab *slab)
{
    const sf_interpolation how = declared(c, p)->resampling == SF_RESAMPLE_NEAREST
                                     ? SF_INTERP_NEAREST
                                     : c->model.interpolation;
    sf_volume_grid g;
    file_shape(c, p, slab, &g);
    check_coverage(c, p, &g);
    long k0, k1;
    sf_model_plane_range(&g, c, how, slab->z0, slab->nz, &k0, &k1);
    /* A file on the grid itself is read straight into the slab's planes:
     * no second copy of them, and no sampling pass. */
    if (sf_model_sampling_is_copy(&g, c, how, slab->z0, slab->nz)) {
        read_planes(c, p, slab, &g, k0, k1 - k0, out);
        return check_values(c, p, slab, &g, out, k0, k1 - k0);
    }
    size_t count = (size_t)g.n[0] * (size_t)g.n[1] * (size_t)(k1 - k0);
    /* A model file's planes can be larger than the grid's: failing to
     * hold them is the file's problem, reported as such on every rank. The
     * size is weighed before it is asked for, since a request far beyond
     * the node's memory may be granted lazily (and killed later) or abort
     * under a sanitizer rather than fail. */
    double bytes = (double)g.n[0] * (double)g.n[1] * (double)(k1 - k0) * sizeof(float);
    double available = sf_memory_node_available();
    float *planes = available > 0.0 && bytes > available ? NULL : malloc(count * sizeof(float));
    reason_text reason = "";
    if (!planes)
        snprintf(reason, sizeof reason, "model file '%.300s': the %ld planes of %ld x %ld samples "
                 "this rank samples from need %.3g GiB, more than it can allocate", g.name,
                 k1 - k0, g.n[0], g.n[1], bytes / 1073741824.0);
    fail_if_any(c, p, slab, !planes, reason);
    read_planes(c, p, slab, &g, k0, k1 - k0, planes);
    check_values(c, p, slab, &g, planes, k0, k1 - k0);
    sf_model_resample(&g, planes, k0, c, how, slab->z0, slab->nz, out);
    free(planes);
    return local_range(out, c->n[0] * c->n[1] * slab->nz);
}

/* Are the model's values the job's own (homogeneous or layered), each
 * checked where the job gives it? */
static int values_from_job(const sf_model_config *mc)
{
    return mc->kind == SF_MODEL_HOMOGENEOUS || mc->kind == SF_MODEL_LAYERED;
}

/* The job's own value of parameter p in each of the slab's planes, and
 * their range. */
static sf_plane_volume values_of_planes(const sf_config *c, int p, const sf_slab *slab,
                                       value_range *range)
{
    float *values = sf_malloc((size_t)slab->nz * sizeof(float), "the model's plane values");
    *range = (value_range){INFINITY, -INFINITY};
    for (long k = 0; k < slab->nz; ++k) {
        double depth = c->origin[2] + (double)(slab->z0 + k) * c->spacing[2];
        values[k] = (float)(c->model.kind == SF_MODEL_HOMOGENEOUS ? c->model.value[p]
                                                                  : layered_value(&c->model, p, depth));
        range->min = fmin(range->min, values[k]);
        range->max = fmax(range->max, values[k]);
    }
    sf_plane_volume v = sf_plane_volume_of_values(values, slab->nz, c->n[0] * c->n[1], "the model");
    free(values);
    return v;
}

/* Builds parameter p on the slab's planes and finds its range over all
 * ranks in the same pass. */
static sf_plane_volume build_parameter(const sf_config *c, int p, const sf_slab *slab, double *min,
                                       double *max)
{
    sf_plane_volume out = {NULL, 0, 0};
    value_range range;
    if (values_from_job(&c->model)) {
        out = values_of_planes(c, p, slab, &range);
    } else {
        const size_t plane = (size_t)c->n[0] * (size_t)c->n[1];
        out.data = sf_malloc(plane * (size_t)slab->nz * sizeof(float), "the model");
        range = build_from_file(out.data, c, p, slab);
    }
    SF_MPI_CHECK(MPI_Allreduce(&range.min, min, 1, MPI_DOUBLE, MPI_MIN, slab->comm), "model min");
    SF_MPI_CHECK(MPI_Allreduce(&range.max, max, 1, MPI_DOUBLE, MPI_MAX, slab->comm), "model max");
    return out;
}

/* A grid point whose values the physics cannot run (sf_config_point_problem)
 * ends the run, naming the lowest such point over all ranks. Model files
 * only: the layer and homogeneous values were checked with the job (a
 * pass over a 1024^3 VTI model's points took 0.46 s on 16 cores). */
static void check_points(const sf_model *m, const sf_config *c, const sf_slab *slab)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    if (!d->point_problem) return;   /* each value alone was checked against its range */
    const long plane = c->n[0] * c->n[1];
    long first_bad = LONG_MAX;   /* local index */
    /* Neighbouring points mostly hold the same values: a thread judges
     * values only where they differ from the last it judged good. */
    #pragma omp parallel reduction(min : first_bad)
    {
        double last[SF_MAX_PARAMS] = {0};
        int judged = 0;
        #pragma omp for schedule(static)
        for (long n = 0; n < plane * slab->nz; ++n) {
            double value[SF_MAX_PARAMS] = {0};
            int same = judged;
            for (int q = 0; q < d->nparams; ++q) {
                value[q] = m->param[q][n];
                same &= value[q] == last[q];
            }
            if (same || n > first_bad) continue;
            char text[256];
            if (d->point_problem(value, text, sizeof text)) {
                first_bad = n;
                continue;
            }
            memcpy(last, value, sizeof last);
            judged = 1;
        }
    }
    long bad_local = LONG_MAX;
    float values[SF_MAX_PARAMS] = {0};
    if (first_bad != LONG_MAX) {
        bad_local = slab->z0 * plane + first_bad;
        for (int q = 0; q < d->nparams; ++q) values[q] = m->param[q][first_bad];
    }
    const long bad = lowest_flagged(slab, bad_local, values, d->nparams, "checking model points");
    if (bad == LONG_MAX) return;
    long k = bad / plane, j = (bad % plane) / c->n[0], i = bad % c->n[0];
    double value[SF_MAX_PARAMS] = {0};
    for (int q = 0; q < d->nparams; ++q) value[q] = values[q];
    char text[256];
    sf_config_point_problem(c, value, text, sizeof text);
    sf_config_report(c, c->model.path_mark[sf_config_point_key(c)],
                     "model: at grid point (i=%ld, j=%ld, k=%ld), (%g, %g, %g) m, %s", i, j, k,
                     c->origin[0] + (double)i * c->spacing[0],
                     c->origin[1] + (double)j * c->spacing[1],
                     c->origin[2] + (double)k * c->spacing[2], text);
    sf_exit_collective();
}

sf_model_points sf_model_points_of(const sf_model *m, const sf_config *c, const sf_slab *slab)
{
    const int nparams = sf_config_physics(c)->nparams;
    const long plane = c->n[0] * c->n[1];
    sf_model_points points = {.count = plane * slab->nz, .plane = 1};
    if (!values_from_job(&c->model)) {
        for (int p = 0; p < nparams; ++p) points.param[p] = m->param[p];
        return points;
    }
    points.count = slab->nz;
    points.plane = plane;
    points.copies = sf_malloc((size_t)nparams * (size_t)slab->nz * sizeof(float), "the model's plane values");
    for (int p = 0; p < nparams; ++p) {
        float *values = points.copies + (size_t)p * (size_t)slab->nz;
        for (long k = 0; k < slab->nz; ++k) values[k] = m->param[p][k * plane];
        points.param[p] = values;
    }
    return points;
}

sf_plane_volume sf_model_points_volume(const sf_model_points *points, float *values, const char *what)
{
    if (points->plane == 1) return (sf_plane_volume){values, 0, 0};
    sf_plane_volume v = sf_plane_volume_of_values(values, points->count, points->plane, what);
    free(values);
    return v;
}

void sf_model_points_free(sf_model_points *points)
{
    free(points->copies);
    points->copies = NULL;
}

/* The physics' wave speeds over the slab's distinct points (a pass over
 * every point of a 1024^3 VTI model took 0.2 s on 16 cores). */
static void find_wave_speeds(sf_model *m, const sf_config *c, const sf_slab *slab)
{
    sf_model_points points = sf_model_points_of(m, c, slab);
    sf_model at = *m;
    for (int p = 0; p < SF_MAX_PARAMS; ++p) at.param[p] = (float *)points.param[p];
    sf_physics_of(c->physics)->wave_speeds(&at, c, points.count, slab->comm);
    m->vmax = at.vmax;
    m->slowest = at.slowest;
    sf_model_points_free(&points);
}

void sf_model_build(sf_model *m, const sf_config *c, const sf_slab *slab)
{
    memset(m, 0, sizeof *m);
    const sf_physics_declaration *d = sf_config_physics(c);
    for (int p = 0; p < d->nparams; ++p) {
        m->volume[p] = build_parameter(c, p, slab, &m->min[p], &m->max[p]);
        m->param[p] = m->volume[p].data;
    }
    if (!values_from_job(&c->model)) check_points(m, c, slab);
    else m->first_equal_plane = sf_first_equal_planes((const float *const *)m->param, d->nparams,
                                                      slab->nz, c->n[0] * c->n[1]);
    find_wave_speeds(m, c, slab);
}

double sf_model_fastest_wave_of_values(const sf_config *c)
{
    const sf_model_config *mc = &c->model;
    if (!values_from_job(mc)) return NAN;
    const sf_physics_declaration *d = sf_config_physics(c);
    const long count = mc->kind == SF_MODEL_LAYERED ? mc->nlayers : 1;
    sf_model m;
    memset(&m, 0, sizeof m);
    for (int p = 0; p < d->nparams; ++p) {
        m.volume[p].data = m.param[p] = sf_malloc((size_t)count * sizeof(float), "the model's values");
        m.min[p] = INFINITY;
        m.max[p] = -INFINITY;
        for (long n = 0; n < count; ++n) {
            float v = (float)(mc->kind == SF_MODEL_LAYERED ? mc->layers[n].value[p] : mc->value[p]);
            m.param[p][n] = v;
            m.min[p] = fmin(m.min[p], v);
            m.max[p] = fmax(m.max[p], v);
        }
    }
    sf_physics_of(c->physics)->wave_speeds(&m, c, count, MPI_COMM_SELF);
    double fastest = m.vmax;
    sf_model_free(&m);
    return fastest;
}

void sf_model_free(sf_model *m)
{
    for (int p = 0; p < SF_MAX_PARAMS; ++p) sf_plane_volume_free(&m->volume[p]);
    free(m->first_equal_plane);
    memset(m, 0, sizeof *m);
}
