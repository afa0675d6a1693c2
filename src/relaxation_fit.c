/* The constant-Q fit of standard linear solids. Per mechanism, with
 * x = w tau: g = x / (1 + x^2) and h = x^2 / (1 + x^2), so that
 * Im m = sum y g and Re m = 1 + sum y h. The misfit at a frequency is
 * r = q Im m / Re m - 1 (q / Q(w) - 1), sampled at log-spaced frequencies:
 * the times come from Levenberg-Marquardt on (u, ln y), ln tau = c + h
 * tanh(u), which keeps both positive and each time's frequency within an
 * octave of the band without constraints (more mechanisms than a band
 * needs otherwise drifted as far as 1e44 Hz, where they act in no band);
 * the weights for frozen times from the condition q Im m - Re m = 0,
 * linear in y, by non-negative least squares. */
#include "sf_relaxation_fit.h"

#include <complex.h>
#include <math.h>
#include <string.h>

/* 20 samples a decade resolve the ripple between mechanisms; the least
 * number keeps 2 L unknowns well over-determined on a narrow band. */
enum { PER_DECADE = 20, MIN_SAMPLES = 32, MAX_SAMPLES = 200, MISFIT_SAMPLES = 400 };
enum { MAX_UNKNOWNS = 2 * SF_MAX_MECHANISMS, LM_ITERATIONS = 200 };

/* The fitted relaxation frequencies lie within an octave of the band,
 * [f_min / 2, 2 f_max] (as the coarse layout's): a solid relaxing faster
 * has its time near dt, where the step's exact update still misses (8
 * solids within a decade: Q 5.5% off at 1 ms, 2.8% at 0.25 ms; within an
 * octave, 2.2% at 1 ms, as 3 solids). */
enum { OCTAVE = 2 };

static const double TWO_PI = 6.283185307179586;

static void mechanism_terms(double w, double tau, double *g, double *h)
{
    double x = w * tau, d = 1.0 + x * x;
    *g = x / d;
    *h = x * x / d;
}

static void modulus_parts(const sf_relaxation_times *t, const double *y, double w, double *re,
                          double *im)
{
    *re = 1.0;
    *im = 0.0;
    for (int l = 0; l < t->count; ++l) {
        double g, h;
        mechanism_terms(w, t->tau[l], &g, &h);
        *re += y[l] * h;
        *im += y[l] * g;
    }
}

static int sample_count(double f_min, double f_max)
{
    int n = (int)ceil(PER_DECADE * log10(f_max / f_min)) + 1;
    return n < MIN_SAMPLES ? MIN_SAMPLES : n > MAX_SAMPLES ? MAX_SAMPLES : n;
}

/* Sample k of n, log-spaced, both ends included. */
static double log_spaced(double lo, double hi, int k, int n)
{
    return lo * pow(hi / lo, (double)k / (n - 1));
}

static void band_samples(double f_min, double f_max, double *w, int *n)
{
    *n = sample_count(f_min, f_max);
    for (int k = 0; k < *n; ++k) w[k] = TWO_PI * log_spaced(f_min, f_max, k, *n);
}

/* Least squares of the columns cols[] of a (rows x SF_MAX_MECHANISMS, row
 * major) against b, by Householder QR: the normal equations would square
 * the condition of neighbouring mechanisms' nearly parallel columns.
 * Non-zero if the columns are (numerically) dependent. */
static int column_least_squares(const double *a, int rows, const int *cols, int ncols,
                                const double *b, double *x)
{
    double r[SF_MAX_MECHANISMS][MAX_SAMPLES], c[MAX_SAMPLES];
    for (int j = 0; j < ncols; ++j)
        for (int i = 0; i < rows; ++i) r[j][i] = a[i * SF_MAX_MECHANISMS + cols[j]];
    memcpy(c, b, sizeof(double) * rows);
    for (int j = 0; j < ncols; ++j) {
        double norm = 0.0, whole = 0.0;
        for (int i = 0; i < rows; ++i) whole += r[j][i] * r[j][i];
        for (int i = j; i < rows; ++i) norm += r[j][i] * r[j][i];
        /* What the earlier columns leave of this one. */
        if (norm <= 1e-24 * whole) return -1;
        norm = sqrt(norm);
        double alpha = r[j][j] > 0.0 ? -norm : norm;
        r[j][j] -= alpha;   /* r[j][j..] is now the reflector v */
        double vv = 0.0;
        for (int i = j; i < rows; ++i) vv += r[j][i] * r[j][i];
        for (int k = j + 1; k <= ncols; ++k) {
            double *col = k < ncols ? r[k] : c;
            double dot = 0.0;
            for (int i = j; i < rows; ++i) dot += r[j][i] * col[i];
            for (int i = j; i < rows; ++i) col[i] -= 2.0 * dot / vv * r[j][i];
        }
        r[j][j] = alpha;
    }
    for (int j = ncols - 1; j >= 0; --j) {
        double s = c[j];
        for (int k = j + 1; k < ncols; ++k) s -= r[k][j] * x[k];
        x[j] = s / r[j][j];
    }
    return 0;
}

