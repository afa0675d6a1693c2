/* Velocity volumes stored in files (HDF5, SEG-Y, raw float32), each on a
 * regular grid of its own. Readers fill the volume's shape and read a
 * range of its z planes, so that a rank reads only what its slab needs.
 * Planes are returned as [nk][ny][nx] floats, x fastest. */
#ifndef SF_VOLUME_H
#define SF_VOLUME_H

#include "sf_config.h"

#include <mpi.h>
#include <stddef.h>

typedef struct {
    long n[3];                  /* samples along x, y, z */
    double origin[3], spacing[3];
    int has_origin, has_spacing;/* the file itself gives them */
    char name[512];             /* "file" or "file:/dataset", for messages */
} sf_volume_grid;

/* Each returns 0, or -1 with reason filled. The shape calls read the
 * file's headers alone (one rank reads them for all); each rank reads its
 * planes alone, with POSIX reads (a model file read through MPI-IO's
 * collective path came at a sixth of the disk's rate, 0.48 against 3.0
 * GB/s with a cold page cache). */
int sf_hdf5_volume_shape(const char *path, const char *dataset, sf_volume_grid *g, char *reason,
                         size_t len);
int sf_hdf5_volume_read(const char *path, const char *dataset, const sf_volume_grid *g, long k0,
                        long nk, float *out, char *reason, size_t len);

/* dims: the volume's shape when the job gives it (all > 0), else NULL to
 * infer it from the trace headers (inline/crossline at bytes 189/193; a
 * file without two varying line numbers is a 2D section). Traces run x
 * fastest: the file's fast line direction is x, its slow one y; samples
 * are z. */
int sf_segy_volume_shape(const char *path, const long *dims, sf_volume_grid *g, char *reason,
                         size_t len);
int sf_segy_volume_read(const char *path, const sf_volume_grid *g, long k0, long nk, float *out,
                        char *reason, size_t len);

/* Collective: writes the planes [z0, z0 + nz) each rank holds of `count`
 * n[0] x n[1] x n[2] volumes as datasets names[q] (vp, vs, rho) in the
 * layout the HDF5 reader takes (origin and spacing attributes on each
 * dataset), each labelled with its unit units[q] ("" when dimensionless). */
void sf_hdf5_volumes_write(const char *path, MPI_Comm comm, const long n[3],
                           const double origin[3], const double spacing[3], long z0, long nz,
                           int count, const char *const *names, const char *const *units,
                           const float *const *planes, const char *config_text);

#endif
