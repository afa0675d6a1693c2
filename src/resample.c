#include "sf_resample.h"
#include "sf_hicks.h"

#include <math.h>

enum { KERNEL_RADIUS = 4 };  /* in periods of the coarser sampling */

static int is_exact(double dt, double interval) { return fabs(interval - dt) <= 1e-9 * dt; }

void sf_resampler_counts(double dt, double interval, double duration, long extra,
                         double *samples, double *levels)
{
    *samples = ceil(duration / interval - 1e-9) + 1.0;
    double last = (*samples + (double)extra - 1.0) * interval;
    double reach = is_exact(dt, interval) ? 0.0 : KERNEL_RADIUS * (interval > dt ? interval : dt);
    *levels = ceil((last + reach) / dt - 1e-9) + 1.0;
}

void sf_resampler_init(sf_resampler *r, double dt, double interval, double duration, long extra)
{
    double samples, levels;
    sf_resampler_counts(dt, interval, duration, extra, &samples, &levels);
    r->dt = dt;
    r->interval = interval;
    r->exact = is_exact(dt, interval);
    r->period = interval > dt ? interval : dt;
    r->nsamples = (long)samples;
    r->stored = r->nsamples + extra;
    r->levels = (long)levels;
}

void sf_resampler_accumulate(const sf_resampler *r, long n0, int count, long nrec,
                             const float *block, float *out)
{
    const double beta = sf_hicks_beta(KERNEL_RADIUS);
    const double gain = r->dt / r->period;   /* unit gain at zero frequency */
    for (int c = 0; c < count; ++c) {
        long n = n0 + c;
        const float *values = block + (long)c * nrec;
        if (r->exact) {
            if (n >= r->stored) continue;
            for (long q = 0; q < nrec; ++q) out[q * r->stored + n] = values[q];
            continue;
        }
        double t = (double)n * r->dt, reach = KERNEL_RADIUS * r->period;
        long j0 = (long)ceil((t - reach) / r->interval), j1 = (long)floor((t + reach) / r->interval);
        if (j0 < 0) j0 = 0;
        if (j1 > r->stored - 1) j1 = r->stored - 1;
        for (long j = j0; j <= j1; ++j) {
            double x = ((double)j * r->interval - t) / r->period;
            float w = (float)(gain * sf_kaiser_sinc(x, KERNEL_RADIUS, beta));
            if (w == 0.0f) continue;
            for (long q = 0; q < nrec; ++q) out[q * r->stored + j] += w * values[q];
        }
    }
}

/* A series is resampled once per run, so its kernel can be long: 16
 * periods with this Kaiser shape (the best for it) interpolate a Ricker
 * at 10 points per period of its peak to 2.2e-8 of its peak (the
 * records' 4 periods: 4e-4). */
enum { SERIES_RADIUS = 16 };
static const double SERIES_BETA = 16.0;

void sf_resample_series(const double *in, long n, double start, double interval, double t0,
                        double step, long count, double *out)
{
    const double beta = SERIES_BETA;
    const double period = interval > step ? interval : step, gain = interval / period;
    const double reach = SERIES_RADIUS * period;
    for (long k = 0; k < count; ++k) {
        double t = t0 + (double)k * step, sum = 0.0;
        double first = ceil((t - reach - start) / interval), last = floor((t + reach - start) / interval);
        long j0 = first < 0.0 ? 0 : (long)fmin(first, (double)n);
        long j1 = last > (double)(n - 1) ? n - 1 : (long)fmax(last, -1.0);
        for (long j = j0; j <= j1; ++j)
            sum += in[j] * sf_kaiser_sinc((start + (double)j * interval - t) / period,
                                          SERIES_RADIUS, beta);
        out[k] = gain * sum;
    }
}
