/* Source and receivers placed on the grid: each rank keeps the source
 * weights that fall in its planes and the receivers whose interpolation
 * base plane it owns (their weights reach at most SF_HALO planes beyond). */
#ifndef SF_ACQUISITION_H
#define SF_ACQUISITION_H

#include "sf_backend.h"
#include "sf_config.h"
#include "sf_decomp.h"
#include "sf_hicks.h"

typedef struct {
    sf_field_weight *source;  /* on the pressure, field 0 */
    long source_count;
    sf_point_weight *receiver_points;
    long *receiver_offset;    /* receiver_count + 1 entries */
    long receiver_count;      /* receivers sampled by this rank */
    long *receiver_global;    /* their indices in the job's receiver list */
    sf_component *receiver_component;   /* each p */
} sf_acquisition;

void sf_acquisition_build(sf_acquisition *a, const sf_config *c, const sf_slab *slab);
void sf_acquisition_free(sf_acquisition *a);

/* Interpolation weights of a point at position pos (metres): fills
 * first[3] and w[3][SF_HICKS_WIDTH] (see sf_hicks_axis). */
void sf_point_stencil(const sf_config *c, const double pos[3], long first[3], double w[3][8]);

/* Appends the non-zero tensor-product weights w[0][i] w[1][j] w[2][k] *
 * scale of a stencil starting at first[3], keeping those whose global
 * plane lies in [zlo, zhi), with planes made local to z0; returns how many
 * were appended. */
long sf_append_weights(const long first[3], double w[3][SF_HICKS_WIDTH], long zlo, long zhi,
                       long z0, double scale, sf_point_weight **list, long *count,
                       long *capacity);

#endif
