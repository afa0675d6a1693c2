#include "hdf5_check.h"
#include "sf_error.h"
#include "sf_output.h"

#include <stdio.h>
#include <string.h>

void sf_h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

static herr_t innermost(unsigned n, const H5E_error2_t *err, void *data)
{
    (void)n;
    if (err->desc && *err->desc) snprintf((char *)data, 256, "%s", err->desc);
    return 0;
}

enum { NEARLY_FULL_BYTES = 1 << 20 };

void sf_h5_describe(const char *what, const char *path, char *out, size_t len)
{
    char reason[256] = "no detail on the HDF5 error stack", space[128] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, innermost, reason);
    /* HDF5 does not pass the system's reason on; a full disk is the usual one. */
    double free_bytes;
    unsigned long device;
    if (sf_output_free_space(path, &free_bytes, &device) == 0 && free_bytes < NEARLY_FULL_BYTES)
        snprintf(space, sizeof space, " (the file system holding it is full: %.0f kB free)",
                 free_bytes / 1e3);
    snprintf(out, len, "HDF5 failed while %s '%s': %s%s", what, path, reason, space);
}

hid_t sf_h5(hid_t rc, const char *what, const char *path)
{
    if (rc >= 0) return rc;
    char message[1024];
    sf_h5_describe(what, path, message, sizeof message);
    sf_fatal("%s", message);
}
