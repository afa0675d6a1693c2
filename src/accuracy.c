#include "sf_accuracy.h"

#include <math.h>

enum { SPECTRUM_POINTS = 400 };
static const double FAR = 1e9;   /* metres: "never" */

double sf_time_phase_error(const sf_accuracy_setup *a, double f)
{
    /* A run at frequency w is the medium at (2/dt) sin(w dt/2): the phase
     * velocity is x / sin x times the true one, x = w dt / 2. */
    double x = M_PI * f * a->dt;
    return x > 0.0 && x < M_PI / 2 ? x / sin(x) - 1.0 : 0.0;
}

/* The stencil's wavenumber for a true one theta (per grid spacing). */
static double discrete_wavenumber(const sf_accuracy_setup *a, double theta)
{
    const sf_stencil *s = a->stencil;
    double v = 0.0;
    if (a->staggered) {
        for (int m = 1; m <= s->radius; ++m) v += 2.0 * s->first[m] * sin((m - 0.5) * theta);
        return v;
    }
    v = -s->second[0];
    for (int m = 1; m <= s->radius; ++m) v -= 2.0 * s->second[m] * cos(m * theta);
    return sqrt(v > 0.0 ? v : 0.0);
}

double sf_space_phase_error(const sf_accuracy_setup *a, double f)
{
    static const double directions[3][3] = {
        {1.0, 0.0, 0.0}, {M_SQRT1_2, M_SQRT1_2, 0.0}, {0.57735026918962576, 0.57735026918962576,
                                                       0.57735026918962576}};
    double k = 2.0 * M_PI * f / a->v, worst = 0.0;
    if (k <= 0.0) return 0.0;
    for (int d = 0; d < 3; ++d) {
        /* Every permutation of a direction has the same error on a cubic
         * grid; on others the axes differ, so each axis takes its turn. */
        for (int axis = 0; axis < 3; ++axis) {
            double e = 0.0;
            for (int q = 0; q < 3; ++q) {
                double n = directions[d][(q + axis) % 3], theta = k * n * a->h[q];
                double kd = discrete_wavenumber(a, theta) / a->h[q];
                e += kd * kd;
            }
            double error = sqrt(e) / k - 1.0;
            if (fabs(error) > fabs(worst)) worst = error;
        }
    }
    return worst;
}

/* The direct wave's spectrum as the misfit weighs it: at each frequency,
 * the wavelet's power and the phase error per unit of travel, both
 * independent of the distance the search varies. */
typedef struct {
    double f[SPECTRUM_POINTS], weight[SPECTRUM_POINTS], error[SPECTRUM_POINTS], power;
} misfit_spectrum;

static void misfit_spectrum_fill(misfit_spectrum *m, const sf_accuracy_setup *a,
                                 const sf_wavelet *w)
{
    /* The band that matters: 2.4 upper frequencies (a Ricker's 6 f0),
     * not a finely sampled file's whole Nyquist range. */
    double df = fmin(w->top, 2.4 * w->upper_frequency) / SPECTRUM_POINTS;
    m->power = 0.0;
    for (int i = 1; i <= SPECTRUM_POINTS; ++i) {
        double f = i * df, s = sf_wavelet_spectrum(w, f);
        m->f[i - 1] = f;
        m->weight[i - 1] = s * s;
        m->error[i - 1] = sf_space_phase_error(a, f) + (a->time_corrected ? 0.0 : sf_time_phase_error(a, f));
        m->power += s * s;
    }
}

/* The misfit of the direct wave at distance r: its spectrum's phase errors
 * exp(i 2 pi f (r / v) e(f)) against 1, weighted by the wavelet's power. */
static double misfit_at(const misfit_spectrum *m, const sf_accuracy_setup *a, double r)
{
    double error = 0.0;
    for (int i = 0; i < SPECTRUM_POINTS; ++i) {
        double phase = 2.0 * M_PI * m->f[i] * (r / a->v) * m->error[i];
        error += m->weight[i] * 4.0 * sin(0.5 * phase) * sin(0.5 * phase);
    }
    return sqrt(error / m->power);
}

double sf_misfit_distance(const sf_accuracy_setup *a, const sf_wavelet *w, double target)
{
    misfit_spectrum m;
    misfit_spectrum_fill(&m, a, w);
    double lo = 1.0, hi = FAR;
    if (misfit_at(&m, a, hi) < target) return FAR;
    if (misfit_at(&m, a, lo) >= target) return lo;
    for (int it = 0; it < 60; ++it) {
        double mid = sqrt(lo * hi);
        if (misfit_at(&m, a, mid) < target)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
