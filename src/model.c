#include "sf_model.h"
#include "sf_error.h"
#include "sf_model_sampling.h"
#include "sf_raw_io.h"
#include "sf_volume.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char reason_text[512];

static double layered_velocity(const sf_model_config *m, double depth)
{
    double v = m->layers[0].vp;
    for (int l = 0; l < m->nlayers && m->layers[l].top <= depth; ++l) v = m->layers[l].vp;
    return v;
}

/* Ends the run when a step failed on any rank, with the message of the
 * lowest failing rank, pointing at the job file's model.path. */
static void fail_if_any(const sf_config *c, const sf_slab *slab, int failed, const char *reason)
{
    int mine = failed ? slab->rank : INT_MAX, first;
    SF_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, slab->comm), "model errors");
    if (first == INT_MAX) return;
    reason_text text;
    snprintf(text, sizeof text, "%s", reason);
    SF_MPI_CHECK(MPI_Bcast(text, sizeof text, MPI_CHAR, first, slab->comm), "model errors");
    sf_config_report(c, c->model.path_mark, "model.path: %s", text);
    sf_exit_collective();
}

static void raw_shape(const sf_config *c, const sf_slab *slab, sf_volume_grid *g)
{
    const sf_model_config *mc = &c->model;
    memcpy(g->n, mc->dims, sizeof g->n);
    snprintf(g->name, sizeof g->name, "%s", mc->path);
    reason_text reason = "";
    long long expected = (long long)g->n[0] * g->n[1] * g->n[2] * (long long)sizeof(float);
    long long size = slab->rank == 0 ? sf_raw_file_size(mc->path, reason, sizeof reason) : 0;
    SF_MPI_CHECK(MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, slab->comm), "sharing the model size");
    if (size >= 0 && size != expected)
        snprintf(reason, sizeof reason, "'%s' holds %lld bytes, but dims %ld x %ld x %ld of float32 "
                 "need %lld", mc->path, size, g->n[0], g->n[1], g->n[2], expected);
    else if (size < 0) {
        char why[256];
        snprintf(why, sizeof why, "%s", reason);
        snprintf(reason, sizeof reason, "cannot read '%s': %s", mc->path, why);
    }
    fail_if_any(c, slab, slab->rank == 0 && size != expected, reason);
}

/* SEG-Y headers are read once, on rank 0, and shared. */
static void segy_shape(const sf_config *c, const sf_slab *slab, sf_volume_grid *g)
{
    const sf_model_config *mc = &c->model;
    reason_text reason = "";
    int failed = 0;
    if (slab->rank == 0)
        failed = sf_segy_volume_shape(mc->path, mc->dims[0] ? mc->dims : NULL, g, reason,
                                      sizeof reason) != 0;
    fail_if_any(c, slab, failed, reason);
    SF_MPI_CHECK(MPI_Bcast(g, sizeof *g, MPI_BYTE, 0, slab->comm), "sharing the model shape");
}

