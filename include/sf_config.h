/* The job description, read from YAML and validated before any work. */
#ifndef SF_CONFIG_H
#define SF_CONFIG_H

/* Standard linear solids of an attenuating physics where the job names
 * none (physics.mechanisms). */
#define SF_MECHANISMS_DEFAULT 3

#include "sf_gpu_aware_mpi.h"
#include "sf_parameter_declaration.h"
#include "sf_physics_list.h"
#include "sf_receiver_offset.h"
#include "sf_wavelet.h"

#include <stddef.h>

/* Where a key was written, for messages that point into the job file. */
typedef struct {
    int line, column;
} sf_mark;

typedef enum { SF_MODEL_HOMOGENEOUS, SF_MODEL_LAYERED, SF_MODEL_RAW, SF_MODEL_HDF5,
               SF_MODEL_SEGY } sf_model_kind;
typedef enum { SF_INTERP_LINEAR, SF_INTERP_NEAREST } sf_interpolation;
typedef enum { SF_ENDIAN_LITTLE, SF_ENDIAN_BIG } sf_endian;
typedef enum { SF_DEVICE_AUTO, SF_DEVICE_CPU, SF_DEVICE_CUDA } sf_device_kind;

/* What receivers record and snapshots store: particle velocity (elastic)
 * and pressure. */
typedef enum { SF_COMPONENT_VX, SF_COMPONENT_VY, SF_COMPONENT_VZ, SF_COMPONENT_P,
               SF_COMPONENTS } sf_component;

/* The most points along an axis of the grid or of a model file; the most
 * time steps a job may take (time.nt, or duration / dt) and samples a
 * trace may hold; the most receivers. */
enum { SF_MAX_AXIS_POINTS = 1000000, SF_MAX_STEPS = 100000000, SF_MAX_RECEIVERS = 10000000 };

/* How the grid's planes are cut into the ranks' slabs: by their cost (the
 * planes of z absorbing layers cost more), or into equal numbers. */
typedef enum { SF_SLABS_BALANCED, SF_SLABS_EQUAL } sf_slab_policy;

/* How the state and the medium are stored between operations: float32, or
 * 16-bit blocks with float32 arithmetic (sf_block16.h). */
typedef enum { SF_PRECISION_FLOAT32, SF_PRECISION_MIXED } sf_precision;

typedef enum { SF_SOURCE_PRESSURE, SF_SOURCE_EXPLOSIVE, SF_SOURCE_FORCE,
               SF_SOURCE_MOMENT } sf_source_type;

/* What a physics takes from a job: its name, its medium parameters, the
 * source types and components it has, and whether it keeps an energy
 * series. Each physics declares its own (src/physics/<folder>/); the job
 * reader asks this, never a particular physics. */
enum { SF_LOSSLESS, SF_ATTENUATES_PER_POINT, SF_ATTENUATES_STAGGERED };

typedef struct {
    const char *name;               /* physics.type */
    int nparams;
    /* Its model parameters (sf_parameter_declaration.h), in the order
     * messages list them. */
    const sf_parameter_declaration *param[SF_MAX_PARAMS];
    unsigned sources;               /* bit 1 << sf_source_type */
    int default_source;             /* an sf_source_type */
    unsigned components;            /* bit 1 << sf_component: recorded and snapshotted */
    unsigned default_receivers;     /* components recorded when the job names none */
    int energy;                     /* output.energy */
    /* What each component holds and in what unit, as the outputs label
     * it for plots and readers ("pressure", "Pa per unit source amplitude"). */
    const char *quantity[SF_COMPONENTS];
    const char *units[SF_COMPONENTS];
    /* The rule between the parameters of one point (value[n] of param[n]):
     * the values it cannot run, as text, or NULL when they are fine; NULL
     * where every value in the parameters' ranges runs. */
    const char *(*point_problem)(const double *value, char *text, size_t len);
    int point_key;                  /* the parameter (its index) such a problem is reported on */
    /* Non-zero where the physics loses energy by standard linear solids
     * (the job's physics section then takes the attenuation keys):
     * SF_ATTENUATES_PER_POINT where its modulus multiplies the Laplacian
     * point by point, whose coarse layout's weights are fitted for that
     * (sf_relaxation_fit.h); SF_ATTENUATES_STAGGERED on a staggered
     * velocity-stress grid, which takes the full layout only (its points
     * mix otherwise: docs/physics.md, "Visco-elastic"). */
    int attenuates;
} sf_physics_declaration;

