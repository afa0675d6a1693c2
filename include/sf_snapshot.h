/* Wavefield snapshots: every `every` steps the job's snapshot fields
 * (pressure; for elastic jobs also particle velocity), decimated in space,
 * go into one HDF5 file per run, written collectively, with an XDMF
 * sidecar so ParaView and VisIt open the time series directly. Layout
 * (README, "Snapshots"): /snapshots/<field>/<step, 8 digits> float32
 * [nz][ny][nx] with attributes step and time; /snapshots carries origin,
 * spacing, decimation, dims, steps, times and the field names. */
#ifndef SF_SNAPSHOT_H
#define SF_SNAPSHOT_H

#include "sf_backend.h"
#include "sf_config.h"
#include "sf_decomp.h"
#include "sf_hdf5_write.h"

typedef struct {
    sf_h5_output out;
    hid_t group;              /* /snapshots */
    hid_t field[SF_COMPONENTS];  /* /snapshots/<field>, in the job's order */
    int nfields;
    long dims[3];             /* stored samples along x, y, z */
    sf_sampling_lattice lattice; /* this rank's samples, in its local planes */
    long plane0, planes;      /* this rank's first stored plane and how many */
    long count, capacity;
    long *steps;
    double *times;
    const sf_config *cfg;
} sf_snapshot_file;

/* Stored samples along an axis of n points decimated by d. */
long sf_snapshot_samples(long n, long d);

/* Collective: creates the temporary file of the snapshots (see
 * sf_h5_output); the snapshot file and its XDMF index stay under their
 * temporary names for the caller's sf_output_set. */
void sf_snapshot_open(sf_snapshot_file *f, const sf_config *c, const sf_slab *slab);
/* This rank's samples of one field of one snapshot. */
size_t sf_snapshot_local_count(const sf_snapshot_file *f);
/* Collective: stores this rank's samples, lattice order, of every field
 * (samples[q] for the job's q-th snapshot field) for one step. */
void sf_snapshot_write(sf_snapshot_file *f, long step, double time, float *const *samples);
/* Collective: writes the attributes and closes the file, then the XDMF
 * sidecar; 0, or -1 with the reason on every rank. */
int sf_snapshot_close(sf_snapshot_file *f, char *error, size_t len);
/* Collective: closes the file of a run that failed, as it is. */
void sf_snapshot_abandon(sf_snapshot_file *f);

/* The XDMF sidecar's name for a snapshot file: the extension replaced. */
void sf_snapshot_xdmf_name(const char *path, char *out, size_t len);

#endif
