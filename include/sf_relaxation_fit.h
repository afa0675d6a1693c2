/* Constant Q from L standard linear solids (SLS) in parallel. With the
 * modulus normalised by the relaxed one (frequency -> 0),
 *
 *     m(w) = 1 + sum_l y_l (i w tau_l) / (1 + i w tau_l),   y_l >= 0,
 *
 * and Q(w) = Re m / Im m exactly (no weak-Q approximation). The relaxation
 * times tau_l are fitted once, for one representative Q, and shared by the
 * whole model; the weights y_l are then re-solved for each Q with the
 * times frozen (for a fixed tau, Q Im m = Re m is linear in y). The
 * unrelaxed modulus is M_U = M_R (1 + sum y). */
#ifndef SF_RELAXATION_FIT_H
#define SF_RELAXATION_FIT_H

#define SF_MAX_MECHANISMS 8

/* tau[0..count-1], seconds, shortest first. */
typedef struct {
    int count;
    double tau[SF_MAX_MECHANISMS];
} sf_relaxation_times;

/* Fits count relaxation times (and, internally, weights) so that Q stays
 * as close to q as it can over [f_min, f_max] Hz, by least squares of
 * q / Q(f) - 1 at log-spaced frequencies. 0, or non-zero on bad input
 * (f_min <= 0, f_max <= f_min, count outside 1..SF_MAX_MECHANISMS,
 * q <= 0, or a non-finite value); it prints nothing. Deterministic. */
int sf_relaxation_fit_times(double f_min, double f_max, int count, double q,
                            sf_relaxation_times *out);

/* y[0..t->count-1] >= 0: the weights that hold Q near q over the band
 * with t's times frozen. Takes what sf_relaxation_fit_times accepts. */
void sf_relaxation_weights(const sf_relaxation_times *t, double f_min, double f_max, double q,
                           double *y);

/* The realised Q at f Hz (infinite where every weight is 0). */
double sf_relaxation_q(const sf_relaxation_times *t, const double *y, double f);

/* The largest |Q(f)/q - 1| over 400 log-spaced frequencies of the band,
 * both ends included: what a caller compares with its tolerance. */
double sf_relaxation_worst_misfit(const sf_relaxation_times *t, const double *y, double f_min,
                                  double f_max, double q);

/* The phase velocity at f over that at f_ref: attenuation's dispersion
 * (faster at higher frequencies). */
double sf_relaxation_velocity_ratio(const sf_relaxation_times *t, const double *y, double f_ref,
                                    double f);

/* The factor that makes the phase velocity at f_ref the model's v_ref:
 * M_R = rho v_ref^2 * factor (below 1: the relaxed medium is slower). */
double sf_relaxation_relaxed_modulus_factor(const sf_relaxation_times *t, const double *y,
                                            double f_ref);

/* The coarse layout (sf_relaxation.h): each of count points of a cell
 * relaxes through one mechanism with count times its weight. The
 * modulus multiplies the Laplacian point by point, so long waves see the
 * mean of the points' compliances, which differs from the full layout's
 * modulus at second order in the weights: 20% of 1/Q at Q 30 with the
 * full layout's weights. */

/* The layout's times: SF_MAX_MECHANISMS over [f_min / 2, 2 f_max],
 * shortest first. */
void sf_relaxation_coarse_times(double f_min, double f_max, sf_relaxation_times *t);

/* Y[0..t->count-1]: the weights as fractions of the unrelaxed modulus
 * that hold the mean compliance's Q near q over the band (Levenberg-
 * Marquardt, each count Y_l kept at most 0.9 so that every point keeps a
 * tenth of its modulus), from Y as given (a neighbouring Q's) or, if all
 * 0, from the full layout's. */
void sf_relaxation_coarse_weights(const sf_relaxation_times *t, double f_min, double f_max,
                                  double q, double *Y);

/* The layout's Q at f, and its worst misfit as sf_relaxation_worst_misfit's. */
double sf_relaxation_coarse_q(const sf_relaxation_times *t, const double *Y, double f);
double sf_relaxation_coarse_worst_misfit(const sf_relaxation_times *t, const double *Y,
                                         double f_min, double f_max, double q);

/* The unrelaxed velocity over the phase velocity at f_ref. */
double sf_relaxation_coarse_unrelaxed_ratio(const sf_relaxation_times *t, const double *Y,
                                            double f_ref);

#endif
