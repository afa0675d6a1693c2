#include "sf_memory_check.h"
#include "sf_error.h"
#include "sf_layout.h"
#include "sf_simulation.h"
#include "sf_snapshot.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const double GIB = 1073741824.0;

enum { ROW_ALIGN = 16 };   /* the CPU backends' row alignment, floats */

/* Planes of a z layer [lo, hi) inside the slab [z0, z0 + nz). */
static double overlap(long lo, long hi, long z0, long nz)
{
    long a = lo > z0 ? lo : z0, b = hi < z0 + nz ? hi : z0 + nz;
    return b > a ? (double)(b - a) : 0.0;
}

static double cpml_floats(const sf_config *c, long z0, long nz, const sf_physics_memory *need)
{
    const double nx = (double)c->n[0], ny = (double)c->n[1];
    long t[SF_FACE_ZMAX + 1];
    for (int f = 0; f <= SF_FACE_ZMAX; ++f) {
        const long n = c->n[f / 2], reach = c->cpml[f] && need->cpml_reach ? c->order / 2 : 0;
        t[f] = c->cpml[f] + reach < n ? c->cpml[f] + reach : n;
    }
    double points = (double)(t[SF_FACE_XMIN] + t[SF_FACE_XMAX]) * ny * (double)nz +
                    (double)(t[SF_FACE_YMIN] + t[SF_FACE_YMAX]) * nx * (double)nz;
    points += nx * ny * (overlap(0, t[SF_FACE_ZMIN], z0, nz) +
                         overlap(c->n[2] - t[SF_FACE_ZMAX], c->n[2], z0, nz));
    return (double)need->cpml_arrays * points;
}

/* Components a snapshot also keeps from half a step before (those that
 * live half a step off, which it averages). */
static int half_step_components(const sf_physics_plugin *physics)
{
    int count = 0;
    for (int k = 0; physics->half_step_component && k < SF_COMPONENTS; ++k)
        count += physics->half_step_component((sf_component)k);
    return count;
}

/* The snapshot buffers of the slab: a decimated copy of each field. */
static double snapshot_floats(const sf_config *c, const sf_physics_plugin *physics, long z0,
                              long nz)
{
    if (!c->snapshot_path) return 0.0;
    const long *d = c->snapshot_decimation;
    long planes = (z0 + nz + d[2] - 1) / d[2] - (z0 + d[2] - 1) / d[2];
    int arrays = c->snapshot_nfields + half_step_components(physics);
    return (double)arrays * (double)sf_snapshot_samples(c->n[0], d[0]) *
           (double)sf_snapshot_samples(c->n[1], d[1]) * (double)planes;
}

void sf_memory_estimate(const sf_config *c, long z0, long nz, int host_fields, double nsamples,
                        double bytes[SF_MEMORY_PARTS])
{
    const sf_physics_plugin *physics = sf_physics_of(c->physics);
    const sf_physics_memory *need = &physics->memory;
    const double plane = (double)c->n[0] * (double)c->n[1], volume = plane * (double)nz;
    const double f = sizeof(float);
    memset(bytes, 0, SF_MEMORY_PARTS * sizeof *bytes);
    const double memory_variables = (double)sf_config_memory_variables(c);
    bytes[SF_MEMORY_MODEL] = f * volume * need->model_volumes;
    if (host_fields) {
        sf_layout L;
        sf_layout_init(&L, c->n[0], c->n[1], nz, ROW_ALIGN);
        double fields = need->field_volumes * (double)L.field_size +
                        need->medium_volumes * (need->medium_compact ? volume : (double)L.plane_size);
        /* 2 groups, a send and a receive buffer a side with a neighbour */
        const int sides = (z0 > 0) + (z0 + nz < c->n[2]);
        fields += 2.0 * 2.0 * sides * need->halo_fields * SF_HALO * plane;
        if (c->energy_path) fields += need->energy_volumes * (double)L.plane_size;
        fields += memory_variables * need->mechanism_volumes * (double)L.plane_size;
        bytes[SF_MEMORY_FIELDS] = f * fields;
        bytes[SF_MEMORY_CPML] = f * cpml_floats(c, z0, nz, need);
    }
    bytes[SF_MEMORY_FIELDS] += f * snapshot_floats(c, physics, z0, nz);
    double channels = (double)c->receivers.count * (double)c->receivers.ncomponents;
    bytes[SF_MEMORY_RECEIVERS] = 3.0 * sizeof(double) * (double)c->receivers.count +
                                 f * channels * nsamples * (c->survey.enabled ? 3.0 : 1.0);
}

