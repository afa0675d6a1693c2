/* The instability guard's measure on the GPU: each block sums the squares
 * of its share of a field's owned points per region (sf_regions.h) in
 * double, reduces them over its threads in a fixed order and writes its
 * partial sums; the host adds the blocks' in order. The result does not
 * depend on when blocks finish, so a run repeats it exactly. */
#include "cuda_kernels.h"
#include "cuda_memory.h"

extern "C" {
#include "sf_error.h"
}

enum { THREADS = 256 };

__global__ void __launch_bounds__(THREADS)
    region_squares_kernel(const float *field, sf_cuda_grid g, sf_regions r, double *partial)
{
    __shared__ double share[SF_REGIONS][THREADS];
    double sum[SF_REGIONS];
#pragma unroll
    for (int q = 0; q < SF_REGIONS; ++q) sum[q] = 0.0;
    const unsigned long long points = (unsigned long long)g.nx * g.ny * g.nz;
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    for (unsigned long long n = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; n < points;
         n += stride) {
        const long i = (long)(n % g.nx), j = (long)(n / g.nx % g.ny),
                   k = (long)(n / ((unsigned long long)g.nx * g.ny));
        const double v = field[(k + SF_HALO) * g.sp + (j + SF_PAD) * g.sx + i + g.gx];
        const int region = sf_region_of(&r, i, j, r.z0 + k);
        /* Unrolled over constant indices, the sums stay in registers. */
#pragma unroll
        for (int q = 0; q < SF_REGIONS; ++q)
            if (q == region) sum[q] += v * v;
    }
#pragma unroll
    for (int q = 0; q < SF_REGIONS; ++q) share[q][threadIdx.x] = sum[q];
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            for (int q = 0; q < SF_REGIONS; ++q)
                share[q][threadIdx.x] += share[q][threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x < SF_REGIONS)
        partial[blockIdx.x * SF_REGIONS + threadIdx.x] = share[threadIdx.x][0];
}

void sf_cuda_region_squares(const float *field, sf_cuda_grid g, const sf_regions *r,
                            double *partial, double *partial_host, cudaStream_t stream,
                            double out[SF_REGIONS])
{
    for (int q = 0; q < SF_REGIONS; ++q) out[q] = 0.0;
    const unsigned long long points = (unsigned long long)g.nx * g.ny * g.nz;
    if (points == 0) return;
    const unsigned long long wanted = (points + THREADS - 1) / THREADS, most = SF_CUDA_NORM_BLOCKS;
    const int blocks = (int)(wanted < most ? wanted : most);
    region_squares_kernel<<<blocks, THREADS, 0, stream>>>(field, g, *r, partial);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the instability guard's sums");
    sf_cuda_download(partial_host, partial, (size_t)blocks * SF_REGIONS * sizeof(double), stream,
                     "the instability guard's sums");
    for (int b = 0; b < blocks; ++b)
        for (int q = 0; q < SF_REGIONS; ++q) out[q] += partial_host[b * SF_REGIONS + q];
}
