/* Elastic kernels: one thread per point, x fastest so a warp reads and
 * writes contiguous row segments. The arithmetic follows the CPU backend
 * term by term (same coefficients, same order of the sums), so results
 * differ from it only by rounding. */
#include "sf_cuda_elastic.h"

extern "C" {
#include "sf_error.h"
}

enum { BLOCK_X = 32, BLOCK_Y = 4, THREADS = 256 };

typedef sf_cuda_elastic_step step;

__device__ __forceinline__ long field_at(const step &s, int i, int j, int k)
{
    return (long)(k + SF_HALO) * s.sp + (long)(j + SF_PAD) * s.sx + i + s.gx;
}

__device__ __forceinline__ long plane_at(const step &s, int i, int j, int k)
{
    return (long)k * s.sp + (long)(j + SF_PAD) * s.sx + i + s.gx;
}

/* The CPML correction of one derivative term, both ends of its axis in
 * the CPU's order. */
__device__ float absorb(const step &s, int g, int t, int axis, int up, int i, int j, int k, float d)
{
    const float *A = up ? s.a_half[axis] : s.a[axis], *B = up ? s.b_half[axis] : s.b[axis];
    for (int side = 0; side < 2; ++side) {
        const sf_cuda_elastic_layer &ly = s.layer[axis][side];
        float *psi = ly.psi[g][t];
        if (!psi) continue;
        long q;
        int c;
        if (axis == 0) {
            if (i < ly.lo || i >= ly.hi) continue;
            q = ((long)k * s.ny + j) * (ly.hi - ly.lo) + (i - ly.lo), c = i;
        } else if (axis == 1) {
            if (j < ly.lo || j >= ly.hi) continue;
            q = ((long)k * (ly.hi - ly.lo) + (j - ly.lo)) * s.nx + i, c = j;
        } else {
            if (k < ly.plo || k >= ly.phi) continue;
            q = ((long)(k - ly.plo) * s.ny + j) * s.nx + i, c = s.z0 + k;
        }
        float p = B[c] * psi[q] + A[c] * d;
        psi[q] = p;
        d += p;
    }
    return d;
}

/* Term t of half-step g: the staggered derivative of field src along
 * axis at point n, then its CPML correction. */
template <int R>
__device__ __forceinline__ float term(const step &s, int g, int t, int src, int axis, int up,
                                      int i, int j, int k, long n)
{
    const long stride = axis == 0 ? 1 : axis == 1 ? s.sx : s.sp;
    const float *f = s.f[src] + n;
    const float *c = s.d1[axis];
    float d = 0.0f;
#pragma unroll
    for (int m = 1; m <= R; ++m)
        d += up ? c[m] * (f[m * stride] - f[-(m - 1) * stride])
                : c[m] * (f[(m - 1) * stride] - f[-m * stride]);
    return absorb(s, g, t, axis, up, i, j, k, d);
}

template <int R>
__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y) velocity_kernel(const step s, int k0)
{
    const int i = blockIdx.x * BLOCK_X + threadIdx.x, j = blockIdx.y * BLOCK_Y + threadIdx.y;
    const int k = k0 + blockIdx.z;
    if (i >= s.nx || j >= s.ny) return;
    const long n = field_at(s, i, j, k), p = plane_at(s, i, j, k);
    const int V = SF_HALF_VELOCITY;
    float d0 = term<R>(s, V, 0, SF_FIELD_SXX, 0, 1, i, j, k, n);
    float d1 = term<R>(s, V, 1, SF_FIELD_SXY, 1, 0, i, j, k, n);
    float d2 = term<R>(s, V, 2, SF_FIELD_SXZ, 2, 0, i, j, k, n);
    s.f[SF_FIELD_VX][n] += s.m[SF_MEDIUM_BX][p] * (d0 + d1 + d2);
    d0 = term<R>(s, V, 3, SF_FIELD_SXY, 0, 0, i, j, k, n);
    d1 = term<R>(s, V, 4, SF_FIELD_SYY, 1, 1, i, j, k, n);
    d2 = term<R>(s, V, 5, SF_FIELD_SYZ, 2, 0, i, j, k, n);
    s.f[SF_FIELD_VY][n] += s.m[SF_MEDIUM_BY][p] * (d0 + d1 + d2);
    d0 = term<R>(s, V, 6, SF_FIELD_SXZ, 0, 0, i, j, k, n);
    d1 = term<R>(s, V, 7, SF_FIELD_SYZ, 1, 0, i, j, k, n);
    d2 = term<R>(s, V, 8, SF_FIELD_SZZ, 2, 1, i, j, k, n);
    s.f[SF_FIELD_VZ][n] += s.m[SF_MEDIUM_BZ][p] * (d0 + d1 + d2);
}

