/* The pseudo-acoustic VTI and TTI physics (Fletcher, Du & Fowler 2009):
 * two fields p and q on the nodes, advanced by the leapfrog
 *   p_tt = vpx^2 H2 p + vpz^2 H1 q + vsz^2 H1 (p - q)
 *   q_tt = vpn^2 H2 p + vpz^2 H1 q - vsz^2 H2 (p - q)
 * where H1 is the second derivative along the symmetry axis, H2 the
 * Laplacian less H1, vpx = vp sqrt(1 + 2 epsilon), vpn = vp sqrt(1 + 2
 * delta) and vsz^2 = vp^2 (epsilon - delta) / SF_ANISOTROPY_SIGMA. With
 * epsilon = delta = 0 and equal sources p = q stays the acoustic pressure.
 * The stages and halo groups are the acoustic ones (sf_acoustic.h), each
 * holding both fields. The point-wise physics below is shared by every
 * backend. */
#ifndef SF_ANISOTROPIC_H
#define SF_ANISOTROPIC_H

#include "sf_acoustic.h"
#include "sf_config.h"

#include <math.h>

#ifdef __CUDACC__
#define SF_POINTWISE __host__ __device__ static inline
#else
#define SF_POINTWISE static inline
#endif

enum { SF_ANISOTROPIC_P, SF_ANISOTROPIC_Q, SF_ANISOTROPIC_FIELDS };

/* The four velocities squared times dt^2 of a point. */
typedef struct {
    float vz, vx, vn, vs;
} sf_fdf_coefficients;

SF_POINTWISE sf_fdf_coefficients sf_fdf_at(float vp, float epsilon, float delta, float dt2)
{
    const float vz = vp * vp * dt2;
    sf_fdf_coefficients c = {vz, vz * (1.0f + 2.0f * epsilon), vz * (1.0f + 2.0f * delta),
                             vz * (epsilon - delta) * (float)(1.0 / SF_ANISOTROPY_SIGMA)};
    return c;
}

/* dt^2 times the right-hand sides, from H1 and H2 of p and q. */
SF_POINTWISE void sf_fdf_rhs(sf_fdf_coefficients c, float h1p, float h2p, float h1q, float h2q,
                             float *dp, float *dq)
{
    *dp = c.vx * h2p + c.vz * h1q + c.vs * (h1p - h1q);
    *dq = c.vn * h2p + c.vz * h1q - c.vs * (h2p - h2q);
}

/* The weights of the second derivatives in H1 along a symmetry axis of
 * tilt theta from z and azimuth phi from x (degrees), n = (sin theta cos
 * phi, sin theta sin phi, cos theta): xx, yy, zz, xy, xz, yz, the mixed
 * ones doubled. */
enum { SF_TILT_WEIGHTS = 6 };
SF_POINTWISE void sf_tilt_weights(float theta, float phi, float w[SF_TILT_WEIGHTS])
{
    const float radians = (float)(M_PI / 180.0);
    const float st = sinf(theta * radians), ct = cosf(theta * radians);
    const float sp = sinf(phi * radians), cp = cosf(phi * radians);
    const float nx = st * cp, ny = st * sp, nz = ct;
    w[0] = nx * nx, w[1] = ny * ny, w[2] = nz * nz;
    w[3] = 2.0f * nx * ny, w[4] = 2.0f * nx * nz, w[5] = 2.0f * ny * nz;
}

#endif
