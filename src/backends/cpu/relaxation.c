/* The standard linear solids' weights on the owned planes (cpu_relaxation.h). */
#include "cpu_relaxation.h"

float *sf_cpu_relaxation_weights(const sf_cpu_shared *shared, const sf_relaxation_law *law,
                                 const float *coordinate, int l)
{
    const long z0 = shared->z0;
    const sf_layout *L = &shared->L;
    float *out = sf_cpu_take(shared->arena, (size_t)L->plane_size, sizeof(float), "the relaxation weights");
    #pragma omp parallel for schedule(static)
    for (long k = 0; k < L->nz; ++k)
        for (long j = 0; j < L->ny; ++j)
            for (long i = 0; i < L->nx; ++i) {
                const float c = coordinate[(k * L->ny + j) * L->nx + i];
                float fraction, w;
                if (law->coarse) {
                    w = sf_relaxation_coarse_weight(law, c, sf_relaxation_corner(i, j, z0 + k));
                } else {
                    const int at = sf_relaxation_node(law, c, &fraction);
                    w = sf_relaxation_weight(law, at, fraction, l);
                }
                out[sf_plane_index(L, i, j, k)] = w;
            }
    sf_cpu_keep_as_medium(shared->arena, out, (size_t)L->plane_size, sf_cpu_owned_rows(L),
                          "the relaxation weights");
    return out;
}
