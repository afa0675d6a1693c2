/* Opening HDF5 files and datasets for reading (models, signatures). */
#ifndef SF_HDF5_READ_H
#define SF_HDF5_READ_H

#include <hdf5.h>
#include <stddef.h>

/* Opens the file alone, with POSIX reads; -1 with the reason when it does
 * not open. */
hid_t sf_h5_open_read(const char *path, char *reason, size_t len);

/* The dataset at `dataset` in file (opened from path); -1 with the reason,
 * which lists the root's objects when it does not exist. */
hid_t sf_h5_open_dataset(hid_t file, const char *path, const char *dataset, char *reason,
                         size_t len);

/* Writes "WHAT 'NAME': innermost HDF5 reason" to reason; returns -1. */
int sf_h5_failed(char *reason, size_t len, const char *what, const char *name);

#endif
