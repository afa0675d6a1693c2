/* The visco-acoustic physics: the acoustic leapfrog for the pressure at
 * the unrelaxed velocity, with L standard linear solids a point whose
 * memory variables relax towards its (layer-stretched) Laplacian, so that
 * Q stays near the model's qp over the job's attenuation band
 * (sf_relaxation_fit.h). Its stages and halo groups are the acoustic ones
 * (sf_acoustic.h); the memory variables are point-local and never cross a
 * slab boundary. */
#ifndef SF_VISCO_ACOUSTIC_H
#define SF_VISCO_ACOUSTIC_H

#include "sf_attenuation.h"
#include "sf_backend.h"
#include "sf_plane_volume.h"

/* Its parameters' indices in sf_problem.param. */
enum { SF_VISCO_ACOUSTIC_VP, SF_VISCO_ACOUSTIC_QP };

/* The medium the plug-in builds over the owned planes, compact
 * [nz][ny][nx]: the unrelaxed velocity, and the solids with the table's
 * weights and each point's coordinate in it. */
enum { SF_VISCO_UNRELAXED, SF_VISCO_COORDINATE, SF_VISCO_VOLUMES };
typedef struct {
    float *unrelaxed;
    sf_relaxation_medium relaxation;
    sf_plane_volume volumes[SF_VISCO_VOLUMES];   /* where unrelaxed and relaxation.coordinate live */
} sf_visco_medium;

/* p (whose medium is an sf_visco_medium) as the acoustic kernels of
 * either backend take it: the unrelaxed velocity its one parameter, held
 * in param. */
sf_problem sf_visco_unrelaxed_problem(const sf_problem *p, const float *param[SF_MAX_PARAMS]);

#endif