/* 1 when physics p takes the parameter of that name. */
int sf_physics_takes_parameter(sf_physics p, const char *name);
/* The parameters of every physics, each name once, in the list's order
 * of the physics: the n-th, or NULL past the last. */
const char *sf_any_parameter(int n);

typedef struct {
    double top;                 /* depth of the top of the layer, metres */
    double value[SF_MAX_PARAMS]; /* the physics' parameters, by index */
} sf_layer;

typedef struct {
    sf_model_kind kind;
    double value[SF_MAX_PARAMS]; /* homogeneous: the physics' parameters, by index */
    sf_layer *layers;         /* layered, sorted by top */
    int nlayers;
    /* Model files (raw, hdf5, segy) on a grid of their own: the file and
     * dataset of each parameter, by index (hdf5: one file for all). */
    char *path[SF_MAX_PARAMS];
    sf_mark path_mark[SF_MAX_PARAMS];
    char *dataset[SF_MAX_PARAMS];
    long dims[3];             /* samples along x, y, z; 0 = from the file */
    sf_mark dims_mark;
    sf_endian endian;         /* raw */
    double origin[3], spacing[3];
    int origin_given, spacing_given;
    sf_mark origin_mark, spacing_mark;
    sf_interpolation interpolation;
    int extend;               /* repeat edge values where the grid reaches past the model */
    double range[SF_MAX_PARAMS][2]; /* accepted values of each parameter, by index */
    sf_mark mark;             /* the model section */
} sf_model_config;

typedef struct {
    sf_source_type type;
    double position[3];
    sf_wavelet_spec wavelet;  /* its signature */
    double delay;             /* seconds: the wavelet's time zero in the run */
    int delay_auto;           /* the wavelet's own (not given, or auto) */
    double amplitude;
    double direction[3];      /* force: x, y, z components, N per unit amplitude */
    double moment[6];         /* moment: mxx, myy, mzz, mxy, mxz, myz, N m per unit amplitude */
    sf_mark type_mark;
    sf_mark position_mark;
    sf_mark amplitude_mark;   /* {0, 0} when not given */
} sf_source_config;

typedef struct {
    long count;
    double (*position)[3];    /* metres, in the order the job lists them */
    double sampling;          /* record interval, seconds; 0 = simulation dt */
    sf_component component[SF_COMPONENTS];   /* recorded, in job order */
    int ncomponents;
    sf_receiver_line line;    /* those of receivers.line, whose offsets are signed */
    sf_mark mark;
    sf_mark sampling_mark;    /* the key, or the section when it is not given */
} sf_receiver_config;

enum { SF_FACE_XMIN, SF_FACE_XMAX, SF_FACE_YMIN, SF_FACE_YMAX, SF_FACE_ZMIN, SF_FACE_ZMAX };

/* Receivers of a survey: the same positions for every shot (a land or
 * ocean-bottom spread), or x and y offsets from each shot's position
 * (a streamer), z staying as given. */
typedef enum { SF_RECEIVERS_FIXED, SF_RECEIVERS_MOVING } sf_receiver_motion;

/* One shot of a survey: where it is and the source keys it overrides. */
typedef struct {
    double position[3];
    sf_wavelet_spec *wavelet; /* its own wavelet; NULL: the source's */
    double delay, amplitude;
    int has_delay, has_amplitude;   /* overrides given */
    int delay_auto;           /* delay: auto given for this shot */
    sf_mark mark;             /* its entry in survey.shots, or survey.grid */
    sf_mark amplitude_mark;   /* its amplitude key, where it overrides */
    char where[48];           /* how messages name its entry: "survey.shots[3]" */
} sf_shot_spec;