/* The gradient of -|a y - b|^2 / 2: where it is positive, raising that
 * weight lowers the misfit. */
static void descent_direction(const double *a, int rows, int cols, const double *b,
                              const double *y, double *grad)
{
    for (int l = 0; l < cols; ++l) grad[l] = 0.0;
    for (int i = 0; i < rows; ++i) {
        double res = b[i];
        for (int l = 0; l < cols; ++l) res -= a[i * SF_MAX_MECHANISMS + l] * y[l];
        for (int l = 0; l < cols; ++l) grad[l] += a[i * SF_MAX_MECHANISMS + l] * res;
    }
}

/* Solves for the weights in_solve marks (the others held at 0); where one
 * would go negative, steps back toward the old y until it reaches 0 and
 * holds it there, until every weight solved for is positive. Non-zero if
 * the columns solved for are dependent. */
static int free_set_solve(const double *a, int rows, int cols, const double *b, int *in_solve,
                          double *y)
{
    for (int pass = 0; pass <= cols; ++pass) {
        int idx[SF_MAX_MECHANISMS], n = 0;
        double z[SF_MAX_MECHANISMS], sub[SF_MAX_MECHANISMS];
        for (int l = 0; l < cols; ++l)
            if (in_solve[l]) idx[n++] = l;
        if (column_least_squares(a, rows, idx, n, b, sub)) return -1;
        memset(z, 0, sizeof z);
        double step = 1.0;
        for (int j = 0; j < n; ++j) {
            z[idx[j]] = sub[j];
            if (sub[j] <= 0.0) step = fmin(step, y[idx[j]] / (y[idx[j]] - sub[j]));
        }
        for (int l = 0; l < cols; ++l) y[l] += step * (z[l] - y[l]);
        if (step == 1.0) return 0;
        for (int l = 0; l < cols; ++l)
            if (in_solve[l] && y[l] <= 0.0) in_solve[l] = 0, y[l] = 0.0;
    }
    return 0;
}

/* Lawson and Hanson's active-set method: min |a y - b| with y >= 0. */
static void nonnegative_least_squares(const double *a, int rows, int cols, const double *b,
                                      double *y)
{
    int in_solve[SF_MAX_MECHANISMS] = {0};
    double grad[SF_MAX_MECHANISMS], a_norm = 0.0, b_norm = 0.0;
    for (int l = 0; l < cols; ++l) y[l] = 0.0;
    for (int i = 0; i < rows; ++i) b_norm += b[i] * b[i];
    for (int i = 0; i < rows * SF_MAX_MECHANISMS; ++i) a_norm += a[i] * a[i];
    /* Rounding's share of the gradient, below which a weight stays 0. */
    double noise = 1e-12 * sqrt(a_norm * b_norm);
    for (int round = 0; round < 3 * cols; ++round) {
        descent_direction(a, rows, cols, b, y, grad);
        int best = -1;
        for (int l = 0; l < cols; ++l)
            if (!in_solve[l] && grad[l] > noise && (best < 0 || grad[l] > grad[best]))
                best = l;
        if (best < 0) return;
        in_solve[best] = 1;
        if (free_set_solve(a, rows, cols, b, in_solve, y)) {
            in_solve[best] = 0;   /* dependent on the others: it adds nothing */
            return;
        }
    }
}

/* The rows are q Im m - Re m = 0 at each sample, i.e. sum_l y_l (q g_l -
 * h_l) = 1: the fit's residual times Re m. Dividing the rows by Re m of a
 * first solve, to match the fit's residual, moved the worst misfit by at
 * most 0.2% of Q (Q = 5 to 1000), not always down: the rows stay plain. */
