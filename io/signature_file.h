/* Reading a measured source signature from an HDF5, SEG-Y or text file. */
#ifndef SF_SIGNATURE_FILE_H
#define SF_SIGNATURE_FILE_H

#include "sf_wavelet.h"

#include <stddef.h>

/* The format a file's name says (.h5 .hdf5 .hdf, .sgy .segy, .txt .dat
 * .csv .asc); SF_SIGNATURE_AUTO when it says none. */
sf_signature_format sf_signature_format_of(const char *path);

/* Reads the signature (dataset: HDF5's; trace: SEG-Y's, from 0) into out;
 * 0, or -1 with the reason naming the file. Samples are checked: finite,
 * not all zero, a positive interval. */
int sf_signature_read(const char *path, sf_signature_format format, const char *dataset,
                      long trace, sf_signature *out, char *reason, size_t len);

#endif
