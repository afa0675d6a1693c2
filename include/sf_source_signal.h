/* The source's time function as a run injects it: its value at every half
 * step (the acoustic source and the elastic velocity half-step take the
 * whole steps, the elastic stress half-step the half steps), the
 * amplitude included, warped by the time-dispersion transform when the
 * job corrects the time error. */
#ifndef SF_SOURCE_SIGNAL_H
#define SF_SOURCE_SIGNAL_H

#include "sf_config.h"
#include "sf_resample.h"

typedef struct {
    double *at;          /* [2 * steps + 2]: t = k dt / 2 */
    long count;
    /* Not warped, as the corrected traces answer to it: */
    double *at_dt;       /* [steps + 1] at t = n dt */
    float *record;       /* [record_count] at the record's samples */
    long record_count;
    int warped;
    const sf_wavelet *wavelet;                /* what it was built from */
    double amplitude, delay, dt;
} sf_source_signal;

/* For a run of `steps` steps of dt and the record of r; warp: apply the
 * transform. Keeps what
 * sig holds when it was built from the same wavelet, amplitude, delay and
 * step (a survey's shots mostly share one), else frees it and builds anew. */
void sf_source_signal_build(sf_source_signal *sig, const sf_source_config *src, double dt,
                            long steps, int warp, const sf_resampler *r);
void sf_source_signal_free(sf_source_signal *sig);

/* The value at t = half_steps * dt / 2. */
static inline float sf_source_signal_at(const sf_source_signal *sig, long half_steps)
{
    return (float)sig->at[half_steps];
}

#endif
