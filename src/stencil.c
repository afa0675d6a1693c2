#include "sf_stencil.h"

#include <math.h>
#include <string.h>

int sf_stencil_init(sf_stencil *s, int order)
{
    memset(s, 0, sizeof *s);
    s->order = order;
    s->radius = order / 2;
    switch (order) {
    case 2:
        s->second[0] = -2.0;
        s->second[1] = 1.0;
        s->first[1] = 1.0;
        s->centered[1] = 1.0 / 2.0;
        return 0;
    case 4:
        s->second[0] = -5.0 / 2.0;
        s->second[1] = 4.0 / 3.0;
        s->second[2] = -1.0 / 12.0;
        s->first[1] = 9.0 / 8.0;
        s->first[2] = -1.0 / 24.0;
        s->centered[1] = 2.0 / 3.0;
        s->centered[2] = -1.0 / 12.0;
        return 0;
    case 8:
        s->second[0] = -205.0 / 72.0;
        s->second[1] = 8.0 / 5.0;
        s->second[2] = -1.0 / 5.0;
        s->second[3] = 8.0 / 315.0;
        s->second[4] = -1.0 / 560.0;
        s->first[1] = 1225.0 / 1024.0;
        s->first[2] = -245.0 / 3072.0;
        s->first[3] = 49.0 / 5120.0;
        s->first[4] = -5.0 / 7168.0;
        s->centered[1] = 4.0 / 5.0;
        s->centered[2] = -1.0 / 5.0;
        s->centered[3] = 4.0 / 105.0;
        s->centered[4] = -1.0 / 280.0;
        return 0;
    }
    return -1;
}

double sf_stencil_symbol_max(const sf_stencil *s)
{
    /* The symbol c0 + 2 sum cm cos(m theta) is largest in magnitude at the
     * Nyquist wavenumber for these stencils; scanning guards the claim. */
    double worst = 0.0;
    const int samples = 4096;
    for (int i = 0; i <= samples; ++i) {
        double theta = M_PI * i / samples, v = s->second[0];
        for (int m = 1; m <= s->radius; ++m) v += 2.0 * s->second[m] * cos(m * theta);
        if (fabs(v) > worst) worst = fabs(v);
    }
    return worst;
}

double sf_cfl_dt_max(const sf_stencil *s, const double h[3], double vmax)
{
    /* Leapfrog is stable while v^2 dt^2 * max|symbol of the Laplacian| <= 4. */
    double sym = sf_stencil_symbol_max(s);
    double sum = sym / (h[0] * h[0]) + sym / (h[1] * h[1]) + sym / (h[2] * h[2]);
    return 2.0 / (vmax * sqrt(sum));
}

double sf_stencil_first_symbol_max(const sf_stencil *s)
{
    /* |2 sum sm sin((m - 1/2) theta)| peaks at the Nyquist wavenumber for
     * these stencils; scanning guards the claim as above. */
    double worst = 0.0;
    const int samples = 4096;
    for (int i = 0; i <= samples; ++i) {
        double theta = M_PI * i / samples, v = 0.0;
        for (int m = 1; m <= s->radius; ++m) v += 2.0 * s->first[m] * sin((m - 0.5) * theta);
        if (fabs(v) > worst) worst = fabs(v);
    }
    return worst;
}

double sf_staggered_dt_max(const sf_stencil *s, const double h[3], double vmax)
{
    /* Leapfrog on the velocity-stress system is stable while
     * vmax dt |k~| <= 2, |k~| being the largest discrete wavenumber. */
    double sym = sf_stencil_first_symbol_max(s), sym2 = sym * sym;
    double sum = sym2 / (h[0] * h[0]) + sym2 / (h[1] * h[1]) + sym2 / (h[2] * h[2]);
    return 2.0 / (vmax * sqrt(sum));
}

sf_stencil_scaled sf_stencil_scale(const sf_stencil *s, const double h[3])
{
    sf_stencil_scaled out;
    for (int a = 0; a < 3; ++a)
        for (int m = 0; m <= SF_MAX_RADIUS; ++m) {
            out.second[a][m] = (float)(s->second[m] / (h[a] * h[a]));
            out.first[a][m] = (float)(s->first[m] / h[a]);
            out.centered[a][m] = (float)(s->centered[m] / h[a]);
        }
    return out;
}
