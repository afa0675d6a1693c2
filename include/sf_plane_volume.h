/* A volume whose every plane holds one value, as the parameters of a
 * homogeneous or layered model do. Planes of equal value share one plane
 * of memory where the system allows it (Linux, planes of whole pages):
 * the volume then costs its distinct planes alone, in memory and in the
 * first touch of fresh pages, which was most of building such a model
 * (about 0.05 s a GiB on a 16-core GPU node). Nothing may write a shared
 * volume: a write would change every plane of that value. */
#ifndef SF_PLANE_VOLUME_H
#define SF_PLANE_VOLUME_H

#include <stddef.h>

typedef struct {
    float *data;           /* nz planes of `plane` floats */
    size_t mapped_bytes;   /* of the shared mapping; 0: an ordinary allocation */
    long mapped_planes;
} sf_plane_volume;

/* For each of nz planes, the first plane whose values equal its own (bit
 * for bit) in each of nparams parameters, plane k's value of parameter p
 * being param[p][k * stride]. */
long *sf_first_equal_planes(const float *const *param, int nparams, long nz, long stride);

/* Plane k holds values[k] at each of its plane points. */
sf_plane_volume sf_plane_volume_of_values(const float *values, long nz, long plane, const char *what);
void sf_plane_volume_free(sf_plane_volume *v);

#endif
