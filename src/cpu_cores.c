/* Counting CPU cores for the OpenMP threads per rank (thread_count.c). */
#define _GNU_SOURCE /* sched_getaffinity and the CPU_*_S macros */
#include "sf_cpu_cores.h"
#include "sf_error.h"

#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if SF_HAVE_HWLOC
#include <hwloc.h>
#endif

int sf_cpu_id_count(void)
{
    long configured = sysconf(_SC_NPROCESSORS_CONF);
    /* glibc's own mask size at least, which the kernel's never exceeds on
     * hosts of up to that many CPUs. */
    return configured > CPU_SETSIZE ? (int)configured : CPU_SETSIZE;
}

/* The union of the OpenMP places, which the runtime built from the
 * affinity the process started with; 0 when it defines none. */
static int from_places(unsigned char *cpus, int id_count)
{
    const int places = omp_get_num_places();
    for (int p = 0; p < places; ++p) {
        const int count = omp_get_place_num_procs(p);
        if (count <= 0) continue;
        int *ids = sf_malloc((size_t)count * sizeof(int), "the CPUs of an OpenMP place");
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < count; ++i)
            if (ids[i] >= 0 && ids[i] < id_count) cpus[ids[i]] = 1;
        free(ids);
    }
    return places > 0;
}

static void from_affinity(unsigned char *cpus, int id_count)
{
    cpu_set_t *set = CPU_ALLOC(id_count);
    if (!set) sf_fatal("allocating a set of %d CPUs to read this rank's affinity", id_count);
    const size_t size = CPU_ALLOC_SIZE(id_count);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) != 0)
        sf_fatal("reading this rank's CPU affinity (sched_getaffinity): %s", strerror(errno));
    for (int i = 0; i < id_count; ++i) cpus[i] = CPU_ISSET_S(i, size, set) != 0;
    CPU_FREE(set);
}

void sf_cpu_allowed(unsigned char *cpus, int id_count)
{
    memset(cpus, 0, (size_t)id_count);
    if (!from_places(cpus, id_count)) from_affinity(cpus, id_count);
}

/* Without hwloc, or when it cannot read the topology: every online CPU
 * is a core. */
static void count_cpus(const unsigned char *cpus, int id_count, int *host_cores, int *cores)
{
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    *host_cores = online > 0 ? (int)online : 1;
    *cores = 0;
    for (int i = 0; i < id_count; ++i) *cores += cpus[i];
}

#if SF_HAVE_HWLOC
static void count_in_topology(hwloc_topology_t topology, const unsigned char *cpus,
                              int id_count, int *host_cores, int *cores)
{
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    if (!mine) {
        count_cpus(cpus, id_count, host_cores, cores);
        return;
    }
    for (int i = 0; i < id_count; ++i)
        if (cpus[i]) hwloc_bitmap_set(mine, (unsigned)i);
    /* A platform that reports no cores has its hardware threads counted. */
    const hwloc_obj_type_t type =
        hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    *host_cores = hwloc_get_nbobjs_by_type(topology, type);
    *cores = 0;
    for (int k = 0; k < *host_cores; ++k) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topology, type, (unsigned)k);
        *cores += hwloc_bitmap_intersects(core->cpuset, mine);
    }
    hwloc_bitmap_free(mine);
}

void sf_cpu_count_cores(const unsigned char *cpus, int id_count, int *host_cores, int *cores)
{
    hwloc_topology_t topology;
    if (hwloc_topology_init(&topology) != 0) {
        count_cpus(cpus, id_count, host_cores, cores);
        return;
    }
    if (hwloc_topology_load(topology) == 0)
        count_in_topology(topology, cpus, id_count, host_cores, cores);
    else
        count_cpus(cpus, id_count, host_cores, cores);
    hwloc_topology_destroy(topology);
}
#else
void sf_cpu_count_cores(const unsigned char *cpus, int id_count, int *host_cores, int *cores)
{
    count_cpus(cpus, id_count, host_cores, cores);
}
#endif
