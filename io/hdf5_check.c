#include "sf_hdf5_check.h"
#include "sf_error.h"

#include <stdio.h>
#include <string.h>

void sf_h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

static herr_t innermost(unsigned n, const H5E_error2_t *err, void *data)
{
    (void)n;
    if (err->desc && *err->desc) snprintf((char *)data, 512, "%s", err->desc);
    return 0;
}

hid_t sf_h5(hid_t rc, const char *what, const char *path)
{
    if (rc >= 0) return rc;
    char reason[512] = "no detail on the HDF5 error stack";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, innermost, reason);
    sf_fatal("HDF5 failed while %s '%s': %s", what, path, reason);
}
