#include "sf_wavelet.h"
#include "sf_error.h"
#include "sf_fft.h"
#include "sf_resample.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The auto window of Ormsby and Klauder wavelets reaches the last time
 * where the untapered wavelet is 1% of its peak. */
static const double WINDOW_LEVEL = 0.01;
/* Sampled kinds are sampled at 8 points per period of their top
 * frequency: the interpolation is exact to 1e-6 there. */
enum { POINTS_PER_PERIOD = 8 };
/* The most samples a Klauder sweep or an Ormsby window is sampled with
 * (its spectrum's transform then takes at most 64 MiB). */
enum { MAX_TABLE_SAMPLES = 1000000 };

double sf_ricker(double tau, double f)
{
    double a = M_PI * f * tau;
    a *= a;
    return (1.0 - 2.0 * a) * exp(-a);
}

double sf_gaussian(double tau, double f)
{
    double a = M_PI * f * tau;
    return exp(-a * a);
}

/* d/dt exp(-(pi f t)^2) over its largest value, sqrt(2) pi f exp(-1/2). */
double sf_gaussian_derivative(double tau, double f)
{
    double a = M_PI * f * tau;
    return -sqrt(2.0 * M_E) * a * exp(-a * a);
}

/* pi f^2 sinc^2(f tau), whose transform is a triangle of half-width f. */
static double triangle_transform(double tau, double f)
{
    if (f == 0.0) return 0.0;
    double x = M_PI * f * tau;
    double sinc = x == 0.0 ? 1.0 : sin(x) / x;
    return M_PI * f * f * sinc * sinc;
}

/* The trapezoid spectrum f1-f2-f3-f4 as a difference of triangles. */
double sf_ormsby(double tau, const double f[4])
{
    double high = (triangle_transform(tau, f[3]) - triangle_transform(tau, f[2])) / (f[3] - f[2]);
    double low = (triangle_transform(tau, f[1]) - triangle_transform(tau, f[0])) / (f[1] - f[0]);
    return (high - low) / (M_PI * (f[2] + f[3] - f[0] - f[1]));
}

static double hann(double tau, double length)
{
    if (fabs(tau) >= 0.5 * length) return 0.0;
    return 0.5 * (1.0 + cos(2.0 * M_PI * tau / length));
}

const char *sf_wavelet_kind_name(sf_wavelet_kind kind)
{
    static const char *const names[SF_WAVELET_KINDS] = {
        "ricker", "gaussian", "gaussian_derivative", "ormsby", "klauder", "file"};
    return (unsigned)kind < SF_WAVELET_KINDS ? names[kind] : "?";
}

/* Twice the last time at which |ormsby| reaches the window level. Its
 * envelope is below (1/(f4-f3) + 1/(f2-f1)) / (pi^2 t^2 (f3+f4-f1-f2)),
 * which bounds the search. */
static double ormsby_auto_length(const double f[4])
{
    double bound = sqrt((1.0 / (f[3] - f[2]) + 1.0 / (f[1] - f[0])) /
                        (M_PI * M_PI * WINDOW_LEVEL * (f[2] + f[3] - f[0] - f[1])));
    /* At most a million evaluations, however close the corners are. */
    double step = fmax(1.0 / (20.0 * f[3]), bound * 1e-6);
    for (double t = bound; t > 0.0; t -= step)
        if (fabs(sf_ormsby(t, f)) >= WINDOW_LEVEL) return 2.0 * (t + step);
    return 2.0 * step;
}

/* The cosine-tapered linear sweep at n samples of dt. */
static void sweep_samples(const sf_wavelet *w, double dt, long n, double *out)
{
    const double f0 = w->band[0], rate = (w->band[1] - w->band[0]) / w->sweep_length;
    const double taper = w->sweep_taper;
    for (long k = 0; k < n; ++k) {
        double t = (double)k * dt, gain = 1.0;
        double from_end = w->sweep_length - t;
        if (taper > 0.0 && t < taper) gain = 0.5 * (1.0 - cos(M_PI * t / taper));
        if (taper > 0.0 && from_end < taper) gain = 0.5 * (1.0 - cos(M_PI * fmax(from_end, 0.0) / taper));
        out[k] = gain * sin(2.0 * M_PI * (f0 * t + 0.5 * rate * t * t));
    }
}

