#include "cuda_memory.h"

#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

extern "C" {
#include "sf_error.h"
#include "sf_gpu.h"
}

static const double GIB = 1073741824.0;

void sf_cuda_want(sf_cuda_arrays *a, void *slot, size_t count, size_t size, const char *what)
{
    if (count == 0) return;
    if (a->requests == SF_CUDA_MAX_REQUESTS)
        sf_fatal("a CUDA backend needs more than %d device arrays", SF_CUDA_MAX_REQUESTS);
    a->request[a->requests].slot = (void **)slot;
    a->request[a->requests].bytes = count * size;
    a->request[a->requests].what = what;
    a->request[a->requests].state = 0;
    ++a->requests;
}

void sf_cuda_want_state(sf_cuda_arrays *a, void *slot, size_t count, size_t size,
                        const char *what)
{
    if (count == 0) return;
    sf_cuda_want(a, slot, count, size, what);
    a->request[a->requests - 1].state = 1;
}

void sf_cuda_zero_state(const sf_cuda_arrays *a, cudaStream_t stream)
{
    for (int n = 0; n < a->requests; ++n)
        if (a->request[n].state)
            SF_CUDA_CHECK(cudaMemsetAsync(*a->request[n].slot, 0, a->request[n].bytes, stream),
                          "zeroing the state of the last shot");
}

__global__ void scale_kernel(float *data, size_t count, float factor)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t n = (size_t)blockIdx.x * blockDim.x + threadIdx.x; n < count; n += stride)
        data[n] *= factor;
}

void sf_cuda_scale_state(const sf_cuda_arrays *a, float factor, cudaStream_t stream)
{
    enum { THREADS = 256, BLOCKS = 1024 };
    for (int n = 0; n < a->requests; ++n) {
        if (!a->request[n].state) continue;
        scale_kernel<<<BLOCKS, THREADS, 0, stream>>>((float *)*a->request[n].slot,
                                                     a->request[n].bytes / sizeof(float), factor);
        SF_CUDA_CHECK(cudaGetLastError(), "launching the test-only growth");
    }
}

__global__ void square_times_kernel(float *data, size_t count, double factor)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t n = (size_t)blockIdx.x * blockDim.x + threadIdx.x; n < count; n += stride) {
        const double v = data[n];
        data[n] = (float)(v * v * factor * factor);
    }
}

void sf_cuda_square_times(float *values, size_t count, double factor, const char *what)
{
    enum { THREADS = 256, BLOCKS = 1024 };
    square_times_kernel<<<BLOCKS, THREADS>>>(values, count, factor);
    SF_CUDA_CHECK(cudaGetLastError(), what);
    SF_CUDA_CHECK(cudaDeviceSynchronize(), what);
}

static int sent_from_host(const long *first_equal, long k)
{
    return !first_equal || first_equal[k] == k;
}