double sf_memory_node_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kib = -1.0;
    while (f && kib < 0.0 && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kib) != 1) kib = -1.0;
    if (f) fclose(f);
    if (kib >= 0.0) return kib * 1024.0;
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

double sf_memory_per_rank(int *ranks_on_node)
{
    MPI_Comm node;
    SF_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                 "finding the ranks on this node");
    SF_MPI_CHECK(MPI_Comm_size(node, ranks_on_node), "counting the ranks on this node");
    SF_MPI_CHECK(MPI_Comm_free(&node), "counting the ranks on this node");
    return sf_memory_node_available() / (double)*ranks_on_node;
}

/* What the rank that is shortest of memory tells world rank 0. */
typedef struct {
    double bytes[SF_MEMORY_PARTS], available;
    int rank, ranks_on_node;
    char host[MPI_MAX_PROCESSOR_NAME];
} shortage;

static void report(const sf_config *c, const shortage *s)
{
    double need = 0.0;
    for (int p = 0; p < SF_MEMORY_PARTS; ++p) need += s->bytes[p];
    int traces = s->bytes[SF_MEMORY_RECEIVERS] > need / 2;
    sf_config_report(c, traces ? c->receivers.mark : c->n_mark[0],
                     "%s: the job needs about %.3g GiB of memory per rank (model %.3g, wavefields "
                     "and halos %.3g, CPML %.3g, receivers and traces %.3g GiB), but rank %d on "
                     "host %s has %.3g GiB (the memory available there shared by its %d rank%s); "
                     "%s",
                     traces ? "receivers" : "grid.nx", need / GIB, s->bytes[SF_MEMORY_MODEL] / GIB,
                     s->bytes[SF_MEMORY_FIELDS] / GIB, s->bytes[SF_MEMORY_CPML] / GIB,
                     s->bytes[SF_MEMORY_RECEIVERS] / GIB, s->rank, s->host, s->available / GIB,
                     s->ranks_on_node, s->ranks_on_node == 1 ? "" : "s",
                     traces ? "record fewer receivers or samples (receivers, receivers.sampling, "
                              "time.duration)"
                            : "use more ranks on more nodes, or a smaller grid (grid.nx, grid.ny, "
                              "grid.nz)");
}

int sf_memory_check(const sf_config *c, const double bytes[SF_MEMORY_PARTS], double available,
                    int ranks_on_node)
{
    shortage mine;
    memset(&mine, 0, sizeof mine);
    memcpy(mine.bytes, bytes, sizeof mine.bytes);
    double need = 0.0;
    for (int p = 0; p < SF_MEMORY_PARTS; ++p) need += bytes[p];
    SF_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &mine.rank), "checking the memory");
    struct {
        double ratio;
        int rank;
    } local = {available > 0.0 ? need / available : 0.0, mine.rank}, worst;
    SF_MPI_CHECK(MPI_Allreduce(&local, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD),
                 "checking the memory");
    if (worst.ratio <= 1.0) return 0;
    int length = 0;
    if (MPI_Get_processor_name(mine.host, &length) != MPI_SUCCESS) strcpy(mine.host, "unknown");
    mine.available = available;
    mine.ranks_on_node = ranks_on_node;
    /* The same binary on every rank: the report travels as bytes. */
    SF_MPI_CHECK(MPI_Bcast(&mine, (int)sizeof mine, MPI_BYTE, worst.rank, MPI_COMM_WORLD),
                 "reporting the memory");
    report(c, &mine);
    return 1;
}
