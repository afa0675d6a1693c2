/* Opening HDF5 files and datasets for reading (models, signatures). */
#ifndef SF_HDF5_READ_H
#define SF_HDF5_READ_H

#include <hdf5.h>
#include <mpi.h>
#include <stddef.h>

/* comm: open collectively with MPI-IO; MPI_COMM_NULL: alone, with POSIX
 * reads. -1 with the reason when the file does not open. */
hid_t sf_h5_open_read(const char *path, MPI_Comm comm, char *reason, size_t len);

/* The dataset at `dataset` in file (opened from path); -1 with the reason,
 * which lists the root's objects when it does not exist. */
hid_t sf_h5_open_dataset(hid_t file, const char *path, const char *dataset, char *reason,
                         size_t len);

/* Writes "WHAT 'NAME': innermost HDF5 reason" to reason; returns -1. */
int sf_h5_failed(char *reason, size_t len, const char *what, const char *name);

#endif