/* The most consecutive planes sent from the host. */
static long longest_sent_run(long planes, const long *first_equal)
{
    long longest = 0;
    for (long k = 0, run = 0; k < planes; ++k) {
        run = sent_from_host(first_equal, k) ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    return longest;
}

/* Planes a staging buffer holds: about 16 MiB, or the longest run of
 * planes sent, if shorter. Laying out a batch on every core and copying
 * the one before still overlap, and page-locking costs about 0.5 ms a
 * MiB: two buffers of 64 MiB, for each parameter, took longer than
 * their copies (an H200 node, 1024^3 acoustic: the backend part
 * 0.22-0.28 s with 64 MiB, 0.18-0.21 with 16, 0.25-0.28 with 8). */
static long planes_per_batch(const sf_layout *L, long planes, const long *first_equal)
{
    const long bytes = 16L << 20, plane = L->sp * (long)sizeof(float);
    const long batch = bytes / plane, run = longest_sent_run(planes, first_equal);
    return batch < 1 ? 1 : batch > run ? run : batch;
}

/* Planes [k, end) of device all hold plane from's values: one copy of
 * it, then copies of what is already there, doubling each time, so a
 * layer of n planes takes about log2(n) copies. */
static void copy_plane_onto(float *device, size_t plane, long from, long k, long end,
                            cudaStream_t stream, const char *what)
{
    long filled_from = from;
    if (from != k - 1) {
        SF_CUDA_CHECK(cudaMemcpyAsync(device + (size_t)k * plane, device + (size_t)from * plane,
                                      plane * sizeof(float), cudaMemcpyDeviceToDevice, stream),
                      what);
        filled_from = k++;
    }
    while (k < end) {
        const long n = k - filled_from < end - k ? k - filled_from : end - k;
        SF_CUDA_CHECK(cudaMemcpyAsync(device + (size_t)k * plane, device + (size_t)filled_from * plane,
                                      (size_t)n * plane * sizeof(float), cudaMemcpyDeviceToDevice,
                                      stream),
                      what);
        k += n;
    }
}

static void copy_repeated_planes(float *device, size_t plane, long planes, const long *first_equal,
                                 cudaStream_t stream, const char *what)
{
    for (long k = 0; k < planes;) {
        if (sent_from_host(first_equal, k)) {
            ++k;
            continue;
        }
        long end = k + 1;
        while (end < planes && first_equal[end] == first_equal[k]) ++end;
        copy_plane_onto(device, plane, first_equal[k], k, end, stream, what);
        k = end;
    }
}

void sf_cuda_upload_written_planes(const sf_layout *L, float *device, long planes,
                                   const long *first_equal, sf_cuda_plane_writer write,
                                   const void *context, const char *what)
{
    if (planes == 0) return;
    const long batch = planes_per_batch(L, planes, first_equal);
    const size_t batch_bytes = (size_t)batch * (size_t)L->sp * sizeof(float);
    float *staging[2];
    cudaEvent_t sent[2];
    cudaStream_t stream;
    /* A blocking stream: its copies wait for the zeroing that
     * sf_cuda_allocate queued on the default stream. */
    SF_CUDA_CHECK(cudaStreamCreate(&stream), what);
    for (int b = 0; b < 2; ++b) {
        staging[b] = (float *)sf_cuda_pinned(batch_bytes, what);
        /* The padding travels as zeros; the rows are overwritten by every batch. */
        memset(staging[b], 0, batch_bytes);
        SF_CUDA_CHECK(cudaEventCreateWithFlags(&sent[b], cudaEventDisableTiming), what);
    }
    for (long k0 = 0, n = 0; k0 < planes;) {
        if (!sent_from_host(first_equal, k0)) {
            ++k0;
            continue;
        }
        long count = 1;
        while (count < batch && k0 + count < planes && sent_from_host(first_equal, k0 + count))
            ++count;
        const int b = (int)(n++ % 2);
        SF_CUDA_CHECK(cudaEventSynchronize(sent[b]), what);   /* the copy that last read it */
        write(context, k0, count, staging[b]);
        SF_CUDA_CHECK(cudaMemcpyAsync(device + k0 * L->sp, staging[b],
                                      (size_t)count * (size_t)L->sp * sizeof(float),
                                      cudaMemcpyHostToDevice, stream),
                      what);
        SF_CUDA_CHECK(cudaEventRecord(sent[b], stream), what);
        k0 += count;
    }
    if (first_equal) copy_repeated_planes(device, (size_t)L->sp, planes, first_equal, stream, what);
    SF_CUDA_CHECK(cudaStreamSynchronize(stream), what);
    for (int b = 0; b < 2; ++b) {
        SF_CUDA_CHECK(cudaEventDestroy(sent[b]), what);
        SF_CUDA_CHECK(cudaFreeHost(staging[b]), what);
    }
    SF_CUDA_CHECK(cudaStreamDestroy(stream), what);
}

typedef struct {
    const sf_layout *L;
    const float *compact;
} compact_planes;

static void write_compact_planes(const void *context, long k0, long count, float *planes)
{
    const compact_planes *c = (const compact_planes *)context;
    sf_layout_planes_from_compact(c->L, c->compact, k0, count, planes);
}

void sf_cuda_upload_planes(const sf_layout *L, float *device, const float *compact,
                           const long *first_equal, const char *what)
{
    const compact_planes context = {L, compact};
    sf_cuda_upload_written_planes(L, device, L->nz, first_equal, write_compact_planes, &context, what);
}

static void check_fits(size_t needed, long nx, long ny, long nz)
{
    size_t free_bytes = 0, total = 0;
    SF_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total), "reading the GPU's free memory");
    if (needed <= free_bytes) return;
    char where[400];
    sf_gpu_describe(where, sizeof where);
    sf_fatal("GPU memory: this rank's slab of %ld x %ld x %ld points needs %.2f GiB, %.2f GiB "
             "free (of %.2f GiB) on %s; use more GPUs (ranks) or a smaller grid",
             nx, ny, nz, (double)needed / GIB, (double)free_bytes / GIB, (double)total / GIB,
             where);
}

void sf_cuda_allocate(sf_cuda_arrays *a, long nx, long ny, long nz)
{
    size_t needed = 0;
    for (int n = 0; n < a->requests; ++n) needed += a->request[n].bytes;
    check_fits(needed, nx, ny, nz);
    for (int n = 0; n < a->requests; ++n) {
        SF_CUDA_CHECK(cudaMalloc(a->request[n].slot, a->request[n].bytes), a->request[n].what);
        SF_CUDA_CHECK(cudaMemset(*a->request[n].slot, 0, a->request[n].bytes), a->request[n].what);
    }
    a->bytes = needed;
}

void sf_cuda_free_arrays(sf_cuda_arrays *a)
{
    for (int n = 0; n < a->requests; ++n) {
        SF_CUDA_CHECK(cudaFree(*a->request[n].slot), "freeing");
        *a->request[n].slot = NULL;
    }
    a->requests = 0;
    a->bytes = 0;
}

void sf_cuda_upload(void *to, const void *from, size_t bytes, const char *what)
{
    if (bytes) SF_CUDA_CHECK(cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice), what);
}

void sf_cuda_download(void *to, const void *from, size_t bytes, cudaStream_t stream,
                      const char *what)
{
    char context[160];
    snprintf(context, sizeof context, "copying %s to the host", what);
    SF_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToHost, stream), context);
    snprintf(context, sizeof context, "waiting for %s", what);
    SF_CUDA_CHECK(cudaStreamSynchronize(stream), context);
}

float *sf_cuda_grow(float **buffer, size_t *floats, size_t count, const char *what)
{
    if (count > *floats) {
        SF_CUDA_CHECK(cudaFree(*buffer), what);
        *buffer = NULL, *floats = 0;
        SF_CUDA_CHECK(cudaMalloc((void **)buffer, count * sizeof(float)), what);
        *floats = count;
    }
    return *buffer;
}

void *sf_cuda_pinned(size_t bytes, const char *what)
{
    void *p = NULL;
    if (bytes) SF_CUDA_CHECK(cudaMallocHost(&p, bytes), what);
    return p;
}
