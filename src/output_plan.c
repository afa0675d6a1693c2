/* What a run will write, checked before it starts: each output's path
 * (existing files, shared paths, directories) and the room left on the
 * file systems that will hold them. */
#include "sf_output_plan.h"
#include "sf_error.h"
#include "sf_output.h"
#include "sf_snapshot.h"

#include <stdio.h>
#include <string.h>

enum { OUTPUTS = 5 };
static const double METADATA_BYTES = 65536.0;   /* attributes, the job text, headers */

typedef struct {
    const char *path;         /* NULL when the job does not ask for it */
    sf_mark mark;
    const char *key;          /* under output. */
} output_target;

/* The run's outputs; xdmf receives the snapshot index's name. */
static void list_outputs(const sf_config *c, char *xdmf, size_t len, output_target t[OUTPUTS])
{
    xdmf[0] = '\0';
    if (c->snapshot_path) sf_snapshot_xdmf_name(c->snapshot_path, xdmf, len);
    t[0] = (output_target){c->gather_path, c->gather_mark, "gather"};
    t[1] = (output_target){c->segy_path, c->segy_mark, "segy"};
    t[2] = (output_target){c->snapshot_path, c->snapshot_mark, "snapshots.path"};
    t[3] = (output_target){c->snapshot_path ? xdmf : NULL, c->snapshot_mark,
                           "snapshots.path (its XDMF index)"};
    t[4] = (output_target){c->model_output_path, c->model_output_mark, "model"};
}

/* Rank 0: why target t cannot be written, or 0. */
static int output_problem(const sf_config *c, const output_target *targets, int t, char *reason,
                          size_t len)
{
    const char *path = targets[t].path;
    for (int u = 0; u < t; ++u)
        if (targets[u].path && !strcmp(targets[u].path, path)) {
            snprintf(reason, len, "'%s' is also output.%s; give each output its own path", path,
                     targets[u].key);
            return 1;
        }
    if (!c->overwrite && sf_output_exists(path)) {
        snprintf(reason, len, "'%s' already exists; remove it or set output.overwrite: true",
                 path);
        return 1;
    }
    return sf_output_make_parents(path, reason, len) != 0 ||
           sf_output_check_writable(path, reason, len) != 0;
}

void sf_check_outputs(const sf_config *c, MPI_Comm comm)
{
    char xdmf[4200];
    output_target targets[OUTPUTS];
    list_outputs(c, xdmf, sizeof xdmf, targets);
    int rank, problems = 0;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "checking outputs");
    for (int t = 0; rank == 0 && t < OUTPUTS; ++t) {
        char reason[512] = "";
        if (!targets[t].path || !output_problem(c, targets, t, reason, sizeof reason)) continue;
        sf_config_report(c, targets[t].mark, "output.%s: %s", targets[t].key, reason);
        ++problems;
    }
    SF_MPI_CHECK(MPI_Bcast(&problems, 1, MPI_INT, 0, comm), "checking outputs");
    if (problems) sf_exit_collective();
}

/* Bytes each output will take (0 where the job does not ask for it). */
static void output_sizes(const sf_simulation *s, double bytes[OUTPUTS])
{
    const sf_config *c = s->cfg;
    double nrec = (double)c->receivers.count, ns = (double)s->resampler.nsamples;
    double snapshots = c->snapshot_path ? (double)(s->steps / c->snapshot_every) : 0.0, cells = 1.0;
    for (int a = 0; a < 3; ++a) cells *= (double)sf_snapshot_samples(c->n[a], c->snapshot_decimation[a]);
    bytes[0] = METADATA_BYTES + nrec * (4.0 * ns + 24.0);
    bytes[1] = c->segy_path ? 3600.0 + nrec * (240.0 + 4.0 * ns) : 0.0;
    bytes[2] = c->snapshot_path ? METADATA_BYTES + snapshots * (4.0 * cells + 1024.0) : 0.0;
    bytes[3] = c->snapshot_path ? 1024.0 * (snapshots + 1.0) : 0.0;
    bytes[4] = c->model_output_path ? METADATA_BYTES + 4.0 * c->n[0] * c->n[1] * c->n[2] : 0.0;
}

/* Rank 0: the first output whose file system lacks room for every output
 * it will hold, or -1. */
static int short_of_space(const output_target t[OUTPUTS], const double bytes[OUTPUTS],
                          double *needed, double *available)
{
    double free_space[OUTPUTS];
    unsigned long device[OUTPUTS];
    for (int o = 0; o < OUTPUTS; ++o)
        if (t[o].path && sf_output_free_space(t[o].path, &free_space[o], &device[o]) != 0)
            free_space[o] = -1.0;   /* unknown: not checked */
    for (int o = 0; o < OUTPUTS; ++o) {
        if (!t[o].path || free_space[o] < 0.0) continue;
        *needed = 0.0;
        for (int u = 0; u < OUTPUTS; ++u)
            if (t[u].path && free_space[u] >= 0.0 && device[u] == device[o]) *needed += bytes[u];
        *available = free_space[o];
        if (*needed > *available) return o;
    }
    return -1;
}

void sf_check_output_space(const sf_simulation *s)
{
    const sf_config *c = s->cfg;
    char xdmf[4200];
    output_target targets[OUTPUTS];
    list_outputs(c, xdmf, sizeof xdmf, targets);
    double bytes[OUTPUTS], needed = 0.0, available = 0.0;
    output_sizes(s, bytes);
    int short_output = s->slab.rank == 0 ? short_of_space(targets, bytes, &needed, &available) : -1;
    SF_MPI_CHECK(MPI_Bcast(&short_output, 1, MPI_INT, 0, s->slab.comm), "checking output space");
    if (short_output < 0) return;
    const output_target *t = &targets[short_output];
    sf_config_report(c, t->mark, "output.%s: the outputs on the file system of '%s' need %.3g MB, "
                     "but it has %.3g MB free",
                     t->key, t->path, needed / 1e6, available / 1e6);
    sf_exit_collective();
}
