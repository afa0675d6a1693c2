/* One GPU per rank: each rank finds the ranks of its node, takes device
 * node-local index modulo the node's device count, and (with hwloc) moves
 * to the CPU cores nearest that device. */
#include "sf_error.h"
#include "sf_gpu.h"
#include "sf_thread_count.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if SF_HAVE_HWLOC
#include <hwloc.h>
#include <hwloc/cudart.h>
#endif

enum { PCI_ID_SIZE = 32, DEVICE_TEXT = 400, LINE_SIZE = 1024 };
static const double GIB = 1073741824.0;

static struct {
    int device;
    char cores[160];   /* the CPU cores this rank runs on, and who chose them */
} bound = {-1, ""};

int sf_gpu_device(void) { return bound.device; }

int sf_gpu_count(char *why, size_t why_size)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
        cudaGetLastError();   /* not sticky, but leave nothing pending */
        count = 0;
    }
    if (why) {
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        if (rc != cudaSuccess)
            snprintf(why, why_size, "cudaGetDeviceCount: %s%s%s%s", cudaGetErrorString(rc),
                     visible ? "; CUDA_VISIBLE_DEVICES='" : "", visible ? visible : "",
                     visible ? "'" : "");
        else
            snprintf(why, why_size, "%d device%s", count, count == 1 ? "" : "s");
    }
    return count;
}

static void host_name(char *name)
{
    int length = 0;
    if (MPI_Get_processor_name(name, &length) != MPI_SUCCESS) strcpy(name, "unknown");
}

int sf_gpu_everywhere(MPI_Comm comm, char *missing, size_t missing_size)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    char why[200];
    int mine = sf_gpu_count(why, sizeof why);
    int *counts = sf_malloc((size_t)nranks * sizeof(int), "device counts");
    SF_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, comm), "counting GPUs");
    int first = -1;
    for (int r = 0; r < nranks && first < 0; ++r)
        if (counts[r] == 0) first = r;
    free(counts);
    if (first < 0) return 1;
    /* The rank without a device says where it is and why. */
    char host[MPI_MAX_PROCESSOR_NAME];
    host_name(host);
    snprintf(missing, missing_size, "rank %d on host %s sees no CUDA device (%s)", rank, host, why);
    SF_MPI_CHECK(MPI_Bcast(missing, (int)missing_size, MPI_CHAR, first, comm),
                 "reporting a rank without GPU");
    return 0;
}

static void pci_id(int device, char *id)
{
    if (cudaDeviceGetPCIBusId(id, PCI_ID_SIZE, device) != cudaSuccess) {
        cudaGetLastError();
        strcpy(id, "?");
    }
}

/* Rank 0 of each node warns when two of the node's ranks drive one device
 * (devices compared by PCI bus id, so per-rank CUDA_VISIBLE_DEVICES from a
 * scheduler is not mistaken for sharing). */
static void warn_if_shared(MPI_Comm node, int device_count)
{
    int local, local_size;
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &local_size);
    char mine[PCI_ID_SIZE] = "";
    pci_id(bound.device, mine);
    char *ids = sf_malloc((size_t)local_size * PCI_ID_SIZE, "PCI bus ids");
    SF_MPI_CHECK(MPI_Allgather(mine, PCI_ID_SIZE, MPI_CHAR, ids, PCI_ID_SIZE, MPI_CHAR, node),
                 "comparing the devices of a node");
    int distinct = 0;
    for (int r = 0; r < local_size; ++r) {
        int seen = 0;
        for (int q = 0; q < r && !seen; ++q) seen = !strcmp(ids + r * PCI_ID_SIZE, ids + q * PCI_ID_SIZE);
        distinct += !seen;
    }
    free(ids);
    if (local != 0 || distinct == local_size) return;
    char host[MPI_MAX_PROCESSOR_NAME];
    host_name(host);
    fprintf(stderr,
            "seisfd: warning: host %s: %d ranks share %d GPU%s (%d visible per rank); ranks on "
            "one GPU divide its memory and bandwidth\n",
            host, local_size, distinct, distinct == 1 ? "" : "s", device_count);
    fflush(stderr);
}

#if SF_HAVE_HWLOC
/* Moves the process to the cores nearest its device unless the launcher
 * bound it already (its binding is narrower than the allowed cores); 1
 * when it moved it. */
static int bind_cores(int device)
{
    hwloc_topology_t topology;
    if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0) {
        snprintf(bound.cores, sizeof bound.cores, "unknown (hwloc could not read the topology)");
        return 0;
    }
    hwloc_bitmap_t current = hwloc_bitmap_alloc(), near = hwloc_bitmap_alloc();
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topology);
    const char *how = "all allowed cores: no device locality known";
    int moved = 0;
    if (hwloc_get_cpubind(topology, current, HWLOC_CPUBIND_PROCESS) == 0 &&
        !hwloc_bitmap_isequal(current, allowed)) {
        how = "bound by the launcher";
    } else if (hwloc_cudart_get_device_cpuset(topology, device, near) == 0 &&
               !hwloc_bitmap_iszero(near) && !hwloc_bitmap_isequal(near, allowed)) {
        moved = hwloc_set_cpubind(topology, near, HWLOC_CPUBIND_PROCESS) == 0;
        how = moved ? "bound by seisfd: nearest the GPU" : "not bound: hwloc_set_cpubind failed";
    }
    hwloc_get_cpubind(topology, current, HWLOC_CPUBIND_PROCESS);
    char list[96];
    hwloc_bitmap_list_snprintf(list, sizeof list, current);
    snprintf(bound.cores, sizeof bound.cores, "%s (%s)", list, how);
    hwloc_bitmap_free(current);
    hwloc_bitmap_free(near);
    hwloc_topology_destroy(topology);
    return moved;
}
#else
static int bind_cores(int device)
{
    (void)device;
    snprintf(bound.cores, sizeof bound.cores, "not bound (built without hwloc)");
    return 0;
}
#endif