typedef struct {
    int enabled;              /* the job has a survey section */
    long count;
    sf_shot_spec *shots;      /* shot number = index + 1 */
    int ranks_per_shot;       /* ranks of a group; 0: all ranks, one group */
    sf_mark ranks_mark;
    sf_receiver_motion receivers;
    sf_mark mark;
} sf_survey_config;

typedef struct sf_config {
    char *source_path;        /* the job file as given */
    char *text;               /* its full text, echoed into outputs */
    char hash[17];            /* fingerprint of what the results depend on, 16 hex digits */

    long n[3];                /* grid points nx, ny, nz */
    double spacing[3];        /* dx, dy, dz, metres */
    double origin[3];         /* coordinates of grid point (0,0,0), metres; z is depth */
    sf_mark n_mark[3];

    double dt;                /* seconds; 0 until resolved when auto */
    int dt_auto;
    double cfl_safety;        /* fraction of the stability limit used by dt: auto */
    int dispersion_correction;/* the time-dispersion transforms (source and traces) */
    long nt;                  /* number of steps; 0 if duration was given */
    double duration;          /* seconds; 0 if nt was given */
    sf_mark dt_mark;
    sf_mark record_mark;      /* time.nt or time.duration, whichever was given */

    sf_physics physics;
    sf_mark physics_mark;
    int order;                /* spatial order: 2, 4 or 8 */
    sf_mark order_mark;
    /* An attenuating physics: Q held constant over attenuation_band (Hz)
     * by `mechanisms` standard linear solids, the model's velocities
     * being those at reference_frequency (Hz). 0 where the job leaves
     * them to its source's wavelet. */
    double attenuation_band[2], reference_frequency;
    long mechanisms;                  /* SF_MECHANISMS_DEFAULT unless the job says */
    /* 1: each point relaxes through one of SF_MAX_MECHANISMS solids, its
     * corner of a 2 x 2 x 2 cell (physics.relaxation_layout: coarse);
     * 0: through `mechanisms` solids (full). */
    int relaxation_coarse;
    sf_mark attenuation_band_mark, reference_frequency_mark, mechanisms_mark, relaxation_layout_mark;

    int cpml[6];              /* absorbing-layer thickness per face, grid points */
    sf_mark cpml_mark;
    int free_surface;
    double cpml_reflection;   /* target reflection coefficient; 0 = chosen from thickness */

    sf_model_config model;
    sf_source_config source;
    sf_receiver_config receivers;
    sf_survey_config survey;
    long shot_number;         /* the shot this configuration describes, from 1 */
    const struct sf_config *survey_job;   /* a shot's survey job (its receivers as given); else NULL */
    sf_wavelet **wavelets;    /* the job's wavelets built, once loaded (sf_config_load), */
    const sf_wavelet_spec **wavelets_spec;   /* and the specs they were built from */
    long nwavelets;

    char *gather_path;
    sf_mark gather_mark;
    char *segy_path;          /* NULL: no SEG-Y copy of the gather */
    sf_mark segy_mark;
    int overwrite;
    char *snapshot_path;      /* NULL: no snapshots */
    sf_mark snapshot_mark;
    long snapshot_every;      /* steps between snapshots */
    long snapshot_decimation[3];
    sf_component snapshot_field[SF_COMPONENTS];
    int snapshot_nfields;
    char *energy_path;        /* NULL: no energy time series (elastic only) */
    sf_mark energy_mark;
    char *model_output_path;  /* NULL: the model on the grid is not written */
    sf_mark model_output_mark;
    char *output_directory;   /* surveys: where the shots' files and the manifest go */
    sf_mark output_directory_mark;
    int survey_segy;          /* surveys: also write each shot as SEG-Y */
    char *report_path;        /* NULL: the default place of the run report */
    sf_mark report_mark;

    sf_device_kind device;
    sf_gpu_aware_mode gpu_aware_mpi; /* halo buffers on the GPU: device pointers to MPI? */
    sf_mark gpu_aware_mpi_mark;      /* line 0: not given */
    double progress_interval; /* seconds between progress lines */
    long check_every;         /* steps between instability checks; 0: none */
    sf_mark check_every_mark;
    sf_slab_policy slabs;     /* run.slabs */
    sf_precision precision;   /* run.precision */
    sf_mark precision_mark;
} sf_config;

