#include "sf_fft.h"

#include <math.h>

size_t sf_fft_size(size_t n)
{
    size_t m = 1;
    while (m < n) m <<= 1;
    return m;
}

static void bit_reverse(double complex *x, size_t n)
{
    for (size_t i = 1, j = 0; i < n; ++i) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) {
            double complex t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
}

void sf_fft(double complex *x, size_t n, int sign)
{
    bit_reverse(x, n);
    for (size_t half = 1; half < n; half <<= 1) {
        /* Twiddles from cos/sin each stage, not by recurrence: exact to
         * rounding on long transforms. */
        double step = sign * M_PI / (double)half;
        for (size_t k = 0; k < half; ++k) {
            double complex w = cos(step * (double)k) + I * sin(step * (double)k);
            for (size_t i = k; i < n; i += 2 * half) {
                double complex t = w * x[i + half];
                x[i + half] = x[i] - t;
                x[i] += t;
            }
        }
    }
}
