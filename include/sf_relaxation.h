/* Standard linear solids as a step applies them, the same in every
 * attenuating physics and backend (sf_relaxation_fit.h fits them). A
 * point's memory variable S_l of mechanism l (scaled by dt^2, at half
 * steps) relaxes towards its weight times the step's increment D (the
 * lossless update's change), integrated exactly over the step for a drive
 * constant over it, so stable for any tau_l / dt:
 *
 *     S_l <- a_l S_l + (1 - a_l) w_l D,   a_l = exp(-dt / tau_l),
 *
 * and the update loses the mean of each S_l's two half steps. A point's
 * weights w_l depend on its Q alone: they are read from a table of
 * intervals + 1 nodes at the point's coordinate in it (linear
 * interpolation), so a point stores one number instead of one a
 * mechanism.
 *
 * In a coarse layout (Day & Bradley 2001) a point relaxes through one
 * mechanism only, its corner of a 2 x 2 x 2 cell of global indices, with
 * the weight times the count: a cell holds every mechanism once, so waves
 * long against the cell see the full law, for one memory variable a point. */
#ifndef SF_RELAXATION_H
#define SF_RELAXATION_H

#include "sf_pointwise.h"
#include "sf_relaxation_fit.h"

/* What a built medium holds for its backends: the times shared by every
 * point, the weight table [intervals + 1][mechanisms] and each point's
 * coordinate in [0, intervals] (compact, [nz][ny][nx]). */
typedef struct {
    int mechanisms, intervals;
    int coarse;                      /* 1: one mechanism a point, by its corner */
    double tau[SF_MAX_MECHANISMS];   /* s */
    float *weight;
    float *coordinate;
} sf_relaxation_medium;

/* Memory variables a point. */
SF_POINTWISE int sf_relaxation_memory_variables(const sf_relaxation_medium *r)
{
    return r->coarse ? 1 : r->mechanisms;
}

/* The law a kernel applies for a time step dt: the decays and the table
 * (host or device memory, as the kernel runs). */
typedef struct {
    int mechanisms, intervals;
    int coarse;
    float decay[SF_MAX_MECHANISMS];
    const float *weight;
} sf_relaxation_law;

/* The law of medium r for a time step dt, its table r's (host memory). */
sf_relaxation_law sf_relaxation_law_for_step(const sf_relaxation_medium *r, double dt);

/* A point's place in the table: the offset of its lower node's weights
 * and its fraction of the way to the next node. */
SF_POINTWISE int sf_relaxation_node(const sf_relaxation_law *law, float coordinate, float *fraction)
{
    int node = (int)coordinate;
    node = node < law->intervals ? node : law->intervals - 1;
    *fraction = coordinate - (float)node;
    return node * law->mechanisms;
}

/* Mechanism l's weight at that place. */
SF_POINTWISE float sf_relaxation_weight(const sf_relaxation_law *law, int offset, float fraction,
                                        int l)
{
    const float lo = law->weight[offset + l], hi = law->weight[offset + law->mechanisms + l];
    return lo + fraction * (hi - lo);
}

/* One memory variable over a step of increment D: returns the sum of its
 * two half steps, of which the update loses half. */
SF_POINTWISE float sf_relaxation_advance(float decay, float weight, float increment, float *memory)
{
    const float after = decay * *memory + (1.0f - decay) * weight * increment;
    const float sum = *memory + after;
    *memory = after;
    return sum;
}

/* Advances a point's memory[0 .. mechanisms - 1] over a step of increment
 * D; returns what the update subtracts from its new level. */
SF_POINTWISE float sf_relax_point(const sf_relaxation_law *law, float coordinate, float increment,
                                  float *memory)
{
    float fraction;
    const int offset = sf_relaxation_node(law, coordinate, &fraction);
    float sum = 0.0f;
    SF_UNROLL
    for (int l = 0; l < SF_MAX_MECHANISMS; ++l) {
        if (l == law->mechanisms) break;
        const float w = sf_relaxation_weight(law, offset, fraction, l);
        sum += sf_relaxation_advance(law->decay[l], w, increment, &memory[l]);
    }
    return 0.5f * sum;
}

/* A point's mechanism in a coarse layout, from its global indices: the
 * same on any number of ranks. */
SF_POINTWISE int sf_relaxation_corner(long i, long j, long global_k)
{
    return (int)((i & 1) | (j & 1) << 1 | (global_k & 1) << 2);
}

/* A point's weight in a coarse layout: its mechanism's, times the count. */
SF_POINTWISE float sf_relaxation_coarse_weight(const sf_relaxation_law *law, float coordinate,
                                               int corner)
{
    float fraction;
    const int offset = sf_relaxation_node(law, coordinate, &fraction);
    return (float)law->mechanisms * sf_relaxation_weight(law, offset, fraction, corner);
}

/* sf_relax_point in a coarse layout: one memory variable. */
SF_POINTWISE float sf_relax_coarse_point(const sf_relaxation_law *law, float coordinate, int corner,
                                         float increment, float *memory)
{
    const float w = sf_relaxation_coarse_weight(law, coordinate, corner);
    return 0.5f * sf_relaxation_advance(law->decay[corner], w, increment, memory);
}

#endif
