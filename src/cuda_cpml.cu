/* CPML memory variables on the GPU: psi <- b psi + a dp/dn at the half
 * points of a layer, over boxes that cover the layers only. */
#include "sf_cuda_kernels.h"

extern "C" {
#include "sf_error.h"
}

enum { THREADS = 256 };
static const int MAX_GRID_Y = 65535;

/* One thread per half point of an x-y slice of the box, looping over its
 * planes; half point n + 1/2 lies between points n and n + 1. */
template <int R>
__global__ void __launch_bounds__(THREADS)
    memory_kernel(const __grid_constant__ sf_cuda_memory_box box, const float *__restrict__ p,
                  const sf_cuda_grid g)
{
    const long slice = (long)box.n[0] * box.n[1];
    const long t = (long)blockIdx.x * THREADS + threadIdx.x;
    if (t >= slice) return;
    const int u = (int)(t % box.n[0]), v = (int)(t / box.n[0]);
    const long step = box.axis == 0 ? 1 : box.axis == 1 ? g.sx : g.sp;
    for (int w = blockIdx.y; w < box.n[2]; w += gridDim.y) {
        const int i = box.lo[0] + u, j = box.lo[1] + v, k = box.lo[2] + w;
        const long at = (long)(k + SF_HALO) * g.sp + (long)(j + SF_PAD) * g.sx + g.gx + i;
        float d = 0.0f;
#pragma unroll
        for (int m = 1; m <= R; ++m)
            d += box.first[m] * (__ldg(p + at + m * step) - __ldg(p + at - (m - 1) * step));
        const int n = (box.axis == 0 ? i : box.axis == 1 ? j : k) + box.coefficient_shift;
        float *psi = box.psi + box.psi_base + u * box.psi_stride[0] + v * box.psi_stride[1] +
                     w * box.psi_stride[2];
        *psi = __ldg(box.b_half + n) * *psi + __ldg(box.a_half + n) * d;
    }
}

void sf_cuda_update_memory(const sf_cuda_memory_box *box, const float *p, sf_cuda_grid g,
                           int radius, cudaStream_t stream)
{
    const long slice = (long)box->n[0] * box->n[1];
    if (slice == 0 || box->n[2] == 0) return;
    const dim3 grid((unsigned)((slice + THREADS - 1) / THREADS),
                    (unsigned)(box->n[2] < MAX_GRID_Y ? box->n[2] : MAX_GRID_Y));
    switch (radius) {
    case 1: memory_kernel<1><<<grid, THREADS, 0, stream>>>(*box, p, g); break;
    case 2: memory_kernel<2><<<grid, THREADS, 0, stream>>>(*box, p, g); break;
    case 4: memory_kernel<4><<<grid, THREADS, 0, stream>>>(*box, p, g); break;
    default: sf_fatal("the CUDA CPML kernel has no radius %d", radius);
    }
    SF_CUDA_CHECK(cudaGetLastError(), "launching the CPML memory kernel");
}
