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

/* The elastic physics' parameters, by their index in its declaration. */
enum { SF_ELASTIC_VP, SF_ELASTIC_VS, SF_ELASTIC_RHO, SF_ELASTIC_PARAMS };

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

/* A slab's model as its backend lays it out: each backend forms the
 * values it stores (the averages, or the nodes) point by point while it
 * lays them out, so that no volume of them is built on the host first. */
typedef struct {
    const float *param[SF_ELASTIC_PARAMS];   /* compact [nz][ny][nx] owned planes, not owned here */
    float *next[SF_ELASTIC_PARAMS];          /* the plane above the last: the next rank's first
                                              * (the last again at the bottom of the grid) */
    long nx, ny, nz;
    int surface;             /* this slab's plane 0 is the grid's free surface */
} sf_elastic_medium;

/* Collective: the medium of this slab on its model planes (which must
 * outlive it); the averages across z take the next plane from the rank
 * above. With a free surface on global plane 0, that plane's normal-stress
 * moduli are the ones that keep szz = 0 there: lambda' = 2 lambda mu /
 * (lambda + 2 mu) and lambda' + 2 mu in place of lambda and lambda + 2 mu. */
void sf_elastic_medium_build(sf_elastic_medium *m, const float *const param[SF_ELASTIC_PARAMS],
                             const sf_slab *slab,
                             const sf_config *c);
void sf_elastic_medium_free(sf_elastic_medium *m);

/* The eight averages at owned point (i, j, k) (sf_medium_array order)
 * times dt as the backends store them: each rounded to float, then
 * scaled, as the GPU's float nodes are. */
void sf_elastic_medium_scaled_point(const sf_elastic_medium *m, double dt, long i, long j, long k,
                                    float out[SF_MEDIUM_ARRAYS]);
/* For each of the planes 0 .. nz (nz: the next plane), the first plane
 * whose values repeat its own, given which model planes repeat
 * (sf_problem's first_equal_plane; NULL where none is known: each plane
 * its own). A plane's node values come from its model plane, its eight
 * averages (reach 1) from that and the plane below; the next plane, and a
 * free surface's plane with its lambda', stand alone. */
long *sf_elastic_medium_repeats(const sf_elastic_medium *m, const long *first_equal, int reach);
/* Node array a along row j of plane k, 0 <= k <= nz (plane nz: the next
 * plane): out[0 .. nx). */
void sf_elastic_medium_node_row(const sf_elastic_medium *m, sf_node_array a, long j, long k,
                                float *out);

#endif
