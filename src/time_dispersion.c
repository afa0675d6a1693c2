/* One spectral warp serves both transforms: the input's spectrum is read
 * at another frequency for every output frequency, by interpolation on a
 * zero-padded FFT, and transformed back. */
#include "sf_time_dispersion.h"
#include "sf_error.h"
#include "sf_fft.h"
#include "sf_hicks.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>

/* Interpolation in frequency: a Kaiser-windowed sinc over 2 x RADIUS
 * samples. The padding to twice the length at least leaves the centred
 * signal half of the transform's time window, and the window's beta suits
 * that margin (1e-7 of the peak in the unit tests). */
enum { RADIUS = 12, EXTENSION = 64 };
static const double BETA = 17.0;

double sf_tdt_true_frequency(double w, double dt) { return 2.0 / dt * sin(0.5 * w * dt); }

double sf_tdt_run_frequency(double w, double dt)
{
    double x = 0.5 * w * dt;
    return fabs(x) < 1.0 ? 2.0 / dt * asin(x) : -1.0;
}

typedef enum { TO_RUN, TO_TRUE } warp_kind;

typedef struct {
    warp_kind kind;
    double dt;
    int averaged;
} warp_map;

/* Corrected records roll off between these fractions of 2/dt: near 2/dt
 * the map's slope grows without bound, and what a record cut while a wave
 * arrives holds there would move round the transform's window. */
static const double ROLL_OFF[2] = {0.5, 0.8};

/* For output frequency w >= 0: the input frequency to read and the gain;
 * 0 where the output holds nothing there. */
static int map_frequency(const warp_map *m, double w, double *from, double *gain)
{
    *gain = 1.0;
    if (m->kind == TO_RUN) {
        /* The run cannot carry what lies above its Nyquist frequency. */
        if (w * m->dt > M_PI) return 0;
        *from = sf_tdt_true_frequency(w, m->dt);
        return 1;
    }
    *from = sf_tdt_run_frequency(w, m->dt);
    if (*from < 0.0) return 0;
    double x = 0.5 * w * m->dt;
    if (x >= ROLL_OFF[1]) return 0;
    if (x > ROLL_OFF[0]) {
        double c = cos(0.5 * M_PI * (x - ROLL_OFF[0]) / (ROLL_OFF[1] - ROLL_OFF[0]));
        *gain = c * c;
    }
    if (m->averaged) {
        double c = cos(0.5 * *from * m->dt);
        if (c < 0.1) return 0;   /* no signal there; do not amplify noise */
        *gain /= c;
    }
    return 1;
}

/* A warp for series of n samples at one interval: the same for every
 * trace of a record, so the interpolation weights are computed once. For
 * output frequency j (0..m/2) the input spectrum is read at grid position
 * base[j] - RADIUS + 1 .. base[j] + RADIUS with weight[j][...], times
 * factor[j] (gain and the centring phase); factor 0: nothing there. */
typedef struct {
    long n;
    size_t m;
    long *base;
    double (*weight)[2 * RADIUS];
    double complex *factor;
    double complex *centring;   /* [m]: moves the input's times about 0 */
} warp_plan;

static warp_plan plan_create(long n, double interval, const warp_map *map)
{
    warp_plan p = {.n = n, .m = sf_fft_size((size_t)(2 * n + 2 * RADIUS + EXTENSION))};
    size_t half = p.m / 2 + 1;
    p.base = sf_calloc(half, sizeof *p.base, "a time-dispersion transform");
    p.weight = sf_calloc(half, sizeof *p.weight, "a time-dispersion transform");
    p.factor = sf_calloc(half, sizeof *p.factor, "a time-dispersion transform");
    p.centring = sf_calloc(p.m, sizeof *p.centring, "a time-dispersion transform");
    /* Centred in time, the series' spectrum varies least between grid
     * points, and the sinc reads it within its margin. */
    const double centre = 0.5 * (double)(n - 1) * interval, dw = 2.0 * M_PI / ((double)p.m * interval);
    for (size_t k = 0; k < p.m; ++k)
        p.centring[k] = cexp(I * dw * (k < p.m / 2 ? (double)k : (double)k - (double)p.m) * centre);
    for (size_t j = 0; j < half; ++j) {
        double from, gain;
        if (!map_frequency(map, dw * (double)j, &from, &gain) || from * interval >= M_PI) continue;
        double x = from / dw;
        p.base[j] = (long)floor(x);
        for (int q = 0; q < 2 * RADIUS; ++q)
            p.weight[j][q] = sf_kaiser_sinc(x - (double)(p.base[j] - RADIUS + 1 + q), RADIUS, BETA);
        p.factor[j] = gain * cexp(-I * from * centre);
    }
    return p;
}

