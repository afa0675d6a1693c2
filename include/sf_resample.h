/* Resampling of receiver time series from the simulation step dt to the
 * record interval: band-limited interpolation with a Kaiser-windowed sinc
 * whose cut-off is the Nyquist frequency of the coarser of the two, so a
 * coarser record is also anti-aliased. Samples are accumulated as the
 * time steps arrive, block by block. */
#ifndef SF_RESAMPLE_H
#define SF_RESAMPLE_H

typedef struct {
    double dt;          /* simulation step, s */
    double interval;    /* record interval, s */
    long nsamples;      /* record samples at t = j * interval */
    long stored;        /* samples kept while running: the record and `extra` past it */
    long levels;        /* simulation time levels the record needs */
    int exact;          /* interval == dt: plain copy */
    double period;      /* sinc period: max(dt, interval) */
} sf_resampler;

/* The record's samples (reaching the duration: the last at or past it)
 * and the time levels that they and `extra` samples past them need (the
 * interpolation kernel may reach past the end), in floating point: a
 * caller checks them before they become counts. */
void sf_resampler_counts(double dt, double interval, double duration, long extra,
                         double *samples, double *levels);
/* The resampler of those counts; each must fit a long. */
void sf_resampler_init(sf_resampler *r, double dt, double interval, double duration, long extra);

/* Adds time levels [n0, n0 + count), given as [count][nrec], into the
 * record out[nrec][stored]. */
void sf_resampler_accumulate(const sf_resampler *r, long n0, int count, long nrec,
                             const float *block, float *out);

/* A series of n samples at start + j * interval, at the count times t0 +
 * k * step, by a Kaiser-windowed sinc of the same cut-off (the Nyquist
 * frequency of the coarser of interval and step) but a longer window;
 * 0 beyond the kernel's reach of it. */
void sf_resample_series(const double *in, long n, double start, double interval, double t0,
                        double step, long count, double *out);

#endif
