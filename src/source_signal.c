#include "sf_source_signal.h"
#include "sf_error.h"
#include "sf_time_dispersion.h"

#include <stdlib.h>

/* What the gather stores: the signature the corrected traces answer to,
 * at every step and at the record's samples (through the records' own
 * resampler, so that it lines up with the traces). */
static void build_outputs(sf_source_signal *sig, const sf_source_config *src,
                          const sf_resampler *r)
{
    long steps = sig->count / 2;
    sig->at_dt = sf_malloc((size_t)steps * sizeof(double), "the source signal");
    sf_wavelet_sample(sig->wavelet, -src->delay, sig->dt, steps, src->amplitude, sig->at_dt);
    sig->record = sf_calloc((size_t)r->stored, sizeof(float), "the source signal's record");
    enum { BLOCK = 256 };
    float block[BLOCK];
    for (long n0 = 0; n0 < steps && n0 < r->levels; n0 += BLOCK) {
        int count = (int)(steps - n0 < BLOCK ? steps - n0 : BLOCK);
        for (int c = 0; c < count; ++c) block[c] = (float)sig->at_dt[n0 + c];
        sf_resampler_accumulate(r, n0, count, 1, block, sig->record);
    }
    sig->record_count = r->nsamples;
}

void sf_source_signal_build(sf_source_signal *sig, const sf_source_config *src, double dt,
                            long steps, int warp, const sf_resampler *r)
{
    const sf_wavelet *w = src->wavelet.built;
    if (sig->at && sig->count == 2 * steps + 2 && sig->warped == warp && sig->wavelet == w &&
        sig->amplitude == src->amplitude && sig->delay == src->delay && sig->dt == dt &&
        sig->record_count == r->nsamples)
        return;
    sf_source_signal_free(sig);
    sig->count = 2 * steps + 2;
    sig->at = sf_malloc((size_t)sig->count * sizeof(double), "the source signal");
    sig->warped = warp;
    sig->wavelet = w;
    sig->amplitude = src->amplitude, sig->delay = src->delay;
    sig->dt = dt;
    sf_wavelet_sample(w, -src->delay, 0.5 * dt, sig->count, src->amplitude, sig->at);
    if (warp) sf_tdt_warp_source(sig->at, sig->count, 0.5 * dt, dt, sig->at);
    build_outputs(sig, src, r);
}

void sf_source_signal_free(sf_source_signal *sig)
{
    free(sig->at);
    free(sig->at_dt);
    free(sig->record);
    sig->at = sig->at_dt = NULL;
    sig->record = NULL;
    sig->count = sig->record_count = 0;
}