template <int R>
__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y) stress_kernel(const step s, int k0)
{
    const int i = blockIdx.x * BLOCK_X + threadIdx.x, j = blockIdx.y * BLOCK_Y + threadIdx.y;
    const int k = k0 + blockIdx.z;
    if (i >= s.nx || j >= s.ny) return;
    const long n = field_at(s, i, j, k), p = plane_at(s, i, j, k);
    const int S = SF_HALF_STRESS;
    if (s.before[0])
        for (int q = 0; q < 6; ++q) s.before[q][p] = s.f[SF_FIELD_SXX + q][n];
    const float dx = term<R>(s, S, 0, SF_FIELD_VX, 0, 0, i, j, k, n);
    const float dy = term<R>(s, S, 1, SF_FIELD_VY, 1, 0, i, j, k, n);
    const float dz = term<R>(s, S, 2, SF_FIELD_VZ, 2, 0, i, j, k, n);
    const float lam = s.m[SF_MEDIUM_LAMBDA][p], two_mu = s.m[SF_MEDIUM_L2M][p] - lam;
    const float sum = dx + dy + dz;
    s.f[SF_FIELD_SXX][n] += lam * sum + two_mu * dx;
    s.f[SF_FIELD_SYY][n] += lam * sum + two_mu * dy;
    /* szz stays zero on a free surface; its memory variables still advance. */
    if (s.free_surface_here && k == 0) s.f[SF_FIELD_SZZ][n] = 0.0f;
    else s.f[SF_FIELD_SZZ][n] += lam * sum + two_mu * dz;
    float a = term<R>(s, S, 3, SF_FIELD_VX, 1, 1, i, j, k, n);
    float b = term<R>(s, S, 4, SF_FIELD_VY, 0, 1, i, j, k, n);
    s.f[SF_FIELD_SXY][n] += s.m[SF_MEDIUM_MUXY][p] * (a + b);
    a = term<R>(s, S, 5, SF_FIELD_VX, 2, 1, i, j, k, n);
    b = term<R>(s, S, 6, SF_FIELD_VZ, 0, 1, i, j, k, n);
    s.f[SF_FIELD_SXZ][n] += s.m[SF_MEDIUM_MUXZ][p] * (a + b);
    a = term<R>(s, S, 7, SF_FIELD_VY, 2, 1, i, j, k, n);
    b = term<R>(s, S, 8, SF_FIELD_VZ, 1, 1, i, j, k, n);
    s.f[SF_FIELD_SYZ][n] += s.m[SF_MEDIUM_MUYZ][p] * (a + b);
}

template <int R>
static void launch_update(const step *s, sf_half_step g, int k0, int k1, cudaStream_t stream)
{
    dim3 block(BLOCK_X, BLOCK_Y), grid((s->nx + BLOCK_X - 1) / BLOCK_X,
                                       (s->ny + BLOCK_Y - 1) / BLOCK_Y, k1 - k0);
    if (g == SF_HALF_VELOCITY) velocity_kernel<R><<<grid, block, 0, stream>>>(*s, k0);
    else stress_kernel<R><<<grid, block, 0, stream>>>(*s, k0);
    SF_CUDA_CHECK(cudaGetLastError(), "launching an elastic update kernel");
}

void sf_cuda_elastic_update(const sf_cuda_elastic_step *s, sf_half_step g, int k0, int k1,
                            cudaStream_t stream)
{
    if (k1 <= k0) return;
    switch (s->radius) {
    case 1: launch_update<1>(s, g, k0, k1, stream); break;
    case 2: launch_update<2>(s, g, k0, k1, stream); break;
    default: launch_update<4>(s, g, k0, k1, stream); break;
    }
}

