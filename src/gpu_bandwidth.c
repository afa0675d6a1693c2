/* The ceiling a memory-bound kernel is measured against: device-to-device
 * copy bandwidth, counting bytes read plus bytes written. */
#include "sf_error.h"
#include "sf_gpu.h"

#include <cuda_runtime_api.h>

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
