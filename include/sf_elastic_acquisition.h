/* Source and receivers of an elastic shot placed on the staggered grid:
 * each field's interpolation weights are computed on that field's own
 * lattice (half a cell off the nodes along its staggered axes). Each rank
 * keeps the source weights in its planes and the channels (component,
 * receiver) whose interpolation base plane it owns. */
#ifndef SF_ELASTIC_ACQUISITION_H
#define SF_ELASTIC_ACQUISITION_H

#include "sf_config.h"
#include "sf_decomp.h"
#include "sf_backend.h"
#include "sf_elastic_backend.h"

typedef struct {
    sf_field_weight *source;
    long source_count;
    /* Channels in gather order (component-major, then receiver). */
    sf_component *channel_component;
    long *channel_global;     /* row in the gather: component index * nrec + receiver */
    sf_point_weight *channel_points;
    long *channel_offset;     /* channel_count + 1 entries */
    long channel_count;
    int records_pressure;     /* some channel of this job (any rank) is p */
} sf_elastic_acquisition;

void sf_elastic_acquisition_build(sf_elastic_acquisition *a, const sf_config *c,
                                  const sf_slab *slab);
void sf_elastic_acquisition_free(sf_elastic_acquisition *a);

#endif