static int blocks_for(long n) { return (int)((n + THREADS - 1) / THREADS); }

__global__ void planes_kernel(const step s, sf_cuda_field_list fields, int k0, float *buffer,
                              int to_buffer)
{
    const long per_field = (long)SF_HALO * s.ny * s.nx;
    const long n = (long)blockIdx.x * THREADS + threadIdx.x;
    if (n >= per_field * fields.count) return;
    const int q = (int)(n / per_field);
    const long r = n % per_field;
    const int i = (int)(r % s.nx), j = (int)(r / s.nx % s.ny), k = (int)(r / ((long)s.nx * s.ny));
    float *f = fields.f[q] + field_at(s, i, j, k0 + k);
    if (to_buffer) buffer[n] = *f;
    else *f = buffer[n];
}

void sf_cuda_elastic_planes(const sf_cuda_elastic_step *s, sf_cuda_field_list fields, int k0,
                            float *buffer, int to_buffer, cudaStream_t stream)
{
    long n = (long)SF_HALO * s->ny * s->nx * fields.count;
    if (n == 0) return;
    planes_kernel<<<blocks_for(n), THREADS, 0, stream>>>(*s, fields, k0, buffer, to_buffer);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the elastic halo kernel");
}

/* Whole planes, padding included, as the CPU copies them. */
__global__ void mirror_kernel(long sp, sf_cuda_images im)
{
    const long n = (long)blockIdx.x * THREADS + threadIdx.x;
    if (n >= 3 * SF_HALO * sp) return;
    const int q = (int)(n / (SF_HALO * sp)), m = (int)(n / sp % SF_HALO) + 1;
    const long e = n % sp;
    im.f[q][(SF_HALO - m) * sp + e] = im.sign[q] * im.f[q][(m - im.shift[q] + SF_HALO) * sp + e];
}

void sf_cuda_elastic_mirror(const sf_cuda_elastic_step *s, sf_cuda_images images,
                            cudaStream_t stream)
{
    mirror_kernel<<<blocks_for(3 * SF_HALO * s->sp), THREADS, 0, stream>>>(s->sp, images);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the free-surface kernel");
}

__global__ void inject_kernel(float *base, const long *offset, const float *coef, const int *plane,
                              const int *group, int count, int g, float amplitude, int k0, int k1)
{
    const int n = blockIdx.x * THREADS + threadIdx.x;
    if (n < count && group[n] == g && plane[n] >= k0 && plane[n] < k1)
        atomicAdd(base + offset[n], coef[n] * amplitude);
}

void sf_cuda_elastic_inject(float *base, const long *offset, const float *coef, const int *plane,
                            const int *group, int count, int g, float amplitude, int k0, int k1,
                            cudaStream_t stream)
{
    if (count == 0) return;
    inject_kernel<<<blocks_for(count), THREADS, 0, stream>>>(base, offset, coef, plane, group,
                                                              count, g, amplitude, k0, k1);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the elastic source kernel");
}

/* One thread per channel, summing in the CPU's order. */
__global__ void sample_kernel(const step s, sf_cuda_channels c, float *out)
{
    const int r = blockIdx.x * THREADS + threadIdx.x;
    if (r >= c.count) return;
    float sum = 0.0f;
    if (c.component[r] == SF_COMPONENT_P) {
        for (long n = c.offset[r]; n < c.offset[r + 1]; ++n) {
            long q = c.index[n];
            sum += c.weight[n] * (s.f[SF_FIELD_SXX][q] + s.f[SF_FIELD_SYY][q] + s.f[SF_FIELD_SZZ][q]);
        }
        out[r] = sum * (-1.0f / 3.0f);
        return;
    }
    const float *f = s.f[SF_FIELD_VX + c.component[r]];
    for (long n = c.offset[r]; n < c.offset[r + 1]; ++n) sum += c.weight[n] * f[c.index[n]];
    out[r] = 0.5f * (c.previous[r] + sum);
    c.previous[r] = sum;
}

void sf_cuda_elastic_sample(const sf_cuda_elastic_step *s, sf_cuda_channels c, float *out,
                            cudaStream_t stream)
{
    if (c.count == 0) return;
    sample_kernel<<<blocks_for(c.count), THREADS, 0, stream>>>(*s, c, out);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the elastic receiver kernel");
}

