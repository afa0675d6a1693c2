/* What a job's grid and step do to a wave: the relative error of the
 * phase velocity from the time step (the leapfrog: waves run fast) and
 * from the stencil (waves run slow; the worst of the axis, face-diagonal
 * and body-diagonal directions), and the distance a Ricker's direct wave
 * travels before its L2 misfit reaches a target. */
#ifndef SF_ACCURACY_H
#define SF_ACCURACY_H

#include "sf_stencil.h"
#include "sf_wavelet.h"

typedef struct {
    const sf_stencil *stencil;
    int staggered;         /* the elastic first-derivative stencils */
    double h[3];
    double dt;
    double v;              /* the slowest wave speed */
    int time_corrected;    /* the time-dispersion transforms remove the time error */
} sf_accuracy_setup;

/* Relative phase-velocity errors at frequency f (Hz). */
double sf_time_phase_error(const sf_accuracy_setup *a, double f);
double sf_space_phase_error(const sf_accuracy_setup *a, double f);

/* The distance (m) at which a direct wave of wavelet w reaches an L2
 * misfit of target, from the phase errors (time ones only when not
 * corrected) over its spectrum; a huge value where it never does. */
double sf_misfit_distance(const sf_accuracy_setup *a, const sf_wavelet *w, double target);

#endif
