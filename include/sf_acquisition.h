/* Source and receivers placed on a physics' fields, for every physics:
 * each field's interpolation weights are computed on that field's own
 * lattice (half a cell off the nodes along its staggered axes). Each rank
 * keeps the source weights in its planes and the channels (component,
 * receiver) whose interpolation base plane it owns; their weights reach
 * at most SF_HALO planes beyond. */
#ifndef SF_ACQUISITION_H
#define SF_ACQUISITION_H

#include "sf_backend.h"
#include "sf_config.h"
#include "sf_decomp.h"
#include "sf_hicks.h"

/* A physics' fields as points are placed on them. */
typedef struct {
    int fields;
    /* The grid-unit offsets of field f's samples from the nodes. */
    void (*shift)(int field, double shift[3]);
    /* How weights falling above a free surface fold back on field f. */
    sf_hicks_fold (*surface_fold)(int field);
    /* What the source adds to each field per unit s(t), before the
     * division by the cell volume: coef[fields]. */
    void (*source_coefficients)(const sf_source_config *s, double *coef);
    /* The field whose lattice a recorded component is interpolated on. */
    int (*component_field)(sf_component c);
} sf_field_lattice;

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
} sf_acquisition;

void sf_acquisition_build(sf_acquisition *a, const sf_config *c, const sf_slab *slab,
                          const sf_field_lattice *fields);
void sf_acquisition_free(sf_acquisition *a);

#endif
