/* One shot: set-up from a validated job, the time loop, and the gather. */
#ifndef SF_SIMULATION_H
#define SF_SIMULATION_H

#include "sf_acquisition.h"
#include "sf_backend.h"
#include "sf_config.h"
#include "sf_cpml.h"
#include "sf_decomp.h"
#include "sf_halo.h"
#include "sf_model.h"
#include "sf_resample.h"
#include "sf_stencil.h"
#include "sf_timers.h"

typedef struct {
    const sf_config *cfg;
    sf_slab slab;
    sf_stencil stencil;
    sf_model model;
    double dt, dt_max;
    double interval;          /* record interval */
    long steps;               /* time steps computed */
    sf_cpml_axis cpml[3];
    sf_acquisition acq;
    sf_resampler resampler;
    const sf_backend_ops *ops;
    sf_backend *backend;
    sf_halo halo;
    sf_timers timers;         /* from the start of the timed steps */
    sf_timers setup_timers;   /* model reading, before the time loop */
    sf_timers loop_timers;    /* the timed steps alone */
    float *traces;            /* [receiver_count][nsamples], this rank's receivers */
    long warmup_steps;        /* steps run before the clock starts (benchmarks) */
    double loop_seconds;      /* wall time of the timed steps */
} sf_simulation;

/* Collective. Validates what needs the model and rank count (slab size,
 * CFL, dispersion), exiting with a message pointing into the job file. */
void sf_simulation_setup(sf_simulation *s, const sf_config *cfg, MPI_Comm comm,
                         const sf_backend_ops *ops);
/* Prints the set-up summary on rank 0. */
void sf_simulation_summary(const sf_simulation *s);
void sf_simulation_run(sf_simulation *s, int progress);
void sf_simulation_write(sf_simulation *s);
/* Prints the timing breakdown and throughput on rank 0. */
void sf_simulation_report(const sf_simulation *s);
long sf_simulation_timed_steps(const sf_simulation *s);
void sf_simulation_free(sf_simulation *s);

#endif
