/* Checked HDF5 calls: a failure names the action, the file and the
 * innermost reason on HDF5's error stack. */
#ifndef SF_HDF5_CHECK_H
#define SF_HDF5_CHECK_H

#include <hdf5.h>
#include <stddef.h>

/* Silences HDF5's own stack printing; errors are reported by sf_h5. */
void sf_h5_quiet(void);

/* Returns rc; on rc < 0 ends the run with a message. */
hid_t sf_h5(hid_t rc, const char *what, const char *path);

/* The message sf_h5 gives for a failure while `what` on path: "HDF5 failed
 * while WHAT 'PATH': REASON", with the free space when the disk is full. */
void sf_h5_describe(const char *what, const char *path, char *out, size_t len);

#endif
