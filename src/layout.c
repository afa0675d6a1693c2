#include "sf_layout.h"

#include <string.h>

void sf_layout_init(sf_layout *l, long nx, long ny, long nz, long align)
{
    l->nx = nx;
    l->ny = ny;
    l->nz = nz;
    /* The interior starts on an aligned boundary so vector loads of a row
     * start aligned; at least SF_PAD zeros precede it. */
    l->gx = ((SF_PAD + align - 1) / align) * align;
    l->sx = ((l->gx + nx + SF_PAD + align - 1) / align) * align;
    l->sp = l->sx * (ny + 2 * SF_PAD);
    l->field_size = (size_t)l->sp * (size_t)(nz + 2 * SF_HALO);
    l->plane_size = (size_t)l->sp * (size_t)nz;
}

void sf_layout_planes_from_compact(const sf_layout *l, const float *compact, long k0, long count,
                                   float *planes)
{
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < count; ++k)
        for (long j = 0; j < l->ny; ++j)
            memcpy(planes + sf_plane_index(l, 0, j, k), compact + ((k0 + k) * l->ny + j) * l->nx,
                   (size_t)l->nx * sizeof(float));
}
