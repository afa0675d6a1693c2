/* The ceilings GPU work is measured against: device-to-device copy
 * bandwidth (bytes read plus bytes written), and for halos the exchange
 * of halo-sized messages between ranks against a direct peer copy. */
#include "sf_error.h"
#include "sf_gpu.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COPY_REPEATS = 10 };

double sf_gpu_copy_bandwidth(long mib)
{
    size_t bytes = (size_t)mib * 1048576 / 2;
    void *from = NULL, *to = NULL;
    SF_CUDA_CHECK(cudaMalloc(&from, bytes), "allocating the copy benchmark");
    SF_CUDA_CHECK(cudaMalloc(&to, bytes), "allocating the copy benchmark");
    /* Non-zero data: some memory systems move zeros faster. */
    SF_CUDA_CHECK(cudaMemset(from, 0x5a, bytes), "filling the copy benchmark");
    cudaEvent_t start, stop;
    SF_CUDA_CHECK(cudaEventCreate(&start), "timing the copy benchmark");
    SF_CUDA_CHECK(cudaEventCreate(&stop), "timing the copy benchmark");
    SF_CUDA_CHECK(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice), "warming up the copy");
    float best_ms = 1e30f;
    for (int rep = 0; rep < COPY_REPEATS; ++rep) {
        SF_CUDA_CHECK(cudaEventRecord(start, 0), "timing the copy benchmark");
        SF_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, 0),
                      "running the copy benchmark");
        SF_CUDA_CHECK(cudaEventRecord(stop, 0), "timing the copy benchmark");
        SF_CUDA_CHECK(cudaEventSynchronize(stop), "timing the copy benchmark");
        float ms = 0.0f;
        SF_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop), "timing the copy benchmark");
        if (ms < best_ms) best_ms = ms;
    }
    SF_CUDA_CHECK(cudaEventDestroy(start), "timing the copy benchmark");
    SF_CUDA_CHECK(cudaEventDestroy(stop), "timing the copy benchmark");
    SF_CUDA_CHECK(cudaFree(from), "freeing the copy benchmark");
    SF_CUDA_CHECK(cudaFree(to), "freeing the copy benchmark");
    return 2.0 * (double)bytes / (best_ms * 1e-3);
}

/* ---- halo-sized exchanges between rank pairs ----------------------------- */

enum { EXCHANGE_REPEATS = 20 };
static const int EXCHANGE_MIB[] = {1, 4, 16, 64};
enum { EXCHANGE_SIZES = sizeof EXCHANGE_MIB / sizeof EXCHANGE_MIB[0] };

typedef struct {
    MPI_Comm comm;
    int partner;               /* MPI_PROC_NULL: this rank sits out */
    size_t bytes;
    void *send, *recv;         /* device */
    void *send_host, *recv_host;   /* pinned */
} exchange;

static void swap_once(const exchange *x, void *send, void *recv)
{
    MPI_Request request[2];
    int count = (int)(x->bytes / sizeof(float));
    SF_MPI_CHECK(MPI_Irecv(recv, count, MPI_FLOAT, x->partner, 0, x->comm, &request[0]),
                 "timing an exchange");
    SF_MPI_CHECK(MPI_Isend(send, count, MPI_FLOAT, x->partner, 0, x->comm, &request[1]),
                 "timing an exchange");
    SF_MPI_CHECK(MPI_Waitall(2, request, MPI_STATUSES_IGNORE), "timing an exchange");
}

/* One exchange as the halo does it: device buffers straight to MPI, or
 * copied down, swapped in pinned memory and copied up. */
