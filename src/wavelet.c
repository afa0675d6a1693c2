#include "sf_wavelet.h"

#include <math.h>

double sf_ricker(double t, double f, double delay)
{
    double a = M_PI * f * (t - delay);
    a *= a;
    return (1.0 - 2.0 * a) * exp(-a);
}
