/* The time-dispersion transforms (Stork 2013; Koene, Robertsson, Broggini
 * and Andersson, GJI 2018) that remove the leapfrog's time error: a run
 * with step dt carries, at frequency w, what the true medium does at
 * W(w) = (2/dt) sin(w dt / 2). The source is warped before the run so that
 * its component at w is the wavelet's at W(w), and each recorded trace
 * after it so that its component at w is the run's at
 * w'(w) = (2/dt) asin(w dt / 2): the record is then the true medium's, with
 * the spatial error alone left. Both physics' leapfrogs (the acoustic one
 * and the staggered velocity-stress one) share this relation. */
#ifndef SF_TIME_DISPERSION_H
#define SF_TIME_DISPERSION_H

/* The true medium's frequency that a run with step dt carries at w, rad/s. */
double sf_tdt_true_frequency(double w, double dt);
/* The run's frequency that carries the true medium's w; -1 above 2/dt,
 * where the run carries none. */
double sf_tdt_run_frequency(double w, double dt);

/* The source to inject, out[k] at t = k h, so that a run with step dt
 * behaves as if the true medium were driven by in[k] = s(k h). h is dt or
 * dt / 2 (samples at the half steps too); n samples. */
void sf_tdt_warp_source(const double *in, long n, double h, double dt, double *out);

/* In place: count traces [count][n] recorded every `interval` from a run
 * with step dt become the true medium's (OpenMP over the traces), below
 * 1/dt rad/s, rolling off to 1.6/dt. A trace cut while a wave arrives is
 * exact but for its last few samples (1e-4 of the peak 8 samples before
 * its end): run a few samples past the record. averaged[c] (or NULL:
 * none): trace c is the mean of the two half steps around each sample
 * (elastic velocities), whose filter cos(w dt / 2) is divided out too. */
void sf_tdt_correct_traces(float *traces, long count, long n, double interval, double dt,
                           const int *averaged);

#endif
