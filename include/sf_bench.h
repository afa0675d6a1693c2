/* `seisfd bench`: memory copy bandwidth and the full time step of a
 * physics on a cubic grid, in one process (or one MPI job, decomposed
 * along z). */
#ifndef SF_BENCH_H
#define SF_BENCH_H

#include "sf_config.h"

#include <stddef.h>
#include <stdio.h>

/* What bench assumes of a physics, as its plug-in declares it. */
typedef struct {
    long gpu_size;            /* the default --size on a GPU: a cube that fills much of one */
    double bytes_per_point;   /* the least memory traffic of a point update, for the
                                 effective bandwidth, beside its memory variables' */
    double bytes_per_memory_variable;   /* an attenuation memory variable's (read and written) */
} sf_physics_bench;

typedef struct {
    long size, steps, warmup;   /* size 0: the backend's default */
    long check_every;           /* --check-every: the instability guard's interval; 0: off */
    long nz;                    /* --nz: planes along z (weak scaling); 0: size */
    long order, cpml;
    long cpml_z;                /* --cpml-z: the z faces' layers; -1: --cpml */
    long copy_mib;
    sf_physics physics;
    sf_device_kind device;
    int gpu_aware;              /* --gpu-aware-mpi: an sf_gpu_aware_mode, -1 when not given */
    int exchange;               /* --exchange: time halo-sized messages between GPUs instead */
    int plane_costs;            /* --plane-costs: the cost-table row of this device instead */
    int relaxation_coarse;      /* --relaxation-layout coarse (an attenuating physics) */
    sf_slab_policy slabs;       /* --slabs */
    sf_precision precision;     /* --precision */
    const char *report;         /* --report FILE: the run report, or NULL */
} sf_bench_options;

/* Reads the options after `bench` (no MPI needed, so that a mistake is
 * told before start-up): 0, or -1 and why (one line). */
int sf_bench_parse(int argc, char **argv, sf_bench_options *o, char *why, size_t len);

/* The usage of bench: every option the parser takes, from its table. */
void sf_bench_usage(FILE *out);

/* Collective: chooses the backend (--device, --physics) and prints the
 * measurements on rank 0. */
int sf_bench_main(const sf_bench_options *o);

#endif
