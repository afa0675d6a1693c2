/* The job's attenuation for any attenuating physics: its band and
 * reference frequency, the standard linear solids fitted to the band
 * (sf_relaxation_fit.h), and what a point of a given Q takes of them,
 * tabulated over a model's range of Q for the backends
 * (sf_relaxation.h). */
#ifndef SF_ATTENUATION_H
#define SF_ATTENUATION_H

#include "sf_config.h"
#include "sf_relaxation.h"

/* qp, the P-wave quality factor every attenuating physics takes. */
extern const sf_parameter_declaration SF_VISCO_QP;

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
/* The same, ending the run with the reason. */
sf_visco_attenuation sf_visco_attenuation_or_fail(const sf_config *c);

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
/* The solids a medium hands its backends: a's times and layout, t's
 * weights (which it takes: t->weight is the medium's to free from then
 * on) and each point's coordinate in t. */
sf_relaxation_medium sf_visco_relaxation_medium(const sf_visco_attenuation *a, const sf_visco_table *t,
                                                float *coordinate);

/* The set-up summary's line: the band, the solids and the worst misfit of
 * the fitted Q over the band at each of the count Q values given (the
 * model's extremes). */
void sf_visco_attenuation_summary(const sf_config *c, const double *q, int count);

#endif