/* A homogeneous medium of typical values that physics p runs (bench's
 * grid, and the slabs that time a physics for the slab cut). */
void sf_config_sample_medium(sf_model_config *m, sf_physics p);

const char *sf_component_name(sf_component c);   /* "vx", "vy", "vz", "p" */
const char *sf_precision_name(sf_precision p);   /* "float32", "mixed" */
/* The parameters a job's physics needs, in its order. */
const sf_physics_declaration *sf_config_physics(const sf_config *cfg);
/* An attenuating job's memory variables a point: 1 in a coarse layout,
 * else its mechanisms (a lossless physics declares no bytes or volumes
 * per memory variable, so the count is harmless there). */
long sf_config_memory_variables(const sf_config *cfg);

/* The job a configuration belongs to: a survey shot's is its survey's,
 * which keeps the receivers as given and every shot's source keys. */
const sf_config *sf_config_job(const sf_config *cfg);

/* 1 when the physics has components besides the pressure: its gathers
 * carry a leading component axis, and SEG-Y a file per component. */
int sf_config_component_axis(const sf_config *cfg);

/* The values of one point (value[n], the physics' parameter n) that its
 * physics cannot run, as text; NULL when they are fine. Layers,
 * homogeneous models and every point of model files are checked alike. */
const char *sf_config_point_problem(const sf_config *cfg, const double *value, char *text,
                                    size_t len);
/* The parameter (its index) such a problem is reported on (the physics declares it). */
int sf_config_point_key(const sf_config *cfg);

/* Reads and validates a job from YAML text. Every problem found is printed
 * (by rank 0) as "file:line:column: key: message"; returns 0 when the job is
 * valid, the number of problems otherwise. */
int sf_config_parse(const char *text, size_t length, const char *path, sf_config *cfg);
void sf_config_free(sf_config *cfg);

/* Reads the job file on rank 0 and broadcasts it, then parses it on every
 * rank; exits with the collected messages when it is invalid. */
void sf_config_load(const char *path, sf_config *cfg);

/* Receiver q of a survey shot: the job's position, or with moving
 * receivers its x and y offset from the shot's position, z as given. */
void sf_survey_receiver_position(const sf_config *job, const sf_shot_spec *shot, long q,
                                 double out[3]);

/* The largest source-receiver distance of a job's shots (m; a single-shot
 * job has shot 1 alone), and the number of the shot it belongs to. Exact
 * with moving receivers (the offsets change only with the shot's depth)
 * and for fixed receivers up to 10^7 shot-receiver pairs; beyond, each
 * shot is measured against the receivers extreme along 13 directions, the
 * corners of any grid or line. */
double sf_farthest_receiver(const sf_config *job, long *shot_number);

/* A shot's wavelet: its own, or the source's (index from 0). */
const sf_wavelet_spec *sf_shot_wavelet(const sf_config *job, long index);

/* The shot whose wavelet has the highest upper frequency (1 for a job
 * without a survey), and its wavelet. */
const sf_wavelet_spec *sf_widest_band_wavelet(const sf_config *job, long *shot_number);

/* The highest band edge (sf_wavelet_band_edge at fraction) of a job's shots. */
double sf_highest_band_edge(const sf_config *job, double fraction);

/* Prints "file:line:column: message" for a problem found after parsing
 * (for example the CFL check, which needs the model). Rank 0 only. */
void sf_config_report(const sf_config *cfg, sf_mark mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