static void exchange_once(const exchange *x, int staged)
{
    if (!staged) {
        swap_once(x, x->send, x->recv);
        return;
    }
    SF_CUDA_CHECK(cudaMemcpy(x->send_host, x->send, x->bytes, cudaMemcpyDeviceToHost),
                  "timing a staged exchange");
    swap_once(x, x->send_host, x->recv_host);
    SF_CUDA_CHECK(cudaMemcpy(x->recv, x->recv_host, x->bytes, cudaMemcpyHostToDevice),
                  "timing a staged exchange");
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Collective: the median over the repeats of the slowest pair's time. */
static double time_exchange(const exchange *x, int staged)
{
    double t[EXCHANGE_REPEATS];
    if (x->partner != MPI_PROC_NULL) exchange_once(x, staged);   /* warm-up */
    for (int rep = 0; rep < EXCHANGE_REPEATS; ++rep) {
        SF_MPI_CHECK(MPI_Barrier(x->comm), "timing an exchange");
        double mine = MPI_Wtime();
        if (x->partner != MPI_PROC_NULL) exchange_once(x, staged);
        mine = MPI_Wtime() - mine;
        SF_MPI_CHECK(MPI_Allreduce(&mine, &t[rep], 1, MPI_DOUBLE, MPI_MAX, x->comm),
                     "timing an exchange");
    }
    qsort(t, EXCHANGE_REPEATS, sizeof t[0], by_value);
    return t[EXCHANGE_REPEATS / 2];
}

/* The partner's device as this process numbers it, or -1 (not visible,
 * or the same device). */
static int partner_device(const exchange *x)
{
    char mine[32] = "", theirs[32] = "";
    SF_CUDA_CHECK(cudaDeviceGetPCIBusId(mine, sizeof mine, sf_gpu_device()), "naming the GPU");
    SF_MPI_CHECK(MPI_Sendrecv(mine, sizeof mine, MPI_CHAR, x->partner, 1, theirs, sizeof theirs,
                              MPI_CHAR, x->partner, 1, x->comm, MPI_STATUS_IGNORE),
                 "naming the partner's GPU");
    int device = -1;
    if (!strcmp(mine, theirs) || cudaDeviceGetByPCIBusId(&device, theirs) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    int can = 0;
    SF_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, sf_gpu_device(), device), "asking for peer access");
    return can ? device : -1;
}

/* Both directions at once between this GPU and the peer, by copy engines
 * alone (no MPI): what the link itself gives. Seconds, or 0. */
static double time_peer_copy(size_t bytes, int peer)
{
    int own = sf_gpu_device();
    void *here = NULL, *there = NULL, *back = NULL;
    SF_CUDA_CHECK(cudaDeviceEnablePeerAccess(peer, 0), "enabling peer access");
    SF_CUDA_CHECK(cudaSetDevice(peer), "selecting the peer GPU");
    SF_CUDA_CHECK(cudaMalloc(&there, bytes), "allocating on the peer GPU");
    SF_CUDA_CHECK(cudaMalloc(&back, bytes), "allocating on the peer GPU");
    SF_CUDA_CHECK(cudaSetDevice(own), "selecting this rank's GPU");
    SF_CUDA_CHECK(cudaMalloc(&here, bytes), "allocating the peer copy");
    cudaStream_t out, in;
    cudaEvent_t start, done, stop;
    SF_CUDA_CHECK(cudaStreamCreateWithFlags(&out, cudaStreamNonBlocking), "timing a peer copy");
    SF_CUDA_CHECK(cudaStreamCreateWithFlags(&in, cudaStreamNonBlocking), "timing a peer copy");
    cudaEvent_t *events[3] = {&start, &done, &stop};
    for (int e = 0; e < 3; ++e) SF_CUDA_CHECK(cudaEventCreate(events[e]), "timing a peer copy");
    double best = 1e30;
    for (int rep = 0; rep <= EXCHANGE_REPEATS; ++rep) {
        SF_CUDA_CHECK(cudaEventRecord(start, out), "timing a peer copy");
        SF_CUDA_CHECK(cudaStreamWaitEvent(in, start, 0), "timing a peer copy");
        SF_CUDA_CHECK(cudaMemcpyPeerAsync(there, peer, here, own, bytes, out), "copying to the peer");
        SF_CUDA_CHECK(cudaMemcpyPeerAsync(here, own, back, peer, bytes, in), "copying from the peer");
        SF_CUDA_CHECK(cudaEventRecord(done, in), "timing a peer copy");
        SF_CUDA_CHECK(cudaStreamWaitEvent(out, done, 0), "timing a peer copy");
        SF_CUDA_CHECK(cudaEventRecord(stop, out), "timing a peer copy");
        SF_CUDA_CHECK(cudaEventSynchronize(stop), "timing a peer copy");
        float ms = 0.0f;
        SF_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop), "timing a peer copy");
        if (rep > 0 && 1e-3 * ms < best) best = 1e-3 * ms;   /* rep 0 warms up */
    }
    for (int e = 0; e < 3; ++e) SF_CUDA_CHECK(cudaEventDestroy(*events[e]), "timing a peer copy");
    SF_CUDA_CHECK(cudaStreamDestroy(out), "timing a peer copy");
    SF_CUDA_CHECK(cudaStreamDestroy(in), "timing a peer copy");
    SF_CUDA_CHECK(cudaFree(here), "freeing the peer copy");
    SF_CUDA_CHECK(cudaFree(there), "freeing the peer copy");
    SF_CUDA_CHECK(cudaFree(back), "freeing the peer copy");
    SF_CUDA_CHECK(cudaDeviceDisablePeerAccess(peer), "disabling peer access");
    return best;
}

