/* One shot: set-up from a validated job, the time loop, and the gather.
 * The loop is the same for every physics; what a time step does is the
 * physics' driver (acoustic in simulation.c, elastic in
 * elastic_simulation.c), which talks to its backend's operations only. */
#ifndef SF_SIMULATION_H
#define SF_SIMULATION_H

#include "sf_acquisition.h"
#include "sf_backend.h"
#include "sf_config.h"
#include "sf_cpml.h"
#include "sf_decomp.h"
#include "sf_elastic_acquisition.h"
#include "sf_elastic_backend.h"
#include "sf_halo.h"
#include "sf_model.h"
#include "sf_resample.h"
#include "sf_snapshot.h"
#include "sf_stencil.h"
#include "sf_timers.h"

typedef struct sf_simulation sf_simulation;

/* Time levels of receiver samples a backend keeps before the loop fetches them. */
enum { SF_SAMPLE_BLOCK = 64 };

/* Step n of the loop is before_sampling(n), the sample of every channel
 * at t = n dt, then after_sampling(n) unless n is the last level. */
typedef struct {
    const char *name;         /* the physics */
    /* snapshot: non-NULL when step n stores one (fields at t = n dt). */
    void (*before_sampling)(sf_simulation *s, long n, sf_snapshot_file *snapshot,
                            float *const *samples);
    void (*sample)(sf_simulation *s, int slot);
    void (*fetch_samples)(sf_simulation *s, int count, float *block);
    void (*after_sampling)(sf_simulation *s, long n);
    void (*synchronize)(sf_simulation *s);
    void (*take_timers)(sf_simulation *s, double *seconds);
    size_t (*memory_bytes)(const sf_simulation *s);
    void (*free)(sf_simulation *s);
} sf_physics_driver;

/* What the elastic driver keeps. */
typedef struct {
    const sf_elastic_backend_ops *ops;
    sf_elastic_backend *backend;
    sf_elastic_acquisition acq;
    double *energy;           /* [steps][2]: this slab's kinetic and strain energy */
    float *velocity_before[3];/* snapshots: velocities half a step before */
} sf_elastic_state;

struct sf_simulation {
    const sf_config *cfg;
    const sf_physics_driver *driver;
    sf_slab slab;
    sf_stencil stencil;
    sf_model model;
    double dt, dt_max;
    double interval;          /* record interval */
    long steps;               /* time steps computed */
    sf_cpml_axis cpml[3];
    /* The record: channels this rank samples, [channel_count][nsamples]
     * in traces, rows channel_global of the gather (component-major). */
    long channel_count;
    const long *channel_global;
    sf_resampler resampler;
    /* acoustic */
    sf_acquisition acq;
    const sf_backend_ops *ops;
    sf_backend *backend;
    sf_halo halo;
    /* elastic */
    sf_elastic_state elastic;
    sf_timers timers;         /* from the start of the timed steps */
    sf_timers setup_timers;   /* model reading, before the time loop */
    sf_timers loop_timers;    /* the timed steps alone */
    float *traces;            /* [channel_count][nsamples] */
    long warmup_steps;        /* steps run before the clock starts (benchmarks) */
    double loop_seconds;      /* wall time of the timed steps */
};

/* Collective. Validates what needs the model and rank count (slab size,
 * CFL, dispersion), exiting with a message pointing into the job file.
 * Each physics uses its own backend operations. */
void sf_simulation_setup(sf_simulation *s, const sf_config *cfg, MPI_Comm comm,
                         const sf_backend_ops *acoustic, const sf_elastic_backend_ops *elastic);
/* Prints the set-up summary on rank 0. */
void sf_simulation_summary(const sf_simulation *s);
void sf_simulation_run(sf_simulation *s, int progress);
void sf_simulation_write(sf_simulation *s);
/* Prints the timing breakdown and throughput on rank 0. */
void sf_simulation_report(const sf_simulation *s);
long sf_simulation_timed_steps(const sf_simulation *s);
void sf_simulation_free(sf_simulation *s);

/* The elastic driver's set-up (elastic_simulation.c): medium, source and
 * receivers, backend; sets s->driver and the channels. */
void sf_elastic_setup(sf_simulation *s, const sf_elastic_backend_ops *ops);
/* Its lines of the set-up summary. */
void sf_elastic_summary(const sf_simulation *s);
/* Collective: writes output.energy when the job asks for it. */
void sf_elastic_write_energy(sf_simulation *s);

#endif
