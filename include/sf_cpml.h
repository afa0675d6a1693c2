/* Convolutional PML profiles (Komatitsch & Martin 2007, with kappa = 1),
 * applied to the second-order acoustic equation as in Pasalic & McGarry
 * (2010): p_tt = v^2 sum_d (d_dd p + d_d psi_d + zeta_d), where psi_d and
 * zeta_d are recursive convolutions of d_d p and (d_dd p + d_d psi_d). */
#ifndef SF_CPML_H
#define SF_CPML_H

typedef struct {
    long n;            /* points on the axis */
    int thick[2];      /* layer thickness in points at the low and high ends */
    double d0;         /* peak damping, 1/s */
    double alpha_max;  /* frequency-shift at the inner edge, 1/s */
    /* Recursion coefficients memory = b * memory + a * input, at integer
     * points g and at half points g + 1/2 (index g, 0 <= g < n - 1).
     * Outside the layers a = 0: the memory variables stay zero. */
    float *a, *b, *a_half, *b_half;
} sf_cpml_axis;

/* Reflection coefficient aimed at by a layer of this many points when
 * the job does not set one (Collino & Tsogka's rule of thumb). */
double sf_cpml_default_reflection(int thickness);

void sf_cpml_axis_init(sf_cpml_axis *axis, long n, const int thick[2], double h, double dt,
                       double vmax, double peak_frequency, double reflection);
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
