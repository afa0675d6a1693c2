#include "sf_model_sampling.h"
#include "sf_error.h"

#include <math.h>
#include <stdlib.h>

static const double SNAP = 1e-6;   /* in samples */

sf_axis_sample sf_axis_sample_at(double x, long n, double origin, double spacing,
                                 sf_interpolation how)
{
    sf_axis_sample s = {0, 0.0};
    if (n <= 1) return s;
    double u = (x - origin) / spacing;
    if (fabs(u - round(u)) < SNAP) u = round(u);
    if (u <= 0.0) return s;
    if (u >= (double)(n - 1)) {
        s.i = n - 1;
        return s;
    }
    if (how == SF_INTERP_NEAREST) {
        s.i = (long)floor(u + 0.5);
        return s;
    }
    s.i = (long)floor(u);
    s.w = u - (double)s.i;
    return s;
}

static sf_axis_sample sample_axis(const sf_volume_grid *m, const sf_config *c, int axis, long k,
                                  sf_interpolation how)
{
    double x = c->origin[axis] + (double)k * c->spacing[axis];
    return sf_axis_sample_at(x, m->n[axis], m->origin[axis], m->spacing[axis], how);
}

void sf_model_plane_range(const sf_volume_grid *m, const sf_config *c, sf_interpolation how,
                          long z0, long nz, long *k0, long *k1)
{
    sf_axis_sample first = sample_axis(m, c, 2, z0, how);
    sf_axis_sample last = sample_axis(m, c, 2, z0 + nz - 1, how);
    *k0 = first.i;
    *k1 = last.i + (last.w > 0.0 ? 2 : 1);
}

/* Does points [from, from + count) of an axis sample the model at
 * consecutive samples from `first` on, without weights? */
static int axis_is_copy(const sf_volume_grid *m, const sf_config *c, int axis, long from, long count,
                        sf_interpolation how, long first)
{
    for (long k = 0; k < count; ++k) {
        const sf_axis_sample s = sample_axis(m, c, axis, from + k, how);
        if (s.w != 0.0 || s.i != first + k) return 0;
    }
    return 1;
}

int sf_model_sampling_is_copy(const sf_volume_grid *m, const sf_config *c, sf_interpolation how,
                              long z0, long nz)
{
    return m->n[0] == c->n[0] && m->n[1] == c->n[1] && axis_is_copy(m, c, 0, 0, c->n[0], how, 0) &&
           axis_is_copy(m, c, 1, 0, c->n[1], how, 0) &&
           axis_is_copy(m, c, 2, z0, nz, how, sample_axis(m, c, 2, z0, how).i);
}

/* The samples and weights of one axis of the simulation grid. */
static sf_axis_sample *axis_table(const sf_volume_grid *m, const sf_config *c, int axis, long from,
                                  long count, sf_interpolation how)
{
    sf_axis_sample *t = sf_malloc((size_t)count * sizeof *t, "model sampling weights");
    for (long k = 0; k < count; ++k) t[k] = sample_axis(m, c, axis, from + k, how);
    return t;
}

static double along_x(const float *row, sf_axis_sample s)
{
    return s.w > 0.0 ? (1.0 - s.w) * row[s.i] + s.w * row[s.i + 1] : row[s.i];
}

static double along_xy(const float *plane, long mx, sf_axis_sample sy, sf_axis_sample sx)
{
    double v = along_x(plane + sy.i * mx, sx);
    return sy.w > 0.0 ? (1.0 - sy.w) * v + sy.w * along_x(plane + (sy.i + 1) * mx, sx) : v;
}

void sf_model_resample(const sf_volume_grid *m, const float *planes, long k0, const sf_config *c,
                       sf_interpolation how, long z0, long nz, float *out)
{
    const long nx = c->n[0], ny = c->n[1], mx = m->n[0], mplane = m->n[0] * m->n[1];
    sf_axis_sample *tx = axis_table(m, c, 0, 0, nx, how), *ty = axis_table(m, c, 1, 0, ny, how);
    sf_axis_sample *tz = axis_table(m, c, 2, z0, nz, how);
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < nz; ++k)
        for (long j = 0; j < ny; ++j) {
            const float *lower = planes + (tz[k].i - k0) * mplane;
            float *row = out + (k * ny + j) * nx;
            for (long i = 0; i < nx; ++i) {
                double v = along_xy(lower, mx, ty[j], tx[i]);
                if (tz[k].w > 0.0)
                    v = (1.0 - tz[k].w) * v + tz[k].w * along_xy(lower + mplane, mx, ty[j], tx[i]);
                row[i] = (float)v;
            }
        }
    free(tx);
    free(ty);
    free(tz);
}
