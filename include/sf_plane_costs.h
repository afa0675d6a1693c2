/* What a slab costs a step, for cutting the slabs so every rank computes
 * for the same time. A point update costs `point[SF_COST_INTERIOR]`
 * seconds of the backend's stencil time outside every absorbing layer and
 * point[SF_COST_X_LAYER + a] inside the layer of axis a (x, y, z) or
 * within the stencil's reach of it, where its update reads that layer's
 * memory variables; a point in the reach of several layers pays each
 * one's extra. A plane of a z layer is all z-layer points; every plane
 * has its x and y layers' frame. A rank also pays, per neighbour and per
 * point of a plane, point[SF_COST_NEIGHBOUR]: its steps are cut into edge
 * pieces and interior, and the halos are packed, copied and unpacked
 * beside its kernels.
 *
 * The costs come from a table of the physics on each backend and device
 * (docs/plane-costs.csv, built into seisfd, and a site's own table named
 * by SEISFD_PLANE_COSTS, searched first), recorded with `seisfd bench
 * --plane-costs`; where neither has the job's row, each rank times the
 * physics on its own device at set-up (sf_simulation_calibrate), where
 * the steps the set-up serves pay for it. */
#ifndef SF_PLANE_COSTS_H
#define SF_PLANE_COSTS_H

#include "sf_config.h"

#include <stddef.h>

#define SF_PLANE_COSTS_ENV "SEISFD_PLANE_COSTS"

enum { SF_DEVICE_NAME_TEXT = 160, SF_COST_SOURCE_TEXT = 512 };
/* Kinds of point: outside the layers, then in the x, y and z layers; then
 * a neighbour's cost per point of a plane. */
enum { SF_COST_INTERIOR, SF_COST_X_LAYER, SF_COST_Y_LAYER, SF_COST_Z_LAYER, SF_COST_NEIGHBOUR,
       SF_COST_KINDS };

typedef struct {
    double point[SF_COST_KINDS];       /* seconds per point update, by kind (sf_plane_costs.h) */
    char source[SF_COST_SOURCE_TEXT];  /* where they came from, for the summary */
} sf_point_costs;

/* Whether the costs are known: a set-up too short to pay for timing the
 * physics leaves them NAN (the cut equal, nothing predicted). */
int sf_point_costs_known(const sf_point_costs *costs);

/* What a table row is for. `precision` is "float32" (the only one yet). */
typedef struct {
    const char *backend, *physics, *precision, *device;
    int order;
} sf_cost_key;

/* The device a rank computes on as the table names it: the GPU's name, or
 * the CPU's model with the OpenMP threads per rank ("AMD EPYC 9R14
 * 96-Core Processor, 2 threads"). */
void sf_cost_device_name(int cuda, char *name, size_t len);

/* The row of key: SEISFD_PLANE_COSTS's file first, then the table built
 * in; a row whose device is "*" matches any device. 1 and out filled, 0
 * when there is none, -1 with the problem (the file and line of a bad
 * row, a file that cannot be read). */
int sf_plane_costs_lookup(const sf_cost_key *key, sf_point_costs *out, char *problem, size_t len);

/* The table row for key and costs (bench --plane-costs), with the date. */
void sf_plane_costs_row(const sf_cost_key *key, const sf_point_costs *costs, const char *date,
                        char *row, size_t len);

/* Seconds a step of global plane z costs under the job's layers. */
double sf_plane_cost(const sf_point_costs *costs, const sf_config *cfg, long z);

/* Seconds a step of one neighbour costs a rank. */
double sf_neighbour_cost(const sf_point_costs *costs, const sf_config *cfg);

/* Seconds per step of the planes [z0, z0 + nz) on a rank with that many
 * neighbours. */
double sf_slab_cost(const sf_point_costs *costs, const sf_config *cfg, long z0, long nz,
                    int neighbours);

#endif
