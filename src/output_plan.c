/* What a run will write, checked before it starts: each output's path
 * (existing files, shared paths, directories) and the room left on the
 * file systems that will hold them. */
#include "sf_output_plan.h"
#include "sf_error.h"
#include "sf_output.h"
#include "sf_run_report.h"
#include "sf_segy.h"
#include "sf_snapshot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gather, the SEG-Y files (one per component of an elastic gather), the
 * snapshots and their index, the model, the energy series, the report */
enum { OUTPUTS = 6 + SF_COMPONENTS, PATH_SIZE = 4200 };
static const double METADATA_BYTES = 65536.0;   /* attributes, the job text, headers */
static const double ENERGY_ROW_BYTES = 100.0;   /* one CSV line */

typedef struct {
    const char *path;         /* NULL when the job does not ask for it */
    sf_mark mark;
    const char *key;          /* under output. */
    double bytes;             /* its estimated size */
    int replaced;             /* rewritten by every run (the report): no overwrite needed */
} output_target;

typedef struct {
    output_target t[OUTPUTS];
    int count;
    char made[SF_COMPONENTS + 2][PATH_SIZE];   /* names derived here */
    char keys[SF_COMPONENTS][48];
} output_list;

static void add(output_list *l, const char *path, sf_mark mark, const char *key, double bytes)
{
    l->t[l->count++] = (output_target){path, mark, key, bytes, 0};
}

/* The run report: output.report, else next to the gather. */
static void add_report(output_list *l, const sf_config *c)
{
    char *path = l->made[SF_COMPONENTS + 1];
    if (c->report_path)
        path = c->report_path;
    else
        sf_report_default_path(c->gather_path, path, PATH_SIZE);
    add(l, path, c->report_path ? c->report_mark : c->gather_mark,
        c->report_path ? "report" : "report (next to output.gather)", METADATA_BYTES);
    l->t[l->count - 1].replaced = 1;
}

/* A gather of several components goes to one SEG-Y file per component. */
static void add_segy(output_list *l, const sf_config *c, double bytes_per_file)
{
    if (!sf_config_component_axis(c)) {
        add(l, c->segy_path, c->segy_mark, "segy", bytes_per_file);
        return;
    }
    for (int q = 0; q < c->receivers.ncomponents; ++q) {
        const char *name = sf_component_name(c->receivers.component[q]);
        sf_segy_component_path(c->segy_path, name, l->made[q], PATH_SIZE);
        snprintf(l->keys[q], sizeof l->keys[q], "segy (its %s file)", name);
        add(l, l->made[q], c->segy_mark, l->keys[q], bytes_per_file);
    }
}

/* The run's outputs with their sizes; s may be NULL when only the paths
 * are wanted. */
static void list_outputs(const sf_config *c, const sf_simulation *s, output_list *l)
{
    double nrec = (double)c->receivers.count, ns = s ? (double)s->resampler.nsamples : 0.0;
    double steps = s ? (double)s->steps : 0.0, ncomp = (double)c->receivers.ncomponents;
    double snapshots = c->snapshot_path ? floor(steps / (double)c->snapshot_every) : 0.0;
    double cells = 1.0;
    for (int a = 0; a < 3; ++a) cells *= (double)sf_snapshot_samples(c->n[a], c->snapshot_decimation[a]);
    l->count = 0;
    add(l, c->gather_path, c->gather_mark, "gather", METADATA_BYTES + nrec * (4.0 * ns * ncomp + 24.0));
    if (c->segy_path) add_segy(l, c, 3600.0 + nrec * (240.0 + 4.0 * ns));
    if (c->snapshot_path) {
        char *xdmf = l->made[SF_COMPONENTS];
        sf_snapshot_xdmf_name(c->snapshot_path, xdmf, PATH_SIZE);
        add(l, c->snapshot_path, c->snapshot_mark, "snapshots.path",
            METADATA_BYTES + snapshots * c->snapshot_nfields * (4.0 * cells + 1024.0));
        add(l, xdmf, c->snapshot_mark, "snapshots.path (its XDMF index)",
            1024.0 * c->snapshot_nfields * (snapshots + 1.0));
    }
    if (c->model_output_path)
        add(l, c->model_output_path, c->model_output_mark, "model",
            METADATA_BYTES + 4.0 * sf_config_physics(c)->nparams * c->n[0] * c->n[1] * c->n[2]);
    if (c->energy_path) add(l, c->energy_path, c->energy_mark, "energy", ENERGY_ROW_BYTES * steps);
    add_report(l, c);
}

