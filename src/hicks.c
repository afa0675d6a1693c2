#include "sf_hicks.h"

#include <math.h>
#include <string.h>

/* Modified Bessel function of the first kind, order 0, by its power
 * series; converges quickly for the arguments used here (< 20). */
static double bessel_i0(double x)
{
    double sum = 1.0, term = 1.0, q = 0.25 * x * x;
    for (int k = 1; k < 200; ++k) {
        term *= q / ((double)k * (double)k);
        sum += term;
        if (term < 1e-17 * sum) break;
    }
    return sum;
}

double sf_kaiser_sinc(double x, double radius, double beta)
{
    if (fabs(x) >= radius) return 0.0;
    double ratio = x / radius;
    double window = bessel_i0(beta * sqrt(1.0 - ratio * ratio)) / bessel_i0(beta);
    double sinc = x == 0.0 ? 1.0 : sin(M_PI * x) / (M_PI * x);
    return sinc * window;
}

double sf_hicks_beta(int radius)
{
    static const double beta[10] = {1.24, 2.94, 4.53, 6.31, 7.91,
                                    9.42, 10.95, 12.53, 14.09, 14.18};
    if (radius < 1) radius = 1;
    if (radius > 10) radius = 10;
    return beta[radius - 1];
}

/* sinc(m - f) written as (-1)^(m+1) sin(pi f) / (pi (m - f)), so that a
 * point exactly on a node gives exact zeros at the other nodes. */
static double node_weight(int m, double frac, double beta)
{
    double x = (double)m - frac;
    if (x == 0.0) return 1.0;
    if (fabs(x) >= SF_HICKS_RADIUS) return 0.0;
    double sign = (m % 2 == 0) ? -1.0 : 1.0;
    double sinc = sign * sin(M_PI * frac) / (M_PI * x);
    double ratio = x / SF_HICKS_RADIUS;
    return sinc * bessel_i0(beta * sqrt(1.0 - ratio * ratio)) / bessel_i0(beta);
}

/* Where node `node` of the axis lands after folding at the low end, and
 * the sign its weight takes; returns 0 when the weight is dropped. */
static int fold_node(sf_hicks_fold fold, long *node, double *value)
{
    if (*node > 0 || (*node == 0 && fold != SF_FOLD_ODD)) return 1;
    switch (fold) {
    case SF_FOLD_ODD:
        if (*node == 0) return 0;   /* p = 0 on the surface */
        *node = -*node;
        *value = -*value;
        return 1;
    case SF_FOLD_EVEN_NODE: *node = -*node; return 1;
    case SF_FOLD_EVEN_HALF: *node = -1 - *node; return 1;
    default: return 1;              /* dropped below as lying outside */
    }
}

void sf_hicks_axis_fold(double u, long n, sf_hicks_fold fold, long *first,
                        double w[SF_HICKS_WIDTH])
{
    const double beta = sf_hicks_beta(SF_HICKS_RADIUS);
    long base = (long)floor(u);
    double frac = u - (double)base;
    *first = base - (SF_HICKS_RADIUS - 1);
    memset(w, 0, sizeof(double) * SF_HICKS_WIDTH);
    for (int m = -(SF_HICKS_RADIUS - 1); m <= SF_HICKS_RADIUS; ++m) {
        long node = base + m;
        double value = node_weight(m, frac, beta);
        if (!fold_node(fold, &node, &value)) continue;
        if (node < 0 || node >= n) continue;
        long slot = node - *first;
        if (slot >= 0 && slot < SF_HICKS_WIDTH) w[slot] += value;
    }
}

/* Positions computed from metres carry rounding: snap to a node when
 * within 1e-9 of a grid interval. */
double sf_hicks_snap(double u) { return fabs(u - round(u)) < 1e-9 ? round(u) : u; }

void sf_hicks_axis(double u, long n, sf_hicks_fold fold, long *first, double w[SF_HICKS_WIDTH])
{
    /* Keep inside the axis. */
    u = sf_hicks_snap(u);
    if (u < 0.0) u = 0.0;
    if (u > (double)(n - 1)) u = (double)(n - 1);
    sf_hicks_axis_fold(u, n, fold, first, w);
}
