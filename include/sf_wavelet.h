/* Source time functions. */
#ifndef SF_WAVELET_H
#define SF_WAVELET_H

/* Ricker wavelet with peak frequency f (Hz), centred at delay (s). */
double sf_ricker(double t, double f, double delay);

#endif
