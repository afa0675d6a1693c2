/* Shot gathers as parallel HDF5: every rank writes the traces of its own
 * receivers in one collective write. Layout (see README, "Gather file"):
 *   /traces              float32 [nrec][nsamples] (acoustic), or
 *                        [ncomponents][nrec][nsamples] (elastic)
 *   /receiver_positions  float64 [nrec][3]  x, y, z in metres
 *   /receiver_offsets    float64 [nrec]     signed as sf_receiver_offset says
 *   /source_position     float64 [3]
 *   /source_wavelet, /source_wavelet_record (and /source_wavelet_injected
 *                        when the source was warped): the signature
 * with the sampling, units, components and the job echoed as root
 * attributes. */
#ifndef SF_GATHER_H
#define SF_GATHER_H

#include "sf_receiver_offset.h"
#include "sf_wavelet.h"

#include <mpi.h>
#include <stddef.h>

typedef struct {
    const char *path;
    long nrec, nsamples;
    double interval;                        /* record sample interval, s */
    double simulation_dt;
    const double (*receiver_position)[3];   /* all receivers, job order */
    sf_receiver_line receiver_line;         /* the receivers whose offsets are signed */
    const double *source_position;
    const sf_wavelet_spec *wavelet;         /* the source's signature, */
    double source_delay, source_amplitude;  /* placed and scaled so */
    const double *wavelet_at_dt;            /* [wavelet_levels] at simulation_dt */
    long wavelet_levels;
    const float *wavelet_record;            /* [nsamples] at interval */
    const double *wavelet_injected;         /* [2 * wavelet_levels] at dt/2, warped; or NULL */
    const char *time_dispersion;            /* how the leapfrog's time error was treated */
    const char *config_text, *config_path;
    const char *physics;
    int order;
    int component_axis;                     /* traces have a leading component axis (elastic) */
    int ncomponents;
    const char *component[4];               /* names, gather order ("p"; "vx", ...) */
    const char *quantity[4], *units[4];     /* what each holds, in what unit */
    const char *trace_units;
    long shot_number;                       /* field record number of the shot (SEG-Y) */
    long survey_shots;                      /* shots of the survey; 0: a single-shot job */
    long grid_n[3];                         /* grid described in the SEG-Y text header */
    double grid_spacing[3], grid_origin[3];
} sf_gather_info;

/* Who writes an HDF5 gather: every rank its own rows, collectively
 * (parallel HDF5; a failure ends the run, since a rank failing inside a
 * collective call would leave the others waiting), or the ranks' rank 0
 * alone after gathering the traces (a failure is reported and the run
 * goes on: a survey's shots). */
typedef enum { SF_GATHER_PARALLEL, SF_GATHER_BY_LEADER } sf_gather_writer;

/* Collective. Rank-local traces [nlocal][nsamples] are rows
 * global_index[0..nlocal) of the gather, which must increase: receiver
 * indices, or with a component axis component * nrec + receiver. Written
 * under its temporary name (the caller's sf_output_set puts it in place
 * or removes it). Returns 0, or (by leader) -1 with the reason on every
 * rank. */
int sf_gather_write_hdf5(const sf_gather_info *info, MPI_Comm comm, sf_gather_writer writer,
                         long nlocal, const long *global_index, const float *traces, char *reason,
                         size_t len);

#endif
