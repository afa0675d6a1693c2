/* Convolutional PML profiles (Komatitsch & Martin 2007, with kappa = 1),
 * applied to the second-order acoustic equation as in Pasalic & McGarry
 * (2010): p_tt = v^2 sum_d (d_dd p + d_d psi_d + zeta_d), where psi_d and
 * zeta_d are recursive convolutions of d_d p and (d_dd p + d_d psi_d). */
#ifndef SF_CPML_H
#define SF_CPML_H

#include "sf_stencil.h"

typedef struct {
    long n;            /* points on the axis */
    int thick[2];      /* layer thickness in points at the low and high ends */
    double d0;         /* peak damping, 1/s */
    double alpha_max;  /* frequency-shift at the inner edge, 1/s */
    double alpha_floor;/* the shift is at least alpha_floor * d everywhere (see
                          sf_cpml_alpha_floor); 0: none */
    /* Recursion coefficients memory = b * memory + a * input, at integer
     * points g and at half points g + 1/2 (index g, 0 <= g < n - 1).
     * Outside the layers a = 0: the memory variables stay zero. */
    float *a, *b, *a_half, *b_half;
} sf_cpml_axis;

/* Reflection coefficient aimed at by a layer of this many points when
 * the job does not set one (Collino & Tsogka's rule of thumb). */
double sf_cpml_default_reflection(int thickness);

/* The least alpha / d that keeps the second-order (Pasalic & McGarry)
 * layers stable with this stencil: they add the staggered derivative of
 * psi to the centred second difference D2, and D2 - D1- D1+ = E is
 * positive (0.118 / h^2 at Nyquist for order 8). Where d / alpha is
 * large the stretched part D1- (1/s) D1+ of the layer's operator fades
 * as alpha / (d + alpha) at low frequency, E is left over, and a
 * non-oscillating mode grows at the layer's outer edge. It stays damped
 * while alpha / (alpha + d) > max E / |D1- D1+| over the wavenumbers
 * (0.01765 for order 8, 0.0204 for order 4, 0 for order 2, where D2 is
 * D1- D1+); this returns that bound as alpha / d with a margin, and at
 * least 0.001 (order 2: the float coefficients' rounding). */
double sf_cpml_alpha_floor(const sf_stencil *s);

/* alpha_floor: see sf_cpml_axis; 0 for the first-order (elastic) layers,
 * which have no D2. */
void sf_cpml_axis_init(sf_cpml_axis *axis, long n, const int thick[2], double h, double dt,
                       double vmax, double peak_frequency, double reflection,
                       double alpha_floor);
void sf_cpml_axis_free(sf_cpml_axis *axis);

/* Damping d and frequency shift alpha at position pos (grid units). */
void sf_cpml_profile(const sf_cpml_axis *axis, double pos, double *d, double *alpha);

/* One end's layer: its points [lo, hi) and half points [hlo, hhi), and
 * the points [flo, fhi) whose update reads its psi: the layer and, on the
 * interior side, the `radius` points whose derivative of psi reaches into it. */
typedef struct {
    long lo, hi, hlo, hhi, flo, fhi;
} sf_cpml_span;
sf_cpml_span sf_cpml_layer_span(const sf_cpml_axis *axis, int side, int radius);

#endif
