#include "sf_cpml.h"
#include "sf_error.h"

#include <math.h>
#include <stdlib.h>

enum { PROFILE_POWER = 2 };

/* sf_cpml_alpha_floor's margin over the stability bound, and its least
 * value: where the bound is 0 (order 2, D2 = D1- D1+) alpha would still
 * reach 0 at the outer point, where a zero-frequency pair of eigenvalues
 * sits at exactly 1, and a and b rounded to float apart split it to 1 +
 * 3.6e-5 at worst (tests/test_cpml_stability.py); 0.001 d keeps it
 * inside, at 1 - 6e-6 or less. */
static const double ALPHA_FLOOR_MARGIN = 1.25, ALPHA_FLOOR_LEAST = 1e-3;

double sf_cpml_alpha_floor(const sf_stencil *s)
{
    /* r = max over wavenumbers of E / |D1- D1+|, E = D2 - D1- D1+ >= 0
     * (symbols at unit spacing); the layer is stable while alpha / (alpha
     * + d) > r, that is alpha / d > r / (1 - r). */
    double r = 0.0;
    const int samples = 4096;
    for (int i = 1; i <= samples; ++i) {
        double theta = M_PI * i / samples, d2 = s->second[0], d1 = 0.0;
        for (int m = 1; m <= s->radius; ++m) {
            d2 += 2.0 * s->second[m] * cos(m * theta);
            d1 += 2.0 * s->first[m] * sin((m - 0.5) * theta);
        }
        double ratio = (d2 + d1 * d1) / (d1 * d1);
        if (ratio > r) r = ratio;
    }
    return fmax(ALPHA_FLOOR_MARGIN * r / (1.0 - r), ALPHA_FLOOR_LEAST);
}

double sf_cpml_default_reflection(int thickness)
{
    if (thickness < 1) thickness = 1;
    return pow(10.0, -(log10((double)thickness) - 1.0) / log10(2.0) - 3.0);
}

/* Distance into the layer, in grid units, of position pos; <= 0 outside. */
static double depth_into_layer(const sf_cpml_axis *axis, double pos, int *side)
{
    double low = axis->thick[0] > 0 ? (double)axis->thick[0] - pos : 0.0;
    double high = axis->thick[1] > 0 ? pos - (double)(axis->n - 1 - axis->thick[1]) : 0.0;
    *side = high > low;
    return high > low ? high : low;
}

void sf_cpml_profile(const sf_cpml_axis *axis, double pos, double *d, double *alpha)
{
    int side;
    double xi = depth_into_layer(axis, pos, &side);
    if (xi <= 0.0) {
        *d = 0.0;
        *alpha = 0.0;
        return;
    }
    double ratio = xi / (double)axis->thick[side];
    *d = axis->d0 * pow(ratio, PROFILE_POWER);
    *alpha = fmax(axis->alpha_max * (1.0 - ratio), axis->alpha_floor * *d);
}

static void coefficients(const sf_cpml_axis *axis, double pos, double dt, float *a, float *b)
{
    double d, alpha;
    sf_cpml_profile(axis, pos, &d, &alpha);
    double bb = exp(-(d + alpha) * dt);
    *b = (float)bb;
    *a = d > 0.0 ? (float)(d * (bb - 1.0) / (d + alpha)) : 0.0f;
}

void sf_cpml_axis_init(sf_cpml_axis *axis, long n, const int thick[2], double h, double dt,
                       double vmax, double peak_frequency, double reflection,
                       double alpha_floor)
{
    axis->n = n;
    axis->thick[0] = thick[0];
    axis->thick[1] = thick[1];
    int widest = thick[0] > thick[1] ? thick[0] : thick[1];
    double R = reflection > 0 ? reflection : sf_cpml_default_reflection(widest);
    /* One d0 for both ends, from the widest layer, keeps the profile the
     * same function of depth into either layer. */
    axis->d0 = widest > 0 ? -(PROFILE_POWER + 1) * vmax * log(R) / (2.0 * widest * h) : 0.0;
    axis->alpha_max = M_PI * peak_frequency;
    axis->alpha_floor = alpha_floor;
    axis->a = sf_malloc((size_t)n * sizeof(float), "CPML coefficients");
    axis->b = sf_malloc((size_t)n * sizeof(float), "CPML coefficients");
    axis->a_half = sf_malloc((size_t)n * sizeof(float), "CPML coefficients");
    axis->b_half = sf_malloc((size_t)n * sizeof(float), "CPML coefficients");
    for (long g = 0; g < n; ++g) {
        coefficients(axis, (double)g, dt, &axis->a[g], &axis->b[g]);
        if (g < n - 1)
            coefficients(axis, (double)g + 0.5, dt, &axis->a_half[g], &axis->b_half[g]);
        else
            axis->a_half[g] = 0.0f, axis->b_half[g] = 0.0f;
    }
}

void sf_cpml_axis_free(sf_cpml_axis *axis)
{
    free(axis->a);
    free(axis->b);
    free(axis->a_half);
    free(axis->b_half);
    axis->a = axis->b = axis->a_half = axis->b_half = NULL;
}

sf_cpml_span sf_cpml_layer_span(const sf_cpml_axis *axis, int side, int radius)
{
    long n = axis->n;
    int t = axis->thick[side];
    sf_cpml_span s;
    if (t == 0) {
        long edge = side == 0 ? 0 : n;
        s.lo = s.hi = s.hlo = s.hhi = s.flo = s.fhi = edge;
    } else if (side == 0) {
        s.lo = 0, s.hi = t, s.hlo = 0, s.hhi = t;
        s.flo = 0, s.fhi = t + radius < n ? t + radius : n;
    } else {
        s.lo = n - t, s.hi = n, s.hlo = n - 1 - t, s.hhi = n - 1;
        s.flo = n - t - radius > 0 ? n - t - radius : 0, s.fhi = n;
    }
    return s;
}
