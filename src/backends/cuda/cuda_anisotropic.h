/* The pseudo-acoustic (vti, tti) CUDA backend's kernels and what they read
 * (CUDA sources only). Fields use sf_layout's layout; the medium its
 * owned-planes layout (sf_plane_index), so a point's medium sits at its
 * field offset less SF_HALO planes. The CPML memory variables are the CPU
 * backend's: per axis, the slot tables of sf_cpml_slots number the half
 * points (psi) and points (zeta) of the layers, and the compact arrays are
 * indexed as its memory_index, so both backends walk the same variables. */
#ifndef SF_CUDA_ANISOTROPIC_H
#define SF_CUDA_ANISOTROPIC_H

#include "kernels/cuda_kernels.h"

#include <cuda_runtime.h>

extern "C" {
#include "sf_anisotropic.h"
#include "sf_cpml_slots.h"
#include "sf_layout.h"
#include "sf_stencil.h"
}

/* One axis's layers as the advance reads them. */
typedef struct {
    int halves, points;                 /* psi and zeta slots per line */
    int first;                          /* global index of local index 0 */
    const int *half_slot, *point_slot;  /* sf_cpml_slots' tables: [n + 2 slack] at index + slack */
    const int *point_at;                /* [points]: the local index of each zeta slot */
    const float *a, *b;                 /* global-axis coefficients at the points */
    const float *psi[SF_ANISOTROPIC_FIELDS];
    float *zeta[SF_ANISOTROPIC_FIELDS];
} sf_cuda_anisotropic_axis;

/* Everything one advance reads and writes. */
typedef struct {
    float *next[SF_ANISOTROPIC_FIELDS];        /* prev on entry, the new level on exit */
    const float *cur[SF_ANISOTROPIC_FIELDS];
    const float *vp, *epsilon, *delta;         /* owned planes */
    const float *theta, *phi;                  /* tti: degrees; NULL for vti */
    sf_cuda_grid grid;
    int zero_plane0;                           /* a free surface holds local plane 0 at zero */
    float dt2;
    float second[3][SF_MAX_RADIUS + 1];        /* d2/dn2 over h^2: centre, then 1..R */
    float first[3][SF_MAX_RADIUS + 1];         /* staggered d/dn over h (psi) */
    float centered[3][SF_MAX_RADIUS + 1];      /* d/dn on the nodes over h (tti's mixed terms) */
    sf_cuda_anisotropic_axis axis[3];
    /* The local planes [lo, hi) whose points read psi_z, as at most two
     * disjoint runs (the layers' reaches merged where they meet); lo == hi:
     * none. */
    int z_lo[2], z_hi[2];
    /* tti: the mixed derivatives' memory variables (sf_anisotropic.h), each
     * stored as the owner axis's zeta: [field][pair][owner][variable]. */
    float *mixed[SF_ANISOTROPIC_FIELDS][SF_MIXED_PAIRS][SF_MIXED_OWNERS][SF_MIXED_VARIABLES];
    /* tti: the plain mixed derivatives of the points the stretch visits,
     * as the interior kernel forms them, indexed as those variables
     * ([field][pair][owner]): the stretch reads one value a point instead
     * of forming the derivative again from (2R)^2 points. */
    float *plain_mixed[SF_ANISOTROPIC_FIELDS][SF_MIXED_PAIRS][SF_MIXED_OWNERS];
} sf_cuda_anisotropic_step;

/* The new level of both fields on local planes [k0, k1), queued in order
 * on stream: the interior kernel (vti or tti after s->theta) over every
 * point without CPML terms, then per axis x, y, z a correction over the
 * points that read its psi (zeta advanced there, once a step) and (tti)
 * stretch the mixed derivatives of the pairs it owns there (the
 * derivatives as the interior kernel kept them). Under a free surface
 * plane 0 stays zero: the corrections leave it alone. */
void sf_cuda_anisotropic_advance(const sf_cuda_anisotropic_step *s, int radius, int k0, int k1,
                                 cudaStream_t stream);

#endif