void sf_relaxation_weights(const sf_relaxation_times *t, double f_min, double f_max, double q,
                           double *y)
{
    double w[MAX_SAMPLES], a[MAX_SAMPLES * SF_MAX_MECHANISMS], b[MAX_SAMPLES];
    int n;
    band_samples(f_min, f_max, w, &n);
    for (int k = 0; k < n; ++k) {
        for (int l = 0; l < SF_MAX_MECHANISMS; ++l) {
            double g = 0.0, h = 0.0;
            if (l < t->count) mechanism_terms(w[k], t->tau[l], &g, &h);
            a[k * SF_MAX_MECHANISMS + l] = q * g - h;
        }
        b[k] = 1.0;
    }
    nonnegative_least_squares(a, n, t->count, b, y);
}

/* A fit's unknowns p (u_l of ln tau_l = c + h tanh(u_l), time_of, and
 * ln y_l; or for a coarse layout's frozen times the logits of its
 * weights, coarse_unknowns) and its samples; residuals fills r (and,
 * unless jac is NULL, the Jacobian, samples x unknowns, row major) and
 * returns the sum of squares. */
typedef struct fit_problem {
    int count, samples, unknowns;
    double q, f_min, f_max, w[MAX_SAMPLES];
    double log_tau_centre, log_tau_half;   /* c and h of ln tau = c + h tanh(u) */
    const sf_relaxation_times *frozen;
    double (*residuals)(const struct fit_problem *fp, const double *p, double *r, double *jac);
} fit_problem;

static double time_of(const fit_problem *fp, double u)
{
    return exp(fp->log_tau_centre + fp->log_tau_half * tanh(u));
}

static double unknown_of(const fit_problem *fp, double tau)
{
    return atanh((log(tau) - fp->log_tau_centre) / fp->log_tau_half);
}

/* Residuals q Im m / Re m - 1 at p, their sum of squares returned, and
 * (unless jac is NULL) the Jacobian, samples x 2 count, row major. */
static double residuals(const fit_problem *fp, const double *p, double *r, double *jac)
{
    int n = 2 * fp->count;
    double cost = 0.0;
    for (int k = 0; k < fp->samples; ++k) {
        double re = 1.0, im = 0.0, dre[MAX_UNKNOWNS], dim[MAX_UNKNOWNS];
        for (int l = 0; l < fp->count; ++l) {
            double tau = time_of(fp, p[l]), y = exp(p[fp->count + l]), g, h;
            mechanism_terms(fp->w[k], tau, &g, &h);
            double x2 = fp->w[k] * tau * fp->w[k] * tau, t = tanh(p[l]);
            double slope = fp->log_tau_half * (1.0 - t * t);   /* d ln tau / d u */
            re += y * h;
            im += y * g;
            dim[l] = slope * y * g * (1.0 - x2) / (1.0 + x2);
            dre[l] = slope * y * 2.0 * h / (1.0 + x2);
            dim[fp->count + l] = y * g;                 /* d/d ln y */
            dre[fp->count + l] = y * h;
        }
        r[k] = fp->q * im / re - 1.0;
        cost += r[k] * r[k];
        if (jac)
            for (int j = 0; j < n; ++j)
                jac[k * n + j] = fp->q * (dim[j] * re - im * dre[j]) / (re * re);
    }
    return cost;
}

/* Gaussian elimination with partial pivoting, in place; non-zero if
 * singular (the caller then damps harder). */
static int solve_square(double *m, double *v, int n)
{
    for (int c = 0; c < n; ++c) {
        int pivot = c;
        for (int i = c + 1; i < n; ++i)
            if (fabs(m[i * n + c]) > fabs(m[pivot * n + c])) pivot = i;
        if (m[pivot * n + c] == 0.0) return -1;
        for (int j = 0; j < n; ++j) {
            double s = m[c * n + j];
            m[c * n + j] = m[pivot * n + j], m[pivot * n + j] = s;
        }
        double s = v[c];
        v[c] = v[pivot], v[pivot] = s;
        for (int i = c + 1; i < n; ++i) {
            double f = m[i * n + c] / m[c * n + c];
            for (int j = c; j < n; ++j) m[i * n + j] -= f * m[c * n + j];
            v[i] -= f * v[c];
        }
    }
    for (int c = n - 1; c >= 0; --c) {
        for (int j = c + 1; j < n; ++j) v[c] -= m[c * n + j] * v[j];
        v[c] /= m[c * n + c];
    }
    return 0;
}