void sf_gpu_bind(MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm node;
    SF_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
                 "finding the ranks of this node");
    int local;
    MPI_Comm_rank(node, &local);
    int count = sf_gpu_count(NULL, 0);
    if (count == 0) sf_fatal("binding a GPU: this rank sees no CUDA device");
    bound.device = local % count;
    SF_CUDA_CHECK(cudaSetDevice(bound.device), "selecting this rank's GPU");
    warn_if_shared(node, count);
    SF_MPI_CHECK(MPI_Comm_free(&node), "finding the ranks of this node");
    /* The threads follow the cores seisfd moved the rank to. */
    sf_thread_count_rebind(comm, bind_cores(bound.device));
}

int sf_gpu_first_on_device(MPI_Comm comm)
{
    enum { KEY = MPI_MAX_PROCESSOR_NAME + PCI_ID_SIZE };
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    char mine[KEY], id[PCI_ID_SIZE], host[MPI_MAX_PROCESSOR_NAME];
    host_name(host);
    pci_id(bound.device, id);
    snprintf(mine, sizeof mine, "%s|%s", host, id);
    char *keys = sf_malloc((size_t)nranks * KEY, "device keys");
    SF_MPI_CHECK(MPI_Allgather(mine, KEY, MPI_CHAR, keys, KEY, MPI_CHAR, comm),
                 "comparing the ranks' devices");
    int first = 1;
    for (int r = 0; r < rank && first; ++r) first = strcmp(keys + (size_t)r * KEY, mine) != 0;
    free(keys);
    return first;
}

static void describe_device(int device, char *text, size_t size)
{
    struct cudaDeviceProp prop;
    char id[PCI_ID_SIZE];
    size_t free_bytes = 0, total = 0;
    SF_CUDA_CHECK(cudaGetDeviceProperties(&prop, device), "reading the device's properties");
    pci_id(device, id);
    int current = -1;
    cudaGetDevice(&current);
    if (current == device)
        SF_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total), "reading the device's free memory");
    else
        total = prop.totalGlobalMem;
    if (current == device)
        snprintf(text, size, "GPU %d %s (PCI %s), %.1f of %.1f GiB free", device, prop.name, id,
                 (double)free_bytes / GIB, (double)total / GIB);
    else
        snprintf(text, size, "GPU %d %s (PCI %s), %.1f GiB", device, prop.name, id,
                 (double)total / GIB);
}

void sf_gpu_print_binding(MPI_Comm comm)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    char host[MPI_MAX_PROCESSOR_NAME], gpu[DEVICE_TEXT], line[LINE_SIZE];
    host_name(host);
    describe_device(bound.device, gpu, sizeof gpu);
    snprintf(line, sizeof line, "    rank %d -> %s, %s, cores %s", rank, host, gpu, bound.cores);
    char *lines = rank == 0 ? sf_malloc((size_t)nranks * LINE_SIZE, "binding lines") : NULL;
    SF_MPI_CHECK(MPI_Gather(line, LINE_SIZE, MPI_CHAR, lines, LINE_SIZE, MPI_CHAR, 0, comm),
                 "collecting the GPU binding");
    sf_info("  GPUs              one per rank; rank -> host, device, memory, cores:");
    for (int r = 0; rank == 0 && r < nranks; ++r) sf_info("%s", lines + (size_t)r * LINE_SIZE);
    free(lines);
}

void sf_gpu_print_visible(void)
{
    char why[200];
    int count = sf_gpu_count(why, sizeof why);
    if (count == 0) {
        sf_info("  GPUs      none visible (%s)", why);
        return;
    }
    sf_info("  GPUs      %d visible", count);
    for (int d = 0; d < count; ++d) {
        char text[DEVICE_TEXT];
        describe_device(d, text, sizeof text);
        sf_info("            %s", text);
    }
}

void sf_gpu_describe(char *text, size_t size)
{
    char host[MPI_MAX_PROCESSOR_NAME] = "unknown";
    int running = 0, finalized = 0;
    MPI_Initialized(&running);
    MPI_Finalized(&finalized);
    if (running && !finalized) host_name(host);
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) device = bound.device;
    struct cudaDeviceProp prop;
    const char *name = "?";
    if (device >= 0 && cudaGetDeviceProperties(&prop, device) == cudaSuccess) name = prop.name;
    snprintf(text, size, "GPU %d (%s) of host %s, rank %d", device, name, host, sf_error_rank());
}

void sf_gpu_identity(int *index, char *name, size_t name_size, char *uuid, size_t uuid_size)
{
    struct cudaDeviceProp prop;
    *index = bound.device;
    SF_CUDA_CHECK(cudaGetDeviceProperties(&prop, bound.device), "reading the device's properties");
    snprintf(name, name_size, "%s", prop.name);
    const unsigned char *b = (const unsigned char *)prop.uuid.bytes;
    snprintf(uuid, uuid_size,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}
