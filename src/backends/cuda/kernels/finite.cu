/* The instability guard on the GPU: one pass over a field's owned points
 * whose threads keep the lowest index of a non-finite value with an
 * atomic minimum, so the answer is a single word copied back. */
#include "cuda_kernels.h"
#include "cuda_memory.h"

extern "C" {
#include "sf_error.h"
}

enum { THREADS = 256 };
static const unsigned long long MAX_BLOCKS = 4096;

__global__ void __launch_bounds__(THREADS)
    first_nonfinite_kernel(const float *field, sf_cuda_grid g, unsigned long long *first)
{
    const unsigned long long points = (unsigned long long)g.nx * g.ny * g.nz;
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    for (unsigned long long n = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; n < points;
         n += stride) {
        const long i = (long)(n % g.nx), j = (long)(n / g.nx % g.ny), k = (long)(n / ((unsigned long long)g.nx * g.ny));
        const float v = field[(k + SF_HALO) * g.sp + (j + SF_PAD) * g.sx + i + g.gx];
        /* Later indices cannot lower the minimum: one hit per thread is enough. */
        if (!isfinite(v)) {
            atomicMin(first, n);
            return;
        }
    }
}

unsigned long long sf_cuda_first_nonfinite(const float *field, sf_cuda_grid g,
                                           unsigned long long *scratch, cudaStream_t stream)
{
    unsigned long long first = SF_CUDA_ALL_FINITE;
    const unsigned long long points = (unsigned long long)g.nx * g.ny * g.nz;
    if (points == 0) return first;
    SF_CUDA_CHECK(cudaMemcpyAsync(scratch, &first, sizeof first, cudaMemcpyHostToDevice, stream),
                  "clearing the instability guard's result");
    unsigned long long wanted = (points + THREADS - 1) / THREADS;
    const int blocks = (int)(wanted < MAX_BLOCKS ? wanted : MAX_BLOCKS);
    first_nonfinite_kernel<<<blocks, THREADS, 0, stream>>>(field, g, scratch);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the instability guard");
    sf_cuda_download(&first, scratch, sizeof first, stream, "the instability guard's result");
    return first;
}
