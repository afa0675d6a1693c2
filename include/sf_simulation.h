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
#include "sf_device.h"
#include "sf_elastic_acquisition.h"
#include "sf_elastic_backend.h"
#include "sf_halo.h"
#include "sf_model.h"
#include "sf_output.h"
#include "sf_resample.h"
#include "sf_segy.h"
#include "sf_snapshot.h"
#include "sf_source_signal.h"
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
    /* A new shot (s->cfg): the acquisition rebuilt, the backend reset. */
    void (*begin_shot)(sf_simulation *s);
    /* The backend's guard: 1 and where when some owned value is not finite. */
    int (*find_nonfinite)(sf_simulation *s, sf_nonfinite *where);
    /* The name of a field index of sf_nonfinite ("p", "vx", "sxz", ...). */
    const char *(*field_name)(int field);
    void (*free)(sf_simulation *s);
} sf_physics_driver;

/* Seconds per phase of a shot as reports give them: the sf_phase
 * phases, then the halo time the steps waited for ("halo exposed"). */
enum { SF_PHASE_EXPOSED = SF_PHASE_COUNT, SF_REPORT_PHASES };

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
    int dt_shortened;         /* dt: auto went below cfl_safety x the limit (the source's band) */
    double interval;          /* record interval */
    long steps;               /* time steps computed */
    sf_cpml_axis cpml[3];
    sf_halo_transport halo_transport;   /* how the backend's halos reach MPI */
    /* The record: channels this rank samples, [channel_count][nsamples]
     * in traces, rows channel_global of the gather (component-major). */
    long channel_count;
    const long *channel_global;
    sf_resampler resampler;
    sf_source_signal source;  /* the shot's source at every half step, as injected */
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
    double model_seconds;     /* reading and sampling the model (set-up) */
    double cpml_frequency;    /* the peak frequency the CPML profiles were made for */
    long check_every;         /* steps between guard checks; 0: none */
    int host_fields;          /* the backend keeps the fields in host memory (the CPU's) */
    double memory_per_rank;   /* bytes this rank's node offers each of its ranks; 0: unknown */
    int ranks_on_node;
    int quiet;                /* no per-output lines (surveys print their own) */
    /* Called on every rank between time steps when set (a survey's world
     * rank 0 answers the other groups there). */
    void (*between_steps)(void *arg);
    void *between_steps_arg;
    char failure[1024];       /* why the shot failed (guard, output) */
    /* The shot's outputs (model, snapshots, gather, SEG-Y, energy), under
     * their temporary names until sf_simulation_finish. */
    sf_output_set outputs;
};

/* Collective (the memory check over MPI_COMM_WORLD: every group of a
 * survey sets up at once). Validates what needs the rank count (slab
 * size, memory of the grid) and then the model (CFL, dispersion, steps and
 * samples, SEG-Y, memory with the record), reporting every problem of a
 * stage before exiting, each pointing into the job file. The backend and
 * its halo transport are the placement's. */
void sf_simulation_setup(sf_simulation *s, const sf_config *cfg, MPI_Comm comm,
                         const sf_placement *placement);
/* Prints the set-up summary on rank 0. */
void sf_simulation_summary(const sf_simulation *s);
/* Collective over the slab: one shot's time loop. Every run.check_every
 * steps (and after the last) the guard looks for non-finite values; the
 * first one found stops the loop: -1, with s->failure naming the step,
 * the field and the grid point (indices and metres). 0 otherwise. */
int sf_simulation_run(sf_simulation *s, int progress);
/* Collective: writes the shot's gather (and its SEG-Y files, the energy
 * series) under their temporary names. 0, or -1 with s->failure. */
int sf_simulation_write(sf_simulation *s);
/* Collective, after the loop and the writes: puts the shot's outputs in
 * place together unless it failed, else removes them; with verify (a
 * survey) each is read back for its size and checksum and flushed to
 * the disk first (sf_output_set_finish). 0, or -1 when the shot failed
 * or its outputs could not be put in place (s->failure says why); either
 * way earlier files of those names are as they were. */
int sf_simulation_finish(sf_simulation *s, int failed, int verify);
/* Collective: another shot on the same slab, model and backend (surveys):
 * shot is the job with that shot's source and receivers; the CPML
 * profiles follow its peak frequency; the backend is reset. */
void sf_simulation_begin_shot(sf_simulation *s, const sf_config *shot);
/* This rank's seconds per phase of the shot (set-up, loop and writing),
 * in sf_phase order, then the exposed halo time. */
void sf_simulation_phases(const sf_simulation *s, double seconds[SF_REPORT_PHASES]);
/* How shot's gather would go into SEG-Y (scalars for its coordinates):
 * 0, or -1 with the reason it cannot. */
int sf_simulation_segy_plan(const sf_simulation *s, const sf_config *shot, sf_segy_plan *plan,
                            char *reason, size_t len);
/* Rank 0 warns when the wavelet's upper frequency leaves fewer than 5
 * points per minimum wavelength, naming the share of its energy above
 * the grid's limit and the key that sets its band (" (shot N)" added
 * when shot_number > 0). */
void sf_simulation_check_wavelet(const sf_simulation *s, const sf_wavelet_spec *spec,
                                 long shot_number);
/* Prints the timing breakdown and throughput on rank 0. */
void sf_simulation_report(const sf_simulation *s);
long sf_simulation_timed_steps(const sf_simulation *s);
void sf_simulation_free(sf_simulation *s);

/* The elastic driver's set-up (elastic_simulation.c): medium, source and
 * receivers, backend; sets s->driver and the channels. */
void sf_elastic_setup(sf_simulation *s, const sf_elastic_backend_ops *ops);
/* Its lines of the set-up summary. */
void sf_elastic_summary(const sf_simulation *s);
/* Collective: writes output.energy under its temporary name; 0, or -1
 * with s->failure. */
int sf_elastic_write_energy(sf_simulation *s);

#endif
