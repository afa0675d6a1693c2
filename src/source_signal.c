#include "sf_source_signal.h"
#include "sf_error.h"
#include "sf_time_dispersion.h"
#include "sf_wavelet.h"

#include <stdlib.h>

void sf_source_signal_build(sf_source_signal *sig, const sf_source_config *src, double dt,
                            long steps, int warp)
{
    if (sig->at && sig->count == 2 * steps + 2 && sig->warped == warp &&
        sig->amplitude == src->amplitude && sig->frequency == src->frequency &&
        sig->delay == src->delay && sig->dt == dt)
        return;
    sf_source_signal_free(sig);
    sig->count = 2 * steps + 2;
    sig->at = sf_malloc((size_t)sig->count * sizeof(double), "the source signal");
    sig->warped = warp;
    sig->amplitude = src->amplitude, sig->frequency = src->frequency, sig->delay = src->delay;
    sig->dt = dt;
    for (long k = 0; k < sig->count; ++k) {
        /* Times written as the steps have always computed them, so that a
         * run without the transform injects the very same values. */
        double t = k % 2 == 0 ? (double)(k / 2) * dt : ((double)(k / 2) + 0.5) * dt;
        sig->at[k] = src->amplitude * sf_ricker(t, src->frequency, src->delay);
    }
    if (warp) sf_tdt_warp_source(sig->at, sig->count, 0.5 * dt, dt, sig->at);
}

void sf_source_signal_free(sf_source_signal *sig)
{
    free(sig->at);
    sig->at = NULL;
    sig->count = 0;
}
