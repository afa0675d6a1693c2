/* The material of the staggered elastic grid, derived from a slab's vp, vs
 * and rho at the nodes (README, "Elastic physics"): buoyancy 1/rho at the
 * velocity points from the arithmetic mean of the two densities around
 * each; lambda + 2 mu and lambda at the nodes (normal stresses); mu at the
 * shear-stress points from the harmonic mean of the four nodes around
 * each, 0 when any of them is a fluid. Past the last node of an axis the
 * last node's values serve. */
#ifndef SF_ELASTIC_MEDIUM_H
#define SF_ELASTIC_MEDIUM_H

#include "sf_config.h"
#include "sf_decomp.h"
#include "sf_model.h"

/* The elastic physics' parameters, by their index in its declaration. */
enum { SF_ELASTIC_VP, SF_ELASTIC_VS, SF_ELASTIC_RHO };

typedef enum {
    SF_MEDIUM_BX, SF_MEDIUM_BY, SF_MEDIUM_BZ,   /* 1/kg m^3 at vx, vy, vz */
    SF_MEDIUM_L2M, SF_MEDIUM_LAMBDA,            /* Pa at the nodes */
    SF_MEDIUM_MUXY, SF_MEDIUM_MUXZ, SF_MEDIUM_MUYZ, /* Pa at sxy, sxz, syz */
    SF_MEDIUM_ARRAYS
} sf_medium_array;

/* The node values the averages above come from, for backends that form
 * them on the fly to read 3 arrays instead of 8: rho, mu = rho vs^2 and
 * lambda (the free-surface lambda' on global plane 0). */
typedef enum { SF_NODE_RHO, SF_NODE_MU, SF_NODE_LAMBDA, SF_NODE_ARRAYS } sf_node_array;

typedef struct {
    float *a[SF_MEDIUM_ARRAYS];   /* each compact [nz][ny][nx] over the slab's owned planes */
    float *node[SF_NODE_ARRAYS];  /* each [nz + 1][ny][nx]: plane nz is the next rank's first */
} sf_elastic_medium;

/* Collective: the medium of this slab from its model planes; the averages
 * across z take the next plane from the rank above. With a free surface
 * on global plane 0, that plane's normal-stress moduli are the ones that
 * keep szz = 0 there: lambda' = 2 lambda mu / (lambda + 2 mu) and
 * lambda' + 2 mu in place of lambda and lambda + 2 mu. */
void sf_elastic_medium_build(sf_elastic_medium *m, const sf_model *model, const sf_slab *slab,
                             const sf_config *c);
void sf_elastic_medium_free(sf_elastic_medium *m);

#endif
