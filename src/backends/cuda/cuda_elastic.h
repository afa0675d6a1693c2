/* The elastic CUDA backend's kernels and what they read (CUDA sources
 * only). Fields and the medium's node arrays use sf_layout's layout (the
 * nodes' padding and plane nz holding the values the CPU medium repeats
 * past the edges); the energy weights its owned-planes layout; CPML memory variables the
 * compact shapes of the CPU backend, so both walk the same points. */
#ifndef SF_CUDA_ELASTIC_H
#define SF_CUDA_ELASTIC_H

#include <cuda_runtime.h>

#include "cuda_physics.h"

extern "C" {
#include "sf_backend.h"
#include "sf_elastic_backend.h"
#include "sf_elastic_medium.h"
#include "sf_layout.h"
#include "sf_relaxation.h"
}

enum { SF_ELASTIC_TERMS = 9, SF_ENERGY_WEIGHTS = 8 };

/* One end's absorbing layer of an axis: samples [lo, hi) (global), for z
 * the owned planes [plo, phi) inside it; a memory variable per term of
 * each half-step along this axis (NULL for the others). */
typedef struct {
    int lo, hi, plo, phi;
    float *psi[SF_HALF_STEPS][SF_ELASTIC_TERMS];
} sf_cuda_elastic_layer;

typedef struct {
    float *f[SF_ELASTIC_FIELDS];
    const float *node[SF_NODE_ARRAYS];  /* rho, mu, lambda; the kernels form the staggered averages */
    float dt;
    float *before[6];          /* stresses before the update, or NULL without energy */
    int nx, ny, nz, z0, radius, free_surface_here;
    long gx, sx, sp;
    float d1[3][SF_MAX_RADIUS + 1];
    const float *a[3], *b[3], *a_half[3], *b_half[3];
    sf_cuda_elastic_layer layer[3][2];
    /* Standard linear solids the stress increments relax through
     * (law.mechanisms 0: none, the lossless physics): each point's
     * coordinate in the law's table at its bulk Q and at its shear Q, and
     * per solid SF_CUDA_ELASTIC_MEMORY memory variables, each on the owned
     * planes, solid after solid: memory + (l * SF_CUDA_ELASTIC_MEMORY + q)
     * * plane_size. */
    sf_relaxation_law law;
    const float *bulk_coordinate, *shear_coordinate;
    float *memory;
    long plane_size;
} sf_cuda_elastic_step;

/* A solid's memory variables at a point: the bulk part's, the deviatoric
 * xx and yy (zz is minus their sum), and the three shear stresses'. */
enum { SF_CUDA_ELASTIC_MEMORY = 6 };

/* The elastic kernel table, for a physics built on the same update, and
 * their state for p (whose medium is an sf_elastic_medium) with stress
 * increments relaxing through the solids of bulk and shear (NULL: none),
 * which share times and table and must stay until upload has run. */
extern const sf_cuda_physics sf_cuda_elastic_kernels;
void *sf_cuda_elastic_create_relaxing(sf_cuda_common *c, const sf_problem *p,
                                      const sf_relaxation_medium *bulk,
                                      const sf_relaxation_medium *shear);

void sf_cuda_elastic_update(const sf_cuda_elastic_step *s, sf_half_step g, int k0, int k1,
                            cudaStream_t stream);

/* Up to 5 fields, SF_HALO planes from local plane k0 each, to or from a
 * buffer [field][SF_HALO][ny][nx]. */
typedef struct {
    float *f[5];
    int count;
} sf_cuda_field_list;
void sf_cuda_elastic_planes(const sf_cuda_elastic_step *s, sf_cuda_field_list fields, int k0,
                            float *buffer, int to_buffer, cudaStream_t stream);

/* Ghost plane -m (1..SF_HALO) of field n takes plane m - shift[n] times sign[n]. */
typedef struct {
    float *f[3];
    int shift[3];
    float sign[3];
} sf_cuda_images;
void sf_cuda_elastic_mirror(const sf_cuda_elastic_step *s, sf_cuda_images images,
                            cudaStream_t stream);

/* base[offset[n]] += coef[n] * amplitude for the points of the half-step
 * whose plane lies in [k0, k1); base is the block holding all fields. */
void sf_cuda_elastic_inject(float *base, const long *offset, const float *coef, const int *plane,
                            const int *group, int count, int g, float amplitude, int k0, int k1,
                            cudaStream_t stream);

/* The receivers' recording rule of the elastic sample_receivers
 * (sf_elastic_backend.h). */
typedef struct {
    const int *component;
    const long *offset, *index;   /* index into a field with halos */
    const float *weight;
    float *previous;
    int count;
} sf_cuda_channels;
void sf_cuda_elastic_sample(const sf_cuda_elastic_step *s, sf_cuda_channels c, float *out,
                            cudaStream_t stream);

void sf_cuda_elastic_lattice(const sf_cuda_elastic_step *s, sf_component c, long di, long dj,
                             long dk, long k0, long planes, long rows, long columns, float *out,
                             cudaStream_t stream);

/* Adds the kinetic and strain sums (before the cell volume) to sums[2]. */
typedef struct {
    const float *w[SF_ENERGY_WEIGHTS];   /* the CPU backend's order: rho x, y, z, bulk, deviatoric, xy, xz, yz */
} sf_cuda_energy_weights;
void sf_cuda_elastic_energy(const sf_cuda_elastic_step *s, sf_cuda_energy_weights weights,
                            double *sums, cudaStream_t stream);

#endif
