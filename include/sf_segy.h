/* Shot gathers as SEG-Y rev 1 for processing packages (see README, "The
 * gather file (SEG-Y)"): one fixed-length trace per receiver in job order,
 * 4-byte IEEE float samples, big-endian, coordinates in scaled metres. */
#ifndef SF_SEGY_H
#define SF_SEGY_H

#include "sf_gather.h"

#include <mpi.h>
#include <stddef.h>

enum {
    SF_SEGY_MAX_INTERVAL_US = 32767,  /* signed 16-bit microseconds */
    SF_SEGY_MAX_SAMPLES = 65535,      /* unsigned 16-bit sample count */
    SF_SEGY_SIGNED_SAMPLES = 32767,   /* what readers taking the count as signed accept */
    SF_SEGY_CENTIMETRES = -100        /* scalar used unless values are too large */
};

/* The header values the format constrains, chosen once per gather. */
typedef struct {
    int interval_us;          /* sample interval, microseconds */
    int coordinate_scalar;    /* SEG-Y scalar of X/Y: -100, -10 or 1 */
    int elevation_scalar;     /* the same for elevations and depths */
} sf_segy_plan;

/* The record interval in whole microseconds: 0, or -1 with the reason and
 * the allowed values when SEG-Y cannot store the interval or the count. */
int sf_segy_interval_us(double interval, long nsamples, int *us, char *reason, size_t len);

/* Chooses the finest scalars (centimetres, else decimetres, else metres)
 * at which every coordinate fits 32 bits: 0, or -1 with the reason. */
int sf_segy_plan_headers(const sf_gather_info *info, sf_segy_plan *plan, char *reason,
                         size_t len);

/* Precision a SEG-Y scalar keeps, in words ("centimetres"). */
const char *sf_segy_precision(int scalar);

/* The file of one component of an elastic gather: "_<component>" before
 * the extension of path (out/shot.sgy -> out/shot_vx.sgy). */
void sf_segy_component_path(const char *path, const char *component, char *out, size_t len);

/* Collective, with the arguments of sf_gather_write_hdf5. Rank 0 writes the
 * headers and sizes the temporary file of info->path, then every rank
 * writes its own traces (the caller's sf_output_set puts it in place or
 * removes it). 0, or -1 with the first failing rank's message on every
 * rank. */
int sf_gather_write_segy(const sf_gather_info *info, MPI_Comm comm, long nlocal,
                         const long *global_index, const float *traces, char *error,
                         size_t len);

#endif
