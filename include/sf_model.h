/* The model of one rank's slab, built from the job's model section: the
 * parameters its physics declares, with global statistics for the
 * stability and dispersion checks. */
#ifndef SF_MODEL_H
#define SF_MODEL_H

#include "sf_config.h"
#include "sf_decomp.h"
#include "sf_plane_volume.h"

typedef struct {
    /* Owned planes, compact [nz][ny][nx], of each parameter the physics
     * takes, by its index in the physics' declaration (NULL past them),
     * and their global ranges. */
    float *param[SF_MAX_PARAMS];
    sf_plane_volume volume[SF_MAX_PARAMS];   /* where each param lives: a homogeneous or
                                              * layered model's planes of equal value share
                                              * memory (sf_plane_volume.h) */
    double min[SF_MAX_PARAMS], max[SF_MAX_PARAMS];
    /* Where the values are the job's own (homogeneous, layered): for each
     * owned plane, the first owned plane of the same values in every
     * parameter, so that what is formed point by point from them repeats
     * too; NULL for a model read from files. */
    long *first_equal_plane;
    /* The fastest wave (the CFL limit's) and the slowest (the dispersion
     * check's) over the whole grid, as the physics' wave_speeds says
     * (sf_physics_plugin). */
    double vmax, slowest;
} sf_model;

/* Collective over the slab's communicator. Bad files or values end the
 * run with a message naming the file and the first bad index. */
void sf_model_build(sf_model *m, const sf_config *c, const sf_slab *slab);
void sf_model_free(sf_model *m);

/* The points a derivation from the model's values must visit (the wave
 * speeds, a physics' medium): every point of the slab, or, where the
 * values are the job's own (homogeneous, layered), which vary with depth
 * alone, one a plane, each standing for its whole plane. */
typedef struct {
    const float *param[SF_MAX_PARAMS];   /* count values of each parameter */
    long count;
    long plane;       /* the points each stands for: 1, or a plane's */
    float *copies;    /* the planes' values, where the points are one a plane */
} sf_model_points;

sf_model_points sf_model_points_of(const sf_model *m, const sf_config *c, const sf_slab *slab);
/* The slab's volume of a derived quantity from its count values at the
 * points (which it takes): values itself, or planes sharing memory
 * (sf_plane_volume.h). */
sf_plane_volume sf_model_points_volume(const sf_model_points *points, float *values, const char *what);
void sf_model_points_free(sf_model_points *points);

/* The fastest wave (sf_model's vmax) of a homogeneous or layered model
 * from the job's values alone, before any slab is built: the physics'
 * wave_speeds over one point per layer (a layer below the grid counts,
 * so it is never slower than the grid's). NAN for a model file, whose
 * speeds are known only once read. */
double sf_model_fastest_wave_of_values(const sf_config *c);

#endif
