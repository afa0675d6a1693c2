/* Finite-difference coefficients and the stability limit they imply. */
#ifndef SF_STENCIL_H
#define SF_STENCIL_H

enum { SF_MAX_RADIUS = 4 };   /* the 8th-order stencil reaches 4 points */

typedef struct {
    int order;                       /* 2, 4 or 8 */
    int radius;                      /* order / 2 */
    double second[SF_MAX_RADIUS + 1];/* d2/dx2: c0 and c1..cR (symmetric), unit spacing */
    double first[SF_MAX_RADIUS + 1]; /* staggered d/dx: s1..sR (index 0 unused) */
    double centered[SF_MAX_RADIUS + 1]; /* d/dx on the nodes: d1..dR, antisymmetric
                                           (mixed derivatives of tilted media) */
} sf_stencil;

/* Returns 0 for a supported order, -1 otherwise. */
int sf_stencil_init(sf_stencil *s, int order);

/* The coefficients on a grid's spacings h[3], in the kernels' float:
 * [axis][m], second over h^2 (its centre at m = 0), first and centered
 * over h. Every backend scales them here, so that all round alike. */
typedef struct {
    float second[3][SF_MAX_RADIUS + 1];
    float first[3][SF_MAX_RADIUS + 1];
    float centered[3][SF_MAX_RADIUS + 1];
} sf_stencil_scaled;

sf_stencil_scaled sf_stencil_scale(const sf_stencil *s, const double h[3]);

/* The largest magnitude of the second-derivative symbol over all
 * wavenumbers (at unit spacing): 4 for order 2, about 6.50 for order 8. */
double sf_stencil_symbol_max(const sf_stencil *s);

/* Largest stable dt of the leapfrog scheme for (1/v^2) p_tt = lap p with
 * this stencil on spacing h[3] and maximum velocity vmax. */
double sf_cfl_dt_max(const sf_stencil *s, const double h[3], double vmax);

/* The largest magnitude of the staggered first-derivative symbol (unit
 * spacing): 2 for order 2, 7/3 for order 4, about 2.5726 for order 8. */
double sf_stencil_first_symbol_max(const sf_stencil *s);

/* Largest stable dt of the staggered velocity-stress (elastic) leapfrog
 * scheme with this stencil on spacing h[3], vmax being the fastest (P)
 * wave speed. */
double sf_staggered_dt_max(const sf_stencil *s, const double h[3], double vmax);

#endif