/* J^T J and J^T r. */
static void normal_equations(const double *jac, const double *r, int rows, int n, double *jtj,
                             double *jtr)
{
    for (int i = 0; i < n; ++i) {
        jtr[i] = 0.0;
        for (int j = 0; j < n; ++j) jtj[i * n + j] = 0.0;
    }
    for (int k = 0; k < rows; ++k)
        for (int i = 0; i < n; ++i) {
            jtr[i] += jac[k * n + i] * r[k];
            for (int j = 0; j < n; ++j) jtj[i * n + j] += jac[k * n + i] * jac[k * n + j];
        }
}

/* The damped step from p, into trial; non-zero if the system is singular.
 * Marquardt's scaling by the diagonal makes the damping independent of
 * the units of ln tau and ln y; the floor keeps a vanished weight's
 * column from making it singular. */
static int damped_step(const double *jtj, const double *jtr, int n, double lambda,
                       const double *p, double *trial)
{
    double m[MAX_UNKNOWNS * MAX_UNKNOWNS], d[MAX_UNKNOWNS], largest = 0.0;
    memcpy(m, jtj, sizeof(double) * n * n);
    for (int i = 0; i < n; ++i) largest = fmax(largest, jtj[i * n + i]);
    for (int i = 0; i < n; ++i) {
        m[i * n + i] += lambda * fmax(jtj[i * n + i], 1e-12 * largest);
        d[i] = -jtr[i];
    }
    if (solve_square(m, d, n)) return -1;
    for (int i = 0; i < n; ++i) trial[i] = p[i] + d[i];
    return 0;
}

/* Levenberg-Marquardt from p, in place: damping 1e-3, divided by 3 after
 * a step that lowers the cost, multiplied by 4 after one that does not;
 * it stops when a step gains less than 1e-12 of the cost, or no damping
 * finds a lower cost. Returns the final sum of squares. */
static double levenberg_marquardt(const fit_problem *fp, double *p)
{
    int n = fp->unknowns;
    double r[MAX_SAMPLES], jac[MAX_SAMPLES * MAX_UNKNOWNS], jtj[MAX_UNKNOWNS * MAX_UNKNOWNS];
    double jtr[MAX_UNKNOWNS], trial[MAX_UNKNOWNS], lambda = 1e-3;
    double cost = fp->residuals(fp, p, r, jac);
    for (int iteration = 0; iteration < LM_ITERATIONS; ++iteration) {
        normal_equations(jac, r, fp->samples, n, jtj, jtr);
        double trial_cost = cost;
        while (lambda < 1e12) {
            if (!damped_step(jtj, jtr, n, lambda, p, trial)) {
                trial_cost = fp->residuals(fp, trial, r, NULL);
                if (trial_cost < cost) break;   /* a NaN cost fails too */
            }
            lambda *= 4.0;
        }
        if (!(trial_cost < cost)) return cost;
        double gain = (cost - trial_cost) / cost;
        memcpy(p, trial, sizeof(double) * n);
        cost = fp->residuals(fp, p, r, jac);
        lambda /= 3.0;
        if (gain < 1e-12) return cost;
    }
    return cost;
}

/* Relaxation frequencies log-spaced over the band: at its ends and
 * between (ends), or at the centres of count equal sub-bands. */
static void initial_times(double f_min, double f_max, int count, int ends,
                          sf_relaxation_times *t)
{
    t->count = count;
    for (int l = 0; l < count; ++l) {
        double f = count == 1 || !ends
                       ? f_min * pow(f_max / f_min, (l + 0.5) / count)
                       : log_spaced(f_min, f_max, l, count);
        t->tau[l] = 1.0 / (TWO_PI * f);
    }
}

/* LM from times spread over [f_lo, f_hi]: the cost reached, the times in
 * out. */
static double fit_from(const fit_problem *fp, double f_lo, double f_hi, int ends,
                       sf_relaxation_times *out)
{
    int count = fp->count;
    double y[SF_MAX_MECHANISMS], p[MAX_UNKNOWNS];
    initial_times(f_lo, f_hi, count, ends, out);
    sf_relaxation_weights(out, fp->f_min, fp->f_max, fp->q, y);
    /* A weight the linear solve left at 0 starts small instead: ln 0 has
     * no gradient to revive it. */
    for (int l = 0; l < count; ++l) {
        p[l] = unknown_of(fp, out->tau[l]);
        p[count + l] = log(fmax(y[l], 1e-4 / fp->q));
    }
    double cost = levenberg_marquardt(fp, p);
    for (int l = 0; l < count; ++l) out->tau[l] = time_of(fp, p[l]);
    return cost;
}