__global__ void lattice_kernel(const step s, int c, long di, long dj, long dk, long k0,
                               long planes, long rows, long columns, float *out)
{
    const long n = (long)blockIdx.x * THREADS + threadIdx.x;
    if (n >= planes * rows * columns) return;
    const int i = (int)(n % columns * di), j = (int)(n / columns % rows * dj);
    const int k = (int)(k0 + n / (columns * rows) * dk);
    const long q = field_at(s, i, j, k);
    if (c == SF_COMPONENT_P) {
        out[n] = (s.f[SF_FIELD_SXX][q] + s.f[SF_FIELD_SYY][q] + s.f[SF_FIELD_SZZ][q]) * (-1.0f / 3.0f);
        return;
    }
    const long below = c == 0 ? 1 : c == 1 ? s.sx : s.sp;
    const float *f = s.f[SF_FIELD_VX + c];
    out[n] = 0.5f * (f[q - below] + f[q]);
}

void sf_cuda_elastic_lattice(const sf_cuda_elastic_step *s, sf_component c, long di, long dj,
                             long dk, long k0, long planes, long rows, long columns, float *out,
                             cudaStream_t stream)
{
    long n = planes * rows * columns;
    lattice_kernel<<<blocks_for(n), THREADS, 0, stream>>>(*s, (int)c, di, dj, dk, k0, planes, rows,
                                                          columns, out);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the elastic snapshot kernel");
}

/* The CPU backend's point_energy, in double. */
__device__ double point_energy(const step &s, const sf_cuda_energy_weights &e, long f, long p,
                               double *kinetic)
{
    for (int v = 0; v < 3; ++v) {
        double u = s.f[SF_FIELD_VX + v][f];
        *kinetic += e.w[v][p] * u * u;
    }
    double before[3], after[3], trb = 0.0, tra = 0.0;
    for (int q = 0; q < 3; ++q) {
        before[q] = s.before[q][p];
        after[q] = s.f[SF_FIELD_SXX + q][f];
        trb += before[q], tra += after[q];
    }
    double deviatoric = 0.0, shear = 0.0;
    for (int q = 0; q < 3; ++q) deviatoric += (before[q] - trb / 3.0) * (after[q] - tra / 3.0);
    for (int q = 0; q < 3; ++q)
        shear += e.w[5 + q][p] * s.before[3 + q][p] * (double)s.f[SF_FIELD_SXY + q][f];
    return e.w[3][p] * trb * tra + e.w[4][p] * deviatoric + shear;
}

/* Grid-stride sums per thread, a block reduction in shared memory, one
 * atomic add per block and quantity. */
__global__ void __launch_bounds__(THREADS) energy_kernel(const step s, sf_cuda_energy_weights e,
                                                         double *sums)
{
    __shared__ double part[2][THREADS];
    const long total = (long)s.nx * s.ny * s.nz;
    double kinetic = 0.0, strain = 0.0;
    for (long n = (long)blockIdx.x * THREADS + threadIdx.x; n < total; n += (long)gridDim.x * THREADS) {
        const int i = (int)(n % s.nx), j = (int)(n / s.nx % s.ny), k = (int)(n / ((long)s.nx * s.ny));
        strain += point_energy(s, e, field_at(s, i, j, k), plane_at(s, i, j, k), &kinetic);
    }
    part[0][threadIdx.x] = kinetic;
    part[1][threadIdx.x] = strain;
    __syncthreads();
    for (int width = THREADS / 2; width > 0; width /= 2) {
        if (threadIdx.x < width) {
            part[0][threadIdx.x] += part[0][threadIdx.x + width];
            part[1][threadIdx.x] += part[1][threadIdx.x + width];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(&sums[0], part[0][0]);
        atomicAdd(&sums[1], part[1][0]);
    }
}

void sf_cuda_elastic_energy(const sf_cuda_elastic_step *s, sf_cuda_energy_weights weights,
                            double *sums, cudaStream_t stream)
{
    long total = (long)s->nx * s->ny * s->nz;
    int blocks = (int)(total < 1024L * THREADS ? blocks_for(total) : 1024);
    energy_kernel<<<blocks, THREADS, 0, stream>>>(*s, weights, sums);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the energy kernel");
}
