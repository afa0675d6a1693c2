/* CPML memory variables on the GPU: psi <- b psi + a dp/dn at the half
 * points of a layer, over boxes that cover the layers only. */
#include "cuda_kernels.h"

extern "C" {
#include "sf_error.h"
}

enum { THREADS = 256 };

/* The x and y layers: one thread per half point of an x-y slice of a box
 * and a run of PLANES planes, unrolled so that the loads of all of them
 * are in flight together; half point n + 1/2 lies between points n and
 * n + 1. All x and y boxes of an update share one launch (the 8 edge
 * planes of a slab make boxes too small to fill the GPU alone): block b
 * belongs to the last box whose first block is <= b. */
enum { PLANES = 8 };

typedef struct {
    sf_cuda_memory_box box[SF_CUDA_MEMORY_BOXES];
    int first_block[SF_CUDA_MEMORY_BOXES];   /* along the launch's x blocks */
    int count;
} memory_boxes;

static int slice_blocks(const sf_cuda_memory_box &box)
{
    return (int)(((long)box.n[0] * box.n[1] + THREADS - 1) / THREADS);
}

template <int R>
__global__ void __launch_bounds__(THREADS)
    memory_kernel(const __grid_constant__ memory_boxes boxes, const float *__restrict__ p,
                  const sf_cuda_grid g)
{
    int which = 0;
    while (which + 1 < boxes.count && boxes.first_block[which + 1] <= (int)blockIdx.x) ++which;
    const sf_cuda_memory_box &box = boxes.box[which];
    const int w0 = (int)blockIdx.y * PLANES;
    if (w0 >= box.n[2]) return;
    const long t = (long)((int)blockIdx.x - boxes.first_block[which]) * THREADS + threadIdx.x;
    if (t >= (long)box.n[0] * box.n[1]) return;
    const int u = (int)(t % box.n[0]), v = (int)(t / box.n[0]);
    const int i = box.lo[0] + u, j = box.lo[1] + v;
    const long step = box.axis == 0 ? 1 : g.sx;
    const int n = (box.axis == 0 ? i : j) + box.coefficient_shift;
    const float a = __ldg(box.a_half + n), b = __ldg(box.b_half + n);
    const long at0 = (long)(box.lo[2] + w0 + SF_HALO) * g.sp + (long)(j + SF_PAD) * g.sx + g.gx + i;
    float *psi0 = box.psi + box.psi_base + u * box.psi_stride[0] + v * box.psi_stride[1] +
                  w0 * box.psi_stride[2];
#pragma unroll
    for (int w = 0; w < PLANES; ++w) {
        if (w0 + w >= box.n[2]) break;
        const long at = at0 + w * g.sp;
        const float d = sf_cuda_staggered_up<R>(p + at, step, box.first);
        float *psi = psi0 + w * box.psi_stride[2];
        *psi = b * *psi + a * d;
    }
}

/* The z layer's half-planes: one thread per column, marching along z with
 * the 2R values of p its derivative needs in registers, so each plane of p
 * is read once (not once per half-plane that uses it). */
template <int R>
__global__ void __launch_bounds__(THREADS)
    memory_z_kernel(const __grid_constant__ sf_cuda_memory_box box, const float *__restrict__ p,
                    const sf_cuda_grid g)
{
    const long t = (long)blockIdx.x * THREADS + threadIdx.x;
    if (t >= (long)box.n[0] * box.n[1]) return;
    const int i = (int)(t % box.n[0]), j = (int)(t / box.n[0]);
    const long sp = g.sp;
    const long at = (long)(box.lo[2] + SF_HALO) * sp + (long)(j + SF_PAD) * g.sx + g.gx + i;
    /* q[x] = p(w - R + 1 + x) for the half-plane w being updated. */
    float q[2 * R];
#pragma unroll
    for (int x = 0; x < 2 * R - 1; ++x) q[x] = __ldg(p + at + (x - R + 1) * sp);
    float *psi = box.psi + box.psi_base + i + (long)j * box.psi_stride[1];
    for (int w = 0; w < box.n[2]; ++w) {
        q[2 * R - 1] = __ldg(p + at + (long)(w + R) * sp);
        float d = 0.0f;
#pragma unroll
        for (int m = 1; m <= R; ++m) d += box.first[m] * (q[R - 1 + m] - q[R - m]);
        const int n = box.lo[2] + w + box.coefficient_shift;
        float *here = psi + w * box.psi_stride[2];
        *here = __ldg(box.b_half + n) * *here + __ldg(box.a_half + n) * d;
#pragma unroll
        for (int x = 0; x + 1 < 2 * R; ++x) q[x] = q[x + 1];
    }
}

template <int R>
static void launch_memory(const sf_cuda_memory_box *boxes, int count, const float *p,
                          sf_cuda_grid g, cudaStream_t stream)
{
    memory_boxes xy = {};
    int blocks = 0, planes = 0;
    for (int n = 0; n < count; ++n) {
        const sf_cuda_memory_box &box = boxes[n];
        if ((long)box.n[0] * box.n[1] == 0 || box.n[2] == 0) continue;
        if (box.axis == 2) {
            memory_z_kernel<R><<<(unsigned)slice_blocks(box), THREADS, 0, stream>>>(box, p, g);
            continue;
        }
        xy.box[xy.count] = box;
        xy.first_block[xy.count++] = blocks;
        blocks += slice_blocks(box);
        planes = box.n[2] > planes ? box.n[2] : planes;
    }
    if (xy.count > 0)
        memory_kernel<R><<<dim3((unsigned)blocks, (unsigned)((planes + PLANES - 1) / PLANES)), THREADS, 0,
                           stream>>>(xy, p, g);
}

void sf_cuda_update_memory(const sf_cuda_memory_box *boxes, int count, const float *p,
                           sf_cuda_grid g, int radius, cudaStream_t stream)
{
    switch (radius) {
    case 1: launch_memory<1>(boxes, count, p, g, stream); break;
    case 2: launch_memory<2>(boxes, count, p, g, stream); break;
    case 4: launch_memory<4>(boxes, count, p, g, stream); break;
    default: sf_fatal("the CUDA CPML kernel has no radius %d", radius);
    }
    SF_CUDA_CHECK(cudaGetLastError(), "launching the CPML memory kernels");
}
