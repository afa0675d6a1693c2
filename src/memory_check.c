#include "sf_memory_check.h"
#include "sf_elastic_backend.h"
#include "sf_elastic_medium.h"
#include "sf_error.h"
#include "sf_layout.h"
#include "sf_snapshot.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const double GIB = 1073741824.0;

enum {
    ROW_ALIGN = 16,            /* the CPU backends' row alignment, floats */
    ACOUSTIC_CPML_ARRAYS = 2,  /* psi and zeta per layer point */
    ELASTIC_CPML_ARRAYS = 6,   /* a psi per derivative along the layer's axis */
    ELASTIC_HALO_FIELDS = 5,   /* the stress half-step with normal stresses */
    ENERGY_ARRAYS = 14         /* 6 stresses before the step and 8 weights */
};

/* Planes of a z layer [lo, hi) inside the slab [z0, z0 + nz). */
static double overlap(long lo, long hi, long z0, long nz)
{
    long a = lo > z0 ? lo : z0, b = hi < z0 + nz ? hi : z0 + nz;
    return b > a ? (double)(b - a) : 0.0;
}

static double cpml_floats(const sf_config *c, long z0, long nz, int arrays)
{
    const double nx = (double)c->n[0], ny = (double)c->n[1];
    double points = (double)(c->cpml[SF_FACE_XMIN] + c->cpml[SF_FACE_XMAX]) * ny * (double)nz +
                    (double)(c->cpml[SF_FACE_YMIN] + c->cpml[SF_FACE_YMAX]) * nx * (double)nz;
    points += nx * ny * (overlap(0, c->cpml[SF_FACE_ZMIN], z0, nz) +
                         overlap(c->n[2] - c->cpml[SF_FACE_ZMAX], c->n[2], z0, nz));
    return (double)arrays * points;
}

/* The snapshot buffers of the slab: a decimated copy of each field (an
 * elastic job keeps the velocities of half a step before as well). */
static double snapshot_floats(const sf_config *c, long z0, long nz)
{
    if (!c->snapshot_path) return 0.0;
    const long *d = c->snapshot_decimation;
    long planes = (z0 + nz + d[2] - 1) / d[2] - (z0 + d[2] - 1) / d[2];
    int arrays = c->snapshot_nfields + (c->physics == SF_PHYSICS_ELASTIC ? 3 : 0);
    return (double)arrays * (double)sf_snapshot_samples(c->n[0], d[0]) *
           (double)sf_snapshot_samples(c->n[1], d[1]) * (double)planes;
}

void sf_memory_estimate(const sf_config *c, long z0, long nz, int host_fields, double nsamples,
                        double bytes[SF_MEMORY_PARTS])
{
    const int elastic = c->physics == SF_PHYSICS_ELASTIC;
    /* The pseudo-acoustic kinds: two acoustic-like fields (p, q) with
     * their own memory variables, and the medium's parameters. */
    const int fields_of_p = sf_physics_takes(c->physics, SF_PARAM_EPSILON) ? 2 : 1;
    const int nparams = sf_config_physics(c)->nparams;
    const double plane = (double)c->n[0] * (double)c->n[1], volume = plane * (double)nz;
    const double f = sizeof(float);
    memset(bytes, 0, SF_MEMORY_PARTS * sizeof *bytes);
    /* The parameters; an elastic medium is built from copies with the next
     * plane: 3 + SF_MEDIUM_ARRAYS + SF_NODE_ARRAYS volumes at its peak. */
    bytes[SF_MEMORY_MODEL] =
        f * volume * (elastic ? nparams + 3 + SF_MEDIUM_ARRAYS + SF_NODE_ARRAYS : nparams);
    if (host_fields) {
        sf_layout L;
        sf_layout_init(&L, c->n[0], c->n[1], nz, ROW_ALIGN);
        double fields = elastic ? SF_ELASTIC_FIELDS * (double)L.field_size +
                                      SF_MEDIUM_ARRAYS * (double)L.plane_size
                                : fields_of_p * 2.0 * (double)L.field_size +
                                      nparams * (double)L.plane_size;
        double halo_fields = elastic ? ELASTIC_HALO_FIELDS : fields_of_p;
        /* 2 groups, a send and a receive buffer per side */
        fields += 2.0 * 4.0 * halo_fields * SF_HALO * plane;
        if (elastic && c->energy_path) fields += ENERGY_ARRAYS * (double)L.plane_size;
        bytes[SF_MEMORY_FIELDS] = f * fields;
        bytes[SF_MEMORY_CPML] =
            f * cpml_floats(c, z0, nz,
                            elastic ? ELASTIC_CPML_ARRAYS : fields_of_p * ACOUSTIC_CPML_ARRAYS);
    }
    bytes[SF_MEMORY_FIELDS] += f * snapshot_floats(c, z0, nz);
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
