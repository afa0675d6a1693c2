/* A wavelet's amplitude spectrum, and what the set-up reads from it: the
 * share of energy above a frequency (dispersion), the band edge (the
 * time step of a corrected run) and the upper frequency (accuracy). */
#include "sf_wavelet.h"
#include "sf_error.h"
#include "sf_fft.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>

enum { ENERGY_POINTS = 8192, MIN_TRANSFORM = 16384, PADDING = 8 };
/* The share of a Ricker's energy above 2.5 f0, the frequency by which the
 * dispersion check has always judged a Ricker: other wavelets are judged
 * at the frequency with the same share above it. */
static const double RICKER_TAIL = 1.39334e-4;
/* The closed-form spectra are negligible (below 1e-13) above this many f. */
static const double CLOSED_FORM_TOP = 6.0;

static double closed_form(const sf_wavelet *w, double f)
{
    double x = f / w->frequency;
    switch (w->kind) {
    case SF_WAVELET_GAUSSIAN: return exp(-x * x);
    case SF_WAVELET_GAUSSIAN_DERIVATIVE: return M_SQRT2 * x * exp(0.5 - x * x);
    default: return x * x * exp(1.0 - x * x);
    }
}

double sf_wavelet_spectrum(const sf_wavelet *w, double f)
{
    if (!w->spectrum) return closed_form(w, f);
    double u = fabs(f) / w->df;
    long k = (long)floor(u);
    if (k >= w->bins - 1) return 0.0;
    return w->spectrum[k] + (u - (double)k) * (w->spectrum[k + 1] - w->spectrum[k]);
}

/* |sum s_k exp(-2 pi i f k dt)|: the samples' spectrum at any f. */
static double amplitude_at(const sf_signature *s, double f)
{
    double complex sum = 0.0;
    const double complex step = cexp(-2.0 * M_PI * I * f * s->interval);
    double complex turn = 1.0;
    for (long k = 0; k < s->count; ++k) {
        sum += s->value[k] * turn;
        turn *= step;
        if (k % 1024 == 1023) turn = cexp(-2.0 * M_PI * I * f * s->interval * (double)(k + 1));
    }
    return cabs(sum);
}

/* The peak between bins k - 1 and k + 1, by golden-section search on the
 * samples' own spectrum: a file holding a Ricker gets the CPML shift of
 * the analytic one (its peak to 1e-9), not one a bin away. */
static double refined_peak(const sf_signature *s, double df, long k)
{
    const double ratio = 0.5 * (sqrt(5.0) - 1.0);
    double lo = fmax(0.0, (double)(k - 1) * df), hi = (double)(k + 1) * df;
    double x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo);
    double a1 = amplitude_at(s, x1), a2 = amplitude_at(s, x2);
    for (int it = 0; it < 60 && hi - lo > 1e-12 * hi; ++it) {
        if (a1 < a2) {
            lo = x1, x1 = x2, a1 = a2;
            x2 = lo + ratio * (hi - lo), a2 = amplitude_at(s, x2);
        } else {
            hi = x2, x2 = x1, a2 = a1;
            x1 = hi - ratio * (hi - lo), a1 = amplitude_at(s, x1);
        }
    }
    return 0.5 * (lo + hi);
}

/* The amplitude-weighted mean frequency: what a spectrum peaking at 0 Hz
 * (a one-sided pulse) offers the CPML and the accuracy report instead. */
static double centroid(const sf_wavelet *w)
{
    double sum = 0.0, weighted = 0.0;
    for (long k = 0; k < w->bins; ++k) sum += w->spectrum[k], weighted += w->spectrum[k] * (double)k;
    return sum > 0.0 ? weighted / sum * w->df : 0.0;
}

/* |FFT| of the samples, zero-padded for a smooth table (less for long
 * series, which are finely resolved already), peak 1. */
