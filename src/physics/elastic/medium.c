#include "sf_elastic_medium.h"
#include "sf_error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The slab's planes of one parameter followed by the first plane of the
 * rank above (the last plane again at the bottom of the grid). */
static float *with_next_plane(const float *planes, const sf_slab *slab, long plane,
                              const char *what)
{
    if (plane > INT_MAX)
        sf_fatal("a model plane of %ld points exceeds what one MPI message can carry", plane);
    float *out = sf_malloc((size_t)plane * (size_t)(slab->nz + 1) * sizeof(float), what);
    /* Every thread copies planes: one thread took seconds for a 1024^3 model. */
    #pragma omp parallel for schedule(static)
    for (long k = 0; k < slab->nz; ++k)
        memcpy(out + k * plane, planes + k * plane, (size_t)plane * sizeof(float));
    float *next = out + plane * slab->nz;
    SF_MPI_CHECK(MPI_Sendrecv(planes, (int)plane, MPI_FLOAT, slab->lower, 0, next, (int)plane,
                              MPI_FLOAT, slab->upper, 0, slab->comm, MPI_STATUS_IGNORE),
                 "sharing the model plane below each slab");
    if (slab->upper == MPI_PROC_NULL)
        memcpy(next, planes + plane * (slab->nz - 1), (size_t)plane * sizeof(float));
    return out;
}

/* 0 when any is 0: a fluid next to a shear point carries no shear. */
static double harmonic4(double a, double b, double c, double d)
{
    if (a <= 0.0 || b <= 0.0 || c <= 0.0 || d <= 0.0) return 0.0;
    return 4.0 / (1.0 / a + 1.0 / b + 1.0 / c + 1.0 / d);
}

typedef struct {
    float *vp, *vs, *rho;   /* nz + 1 planes */
    long nx, ny;
} node_values;

static double mu_at(const node_values *v, long i, long j, long k)
{
    size_t n = (size_t)((k * v->ny + j) * v->nx + i);
    return (double)v->rho[n] * v->vs[n] * v->vs[n];
}

static double rho_at(const node_values *v, long i, long j, long k)
{
    return v->rho[(k * v->ny + j) * v->nx + i];
}

/* The eight values of point (i, j, k); i1, j1 are the next column and row
 * (the last ones again at the edges), k + 1 the next plane. */
static void point_medium(const node_values *v, long i, long j, long k, long i1, long j1,
                         double out[SF_MEDIUM_ARRAYS])
{
    size_t n = (size_t)((k * v->ny + j) * v->nx + i);
    double rho = v->rho[n], vp = v->vp[n], vs = v->vs[n];
    double mu = rho * vs * vs;
    out[SF_MEDIUM_BX] = 2.0 / (rho + rho_at(v, i1, j, k));
    out[SF_MEDIUM_BY] = 2.0 / (rho + rho_at(v, i, j1, k));
    out[SF_MEDIUM_BZ] = 2.0 / (rho + rho_at(v, i, j, k + 1));
    out[SF_MEDIUM_L2M] = rho * vp * vp;
    out[SF_MEDIUM_LAMBDA] = rho * vp * vp - 2.0 * mu;
    out[SF_MEDIUM_MUXY] = harmonic4(mu, mu_at(v, i1, j, k), mu_at(v, i, j1, k), mu_at(v, i1, j1, k));
    out[SF_MEDIUM_MUXZ] =
        harmonic4(mu, mu_at(v, i1, j, k), mu_at(v, i, j, k + 1), mu_at(v, i1, j, k + 1));
    out[SF_MEDIUM_MUYZ] =
        harmonic4(mu, mu_at(v, i, j1, k), mu_at(v, i, j, k + 1), mu_at(v, i, j1, k + 1));
}

static void point_nodes(const node_values *v, long i, long j, long k, int surface,
                        float out[SF_NODE_ARRAYS])
{
    size_t n = (size_t)((k * v->ny + j) * v->nx + i);
    double rho = v->rho[n], l2m = rho * v->vp[n] * v->vp[n], mu = rho * v->vs[n] * v->vs[n];
    double lambda = l2m - 2.0 * mu;
    if (surface) lambda = l2m > 0.0 ? lambda * 2.0 * mu / l2m : 0.0;
    out[SF_NODE_RHO] = (float)rho;
    out[SF_NODE_MU] = (float)mu;
    out[SF_NODE_LAMBDA] = (float)lambda;
}

static void build_nodes(sf_elastic_medium *m, const node_values *v, long nz, int surface)
{
    const long nx = v->nx, ny = v->ny;
    for (int a = 0; a < SF_NODE_ARRAYS; ++a)
        m->node[a] = sf_malloc((size_t)(nx * ny) * (size_t)(nz + 1) * sizeof(float),
                               "the elastic medium's nodes");
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k <= nz; ++k)
        for (long j = 0; j < ny; ++j)
            for (long i = 0; i < nx; ++i) {
                float out[SF_NODE_ARRAYS];
                point_nodes(v, i, j, k, surface && k == 0, out);
                for (int a = 0; a < SF_NODE_ARRAYS; ++a) m->node[a][(k * ny + j) * nx + i] = out[a];
            }
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

void sf_elastic_medium_build(sf_elastic_medium *m, const sf_model *model, const sf_slab *slab,
                             const sf_config *c)
{
    const long nx = c->n[0], ny = c->n[1], nz = slab->nz, plane = nx * ny;
    memset(m, 0, sizeof *m);
    node_values v = {with_next_plane(model->param[SF_ELASTIC_VP], slab, plane, "the elastic model"),
                     with_next_plane(model->param[SF_ELASTIC_VS], slab, plane, "the elastic model"),
                     with_next_plane(model->param[SF_ELASTIC_RHO], slab, plane,
                                     "the elastic model"),
                     nx, ny};
    for (int a = 0; a < SF_MEDIUM_ARRAYS; ++a)
        m->a[a] = sf_malloc((size_t)plane * (size_t)nz * sizeof(float), "the elastic medium");
    const int surface = c->free_surface && slab->z0 == 0;
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < nz; ++k)
        for (long j = 0; j < ny; ++j)
            for (long i = 0; i < nx; ++i) {
                double out[SF_MEDIUM_ARRAYS];
                point_medium(&v, i, j, k, i + 1 < nx ? i + 1 : i, j + 1 < ny ? j + 1 : j, out);
                if (surface && k == 0) free_surface_moduli(out);
                for (int a = 0; a < SF_MEDIUM_ARRAYS; ++a)
                    m->a[a][(k * ny + j) * nx + i] = (float)out[a];
            }
    build_nodes(m, &v, nz, surface);
    free(v.vp);
    free(v.vs);
    free(v.rho);
}

void sf_elastic_medium_free(sf_elastic_medium *m)
{
    for (int a = 0; a < SF_MEDIUM_ARRAYS; ++a) {
        free(m->a[a]);
        m->a[a] = NULL;
    }
    for (int a = 0; a < SF_NODE_ARRAYS; ++a) {
        free(m->node[a]);
        m->node[a] = NULL;
    }
}