static void sort_times(sf_relaxation_times *t)
{
    for (int i = 1; i < t->count; ++i)
        for (int j = i; j > 0 && t->tau[j] < t->tau[j - 1]; --j) {
            double s = t->tau[j];
            t->tau[j] = t->tau[j - 1], t->tau[j - 1] = s;
        }
}

int sf_relaxation_fit_times(double f_min, double f_max, int count, double q,
                            sf_relaxation_times *out)
{
    if (!(f_min > 0.0) || !(f_max > f_min) || !isfinite(f_max) || count < 1 ||
        count > SF_MAX_MECHANISMS || !(q > 0.0) || !isfinite(q))
        return -1;
    const double longest = log(OCTAVE / (TWO_PI * f_min));
    const double shortest = log(1.0 / (TWO_PI * OCTAVE * f_max));
    fit_problem fp = {.count = count, .unknowns = 2 * count, .q = q, .f_min = f_min,
                      .f_max = f_max, .log_tau_centre = 0.5 * (longest + shortest),
                      .log_tau_half = 0.5 * (longest - shortest), .residuals = residuals};
    band_samples(f_min, f_max, fp.w, &fp.samples);
    /* Three starts, the best kept: from one alone, LM can stall where two
     * mechanisms merge or one's weight vanishes, and L then acts as fewer
     * (5 mechanisms on 1-30 Hz no better than 3, at Q = 30). The third
     * spreads the times half a sub-band past each end of the band. */
    sf_relaxation_times centres, wide;
    double best = fit_from(&fp, f_min, f_max, 1, out);
    double from_centres = fit_from(&fp, f_min, f_max, 0, &centres);
    double stretch = pow(f_max / f_min, 0.5 / count);
    double from_wide = fit_from(&fp, f_min / stretch, f_max * stretch, 1, &wide);
    if (from_centres < best) *out = centres, best = from_centres;
    if (from_wide < best) *out = wide;
    sort_times(out);
    return 0;
}

double sf_relaxation_q(const sf_relaxation_times *t, const double *y, double f)
{
    double re, im;
    modulus_parts(t, y, TWO_PI * f, &re, &im);
    return re / im;
}

/* The largest |Q(f)/q - 1| of a layout's Q at log-spaced samples of the
 * band, both ends included. */
static double worst_over_band(double (*q_at)(const sf_relaxation_times *, const double *, double),
                              const sf_relaxation_times *t, const double *y, double f_min,
                              double f_max, double q)
{
    double worst = 0.0;
    for (int k = 0; k < MISFIT_SAMPLES; ++k) {
        double f = log_spaced(f_min, f_max, k, MISFIT_SAMPLES);
        worst = fmax(worst, fabs(q_at(t, y, f) / q - 1.0));
    }
    return worst;
}

double sf_relaxation_worst_misfit(const sf_relaxation_times *t, const double *y, double f_min,
                                  double f_max, double q)
{
    return worst_over_band(sf_relaxation_q, t, y, f_min, f_max, q);
}

/* Re(m^(-1/2)) at f: the phase slowness in units of sqrt(rho / M_R). */
static double relaxed_slowness(const sf_relaxation_times *t, const double *y, double f)
{
    double re, im;
    modulus_parts(t, y, TWO_PI * f, &re, &im);
    return creal(1.0 / csqrt(re + I * im));
}

double sf_relaxation_velocity_ratio(const sf_relaxation_times *t, const double *y, double f_ref,
                                    double f)
{
    return relaxed_slowness(t, y, f_ref) / relaxed_slowness(t, y, f);
}

double sf_relaxation_relaxed_modulus_factor(const sf_relaxation_times *t, const double *y,
                                            double f_ref)
{
    double s = relaxed_slowness(t, y, f_ref);
    return s * s;
}

/* ---- the coarse layout ----------------------------------------------- */

/* Twice past each end of the band: the outer times carry the band's
 * tails, so no weight has to be large. */
void sf_relaxation_coarse_times(double f_min, double f_max, sf_relaxation_times *t)
{
    initial_times(0.5 * f_min, 2.0 * f_max, SF_MAX_MECHANISMS, 1, t);
    sort_times(t);
}

