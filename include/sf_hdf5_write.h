/* Writing parallel HDF5 outputs: a file is created collectively under its
 * temporary name and renamed by rank 0 once every rank has closed it, so
 * an interrupted run never leaves a file that looks complete. Every call
 * is checked; a failure ends the run naming the file and the action. */
#ifndef SF_HDF5_WRITE_H
#define SF_HDF5_WRITE_H

#include <hdf5.h>
#include <mpi.h>

typedef struct {
    hid_t file;
    hid_t collective;   /* dataset transfer properties: collective MPI-IO */
    MPI_Comm comm;
    char path[4096];    /* the final name */
    char partial[4200]; /* the name while being written */
} sf_h5_output;

/* Collective: creates the parent directories and <path>.partial. */
void sf_h5_output_create(sf_h5_output *o, const char *path, MPI_Comm comm);
/* Collective: closes the file and renames it to its final name. */
void sf_h5_output_commit(sf_h5_output *o);

void sf_h5_attr_double(const sf_h5_output *o, hid_t loc, const char *name, double value);
void sf_h5_attr_doubles(const sf_h5_output *o, hid_t loc, const char *name, const double *values,
                        long count);
void sf_h5_attr_long(const sf_h5_output *o, hid_t loc, const char *name, long value);
void sf_h5_attr_longs(const sf_h5_output *o, hid_t loc, const char *name, const long *values,
                      long count);
/* Variable-length UTF-8 text, which readers such as h5py return as str. */
void sf_h5_attr_text(const sf_h5_output *o, hid_t loc, const char *name, const char *text);

/* Collective: a dataset of the given type and shape; chunk may be NULL. */
hid_t sf_h5_dataset(const sf_h5_output *o, hid_t loc, const char *name, hid_t type, int rank,
                    const hsize_t *dims, const hsize_t *chunk);

/* Collective: this rank's rows [row0, row0 + rows) of a dataset whose
 * first dimension is split between ranks (rows may be 0). */
void sf_h5_write_rows(const sf_h5_output *o, hid_t dataset, hid_t memtype, hsize_t row0,
                      hsize_t rows, const void *data);

#endif