static void tabulate(sf_wavelet *w, const sf_signature *s)
{
    size_t size = sf_fft_size((size_t)s->count * (s->count <= 65536 ? PADDING : 2));
    if (size < MIN_TRANSFORM) size = MIN_TRANSFORM;
    double complex *x = sf_calloc(size, sizeof *x, "a wavelet's spectrum");
    for (long k = 0; k < s->count; ++k) x[k] = s->value[k];
    sf_fft(x, size, -1);
    w->bins = (long)size / 2 + 1;
    w->df = 1.0 / ((double)size * s->interval);
    w->spectrum = sf_malloc((size_t)w->bins * sizeof(double), "a wavelet's spectrum");
    double peak = 0.0;
    long at = 0;
    for (long k = 0; k < w->bins; ++k) {
        w->spectrum[k] = cabs(x[k]);
        if (w->spectrum[k] > peak) peak = w->spectrum[k], at = k;
    }
    free(x);
    for (long k = 0; k < w->bins; ++k) w->spectrum[k] = peak > 0.0 ? w->spectrum[k] / peak : 0.0;
    w->top = 0.5 / s->interval;
    if (w->kind != SF_WAVELET_FILE) return;   /* Ormsby and Klauder: their band's centre */
    w->dominant_frequency = at == 0 ? centroid(w) : refined_peak(s, w->df, at);
}

/* Cumulative energy from the top down, by the trapezoid rule. */
static void tabulate_energy(sf_wavelet *w)
{
    w->energy_above = sf_malloc((ENERGY_POINTS + 1) * sizeof(double), "a wavelet's energy");
    const double step = w->top / ENERGY_POINTS;
    double previous = sf_wavelet_spectrum(w, w->top), sum = 0.0;
    w->energy_above[ENERGY_POINTS] = 0.0;
    for (int k = ENERGY_POINTS - 1; k >= 0; --k) {
        double a = sf_wavelet_spectrum(w, k * step);
        sum += 0.5 * step * (a * a + previous * previous);
        previous = a;
        w->energy_above[k] = sum;
    }
    for (int k = 0; k <= ENERGY_POINTS; ++k)
        w->energy_above[k] = sum > 0.0 ? w->energy_above[k] / sum : 0.0;
}

double sf_wavelet_energy_share_above(const sf_wavelet *w, double f)
{
    if (f <= 0.0) return 1.0;
    double u = f / w->top * ENERGY_POINTS;
    long k = (long)floor(u);
    if (k >= ENERGY_POINTS) return 0.0;
    return w->energy_above[k] + (u - (double)k) * (w->energy_above[k + 1] - w->energy_above[k]);
}

/* Where a quantity falling with frequency over [lo, hi] falls to level,
 * by bisection. */
static double falling_to(const sf_wavelet *w, double (*value)(const sf_wavelet *, double),
                         double level, double lo, double hi)
{
    for (int it = 0; it < 100; ++it) {
        double mid = 0.5 * (lo + hi);
        if (value(w, mid) > level)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* Where the closed forms peak: above it they fall monotonically. */
static double closed_form_peak(const sf_wavelet *w)
{
    switch (w->kind) {
    case SF_WAVELET_GAUSSIAN: return 0.0;
    case SF_WAVELET_GAUSSIAN_DERIVATIVE: return w->frequency * M_SQRT1_2;
    default: return w->frequency;
    }
}

double sf_wavelet_band_edge(const sf_wavelet *w, double fraction)
{
    if (w->spectrum) {
        if (w->spectrum[w->bins - 1] >= fraction) return w->top;
        for (long k = w->bins - 1; k > 0; --k)
            if (w->spectrum[k - 1] >= fraction) {
                double a = w->spectrum[k - 1], b = w->spectrum[k];
                return ((double)(k - 1) + (a - fraction) / (a - b)) * w->df;
            }
        return 0.0;
    }
    return falling_to(w, closed_form, fraction, closed_form_peak(w), 100.0 * w->frequency);
}

void sf_wavelet_spectrum_build(sf_wavelet *w, const sf_signature *samples)
{
    if (samples) {
        tabulate(w, samples);
    } else {
        w->top = CLOSED_FORM_TOP * w->frequency;
        w->dominant_frequency = w->frequency;
    }
    if (w->kind == SF_WAVELET_ORMSBY) w->dominant_frequency = 0.5 * (w->band[1] + w->band[2]);
    if (w->kind == SF_WAVELET_KLAUDER) w->dominant_frequency = 0.5 * (w->band[0] + w->band[1]);
    tabulate_energy(w);
    w->upper_frequency = w->kind == SF_WAVELET_RICKER ? 2.5 * w->frequency
                                                      : falling_to(w, sf_wavelet_energy_share_above,
                                                                   RICKER_TAIL, 0.0, w->top);
}
