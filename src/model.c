#include "sf_model.h"
#include "sf_error.h"
#include "sf_raw_io.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { VP_MIN = 10, VP_MAX = 20000 };  /* the range the job file accepts */

static double layered_velocity(const sf_model_config *m, double depth)
{
    double v = m->layers[0].vp;
    for (int l = 0; l < m->nlayers && m->layers[l].top <= depth; ++l) v = m->layers[l].vp;
    return v;
}

static void read_raw(const sf_config *c, const sf_slab *slab, float *vp)
{
    char reason[256] = "";
    long long expected = (long long)c->n[0] * c->n[1] * c->n[2] * (long long)sizeof(float);
    long long size = 0;
    if (slab->rank == 0) size = sf_raw_file_size(c->model.path, reason, sizeof reason);
    SF_MPI_CHECK(MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, slab->comm), "sharing the model size");
    if (size < 0)
        sf_fail_collective("%s:%d:%d: model.path: cannot read '%s': %s", c->source_path,
                           c->model.path_mark.line, c->model.path_mark.column, c->model.path,
                           reason);
    if (size != expected)
        sf_fail_collective("%s:%d:%d: model.path: '%s' holds %lld bytes, but dims %ld x %ld x %ld "
                           "of float32 need %lld",
                           c->source_path, c->model.path_mark.line, c->model.path_mark.column,
                           c->model.path, size, c->n[0], c->n[1], c->n[2], expected);
    if (sf_raw_read_planes(c->model.path, c->n[0], c->n[1], slab->z0, slab->nz, c->model.endian,
                           vp, reason, sizeof reason) != 0)
        sf_fatal("reading planes %ld..%ld of model file '%s': %s", slab->z0,
                 slab->z0 + slab->nz - 1, c->model.path, reason);
}

/* Finds the first invalid velocity over all ranks and reports it once. */
static void check_values(const sf_config *c, const sf_slab *slab, const float *vp)
{
    long plane = c->n[0] * c->n[1], count = plane * slab->nz, bad_local = LONG_MAX;
    for (long n = 0; n < count; ++n)
        if (!(vp[n] >= VP_MIN && vp[n] <= VP_MAX)) {  /* NaN fails both */
            bad_local = slab->z0 * plane + n;
            break;
        }
    long bad = LONG_MAX;
    SF_MPI_CHECK(MPI_Allreduce(&bad_local, &bad, 1, MPI_LONG, MPI_MIN, slab->comm),
                 "checking model values");
    if (bad == LONG_MAX) return;
    float value = bad == bad_local ? vp[bad - slab->z0 * plane] : 0.0f;
    long k = bad / plane, j = (bad % plane) / c->n[0], i = bad % c->n[0];
    long z0;
    int owner = 0;
    for (int r = 0; r < slab->nranks; ++r) {
        long nz = sf_slab_planes(c->n[2], slab->nranks, r, &z0);
        if (k >= z0 && k < z0 + nz) owner = r;
    }
    SF_MPI_CHECK(MPI_Bcast(&value, 1, MPI_FLOAT, owner, slab->comm), "reporting a model value");
    sf_fail_collective("%s: model file '%s': vp at index (i=%ld, j=%ld, k=%ld) is %g; velocities "
                       "must be finite and within %d..%d m/s",
                       c->source_path, c->model.path ? c->model.path : "", i, j, k, value, VP_MIN,
                       VP_MAX);
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
    case SF_MODEL_RAW:
        read_raw(c, slab, m->vp);
        check_values(c, slab, m->vp);
        break;
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