static void file_shape(const sf_config *c, const sf_slab *slab, sf_volume_grid *g)
{
    const sf_model_config *mc = &c->model;
    reason_text reason = "";
    memset(g, 0, sizeof *g);
    switch (mc->kind) {
    case SF_MODEL_RAW: raw_shape(c, slab, g); break;
    case SF_MODEL_SEGY: segy_shape(c, slab, g); break;
    default:
        fail_if_any(c, slab, sf_hdf5_volume_shape(mc->path, mc->dataset, slab->comm, g, reason,
                                                  sizeof reason) != 0,
                    reason);
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

static void check_coverage(const sf_config *c, const sf_volume_grid *g)
{
    static const char axis[3] = {'x', 'y', 'z'};
    if (c->model.extend) return;
    for (int a = 0; a < 3; ++a) {
        if (g->n[a] == 1) continue;
        double lo = g->origin[a], hi = lo + (double)(g->n[a] - 1) * g->spacing[a];
        double glo = c->origin[a], ghi = glo + (double)(c->n[a] - 1) * c->spacing[a];
        double tol = 1e-6 * g->spacing[a];
        if (glo >= lo - tol && ghi <= hi + tol) continue;
        sf_mark mark = c->model.origin_given ? c->model.origin_mark : c->model.path_mark;
        sf_config_report(c, mark, "model: '%s' covers %c = %g .. %g m, but the grid spans %c = %g "
                         ".. %g m; move or enlarge the model (model.origin, model.spacing) or set "
                         "model.extend: true to repeat its edge values outward",
                         g->name, axis[a], lo, hi, axis[a], glo, ghi);
        sf_exit_collective();
    }
}

static void read_planes(const sf_config *c, const sf_slab *slab, const sf_volume_grid *g, long k0,
                        long nk, float *out)
{
    const sf_model_config *mc = &c->model;
    reason_text reason = "";
    int failed = 0;
    switch (mc->kind) {
    case SF_MODEL_RAW:
        failed = nk > 0 && sf_raw_read_planes(mc->path, g->n[0], g->n[1], k0, nk, mc->endian, out,
                                              reason, sizeof reason) != 0;
        break;
    case SF_MODEL_SEGY:
        failed = sf_segy_volume_read(mc->path, g, k0, nk, out, reason, sizeof reason) != 0;
        break;
    default:
        failed = sf_hdf5_volume_read(mc->path, mc->dataset, slab->comm, g, k0, nk, out, reason,
                                     sizeof reason) != 0;
    }
    fail_if_any(c, slab, failed, reason);
}

/* Reports the first velocity outside the accepted range, by its index in
 * the model file, over all ranks. */
static void check_values(const sf_config *c, const sf_slab *slab, const sf_volume_grid *g,
                         const float *planes, long k0, long nk)
{
    const double lo = c->model.vp_range[0], hi = c->model.vp_range[1];
    const long plane = g->n[0] * g->n[1];
    long bad_local = LONG_MAX;
    for (long n = 0; n < plane * nk; ++n)
        if (!(planes[n] >= lo && planes[n] <= hi)) {  /* NaN fails both */
            bad_local = k0 * plane + n;
            break;
        }
    long bad;
    SF_MPI_CHECK(MPI_Allreduce(&bad_local, &bad, 1, MPI_LONG, MPI_MIN, slab->comm),
                 "checking model values");
    if (bad == LONG_MAX) return;
    int mine = bad == bad_local ? slab->rank : INT_MAX, owner;
    SF_MPI_CHECK(MPI_Allreduce(&mine, &owner, 1, MPI_INT, MPI_MIN, slab->comm), "model values");
    float value = bad == bad_local ? planes[bad - k0 * plane] : 0.0f;
    SF_MPI_CHECK(MPI_Bcast(&value, 1, MPI_FLOAT, owner, slab->comm), "reporting a model value");
    long k = bad / plane, j = (bad % plane) / g->n[0], i = bad % g->n[0];
    sf_config_report(c, c->model.path_mark,
                     "model.path: model file '%s': vp at index (i=%ld, j=%ld, k=%ld) is %g; "
                     "velocities must be finite and within %g..%g m/s (model.vp_range)",
                     g->name, i, j, k, value, lo, hi);
    sf_exit_collective();
}

/* Reads the model planes this slab needs and samples them onto its planes. */
static void build_from_file(sf_model *m, const sf_config *c, const sf_slab *slab)
{
    sf_volume_grid g;
    file_shape(c, slab, &g);
    check_coverage(c, &g);
    long k0, k1;
    sf_model_plane_range(&g, c, slab->z0, slab->nz, &k0, &k1);
    size_t count = (size_t)g.n[0] * (size_t)g.n[1] * (size_t)(k1 - k0);
    float *planes = sf_malloc(count * sizeof(float), "the model planes of this slab");
    read_planes(c, slab, &g, k0, k1 - k0, planes);
    check_values(c, slab, &g, planes, k0, k1 - k0);
    sf_model_resample(&g, planes, k0, c, slab->z0, slab->nz, m->vp);
    free(planes);
}

void sf_model_build(sf_model *m, const sf_config *c, const sf_slab *slab)
{
    long nx = c->n[0], ny = c->n[1], plane = nx * ny;
    m->vp = sf_malloc((size_t)plane * (size_t)slab->nz * sizeof(float), "the velocity model");
    switch (c->model.kind) {
    case SF_MODEL_HOMOGENEOUS:
        for (long n = 0; n < plane * slab->nz; ++n) m->vp[n] = (float)c->model.vp;
        break;
    case SF_MODEL_LAYERED:
        for (long k = 0; k < slab->nz; ++k) {
            double depth = c->origin[2] + (double)(slab->z0 + k) * c->spacing[2];
            float v = (float)layered_velocity(&c->model, depth);
            for (long n = 0; n < plane; ++n) m->vp[k * plane + n] = v;
        }
        break;
    default:
        build_from_file(m, c, slab);
    }
    double lo = INFINITY, hi = -INFINITY;
    for (long n = 0; n < plane * slab->nz; ++n) {
        if (m->vp[n] < lo) lo = m->vp[n];
        if (m->vp[n] > hi) hi = m->vp[n];
    }
    SF_MPI_CHECK(MPI_Allreduce(&lo, &m->vmin, 1, MPI_DOUBLE, MPI_MIN, slab->comm), "model min");
    SF_MPI_CHECK(MPI_Allreduce(&hi, &m->vmax, 1, MPI_DOUBLE, MPI_MAX, slab->comm), "model max");
}

void sf_model_free(sf_model *m)
{
    free(m->vp);
    m->vp = NULL;
}