/* The sweep's autocorrelation, windowed, as samples centred on lag 0. */
static int build_klauder(sf_wavelet *w, double given_length, char *reason, size_t len)
{
    const double dt = 1.0 / (POINTS_PER_PERIOD * fmax(w->band[0], w->band[1]));
    double count = floor(w->sweep_length / dt) + 1.0;
    if (count > MAX_TABLE_SAMPLES) {
        snprintf(reason, len, "a sweep of %g s up to %g Hz takes %.0f samples; at most %d are "
                 "made", w->sweep_length, fmax(w->band[0], w->band[1]), count, MAX_TABLE_SAMPLES);
        return -1;
    }
    if (2.0 * w->sweep_taper > w->sweep_length) {
        snprintf(reason, len, "tapers of %g s at both ends do not fit a sweep of %g s",
                 w->sweep_taper, w->sweep_length);
        return -1;
    }
    long n = (long)count;
    size_t size = sf_fft_size((size_t)(2 * n));
    double *sweep = sf_malloc((size_t)n * sizeof *sweep, "a Klauder sweep");
    double complex *x = sf_calloc(size, sizeof *x, "a Klauder correlation");
    sweep_samples(w, dt, n, sweep);
    for (long k = 0; k < n; ++k) x[k] = sweep[k];
    free(sweep);
    sf_fft(x, size, -1);
    for (size_t k = 0; k < size; ++k) x[k] = creal(x[k] * conj(x[k]));
    sf_fft(x, size, +1);
    double zero = creal(x[0]);
    if (n < 2 || !(zero > 0.0)) {
        free(x);
        snprintf(reason, len, "a sweep of %g s is too short to sample at %g s", w->sweep_length, dt);
        return -1;
    }
    long last = 0;
    for (long k = 0; k < n; ++k)
        if (fabs(creal(x[k])) >= WINDOW_LEVEL * zero) last = k;
    w->length = given_length > 0.0 ? given_length : 2.0 * (double)(last + 1) * dt;
    long half = (long)floor(0.5 * w->length / dt);
    if (half > n - 1) half = n - 1;
    w->samples.count = 2 * half + 1;
    w->samples.interval = dt;
    w->samples.start = -(double)half * dt;
    w->samples.value = sf_malloc((size_t)w->samples.count * sizeof(double), "a Klauder wavelet");
    for (long k = -half; k <= half; ++k)
        w->samples.value[k + half] = creal(x[k < 0 ? -k : k]) / zero * hann((double)k * dt, w->length);
    free(x);
    return 0;
}

/* The Ormsby wavelet sampled over its window: for its spectrum only. */
static int ormsby_samples(const sf_wavelet *w, sf_signature *out, char *reason, size_t len)
{
    double dt = 1.0 / (POINTS_PER_PERIOD * w->band[3]);
    if (w->length / dt + 1.0 > MAX_TABLE_SAMPLES) {
        snprintf(reason, len, "a window of %g s up to %g Hz takes %.0f samples; at most %d are "
                 "made", w->length, w->band[3], w->length / dt + 1.0, MAX_TABLE_SAMPLES);
        return -1;
    }
    long half = (long)floor(0.5 * w->length / dt);
    out->count = 2 * half + 1;
    out->interval = dt;
    out->start = -(double)half * dt;
    out->value = sf_malloc((size_t)out->count * sizeof(double), "an Ormsby wavelet");
    for (long k = -half; k <= half; ++k)
        out->value[k + half] = sf_ormsby((double)k * dt, w->band) * hann((double)k * dt, w->length);
    return 0;
}

int sf_wavelet_build(sf_wavelet *w, const sf_wavelet_spec *spec, const sf_signature *sig,
                     char *reason, size_t len)
{
    memset(w, 0, sizeof *w);
    w->kind = spec->kind;
    w->frequency = spec->frequency;
    memcpy(w->band, spec->band, sizeof w->band);
    w->sweep_length = spec->sweep_length;
    w->sweep_taper = spec->sweep_taper >= 0.0 ? spec->sweep_taper
                                              : fmin(0.25, 0.25 * spec->sweep_length);
    switch (spec->kind) {
    case SF_WAVELET_ORMSBY: {
        w->length = spec->length > 0.0 ? spec->length : ormsby_auto_length(w->band);
        sf_signature tabled;
        if (ormsby_samples(w, &tabled, reason, len) != 0) return -1;
        sf_wavelet_spectrum_build(w, &tabled);
        free(tabled.value);
        break;
    }
    case SF_WAVELET_KLAUDER:
        if (build_klauder(w, spec->length, reason, len) != 0) return -1;
        sf_wavelet_spectrum_build(w, &w->samples);
        break;
    case SF_WAVELET_FILE:
        w->samples = *sig;
        w->samples.value = sf_malloc((size_t)sig->count * sizeof(double), "a signature");
        memcpy(w->samples.value, sig->value, (size_t)sig->count * sizeof(double));
        sf_wavelet_spectrum_build(w, &w->samples);
        break;
    default:
        sf_wavelet_spectrum_build(w, NULL);
    }
    return 0;
}

