#include "cuda_halo.h"

extern "C" {
#include "sf_error.h"
#include "sf_gpu.h"
}

void sf_cuda_halo_plan(sf_cuda_halo *h, sf_cuda_arrays *arrays,
                       const size_t count[SF_MAX_HALO_GROUPS], const int neighbour[2])
{
    h->neighbour[SF_SIDE_LOWER] = neighbour[SF_SIDE_LOWER];
    h->neighbour[SF_SIDE_UPPER] = neighbour[SF_SIDE_UPPER];
    for (int g = 0; g < SF_MAX_HALO_GROUPS; ++g) {
        h->count[g] = count[g];
        for (int s = 0; s < 2; ++s) {
            if (!neighbour[s]) continue;
            sf_cuda_want(arrays, &h->send[g][s], count[g], sizeof(float), "halo buffers");
            sf_cuda_want(arrays, &h->recv[g][s], count[g], sizeof(float), "halo buffers");
        }
    }
}

void sf_cuda_halo_start(sf_cuda_halo *h, sf_halo_transport transport)
{
    int least = 0, greatest = 0;
    SF_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest), "creating streams");
    SF_CUDA_CHECK(cudaStreamCreateWithPriority(&h->compute, cudaStreamNonBlocking, least),
                  "creating the compute stream");
    /* Halo work first whenever SMs free up, so the exchange starts early. */
    SF_CUDA_CHECK(cudaStreamCreateWithPriority(&h->halo, cudaStreamNonBlocking, greatest),
                  "creating the halo stream");
    cudaEvent_t *events[3] = {&h->edges_done, &h->packed, &h->unpacked};
    for (int e = 0; e < 3; ++e)
        SF_CUDA_CHECK(cudaEventCreateWithFlags(events[e], cudaEventDisableTiming), "creating events");
    h->device_buffers = transport == SF_HALO_DEVICE_BUFFERS;
    if (h->device_buffers) return;
    /* Page-locking costs about 0.5 ms a MiB: an elastic 800^3 rank's
     * buffers on both sides took 0.14 s, wasted on a side without a rank. */
    for (int g = 0; g < SF_MAX_HALO_GROUPS; ++g)
        for (int s = 0; s < 2; ++s) {
            if (!h->neighbour[s]) continue;
            h->send_host[g][s] = (float *)sf_cuda_pinned(h->count[g] * sizeof(float), "pinned halo buffers");
            h->recv_host[g][s] = (float *)sf_cuda_pinned(h->count[g] * sizeof(float), "pinned halo buffers");
        }
}

void sf_cuda_halo_destroy(sf_cuda_halo *h)
{
    for (int g = 0; g < SF_MAX_HALO_GROUPS; ++g)
        for (int s = 0; s < 2; ++s) {
            SF_CUDA_CHECK(cudaFreeHost(h->send_host[g][s]), "freeing pinned buffers");
            SF_CUDA_CHECK(cudaFreeHost(h->recv_host[g][s]), "freeing pinned buffers");
        }
    cudaEvent_t events[3] = {h->edges_done, h->packed, h->unpacked};
    for (int e = 0; e < 3; ++e) SF_CUDA_CHECK(cudaEventDestroy(events[e]), "destroying events");
    SF_CUDA_CHECK(cudaStreamDestroy(h->compute), "destroying streams");
    SF_CUDA_CHECK(cudaStreamDestroy(h->halo), "destroying streams");
}

float *sf_cuda_halo_send_buffer(sf_cuda_halo *h, int g, int side)
{
    return h->device_buffers ? h->send[g][side] : h->send_host[g][side];
}

float *sf_cuda_halo_recv_buffer(sf_cuda_halo *h, int g, int side)
{
    return h->device_buffers ? h->recv[g][side] : h->recv_host[g][side];
}

void sf_cuda_halo_after_edges(sf_cuda_halo *h)
{
    SF_CUDA_CHECK(cudaEventRecord(h->edges_done, h->compute), "marking the edge planes done");
    SF_CUDA_CHECK(cudaStreamWaitEvent(h->halo, h->edges_done, 0), "ordering the halo pack");
}

void sf_cuda_halo_to_host(sf_cuda_halo *h, sf_gpu_timers *t, int g, int side)
{
    if (!h->device_buffers) {
        sf_gpu_timers_begin(t, SF_PHASE_HALO_D2H, h->halo);
        SF_CUDA_CHECK(cudaMemcpyAsync(h->send_host[g][side], h->send[g][side],
                                      h->count[g] * sizeof(float), cudaMemcpyDeviceToHost, h->halo),
                      "copying halo planes to the host");
        sf_gpu_timers_end(t, h->halo);
    }
    SF_CUDA_CHECK(cudaEventRecord(h->packed, h->halo), "marking halo planes packed");
}

void sf_cuda_halo_from_host(sf_cuda_halo *h, sf_gpu_timers *t, int g, int side)
{
    if (h->device_buffers) return;
    sf_gpu_timers_begin(t, SF_PHASE_HALO_H2D, h->halo);
    SF_CUDA_CHECK(cudaMemcpyAsync(h->recv[g][side], h->recv_host[g][side], h->count[g] * sizeof(float),
                                  cudaMemcpyHostToDevice, h->halo),
                  "copying halo planes to the GPU");
    sf_gpu_timers_end(t, h->halo);
}

void sf_cuda_halo_before_compute(sf_cuda_halo *h)
{
    SF_CUDA_CHECK(cudaEventRecord(h->unpacked, h->halo), "marking halo planes unpacked");
    SF_CUDA_CHECK(cudaStreamWaitEvent(h->compute, h->unpacked, 0), "ordering after the unpack");
}

void sf_cuda_halo_wait_packed(sf_cuda_halo *h)
{
    SF_CUDA_CHECK(cudaEventSynchronize(h->packed), "waiting for packed halo planes");
}

void sf_cuda_halo_synchronize(sf_cuda_halo *h)
{
    SF_CUDA_CHECK(cudaStreamSynchronize(h->compute), "waiting for the compute stream");
    SF_CUDA_CHECK(cudaStreamSynchronize(h->halo), "waiting for the halo stream");
}
