#include "sf_elastic_medium.h"
#include "sf_error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The first plane of the rank above (the last plane again at the bottom
 * of the grid). */
static float *next_plane(const float *planes, const sf_slab *slab, long plane, const char *what)
{
    if (plane > INT_MAX)
        sf_fatal("a model plane of %ld points exceeds what one MPI message can carry", plane);
    float *next = sf_malloc((size_t)plane * sizeof(float), what);
    SF_MPI_CHECK(MPI_Sendrecv(planes, (int)plane, MPI_FLOAT, slab->lower, 0, next, (int)plane,
                              MPI_FLOAT, slab->upper, 0, slab->comm, MPI_STATUS_IGNORE),
                 "sharing the model plane below each slab");
    if (slab->upper == MPI_PROC_NULL)
        memcpy(next, planes + plane * (slab->nz - 1), (size_t)plane * sizeof(float));
    return next;
}

void sf_elastic_medium_build(sf_elastic_medium *m, const float *const param[SF_ELASTIC_PARAMS],
                             const sf_slab *slab, const sf_config *c)
{
    const long plane = c->n[0] * c->n[1];
    memset(m, 0, sizeof *m);
    m->nx = c->n[0];
    m->ny = c->n[1];
    m->nz = slab->nz;
    m->surface = c->free_surface && slab->z0 == 0;
    for (int a = 0; a < SF_ELASTIC_PARAMS; ++a) {
        m->param[a] = param[a];
        m->next[a] = next_plane(param[a], slab, plane, "the elastic model's next plane");
    }
}

void sf_elastic_medium_free(sf_elastic_medium *m)
{
    for (int a = 0; a < SF_ELASTIC_PARAMS; ++a) {
        free(m->next[a]);
        m->next[a] = NULL;
    }
}

/* Parameter a's row j of plane k, 0 <= k <= nz. */
static const float *row_of(const sf_elastic_medium *m, int a, long j, long k)
{
    const size_t in_plane = (size_t)(j * m->nx);
    if (k == m->nz) return m->next[a] + in_plane;
    return m->param[a] + (size_t)k * (size_t)(m->nx * m->ny) + in_plane;
}

static double value_at(const sf_elastic_medium *m, int a, long i, long j, long k)
{
    return row_of(m, a, j, k)[i];
}

static double mu_at(const sf_elastic_medium *m, long i, long j, long k)
{
    const double vs = value_at(m, SF_ELASTIC_VS, i, j, k);
    return value_at(m, SF_ELASTIC_RHO, i, j, k) * vs * vs;
}

/* 0 when any is 0: a fluid next to a shear point carries no shear. */
static double harmonic4(double a, double b, double c, double d)
{
    if (a <= 0.0 || b <= 0.0 || c <= 0.0 || d <= 0.0) return 0.0;
    return 4.0 / (1.0 / a + 1.0 / b + 1.0 / c + 1.0 / d);
}

/* Eliminating d(vz)/dz with szz = 0 leaves sxx, syy driven by lambda' and
 * lambda' + 2 mu. */
static void free_surface_moduli(double out[SF_MEDIUM_ARRAYS])
{
    double lambda = out[SF_MEDIUM_LAMBDA], two_mu = out[SF_MEDIUM_L2M] - lambda;
    double surface = out[SF_MEDIUM_L2M] > 0.0 ? lambda * two_mu / out[SF_MEDIUM_L2M] : 0.0;
    out[SF_MEDIUM_LAMBDA] = surface;
    out[SF_MEDIUM_L2M] = surface + two_mu;
}

/* The eight averages at owned point (i, j, k), in double; past the last
 * column and row the last ones serve again. */
static void point_medium(const sf_elastic_medium *m, long i, long j, long k,
                         double out[SF_MEDIUM_ARRAYS])
{
    const long i1 = i + 1 < m->nx ? i + 1 : i, j1 = j + 1 < m->ny ? j + 1 : j;
    const double rho = value_at(m, SF_ELASTIC_RHO, i, j, k), vp = value_at(m, SF_ELASTIC_VP, i, j, k);
    const double mu = mu_at(m, i, j, k);
    out[SF_MEDIUM_BX] = 2.0 / (rho + value_at(m, SF_ELASTIC_RHO, i1, j, k));
    out[SF_MEDIUM_BY] = 2.0 / (rho + value_at(m, SF_ELASTIC_RHO, i, j1, k));
    out[SF_MEDIUM_BZ] = 2.0 / (rho + value_at(m, SF_ELASTIC_RHO, i, j, k + 1));
    out[SF_MEDIUM_L2M] = rho * vp * vp;
    out[SF_MEDIUM_LAMBDA] = rho * vp * vp - 2.0 * mu;
    out[SF_MEDIUM_MUXY] = harmonic4(mu, mu_at(m, i1, j, k), mu_at(m, i, j1, k), mu_at(m, i1, j1, k));
    out[SF_MEDIUM_MUXZ] =
        harmonic4(mu, mu_at(m, i1, j, k), mu_at(m, i, j, k + 1), mu_at(m, i1, j, k + 1));
    out[SF_MEDIUM_MUYZ] =
        harmonic4(mu, mu_at(m, i, j1, k), mu_at(m, i, j, k + 1), mu_at(m, i, j1, k + 1));
    if (m->surface && k == 0) free_surface_moduli(out);
}

void sf_elastic_medium_scaled_point(const sf_elastic_medium *m, double dt, long i, long j, long k,
                                    float out[SF_MEDIUM_ARRAYS])
{
    double values[SF_MEDIUM_ARRAYS];
    point_medium(m, i, j, k, values);
    for (int a = 0; a < SF_MEDIUM_ARRAYS; ++a) out[a] = (float)(dt * (float)values[a]);
}

static int repeats_plane(const long *first_equal, int reach, long earlier, long k)
{
    for (int d = 0; d <= reach; ++d)
        if (first_equal[earlier + d] != first_equal[k + d]) return 0;
    return 1;
}

long *sf_elastic_medium_repeats(const sf_elastic_medium *m, const long *first_equal, int reach)
{
    long *first = sf_malloc((size_t)(m->nz + 1) * sizeof(long), "the medium's repeated planes");
    /* The earliest match is itself its own: any earlier match of it would match k. */
    for (long k = 0; k <= m->nz; ++k) {
        first[k] = k;
        if (!first_equal || k + reach >= m->nz) continue;
        for (long earlier = m->surface ? 1 : 0; earlier < k; ++earlier)
            if (repeats_plane(first_equal, reach, earlier, k)) {
                first[k] = earlier;
                break;
            }
    }
    return first;
}

void sf_elastic_medium_node_row(const sf_elastic_medium *m, sf_node_array a, long j, long k,
                                float *out)
{
    const float *vp = row_of(m, SF_ELASTIC_VP, j, k), *vs = row_of(m, SF_ELASTIC_VS, j, k);
    const float *rho = row_of(m, SF_ELASTIC_RHO, j, k);
    const int surface = m->surface && k == 0;
    for (long i = 0; i < m->nx; ++i) {
        const double r = rho[i], mu = r * vs[i] * vs[i];
        if (a == SF_NODE_RHO) {
            out[i] = (float)r;
        } else if (a == SF_NODE_MU) {
            out[i] = (float)mu;
        } else {
            const double l2m = r * vp[i] * vp[i];
            const double lambda = l2m - 2.0 * mu;
            out[i] = (float)(!surface ? lambda : l2m > 0.0 ? lambda * 2.0 * mu / l2m : 0.0);
        }
    }
}
