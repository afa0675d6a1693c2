/* Off-grid point sources and receivers by Kaiser-windowed sinc
 * interpolation (Hicks, Geophysics 67(1), 2002). */
#ifndef SF_HICKS_H
#define SF_HICKS_H

enum { SF_HICKS_RADIUS = 4, SF_HICKS_WIDTH = 2 * SF_HICKS_RADIUS };

/* Windowed sinc w(x) = sinc(x) I0(b sqrt(1-(x/r)^2)) / I0(b) for |x| < r. */
double sf_kaiser_sinc(double x, double radius, double beta);

/* The Kaiser shape parameter of Hicks' table 2 for a half-width radius. */
double sf_hicks_beta(int radius);

/* One axis of the weights for a point at u grid units from index 0 on an
 * axis of n points: fills first[0] with the index of the first of
 * SF_HICKS_WIDTH weights w[]. Nodes outside [0, n) get weight 0 (the
 * domain edge truncates the operator). When mirror is set, index 0 is a
 * pressure-free surface: weights above it are folded back with opposite
 * sign and the weight on the surface itself is dropped. */
void sf_hicks_axis(double u, long n, int mirror, long *first, double w[SF_HICKS_WIDTH]);

#endif
