/* The visco-acoustic physics: the acoustic leapfrog for the pressure at
 * the unrelaxed velocity, with L standard linear solids a point whose
 * memory variables relax towards its (layer-stretched) Laplacian, so that
 * Q stays near the model's qp over the job's attenuation band
 * (sf_relaxation_fit.h). Its stages and halo groups are the acoustic ones
 * (sf_acoustic.h); the memory variables are point-local and never cross a
 * slab boundary. */
#ifndef SF_VISCO_ACOUSTIC_H
#define SF_VISCO_ACOUSTIC_H

#include "sf_backend.h"
#include "sf_config.h"
#include "sf_relaxation.h"

/* Its parameters' indices in sf_problem.param. */
enum { SF_VISCO_ACOUSTIC_VP, SF_VISCO_ACOUSTIC_QP };

/* The job's attenuation as a run uses it: the band and reference
 * frequency (Hz, the job's or its source's), and the relaxation times
 * fitted once for the band, shared by every point. */
typedef struct {
    double band[2], reference;
    int coarse;                         /* physics.relaxation_layout: coarse */
    sf_relaxation_times times;
} sf_visco_attenuation;

/* 0, or non-zero with why in reason when the band cannot be fitted. */
int sf_visco_attenuation_of(const sf_config *c, sf_visco_attenuation *a, char *reason,
                            size_t len);

/* What the backends take of a point of Q q and velocity v at the
 * reference frequency: the unrelaxed velocity (the update's and the CFL
 * limit's) and each mechanism's weight y_l / (1 + sum y), the share of the
 * unrelaxed modulus that relaxes through it. */
double sf_visco_point(const sf_visco_attenuation *a, double v, double q, float *weight);
/* The largest |Q(f)/q - 1| over the band of the layout's fitted solids. */
double sf_visco_worst_misfit(const sf_visco_attenuation *a, double q);
/* The phase velocity at the band's lowest frequency over that at the
 * reference (below 1). */
double sf_visco_slowest_ratio(const sf_visco_attenuation *a, double q);

/* sf_visco_point over a model's range of Q, as a table in 1/Q read by
 * linear interpolation at a point's coordinate in it (sf_relaxation.h): a
 * model file's Q may differ at every point, and a point's own fit (about
 * 2 us) would cost minutes on a large slab. The table's ends are the
 * model's global extremes, so every rank reads the same values for the
 * same Q. The medium takes its weights; its ratio is the builder's to
 * free. */
typedef struct {
    double first, step;                 /* 1/Q at node 0, and between nodes */
    int intervals;
    double *ratio;                      /* [intervals + 1] the unrelaxed velocity over v */
    float *weight;                      /* [intervals + 1][mechanisms] */
    int mechanisms;
} sf_visco_table;

void sf_visco_table_build(sf_visco_table *t, const sf_visco_attenuation *a, double q_min,
                          double q_max);
/* Q's coordinate in the table, clamped to its range. */
float sf_visco_table_coordinate(const sf_visco_table *t, double q);
/* The unrelaxed velocity of a point of velocity v at that coordinate. */
double sf_visco_table_unrelaxed(const sf_visco_table *t, double v, float coordinate);

/* The medium the plug-in builds over the owned planes, compact
 * [nz][ny][nx]: the unrelaxed velocity, and the solids with the table's
 * weights and each point's coordinate in it. */
typedef struct {
    float *unrelaxed;
    sf_relaxation_medium relaxation;
} sf_visco_medium;

/* p (whose medium is an sf_visco_medium) as the acoustic kernels of
 * either backend take it: the unrelaxed velocity its one parameter, held
 * in param. */
sf_problem sf_visco_unrelaxed_problem(const sf_problem *p, const float *param[SF_MAX_PARAMS]);

#endif