/* Rank 0: why target t cannot be written, or 0. A run claims each
 * output (locks it for itself, then removes what killed runs left of it);
 * seisfd check only looks. */
static int output_problem(const sf_config *c, const output_list *l, int t,
                          sf_outputs_stage stage, char *reason, size_t len)
{
    const char *path = l->t[t].path;
    if (stage == SF_OUTPUTS_CLAIM_ALL && sf_output_holds_lock(path)) return 0;   /* claimed before */
    int claim = stage == SF_OUTPUTS_CLAIM_ALL ||
                (stage == SF_OUTPUTS_CLAIM_EXISTING && sf_output_directory_exists(path));
    for (int u = 0; u < t; ++u)
        if (!strcmp(l->t[u].path, path)) {
            snprintf(reason, len, "'%s' is also output.%s; give each output its own path", path,
                     l->t[u].key);
            return 1;
        }
    if (sf_output_check_path(path, reason, len) != 0) return 1;
    if (claim ? sf_output_make_parents(path, reason, len) != 0 ||
                    sf_output_lock(path, path, reason, len) != 0
              : sf_output_lock_probe(path, path, reason, len) != 0)
        return 1;
    if (!c->overwrite && !l->t[t].replaced && sf_output_exists(path)) {
        snprintf(reason, len, "'%s' already exists; remove it or set output.overwrite: true",
                 path);
        return 1;
    }
    if (!claim) return 0;
    sf_output_remove_stale(path, 0);
    return sf_output_check_writable(path, reason, len) != 0;
}

void sf_check_outputs(const sf_config *c, MPI_Comm comm, sf_outputs_stage stage)
{
    output_list *l = sf_malloc(sizeof *l, "the list of outputs");
    list_outputs(c, NULL, l);
    int rank, problems = 0;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "checking outputs");
    for (int t = 0; rank == 0 && t < l->count; ++t) {
        char reason[1024] = "";
        if (!output_problem(c, l, t, stage, reason, sizeof reason)) continue;
        sf_config_report(c, l->t[t].mark, "output.%s: %s", l->t[t].key, reason);
        ++problems;
    }
    free(l);
    SF_MPI_CHECK(MPI_Bcast(&problems, 1, MPI_INT, 0, comm), "checking outputs");
    if (problems) sf_exit_collective();
}

/* Rank 0: the first output whose file system lacks room for every output
 * it will hold, or -1. */
static int short_of_space(const output_list *l, double *needed, double *available)
{
    double free_space[OUTPUTS];
    unsigned long device[OUTPUTS];
    for (int o = 0; o < l->count; ++o)
        if (sf_output_free_space(l->t[o].path, &free_space[o], &device[o]) != 0)
            free_space[o] = -1.0;   /* unknown: not checked */
    for (int o = 0; o < l->count; ++o) {
        if (free_space[o] < 0.0) continue;
        *needed = 0.0;
        for (int u = 0; u < l->count; ++u)
            if (free_space[u] >= 0.0 && device[u] == device[o]) *needed += l->t[u].bytes;
        *available = free_space[o];
        if (*needed > *available) return o;
    }
    return -1;
}

void sf_check_output_space(const sf_simulation *s)
{
    const sf_config *c = s->cfg;
    output_list *l = sf_malloc(sizeof *l, "the list of outputs");
    list_outputs(c, s, l);
    double needed = 0.0, available = 0.0;
    int short_output = s->slab.rank == 0 ? short_of_space(l, &needed, &available) : -1;
    SF_MPI_CHECK(MPI_Bcast(&short_output, 1, MPI_INT, 0, s->slab.comm), "checking output space");
    if (short_output >= 0) {
        const output_target *t = &l->t[short_output];
        sf_config_report(c, t->mark, "output.%s: the outputs on the file system of '%s' need "
                         "%.3g MiB, but it has %.3g MiB free",
                         t->key, t->path, needed / SF_MIB, available / SF_MIB);
        sf_exit_collective();
    }
    free(l);
}
