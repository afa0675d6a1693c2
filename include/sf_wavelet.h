/* Source signatures: the analytic wavelets (Ricker, Gaussian and its
 * first derivative, Ormsby, Klauder) and measured ones read from a file,
 * as a job describes them (sf_wavelet_spec) and as a run evaluates them
 * (sf_wavelet): in time, at any sampling, and in frequency. */
#ifndef SF_WAVELET_H
#define SF_WAVELET_H

#include <stddef.h>

typedef enum { SF_WAVELET_RICKER, SF_WAVELET_GAUSSIAN, SF_WAVELET_GAUSSIAN_DERIVATIVE,
               SF_WAVELET_ORMSBY, SF_WAVELET_KLAUDER, SF_WAVELET_FILE, SF_WAVELET_KINDS
} sf_wavelet_kind;

/* How a signature file is read: from its name's extension, or as told. */
typedef enum { SF_SIGNATURE_AUTO, SF_SIGNATURE_HDF5, SF_SIGNATURE_SEGY, SF_SIGNATURE_TEXT
} sf_signature_format;

/* Uniform samples of a signature: value[n] at start + n * interval (s). */
typedef struct {
    double *value;
    long count;
    double interval, start;
} sf_signature;

struct sf_wavelet;

/* A wavelet as the job gives it. The kind's own keys only are used. */
typedef struct {
    sf_wavelet_kind kind;
    double frequency;            /* ricker (peak), gaussian, gaussian_derivative, Hz */
    double band[4];              /* ormsby: f1 < f2 <= f3 < f4; klauder: start, end (Hz) */
    double sweep_length;         /* klauder: the sweep, s */
    double sweep_taper;          /* klauder: cosine taper at each end of the sweep, s */
    double length;               /* ormsby, klauder: the window, s; 0 = auto */
    char *file;                  /* file: the path */
    char *dataset;               /* file, HDF5: the dataset */
    long trace;                  /* file, SEG-Y: the trace, from 0 */
    sf_signature_format format;
    char key[72];                /* the key that sets its band: "source.frequency" */
    int line, column;            /* where that key is */
    const struct sf_wavelet *built;   /* what a loaded job evaluates; owned by the job */
} sf_wavelet_spec;

/* A wavelet ready to evaluate. Time zero is the analytic kinds' centre
 * (Ricker, Gaussian: the peak; Gaussian derivative: its zero crossing;
 * Ormsby, Klauder: the zero-phase peak); a file's times are its own. */
typedef struct sf_wavelet {
    sf_wavelet_kind kind;
    double frequency, band[4], sweep_length, sweep_taper;
    double length;               /* ormsby, klauder: the window used */
    sf_signature samples;        /* klauder, file: what is interpolated */
    double *spectrum;            /* ormsby, klauder, file: amplitude, peak 1, bins of df */
    long bins;
    double df;
    double *energy_above;        /* [ENERGY_POINTS + 1]: share of energy above k * top / N */
    double top;                  /* Hz: the spectrum is negligible above */
    /* The frequency the CPML's shift and the accuracy report use: the
     * Ricker's peak, the Gaussians' f, Ormsby's and Klauder's band centre,
     * a file's spectral peak. */
    double dominant_frequency;
    double upper_frequency;      /* as much energy above as a Ricker has above 2.5 f0 */
} sf_wavelet;

/* Analytic kinds at time tau from their centre, peak 1. */
double sf_ricker(double tau, double f);
double sf_gaussian(double tau, double f);
double sf_gaussian_derivative(double tau, double f);
/* Without the window. */
double sf_ormsby(double tau, const double f[4]);

/* "ricker", "gaussian", ... as the job spells them. */
const char *sf_wavelet_kind_name(sf_wavelet_kind kind);

/* Builds w from spec; sig: the file's samples for SF_WAVELET_FILE (copied),
 * else NULL. 0, or -1 with the reason (a sweep too long to sample). */
int sf_wavelet_build(sf_wavelet *w, const sf_wavelet_spec *spec, const sf_signature *sig,
                     char *reason, size_t len);
void sf_wavelet_free(sf_wavelet *w);

/* The delay that "auto" gives: 1.5 / f for the Ricker and Gaussian kinds,
 * half the window for Ormsby and Klauder, 0 for a file (its own times). */
double sf_wavelet_auto_delay(const sf_wavelet *w);

/* The largest |s(t)| before the amplitude: 1 for the analytic kinds, a
 * file's largest sample. */
double sf_wavelet_peak(const sf_wavelet *w);

/* count samples at t0 + k * step (s, from the wavelet's time zero), times
 * amplitude; sampled kinds are interpolated band-limited to the Nyquist
 * frequency of the coarser of their sampling and step. */
void sf_wavelet_sample(const sf_wavelet *w, double t0, double step, long count,
                       double amplitude, double *out);

/* Amplitude spectrum at f (Hz), relative to its peak. */
double sf_wavelet_spectrum(const sf_wavelet *w, double f);
/* The share of the energy above f. */
double sf_wavelet_energy_share_above(const sf_wavelet *w, double f);
/* The highest frequency at which the spectrum reaches `fraction` of its peak. */
double sf_wavelet_band_edge(const sf_wavelet *w, double fraction);

/* The spectrum's tables and the frequencies derived from it, for
 * sf_wavelet_build: from samples (tabulated kinds), else in closed form. */
void sf_wavelet_spectrum_build(sf_wavelet *w, const sf_signature *samples);

/* "Ricker 10 Hz", "Ormsby 5-10-40-60 Hz, 0.4 s", "file 'sig.h5' (/wavelet)". */
void sf_wavelet_describe(const sf_wavelet_spec *spec, char *out, size_t len);

void sf_wavelet_spec_copy(sf_wavelet_spec *to, const sf_wavelet_spec *from);
void sf_wavelet_spec_free(sf_wavelet_spec *spec);

#endif
