#include "sf_resample.h"
#include "sf_hicks.h"

#include <math.h>

enum { KERNEL_RADIUS = 4 };  /* in periods of the coarser sampling */

void sf_resampler_init(sf_resampler *r, double dt, double interval, double duration)
{
    r->dt = dt;
    r->interval = interval;
    r->exact = fabs(interval - dt) <= 1e-9 * dt;
    r->period = interval > dt ? interval : dt;
    r->nsamples = (long)floor(duration / interval + 1e-9) + 1;
    double last = (double)(r->nsamples - 1) * interval;
    double reach = r->exact ? 0.0 : KERNEL_RADIUS * r->period;
    r->levels = (long)ceil((last + reach) / dt - 1e-9) + 1;
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
            if (n >= r->nsamples) continue;
            for (long q = 0; q < nrec; ++q) out[q * r->nsamples + n] = values[q];
            continue;
        }
        double t = (double)n * r->dt, reach = KERNEL_RADIUS * r->period;
        long j0 = (long)ceil((t - reach) / r->interval), j1 = (long)floor((t + reach) / r->interval);
        if (j0 < 0) j0 = 0;
        if (j1 > r->nsamples - 1) j1 = r->nsamples - 1;
        for (long j = j0; j <= j1; ++j) {
            double x = ((double)j * r->interval - t) / r->period;
            float w = (float)(gain * sf_kaiser_sinc(x, KERNEL_RADIUS, beta));
            if (w == 0.0f) continue;
            for (long q = 0; q < nrec; ++q) out[q * r->nsamples + j] += w * values[q];
        }
    }
}
