/* The elastic CPU kernels (src/backends/cpu/elastic.c) as a physics built
 * on the same velocity-stress update takes them: their table, whose
 * entries it keeps or replaces, and their state with a law that turns
 * each chunk of a row's stress increments into what the update adds (the
 * visco-elastic memory variables). */
#ifndef SF_CPU_ELASTIC_KERNELS_H
#define SF_CPU_ELASTIC_KERNELS_H

#include "cpu_physics.h"

/* Points of a row handled at a time. */
enum { SF_CPU_ELASTIC_CHUNK = 128 };

/* The increments of the lossless update over the stress half-step at len
 * consecutive points of a row from owned-planes offset p: normal holds
 * sxx's, syy's and szz's, shear one shear stress's (0 sxy, 1 sxz, 2 syz);
 * each is replaced in place by what the update adds. Calls on one chunk
 * come from one thread, normal before the shears. */
typedef struct {
    void (*normal)(void *state, long len, size_t p, float increment[3][SF_CPU_ELASTIC_CHUNK]);
    void (*shear)(void *state, int s, long len, size_t p, float *increment);
    void *state;
} sf_cpu_stress_law;

extern const sf_cpu_physics sf_cpu_elastic_kernels;

/* The elastic state for p, whose medium is an sf_elastic_medium, with law
 * applied to every stress increment (NULL: none, the elastic physics). */
void *sf_cpu_elastic_create(sf_cpu_shared *shared, const sf_problem *p, const sf_cpu_stress_law *law);

#endif
