/* Writing HDF5 outputs: a file is created under its temporary name (the
 * caller's sf_output_set puts it in place with the run's other outputs,
 * or removes it), so an interrupted run never leaves a file that looks
 * complete. Every call is checked. An output is either parallel
 * (sf_h5_output_create: every rank of comm writes collectively; a failure
 * ends the run naming the file and the action, since a rank failing
 * inside a collective HDF5 call would leave the others waiting) or serial
 * and recoverable (sf_h5_output_open_serial: one process writes; a
 * failure is recorded and reported, for a survey's shot gathers). */
#ifndef SF_HDF5_WRITE_H
#define SF_HDF5_WRITE_H

#include <hdf5.h>
#include <mpi.h>

typedef struct {
    hid_t file;
    hid_t transfer;     /* dataset transfer properties: collective MPI-IO, or default */
    MPI_Comm comm;      /* the writers (MPI_COMM_SELF for a serial output) */
    char path[4096];    /* the final name */
    char partial[4200]; /* the name while being written */
    int recoverable;    /* failures are recorded, not fatal */
    int failed;         /* a call has failed: later ones are skipped */
    char error[1024];   /* the first failure, in words */
} sf_h5_output;

/* Collective over comm: creates the parent directories and the
 * temporary file for parallel writing; a failure ends the run. */
void sf_h5_output_create(sf_h5_output *o, const char *path, MPI_Comm comm);
/* Collective: closes the file, complete under its temporary name. */
void sf_h5_output_close(sf_h5_output *o);

/* This process alone: as sf_h5_output_create, but 0, or -1 with the
 * reason in o->error. Later failures are recorded in o->error; the
 * calls after one are skipped. */
int sf_h5_output_open_serial(sf_h5_output *o, const char *path);
/* Closes a serial output: 0, or -1 when some call failed (reason in
 * o->error). */
int sf_h5_output_finish(sf_h5_output *o);

/* Checks an HDF5 return code of work on o: returns rc; rc < 0 ends the run
 * (parallel outputs) or is recorded (serial ones). */
hid_t sf_h5_checked(sf_h5_output *o, hid_t rc, const char *what);

void sf_h5_attr_double(sf_h5_output *o, hid_t loc, const char *name, double value);
void sf_h5_attr_doubles(sf_h5_output *o, hid_t loc, const char *name, const double *values,
                        long count);
void sf_h5_attr_long(sf_h5_output *o, hid_t loc, const char *name, long value);
void sf_h5_attr_longs(sf_h5_output *o, hid_t loc, const char *name, const long *values,
                      long count);
/* Variable-length UTF-8 text, which readers such as h5py return as str. */
void sf_h5_attr_text(sf_h5_output *o, hid_t loc, const char *name, const char *text);
/* A one-dimensional array of such texts. */
void sf_h5_attr_texts(sf_h5_output *o, hid_t loc, const char *name, const char *const *texts,
                      long count);

/* Collective: a dataset of the given type and shape; chunk may be NULL.
 * Returns -1 once a serial output has failed. */
hid_t sf_h5_dataset(sf_h5_output *o, hid_t loc, const char *name, hid_t type, int rank,
                    const hsize_t *dims, const hsize_t *chunk);

/* Collective: this rank's rows [row0, row0 + rows) of a dataset whose
 * first dimension is split between ranks (rows may be 0). */
void sf_h5_write_rows(sf_h5_output *o, hid_t dataset, hid_t memtype, hsize_t row0,
                      hsize_t rows, const void *data);

#endif
