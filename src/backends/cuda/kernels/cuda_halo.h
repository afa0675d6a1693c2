/* How a CUDA backend moves halo planes (CUDA sources only): compute runs in
 * order on one stream; packing, the copies to and from pinned host memory
 * and unpacking run on a higher-priority halo stream, ordered against the
 * compute by events, so the exchange overlaps the interior update. With
 * device buffers (GPU-aware MPI) MPI reads the packed buffers on the
 * device and there are no host copies. A physics has up to
 * SF_MAX_HALO_GROUPS halo groups (one per stage that ends in an
 * exchange), two sides each. */
#ifndef SF_CUDA_HALO_H
#define SF_CUDA_HALO_H

#include "cuda_memory.h"

#include <cuda_runtime.h>

extern "C" {
#include "sf_backend.h"
#include "sf_gpu_timers.h"
}

typedef struct {
    cudaStream_t compute, halo;
    cudaEvent_t edges_done, packed, unpacked;
    int device_buffers;                  /* MPI takes the device buffers */
    int neighbour[2];                    /* the sides with buffers (sf_problem) */
    size_t count[SF_MAX_HALO_GROUPS];    /* floats per side; 0: a group the physics lacks */
    float *send[SF_MAX_HALO_GROUPS][2], *recv[SF_MAX_HALO_GROUPS][2];            /* device */
    float *send_host[SF_MAX_HALO_GROUPS][2], *recv_host[SF_MAX_HALO_GROUPS][2];  /* pinned */
} sf_cuda_halo;

/* Requests the device buffers: count[g] floats per side of group g (0
 * for none: groups past the physics' stages), on the sides with a
 * neighbour. */
void sf_cuda_halo_plan(sf_cuda_halo *h, sf_cuda_arrays *arrays,
                       const size_t count[SF_MAX_HALO_GROUPS], const int neighbour[2]);
/* After the arrays are allocated: the streams, events and, for host
 * staging, the pinned buffers. */
void sf_cuda_halo_start(sf_cuda_halo *h, sf_halo_transport transport);
void sf_cuda_halo_destroy(sf_cuda_halo *h);

/* The buffers MPI reads and writes for a group and side. */
float *sf_cuda_halo_send_buffer(sf_cuda_halo *h, int g, int side);
float *sf_cuda_halo_recv_buffer(sf_cuda_halo *h, int g, int side);

/* The halo stream waits for the compute queued so far (the edge planes). */
void sf_cuda_halo_after_edges(sf_cuda_halo *h);
/* Queues the copy of a packed send buffer to the host (timed as D2H) when
 * staging, and marks the buffer ready for MPI. */
void sf_cuda_halo_to_host(sf_cuda_halo *h, sf_gpu_timers *t, int g, int side);
/* Queues the copy of a received buffer to the device (timed as H2D). */
void sf_cuda_halo_from_host(sf_cuda_halo *h, sf_gpu_timers *t, int g, int side);
/* Later compute waits for the halo work queued so far (the unpack). */
void sf_cuda_halo_before_compute(sf_cuda_halo *h);
/* Waits for the buffers marked ready (an event, not the whole stream). */
void sf_cuda_halo_wait_packed(sf_cuda_halo *h);
void sf_cuda_halo_synchronize(sf_cuda_halo *h);

#endif
