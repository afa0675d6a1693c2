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
#include "sf_pointwise.h"

#include <math.h>

/* The pseudo-acoustic system gives the symmetry axis a shear velocity vsz
 * with vsz^2 = vp^2 (epsilon - delta) / SF_ANISOTROPY_SIGMA: none where
 * the medium is elliptical, and enough to keep the system stable where
 * epsilon > delta. epsilon < delta is refused, and so is epsilon - delta
 * above SF_ANISOTROPY_GAP_MAX (vsz would near vp). */
#define SF_ANISOTROPY_SIGMA 0.75
#define SF_ANISOTROPY_GAP_MAX 0.5

/* The parameters' indices in the declarations and in sf_problem.param:
 * VTI takes the first three, TTI all five (the tilt is the model's inside
 * the absorbing layers too: they stretch the mixed derivatives as well as
 * the second ones). */
enum { SF_ANISOTROPIC_VP, SF_ANISOTROPIC_EPSILON, SF_ANISOTROPIC_DELTA, SF_ANISOTROPIC_THETA,
       SF_ANISOTROPIC_PHI };

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

/* TTI's absorbing layers stretch its mixed derivatives too: (1/s_a)(1/s_b)
 * d2u/da db for each pair of axes a < b (xy, xz, yz), two memory
 * variables per pair, field and point, with no halos: inner <- b_b inner
 * + a_b y and outer <- b_a outer + a_a (y + inner), y the plain mixed
 * derivative, the stretched one y + inner + outer. Without them the
 * layers grow where the tilt is oblique (the stretched second derivatives
 * alone leave a positive part of the mixed terms unbalanced). A pair's
 * variables at a point in its first axis's layer (that axis's CPML slots)
 * are stored with that axis's points, else with its second axis's. */
enum { SF_MIXED_PAIRS = 3, SF_MIXED_OWNERS = 2, SF_MIXED_VARIABLES = 2 };
enum { SF_MIXED_INNER, SF_MIXED_OUTER };
SF_POINTWISE int sf_mixed_first_axis(int pair) { return pair == 2 ? 1 : 0; }
SF_POINTWISE int sf_mixed_second_axis(int pair) { return pair == 0 ? 1 : 2; }

/* Advances a pair's memory variables at a point from y, the plain mixed
 * derivative there, and the coefficients of its two axes there; returns
 * the stretch's correction inner + outer. */
SF_POINTWISE float sf_mixed_stretch(float y, float a_first, float b_first, float a_second,
                                    float b_second, float *inner, float *outer)
{
    *inner = b_second * *inner + a_second * y;
    *outer = b_first * *outer + a_first * (y + *inner);
    return *inner + *outer;
}

/* The symmetry axis of tilt theta from z and azimuth phi from x
 * (degrees): n = (sin theta cos phi, sin theta sin phi, cos theta). */
SF_POINTWISE void sf_tilt_axis(float theta, float phi, float n[3])
{
    const float radians = (float)(M_PI / 180.0);
    const float st = sinf(theta * radians), ct = cosf(theta * radians);
    const float sp = sinf(phi * radians), cp = cosf(phi * radians);
    n[0] = st * cp, n[1] = st * sp, n[2] = ct;
}

/* The weights of the second derivatives in H1 along the symmetry axis
 * (nx, ny, nz), the mixed ones doubled (named, not an array: the CPU's
 * row loops vectorise over them). */
enum { SF_TILT_WEIGHTS = 6 };
typedef struct {
    float xx, yy, zz, xy, xz, yz;
} sf_tilt_weight_set;

SF_POINTWISE sf_tilt_weight_set sf_tilt_weights_of_axis(float nx, float ny, float nz)
{
    sf_tilt_weight_set w = {nx * nx, ny * ny, nz * nz, 2.0f * nx * ny, 2.0f * nx * nz, 2.0f * ny * nz};
    return w;
}

/* The weights along the axis of tilt theta and azimuth phi (degrees):
 * xx, yy, zz, xy, xz, yz. */
SF_POINTWISE void sf_tilt_weights(float theta, float phi, float w[SF_TILT_WEIGHTS])
{
    float n[3];
    sf_tilt_axis(theta, phi, n);
    const sf_tilt_weight_set s = sf_tilt_weights_of_axis(n[0], n[1], n[2]);
    w[0] = s.xx, w[1] = s.yy, w[2] = s.zz, w[3] = s.xy, w[4] = s.xz, w[5] = s.yz;
}

#endif
