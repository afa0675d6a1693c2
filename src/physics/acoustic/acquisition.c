#include "sf_acquisition.h"
#include "sf_error.h"
#include "sf_hicks.h"
#include "sf_layout.h"

#include <stdlib.h>

void sf_point_stencil(const sf_config *c, const double pos[3], long first[3], double w[3][8])
{
    for (int a = 0; a < 3; ++a) {
        double u = (pos[a] - c->origin[a]) / c->spacing[a];
        int mirror = a == 2 && c->free_surface;
        sf_hicks_axis(u, c->n[a], mirror, &first[a], w[a]);
    }
}

long sf_append_weights(const long first[3], double w[3][SF_HICKS_WIDTH], long zlo, long zhi,
                       long z0, double scale, sf_point_weight **list, long *count,
                       long *capacity)
{
    long added = 0;
    for (int kz = 0; kz < SF_HICKS_WIDTH; ++kz) {
        long gz = first[2] + kz;
        if (w[2][kz] == 0.0 || gz < zlo || gz >= zhi) continue;
        for (int ky = 0; ky < SF_HICKS_WIDTH; ++ky) {
            if (w[1][ky] == 0.0) continue;
            for (int kx = 0; kx < SF_HICKS_WIDTH; ++kx) {
                double weight = w[0][kx] * w[1][ky] * w[2][kz] * scale;
                if (weight == 0.0) continue;
                if (*count == *capacity) {
                    *capacity = *capacity ? 2 * *capacity : 512;
                    *list = realloc(*list, (size_t)*capacity * sizeof **list);
                    if (!*list) sf_fatal("out of memory placing sources and receivers");
                }
                (*list)[(*count)++] = (sf_point_weight){(int)(first[0] + kx),
                                                        (int)(first[1] + ky), (int)(gz - z0),
                                                        (float)weight};
                ++added;
            }
        }
    }
    return added;
}

/* The weights of a point at pos whose global plane lies in [zlo, zhi). */
static long append_points(const sf_config *c, const double pos[3], long zlo, long zhi,
                          long z0, double scale, sf_point_weight **list, long *count,
                          long *capacity)
{
    long first[3];
    double w[3][8];
    sf_point_stencil(c, pos, first, w);
    return sf_append_weights(first, w, zlo, zhi, z0, scale, list, count, capacity);
}

/* The plane an interpolation stencil is anchored on: its owner samples it. */
static long base_plane(const sf_config *c, const double pos[3])
{
    long first[3];
    double w[3][8];
    sf_point_stencil(c, pos, first, w);
    return first[2] + (SF_HICKS_RADIUS - 1);
}

void sf_acquisition_build(sf_acquisition *a, const sf_config *c, const sf_slab *slab)
{
    long capacity = 0, count = 0;
    sf_point_weight *points_of_source = NULL;
    double cell = c->spacing[0] * c->spacing[1] * c->spacing[2];
    append_points(c, c->source.position, slab->z0, slab->z0 + slab->nz, slab->z0, 1.0 / cell,
                  &points_of_source, &count, &capacity);
    a->source = sf_malloc((size_t)(count ? count : 1) * sizeof *a->source, "source points");
    for (long n = 0; n < count; ++n)
        a->source[n] = (sf_field_weight){0, points_of_source[n].i, points_of_source[n].j,
                                         points_of_source[n].k, points_of_source[n].weight};
    a->source_count = count;
    free(points_of_source);

    long nrec = c->receivers.count;
    a->receiver_offset = sf_malloc((size_t)(nrec + 1) * sizeof(long), "receiver offsets");
    a->receiver_global = sf_malloc((size_t)(nrec ? nrec : 1) * sizeof(long), "receiver indices");
    a->receiver_component = sf_malloc((size_t)(nrec ? nrec : 1) * sizeof(sf_component),
                                      "receiver components");
    for (long r = 0; r < nrec; ++r) a->receiver_component[r] = SF_COMPONENT_P;
    a->receiver_points = NULL;
    a->receiver_count = 0;
    a->receiver_offset[0] = 0;
    long points = 0;
    capacity = 0;
    for (long r = 0; r < nrec; ++r) {
        const double *pos = c->receivers.position[r];
        long base = base_plane(c, pos);
        if (base < slab->z0 || base >= slab->z0 + slab->nz) continue;
        append_points(c, pos, slab->z0 - SF_HALO, slab->z0 + slab->nz + SF_HALO, slab->z0, 1.0,
                      &a->receiver_points, &points, &capacity);
        a->receiver_global[a->receiver_count++] = r;
        a->receiver_offset[a->receiver_count] = points;
    }
}

void sf_acquisition_free(sf_acquisition *a)
{
    free(a->source);
    free(a->receiver_points);
    free(a->receiver_offset);
    free(a->receiver_global);
    free(a->receiver_component);
}