void sf_wavelet_free(sf_wavelet *w)
{
    free(w->samples.value);
    free(w->spectrum);
    free(w->energy_above);
    memset(w, 0, sizeof *w);
}

double sf_wavelet_auto_delay(const sf_wavelet *w)
{
    switch (w->kind) {
    case SF_WAVELET_ORMSBY:
    case SF_WAVELET_KLAUDER: return 0.5 * w->length;
    case SF_WAVELET_FILE: return 0.0;
    default: return 1.5 / w->frequency;
    }
}

double sf_wavelet_peak(const sf_wavelet *w)
{
    double peak = w->samples.value ? 0.0 : 1.0;
    for (long k = 0; k < w->samples.count; ++k) peak = fmax(peak, fabs(w->samples.value[k]));
    return peak;
}

void sf_wavelet_sample(const sf_wavelet *w, double t0, double step, long count,
                       double amplitude, double *out)
{
    if (w->samples.value) {
        sf_resample_series(w->samples.value, w->samples.count, w->samples.start,
                           w->samples.interval, t0, step, count, out);
        for (long k = 0; k < count; ++k) out[k] *= amplitude;
        return;
    }
    for (long k = 0; k < count; ++k) {
        /* tau as the steps have always computed it, so that a Ricker run
         * injects the very same values. */
        double tau = (double)k * step + t0, v;
        switch (w->kind) {
        case SF_WAVELET_GAUSSIAN: v = sf_gaussian(tau, w->frequency); break;
        case SF_WAVELET_GAUSSIAN_DERIVATIVE: v = sf_gaussian_derivative(tau, w->frequency); break;
        case SF_WAVELET_ORMSBY: v = sf_ormsby(tau, w->band) * hann(tau, w->length); break;
        default: v = sf_ricker(tau, w->frequency);
        }
        out[k] = amplitude * v;
    }
}

void sf_wavelet_describe(const sf_wavelet_spec *s, char *out, size_t len)
{
    const sf_wavelet *w = s->built;
    switch (s->kind) {
    case SF_WAVELET_RICKER: snprintf(out, len, "Ricker %g Hz", s->frequency); break;
    case SF_WAVELET_GAUSSIAN: snprintf(out, len, "Gaussian %g Hz", s->frequency); break;
    case SF_WAVELET_GAUSSIAN_DERIVATIVE:
        snprintf(out, len, "Gaussian derivative %g Hz", s->frequency);
        break;
    case SF_WAVELET_ORMSBY:
        snprintf(out, len, "Ormsby %g-%g-%g-%g Hz, window %.4g s", s->band[0], s->band[1],
                 s->band[2], s->band[3], w ? w->length : s->length);
        break;
    case SF_WAVELET_KLAUDER:
        snprintf(out, len, "Klauder %g-%g Hz sweep of %g s (taper %g s), window %.4g s",
                 s->band[0], s->band[1], s->sweep_length, w ? w->sweep_taper : s->sweep_taper,
                 w ? w->length : s->length);
        break;
    default:
        if (s->dataset)
            snprintf(out, len, "file '%.900s' (dataset %.200s)", s->file, s->dataset);
        else if (s->format == SF_SIGNATURE_SEGY)
            snprintf(out, len, "file '%.900s' (trace %ld)", s->file, s->trace);
        else
            snprintf(out, len, "file '%.900s'", s->file);
    }
}

void sf_wavelet_spec_copy(sf_wavelet_spec *to, const sf_wavelet_spec *from)
{
    *to = *from;
    to->file = from->file ? sf_strdup(from->file) : NULL;
    to->dataset = from->dataset ? sf_strdup(from->dataset) : NULL;
}

void sf_wavelet_spec_free(sf_wavelet_spec *spec)
{
    free(spec->file);
    free(spec->dataset);
    spec->file = spec->dataset = NULL;
}