static void plan_free(warp_plan *p)
{
    free(p->base);
    free(p->weight);
    free(p->factor);
    free(p->centring);
}

/* Past its last sample a series continues as its point reflection there
 * (value and slope continuous) over EXTENSION samples, tapered to zero: a
 * cut-off trace then has no jump to ring at its end. */
static void load_extended(const double *series, long n, double complex *v, size_t m)
{
    long e = n - 1 < EXTENSION ? n - 1 : EXTENSION;
    for (size_t i = 0; i < m; ++i) v[i] = 0.0;
    for (long i = 0; i < n; ++i) v[i] = series[i];
    for (long k = 1; k <= e; ++k) {
        double taper = cos(0.5 * M_PI * (double)k / (double)(e + 1));
        v[n - 1 + k] = (2.0 * series[n - 1] - series[n - 1 - k]) * taper * taper;
    }
}

/* In place on series[0..n); work holds 2 m complex values. */
static void plan_apply(const warp_plan *p, double *series, double complex *work)
{
    const size_t m = p->m;
    double complex *v = work, *y = work + m;
    load_extended(series, p->n, v, m);
    sf_fft(v, m, -1);
    for (size_t k = 0; k < m; ++k) v[k] *= p->centring[k];
    for (size_t j = 0; j <= m / 2; ++j) {
        double complex sum = 0.0;
        if (p->factor[j] != 0.0)
            for (int q = 0; q < 2 * RADIUS; ++q) {
                long k = p->base[j] - RADIUS + 1 + q, wrapped = ((k % (long)m) + (long)m) % (long)m;
                sum += v[wrapped] * p->weight[j][q];
            }
        y[j] = sum * p->factor[j];
        if (j > 0 && j < m / 2) y[m - j] = conj(y[j]);
    }
    y[m / 2] = creal(y[m / 2]);
    sf_fft(y, m, +1);
    for (long i = 0; i < p->n; ++i) series[i] = creal(y[i]) / (double)m;
}

void sf_tdt_warp_source(const double *in, long n, double h, double dt, double *out)
{
    const warp_map map = {TO_RUN, dt, 0};
    warp_plan p = plan_create(n, h, &map);
    double complex *work = sf_malloc(2 * p.m * sizeof *work, "a time-dispersion transform");
    for (long i = 0; i < n; ++i) out[i] = in[i];
    plan_apply(&p, out, work);
    free(work);
    plan_free(&p);
}

void sf_tdt_correct_traces(float *traces, long count, long n, double interval, double dt,
                           const int *averaged)
{
    /* The averaged channels' plan is built only where some channel is one
     * (elastic velocities); an acoustic record needs the first alone. */
    int kinds = 1;
    for (long c = 0; averaged && c < count && kinds == 1; ++c)
        if (averaged[c]) kinds = 2;
    warp_plan plans[2];
    for (int a = 0; a < kinds; ++a) {
        const warp_map map = {TO_TRUE, dt, a};
        plans[a] = plan_create(n, interval, &map);
    }
    #pragma omp parallel
    {
        double complex *work = sf_malloc(2 * plans[0].m * sizeof *work, "a time-dispersion transform");
        double *series = sf_malloc((size_t)(n ? n : 1) * sizeof *series, "a trace to correct");
        #pragma omp for schedule(dynamic)
        for (long c = 0; c < count; ++c) {
            float *trace = traces + (size_t)c * (size_t)n;
            for (long i = 0; i < n; ++i) series[i] = trace[i];
            plan_apply(&plans[averaged && averaged[c] ? 1 : 0], series, work);
            for (long i = 0; i < n; ++i) trace[i] = (float)series[i];
        }
        free(work);
        free(series);
    }
    for (int a = 0; a < kinds; ++a) plan_free(&plans[a]);
}
