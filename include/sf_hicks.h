/* Off-grid point sources and receivers by Kaiser-windowed sinc
 * interpolation (Hicks, Geophysics 67(1), 2002). */
#ifndef SF_HICKS_H
#define SF_HICKS_H

enum { SF_HICKS_RADIUS = 4, SF_HICKS_WIDTH = 2 * SF_HICKS_RADIUS };

/* Windowed sinc w(x) = sinc(x) I0(b sqrt(1-(x/r)^2)) / I0(b) for |x| < r. */
double sf_kaiser_sinc(double x, double radius, double beta);

/* The Kaiser shape parameter of Hicks' table 2 for a half-width radius. */
double sf_hicks_beta(int radius);

/* What happens to weights that fall below index 0 of an axis with a free
 * surface there (images of the fields above it). */
typedef enum {
    SF_FOLD_NONE,      /* dropped, like weights past either end */
    SF_FOLD_ODD,       /* odd image about node 0, whose own weight is dropped (pressure) */
    SF_FOLD_EVEN_NODE, /* even image about node 0 (fields on the nodes) */
    SF_FOLD_EVEN_HALF  /* even image about -1/2 (fields half a cell above the nodes) */
} sf_hicks_fold;

/* One axis of the weights for a point at u index units of a field whose
 * n samples may be staggered (u from -1/2 for a field half a cell off the
 * nodes): fills first[0] with the index of the first of SF_HICKS_WIDTH
 * weights w[], those of samples outside [0, n) zero (the domain edge
 * truncates the operator) except where the fold at the low end brings
 * them back; u is used as given (snap it with sf_hicks_snap). */
void sf_hicks_axis_fold(double u, long n, sf_hicks_fold fold, long *first,
                        double w[SF_HICKS_WIDTH]);

/* One axis of the weights for a point at u grid units from index 0 on an
 * axis of n nodes: u snapped (sf_hicks_snap) and kept in [0, n - 1] (the
 * job's checks let a position lie a hair outside), then as
 * sf_hicks_axis_fold. */
void sf_hicks_axis(double u, long n, sf_hicks_fold fold, long *first, double w[SF_HICKS_WIDTH]);

/* u rounded to the nearest index when within 1e-9 of it. */
double sf_hicks_snap(double u);

#endif
