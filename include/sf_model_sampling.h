/* Sampling a velocity volume given on its own regular grid onto the
 * simulation grid: trilinear (or nearest-sample) interpolation, axis by
 * axis; an axis with a single sample extends the model along it (a 2D
 * section [nz][nx] is extruded along y). */
#ifndef SF_MODEL_SAMPLING_H
#define SF_MODEL_SAMPLING_H

#include "sf_config.h"
#include "sf_volume.h"

/* value = (1 - w) v[i] + w v[i + 1], with w = 0 where one sample serves. */
typedef struct {
    long i;
    double w;
} sf_axis_sample;

/* Where coordinate x falls on an axis of n samples at origin + k spacing,
 * clamped to the axis. Positions within 1e-6 of a sample snap to it, so
 * coincident grids copy values exactly. */
sf_axis_sample sf_axis_sample_at(double x, long n, double origin, double spacing,
                                 sf_interpolation how);

/* The model planes [*k0, *k1) that simulation planes [z0, z0 + nz) read
 * when sampled as `how` says. */
void sf_model_plane_range(const sf_volume_grid *m, const sf_config *c, sf_interpolation how,
                          long z0, long nz, long *k0, long *k1);

/* Is the sampling a copy: every simulation point of planes [z0, z0 +
 * nz) a model sample itself, rows and planes of the same length, so that
 * the model planes can be read straight into the simulation's? */
int sf_model_sampling_is_copy(const sf_volume_grid *m, const sf_config *c, sf_interpolation how,
                              long z0, long nz);

/* Fills out[nz][ny][nx] for simulation planes [z0, z0 + nz) from model
 * planes [k0, k0 + nk) held as planes[nk][my][mx], sampled as `how` says
 * (a parameter's declared resampling, or model.interpolation). */
void sf_model_resample(const sf_volume_grid *m, const float *planes, long k0, const sf_config *c,
                       sf_interpolation how, long z0, long nz, float *out);

#endif