/* The largest message's buffers, for every size: device buffers MPI has
 * sent are not freed before the process ends (see the probe of src/gpu/mpi.c). */
static void exchange_alloc(exchange *x, size_t bytes)
{
    SF_CUDA_CHECK(cudaMalloc(&x->send, bytes), "allocating the exchange benchmark");
    SF_CUDA_CHECK(cudaMalloc(&x->recv, bytes), "allocating the exchange benchmark");
    SF_CUDA_CHECK(cudaMemset(x->send, 0x5a, bytes), "filling the exchange benchmark");
    SF_CUDA_CHECK(cudaMallocHost(&x->send_host, bytes), "allocating the exchange benchmark");
    SF_CUDA_CHECK(cudaMallocHost(&x->recv_host, bytes), "allocating the exchange benchmark");
}

void sf_gpu_exchange_bandwidth(MPI_Comm comm, sf_halo_transport transport)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    exchange x = {.comm = comm, .partner = (rank ^ 1) < size ? rank ^ 1 : MPI_PROC_NULL};
    int peer = x.partner != MPI_PROC_NULL ? partner_device(&x) : -1;
    int device = transport == SF_HALO_DEVICE_BUFFERS;
    sf_info("  exchange between ranks 2k and 2k+1, both directions at once; GB/s per direction "
            "(bytes one way / time), median of %d, slowest pair", EXCHANGE_REPEATS);
    sf_info("  %-10s %22s %26s %26s", "bytes", "MPI, device buffers", "MPI, host staged",
            "peer copy, rank 0 (no MPI)");
    exchange_alloc(&x, (size_t)EXCHANGE_MIB[EXCHANGE_SIZES - 1] << 20);
    for (int n = 0; n < EXCHANGE_SIZES; ++n) {
        size_t bytes = (size_t)EXCHANGE_MIB[n] << 20;
        x.bytes = bytes;
        double staged = time_exchange(&x, 1), direct = device ? time_exchange(&x, 0) : 0.0;
        double copy = rank == 0 && peer >= 0 ? time_peer_copy(bytes, peer) : 0.0;
        char text[3][48];
        double t[3] = {direct, staged, copy};
        for (int c = 0; c < 3; ++c)
            if (t[c] > 0.0)
                snprintf(text[c], sizeof text[c], "%.1f (%.3f ms)", (double)bytes / t[c] / 1e9,
                         1e3 * t[c]);
            else
                snprintf(text[c], sizeof text[c], "%s", c == 0 ? "not chosen" : "not visible");
        sf_info("  %4d MiB   %22s %26s %26s", EXCHANGE_MIB[n], text[0], text[1], text[2]);
    }
}
