/* A complex FFT of power-of-two length, for the short one-off transforms
 * of wavelets and traces (no library: these are a few per receiver). */
#ifndef SF_FFT_H
#define SF_FFT_H

#include <complex.h>
#include <stddef.h>

/* In place: X_k = sum_n x_n exp(sign 2 pi i n k / n_points), sign -1 or +1,
 * unscaled. n_points must be a power of two. */
void sf_fft(double complex *x, size_t n_points, int sign);

/* The smallest power of two >= n. */
size_t sf_fft_size(size_t n);

#endif
