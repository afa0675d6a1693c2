/* The visco-elastic physics: the elastic velocity-stress update at the
 * unrelaxed moduli, each stress increment relaxing through standard
 * linear solids (sf_relaxation.h): its bulk part, the mean of the normal
 * stresses', at the bulk Q, and its deviatoric part at qs, so that P and
 * S waves keep the model's qp and qs over the job's attenuation band. Its
 * stages, halo groups and fields are the elastic ones; the memory
 * variables are point-local and never cross a slab boundary. */
#ifndef SF_VISCO_ELASTIC_H
#define SF_VISCO_ELASTIC_H

#include "sf_attenuation.h"
#include "sf_backend.h"
#include "sf_elastic_medium.h"
#include "sf_plane_volume.h"

/* Its parameters' indices: the elastic ones first (sf_elastic_medium.h). */
enum { SF_VISCO_ELASTIC_QP = SF_ELASTIC_RHO + 1, SF_VISCO_ELASTIC_QS };

/* The bulk modulus K = M - (4/3) mu holds the part of P's loss that shear
 * does not: K / Q_kappa = M / qp - (4/3) mu / qs. Returns 1 / Q_kappa of a
 * point of velocities vp, vs and quality factors qp, qs (qs unused where
 * vs = 0); below 0 where qs < (4/3) (vs / vp)^2 qp, a negative loss. */
double sf_visco_elastic_inverse_bulk_q(double vp, double vs, double qp, double qs);

/* Memory variables a point keeps for each solid: the bulk part's, two
 * deviatoric normal stresses' (the third is minus their sum) and the three
 * shear stresses'. */
enum { SF_VISCO_ELASTIC_BULK, SF_VISCO_ELASTIC_XX, SF_VISCO_ELASTIC_YY, SF_VISCO_ELASTIC_XY,
       SF_VISCO_ELASTIC_XZ, SF_VISCO_ELASTIC_YZ, SF_VISCO_ELASTIC_MEMORY };

/* The medium the plug-in builds: the elastic medium of the unrelaxed
 * velocities, and the solids, the same times and weight table for the
 * bulk and the shear part, each point's coordinate in it at its bulk Q
 * and at its qs (compact [nz][ny][nx]). The two share one table. */
enum { SF_VISCO_ELASTIC_UNRELAXED_VP, SF_VISCO_ELASTIC_UNRELAXED_VS,
       SF_VISCO_ELASTIC_BULK_COORDINATE, SF_VISCO_ELASTIC_SHEAR_COORDINATE,
       SF_VISCO_ELASTIC_VOLUMES };
typedef struct {
    sf_elastic_medium elastic;
    sf_relaxation_medium bulk, shear;
    sf_plane_volume volumes[SF_VISCO_ELASTIC_VOLUMES];   /* where the unrelaxed velocities
                                                          * and the coordinates live */
} sf_visco_elastic_medium;

/* p (whose medium is an sf_visco_elastic_medium) as the elastic kernels
 * take it: its elastic medium. */
sf_problem sf_visco_elastic_unrelaxed_problem(const sf_problem *p);

#endif
