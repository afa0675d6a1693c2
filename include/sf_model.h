/* The model of one rank's slab, built from the job's model section: vp,
 * and for elastic jobs vs and rho, with global statistics for the
 * stability and dispersion checks. */
#ifndef SF_MODEL_H
#define SF_MODEL_H

#include "sf_config.h"
#include "sf_decomp.h"

typedef struct {
    float *vp;          /* owned planes, compact [nz][ny][nx], m/s */
    float *vs, *rho;    /* elastic jobs only (else NULL): m/s, kg/m^3 */
    double vmin, vmax;  /* vp over the whole grid */
    double vs_min, vs_max, rho_min, rho_max;
    double slowest;     /* slowest wave: vs, or vp where vs = 0 (acoustic: vmin) */
} sf_model;

/* Collective over the slab's communicator. Bad files or values end the
 * run with a message naming the file and the first bad index. */
void sf_model_build(sf_model *m, const sf_config *c, const sf_slab *slab);
void sf_model_free(sf_model *m);

#endif
