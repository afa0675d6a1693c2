/* The instability guard's judgement of growth (README, "Instability
 * guard"). Once the source has ended and its waves have had time to cross
 * the grid, the energy can only fall (the layers absorb, the free surface
 * and the grid's edges reflect), and a field's norm can rise only as far
 * as the medium's contrasts let energy move between its parts: a norm
 * that keeps rising far beyond every level it had since is unstable. The
 * norms come from the backends' field_norms summed over the ranks, so
 * every rank judges the same numbers alike. */
#ifndef SF_GROWTH_GUARD_H
#define SF_GROWTH_GUARD_H

#include "sf_backend.h"

/* The rules, for judged checks (from the source's end on, at least
 * SF_GROWTH_SPACING steps apart), each reaching at least SF_GROWTH_FLOOR
 * of the field's peak (the source's time included):
 * - a run: the norm rose at each of at least the last SF_GROWTH_CHECKS
 *   checks, to SF_GROWTH_FACTOR times the highest norm it had before it
 *   began to rise;
 * - an envelope: the judged checks taken SF_GROWTH_CHECKS at a time, the
 *   highest norm of each of the last SF_GROWTH_WINDOWS windows rose over
 *   the window's before, to SF_GROWTH_FACTOR times the highest of the
 *   first window. Growth that swings (a closed box's standing waves
 *   beating with an unstable mode) never makes a run, yet its envelope
 *   climbs; a field that jumps once and stays, or swings about a level,
 *   makes neither. */
enum { SF_GROWTH_CHECKS = 6, SF_GROWTH_WINDOWS = 3, SF_GROWTH_SPACING = 100 };
#define SF_GROWTH_FACTOR 10.0
#define SF_GROWTH_FLOOR 1e-2

/* A field's state: its latest judged norm, the run of rises up to it and
 * the judged check before that run (its sums, for where it grows). */
typedef struct {
    double peak, first, last, high;     /* high: the highest judged norm */
    double before;                      /* the highest judged norm up to the run */
    int rises;
    long trough_step;
    double trough[SF_REGIONS];
    /* Windows of SF_GROWTH_CHECKS judged checks: the highest norm of the
     * first, of the last complete one and so far of the current one, the
     * rises of the complete ones' highest in a row, and the sums of the
     * first window's highest check (for where it grows). */
    double first_window, last_window, window;
    int window_rises;
    long first_window_step;
    double first_window_sums[SF_REGIONS];
} sf_growth_field;

typedef struct {
    long start;                 /* the first step judged: the source has ended */
    long first_step, last_step; /* judged checks so far (0 before the first) */
    long judged;
    int longest;                /* the longest run of rises seen */
    double closest;             /* the largest norm over `before` during a run */
    double envelope;            /* the largest window's highest over the first window's */
    sf_growth_field field[SF_GUARD_MAX_FIELDS];
} sf_growth_guard;

/* Why a run was stopped: field's norm rose at each of `checks` judged
 * checks from step `from` to step `to`; or (windows > 0) the highest of
 * each of the last `windows` windows rose, from the first window's
 * highest at step `from`. */
typedef struct {
    int field, checks, windows;
    long from, to, start;       /* start: the first judged check's step */
    double rise;                /* the norm at `to` over that at `from` */
    double over_start;          /* over that at `start` */
    double of_peak;             /* a fraction of the field's peak */
    sf_region region;           /* where its square grew most */
    double share;               /* that region's share of the growth of its square */
} sf_growth_verdict;

/* A shot whose source has ended, its waves across the grid, at step start. */
void sf_growth_guard_init(sf_growth_guard *g, long start);
/* The sums of squares (field_norms over all ranks) of a check at step.
 * Returns 1 and fills v when a field's growth ends the run. */
int sf_growth_guard_observe(sf_growth_guard *g, long step, int fields,
                            const double sums[][SF_REGIONS], sf_growth_verdict *v);

#endif