/* The layout's mean compliance at w over the unrelaxed one, and (unless
 * d is NULL) its derivatives by Y_l. */
static double complex coarse_compliance(const sf_relaxation_times *t, const double *Y, double w,
                                        double complex *d)
{
    const int n = t->count;
    double complex c = 0.0;
    for (int l = 0; l < n; ++l) {
        const double complex g = 1.0 / (1.0 + I * w * t->tau[l]), a = 1.0 - n * Y[l] * g;
        c += 1.0 / a;
        if (d) d[l] = g / (a * a);
    }
    return c / n;
}

/* A point's relaxed modulus, 1 - n Y_l of the unrelaxed, stays above
 * this share: a point that relaxed to nothing would not hold a wave. */
static const double COARSE_FLOOR = 0.1;

/* The weights from the unknowns, Y = (1 - floor) / n / (1 + e^-p), and
 * dY/dp. */
static void coarse_unknowns(int n, const double *p, double *Y, double *slope)
{
    for (int l = 0; l < n; ++l) {
        const double s = 1.0 / (1.0 + exp(-p[l]));
        Y[l] = (1.0 - COARSE_FLOOR) / n * s;
        slope[l] = Y[l] * (1.0 - s);
    }
}

/* q / Q - 1 with Q = -Re c / Im c. */
static double coarse_residuals(const fit_problem *fp, const double *p, double *r, double *jac)
{
    const int n = fp->unknowns;
    double Y[SF_MAX_MECHANISMS], slope[SF_MAX_MECHANISMS], cost = 0.0;
    coarse_unknowns(n, p, Y, slope);
    for (int k = 0; k < fp->samples; ++k) {
        double complex d[SF_MAX_MECHANISMS];
        const double complex c = coarse_compliance(fp->frozen, Y, fp->w[k], jac ? d : NULL);
        r[k] = -fp->q * cimag(c) / creal(c) - 1.0;
        cost += r[k] * r[k];
        if (jac)
            for (int l = 0; l < n; ++l)
                jac[k * n + l] = -fp->q * slope[l] *
                                 (cimag(d[l]) * creal(c) - cimag(c) * creal(d[l])) /
                                 (creal(c) * creal(c));
    }
    return cost;
}

void sf_relaxation_coarse_weights(const sf_relaxation_times *t, double f_min, double f_max,
                                  double q, double *Y)
{
    const int n = t->count;
    fit_problem fp = {.count = n, .unknowns = n, .q = q, .f_min = f_min, .f_max = f_max,
                      .frozen = t, .residuals = coarse_residuals};
    band_samples(f_min, f_max, fp.w, &fp.samples);
    double p[SF_MAX_MECHANISMS], sum = 0.0;
    int started = 0;
    for (int l = 0; l < n; ++l) started |= Y[l] > 0.0;
    if (!started) {
        /* The full layout's weights: the mean of the moduli, which the
         * mean of the compliances differs from at second order. */
        sf_relaxation_weights(t, f_min, f_max, q, Y);
        for (int l = 0; l < n; ++l) sum += Y[l];
        for (int l = 0; l < n; ++l) Y[l] /= 1.0 + sum;
    }
    for (int l = 0; l < n; ++l) {
        const double s = fmin(fmax(n * Y[l] / (1.0 - COARSE_FLOOR), 1e-4 / q), 0.99);
        p[l] = log(s / (1.0 - s));
    }
    levenberg_marquardt(&fp, p);
    double slope[SF_MAX_MECHANISMS];
    coarse_unknowns(n, p, Y, slope);
}

double sf_relaxation_coarse_q(const sf_relaxation_times *t, const double *Y, double f)
{
    const double complex c = coarse_compliance(t, Y, TWO_PI * f, NULL);
    return -creal(c) / cimag(c);
}

double sf_relaxation_coarse_worst_misfit(const sf_relaxation_times *t, const double *Y,
                                         double f_min, double f_max, double q)
{
    return worst_over_band(sf_relaxation_coarse_q, t, Y, f_min, f_max, q);
}

double sf_relaxation_coarse_unrelaxed_ratio(const sf_relaxation_times *t, const double *Y,
                                            double f_ref)
{
    return creal(csqrt(coarse_compliance(t, Y, TWO_PI * f_ref, NULL)));
}

