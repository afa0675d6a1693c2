/* The pieces of the CPU backend (backend.c) that its physics' kernels use
 * too: the arena of allocations (with the per-shot state that reset
 * zeroes) and the phase timers, the CPML coefficient copies, the receiver
 * channels and the guard's sums. */
#ifndef SF_CPU_COMMON_H
#define SF_CPU_COMMON_H

#include "sf_backend.h"
#include "sf_layout.h"

#include "sf_cpu_vectors.h"

#include <stddef.h>

/* A row sweep `name` (a static function taking params, called with args)
 * built once for each vector set (sf_cpu_vectors.h) as name_kernels[set]:
 * flatten brings what it calls into each copy, so the whole sweep uses
 * the set's vectors. Elsewhere than x86-64, every entry is the portable
 * copy. */
#if defined(__x86_64__)
#define SF_CPU_VECTOR_KERNEL(name, params, args)                                          \
    __attribute__((flatten)) static void name##_portable params { name args; }           \
    __attribute__((target("avx2"), flatten)) static void name##_avx2 params { name args; } \
    __attribute__((target("avx512f"), flatten)) static void name##_avx512 params { name args; } \
    static void (*const name##_kernels[SF_CPU_VECTOR_SETS]) params = {                   \
        name##_portable, name##_avx2, name##_avx512}
#else
#define SF_CPU_VECTOR_KERNEL(name, params, args)                                          \
    __attribute__((flatten)) static void name##_portable params { name args; }           \
    static void (*const name##_kernels[SF_CPU_VECTOR_SETS]) params = {                   \
        name##_portable, name##_portable, name##_portable}
#endif

static inline long sf_cpu_max(long a, long b) { return a > b ? a : b; }
static inline long sf_cpu_min(long a, long b) { return a < b ? a : b; }

/* The rows of a block that a kernel streams through the planes: as many
 * as keep what it reads of them (row_bytes a row) within 5/8 of a core's
 * L2 cache (1 MiB where the system does not say), cut so that the blocks
 * come as near a multiple of the threads as the rows allow (a thread left
 * without a block, or with one block fewer, idles for it). 5/8: on the 1 MiB L2 of the
 * development machines, 640 KiB ran the acoustic step 12% faster than
 * 160 KiB on 256^3, elastic 4-13%, TTI alike. */
long sf_cpu_rows_per_block(long ny, long row_bytes);

/* The first row of the n-th of `blocks` blocks of `rows` rows as the
 * threads take them: from the two ends of the y axis in turn, so that the
 * blocks holding the costlier rows of the y layers go to different
 * threads first (in order, with two threads and four blocks, one thread
 * took both ends). */
static inline long sf_cpu_block_start(long n, long blocks, long rows)
{
    return (n % 2 ? blocks - 1 - n / 2 : n / 2) * rows;
}

/* How an array's values lie, for its 16-bit blocks (sf_block16.h): runs
 * of `row` values along an axis, in planes of `plane` values (row a
 * divisor of plane, but for a layout's padded planes); and where the array
 * is laid out by z planes, `zplane` values each from local plane
 * `first_plane` on (0: not by z planes), so that an update of some planes
 * rounds those alone. */
typedef struct {
    long row, plane, zplane, first_plane;
} sf_cpu_rows;

/* Rows of `row` values, laid out otherwise than by z planes. */
static inline sf_cpu_rows sf_cpu_rows_of(long row) { return (sf_cpu_rows){row, row, 0, 0}; }
/* Rows of `row` values, z planes of zplane values from local plane first. */
static inline sf_cpu_rows sf_cpu_plane_rows(long row, long zplane, long first)
{
    return (sf_cpu_rows){row, row, zplane, first};
}
/* A field's in the layout L, its halo planes included. */
static inline sf_cpu_rows sf_cpu_field_rows(const sf_layout *L)
{
    return (sf_cpu_rows){L->sx, L->sp, L->sp, -SF_HALO};
}
/* An owned-planes array's in the layout L. */
static inline sf_cpu_rows sf_cpu_owned_rows(const sf_layout *L)
{
    return (sf_cpu_rows){L->sx, L->sp, L->sp, 0};
}

/* The stages that write a state array, as a mask: run.precision: mixed
 * rounds it after those alone (an array left out would keep unrounded
 * values: SEISFD_TEST_STORED=1 checks every array after each of the
 * first SF_CPU_STORED_CHECKS updates, which take every stage and range). */
#define SF_CPU_STAGE(g) (1u << (g))
#define SF_CPU_EVERY_STAGE (~0u)
enum { SF_CPU_STORED_CHECKS = 60 };

/* The most arrays whose blocks share their exponents (sf_cpu_stored). */
enum { SF_CPU_SHARED_ARRAYS = 3 };

/* Arrays of one shape kept alike; their blocks at the same place share one
 * exponent (the largest of theirs), so that values equal in each stay
 * equal: a fluid's lambda + 2 mu and lambda (whose difference is its 2 mu,
 * 0), or its three normal stresses (its pressure), however the solid's
 * values beside it in the same blocks round. */
typedef struct {
    float *data[SF_CPU_SHARED_ARRAYS];
    int arrays;
    size_t count;
    sf_cpu_rows rows;
    unsigned stages;                    /* SF_CPU_STAGE mask (state arrays) */
    const char *what;
} sf_cpu_stored;

typedef struct {
    size_t bytes;                       /* allocated through the arena, still held */
    struct {
        void *data;
        size_t bytes;
    } *held;                            /* every allocation still held */
    size_t helds, held_capacity;
    sf_cpu_stored *state;               /* the shot's state: 9 fields and 8 solids' 48
                                         * memory variables beside the layers' */
    size_t states, state_capacity;
    sf_cpu_stored *medium;              /* what the physics made of the model */
    size_t media, medium_capacity;
    int mixed;                          /* run.precision: mixed (sf_block16.h) */
    int check_stored;                   /* SEISFD_TEST_STORED=1: updates left to check */
    double seconds[SF_PHASE_COUNT];     /* since the last sf_cpu_take_timers */
} sf_cpu_arena;

/* count x size zeroed bytes aligned for vector loads (NULL for none), or
 * the run ends naming what they were for. */
void *sf_cpu_take(sf_cpu_arena *a, size_t count, size_t size, const char *what);
/* The same holding a copy of from's count x size bytes. */
void *sf_cpu_take_copy(sf_cpu_arena *a, const void *from, size_t count, size_t size,
                       const char *what);
/* Frees one allocation of the arena (NULL: none), or all of them. */
void sf_cpu_release(sf_cpu_arena *a, void *data);
void sf_cpu_release_all(sf_cpu_arena *a);
/* An array of a shot's state, written in `stages`: zeroed by
 * sf_cpu_zero_state; or `arrays` of them sharing their blocks' exponents. */
float *sf_cpu_take_state(sf_cpu_arena *a, size_t count, sf_cpu_rows rows, unsigned stages,
                         const char *what);
void sf_cpu_keep_as_state(sf_cpu_arena *a, float *data, size_t count, sf_cpu_rows rows,
                          unsigned stages, const char *what);
void sf_cpu_keep_as_state_group(sf_cpu_arena *a, float *const *data, int arrays, size_t count,
                                sf_cpu_rows rows, unsigned stages, const char *what);
/* An array of the medium, filled before the physics' create returns; or
 * `arrays` of them sharing their blocks' exponents. */
void sf_cpu_keep_as_medium(sf_cpu_arena *a, float *data, size_t count, sf_cpu_rows rows,
                           const char *what);
void sf_cpu_keep_as_medium_group(sf_cpu_arena *a, float *const *data, int arrays, size_t count,
                                 sf_cpu_rows rows, const char *what);
void sf_cpu_zero_state(sf_cpu_arena *a);
/* The amplify operation: every state array times factor. */
void sf_cpu_amplify_state(sf_cpu_arena *a, float factor);
/* With run.precision: mixed, the state arrays a stage writes (every one:
 * SF_CPU_EVERY_STAGE) over local planes [k0, k1) (the whole of those not
 * laid out by z planes), the medium arrays, or the block holding
 * array[index] of a state array, rounded to what they store; the CPU keeps
 * float32 arrays of the stored values. Without, nothing. */
void sf_cpu_round_state(sf_cpu_arena *a, unsigned stages, long k0, long k1);
void sf_cpu_round_medium(sf_cpu_arena *a);
void sf_cpu_round_state_at(sf_cpu_arena *a, const float *array, size_t index);
/* Everything runs synchronously: wall time is the phase's time. */
void sf_cpu_phase_done(sf_cpu_arena *a, sf_phase phase, double started);
void sf_cpu_take_timers(sf_cpu_arena *a, double *seconds);

/* A backend's copies of the CPML recursion coefficients of the three
 * global axes (sf_cpml_axis): taken at create, reloaded by reset (another
 * shot's frequency shift). */
typedef struct {
    float *a, *b, *a_half, *b_half;
} sf_cpu_cpml_coefficients;

void sf_cpu_cpml_copy(sf_cpu_cpml_coefficients c[3], sf_cpu_arena *a, const sf_cpml_axis axis[3]);
void sf_cpu_cpml_reload(sf_cpu_cpml_coefficients c[3], const sf_cpml_axis axis[3]);

/* A shot's receiver channels (sf_problem), their samples kept for
 * sample_block time levels. */
typedef struct {
    long count;
    sf_component *component;
    long *offset;
    size_t *index;                      /* points, in the field layout */
    float *weight;
    float *samples;                     /* [sample_block][count] */
} sf_cpu_channels;

void sf_cpu_channels_setup(sf_cpu_channels *c, sf_cpu_arena *a, const sf_layout *L,
                           const sf_problem *p);
void sf_cpu_channels_free(sf_cpu_channels *c, sf_cpu_arena *a);
/* Channel n's interpolated value of a field. */
static inline float sf_cpu_channel_value(const sf_cpu_channels *c, long n, const float *field)
{
    float sum = 0.0f;
    for (long q = c->offset[n]; q < c->offset[n + 1]; ++q) sum += c->weight[q] * field[c->index[q]];
    return sum;
}
void sf_cpu_channels_fetch(const sf_cpu_channels *c, int count, float *out);

/* The field_norms operation over a physics' fields[0, count) (sf_layout's
 * layout, with halos); returns count. */
int sf_cpu_field_norms(const sf_layout *L, const sf_regions *r, const float *const *fields,
                       int count, double sums[][SF_REGIONS]);

/* Calls row(state, j, k) for every row (j, k) of owned planes [k0, k1),
 * the rows shared statically among the OpenMP team. */
void sf_cpu_each_row(const sf_layout *L, long k0, long k1, void (*row)(void *state, long j, long k),
                     void *state);

/* The staggered first derivative of u at the half point above u[0]
 * (between u[0] and u[stride]) and below it (between u[-stride] and
 * u[0]); c is sf_stencil_scaled's first along that axis. Inline, so that
 * the loops around vectorise with R known. */
static inline float sf_cpu_staggered_up(const float *u, long stride, const float *c, int R)
{
    float d = 0.0f;
    for (int m = 1; m <= R; ++m) d += c[m] * (u[m * stride] - u[-(m - 1) * stride]);
    return d;
}

static inline float sf_cpu_staggered_down(const float *u, long stride, const float *c, int R)
{
    float d = 0.0f;
    for (int m = 1; m <= R; ++m) d += c[m] * (u[(m - 1) * stride] - u[-m * stride]);
    return d;
}

/* psi <- b psi + a * d/dn u at the half points above n consecutive points
 * of u whose neighbours along the axis are `stride` apart; a and b (the
 * axis's half-point coefficients) advance by ab_step a point: 1 along the
 * axis, 0 across it. */
static inline void sf_cpu_memory_run(float *restrict psi, const float *restrict u, long n, long stride,
                                     const float *c, const float *a, const float *b, long ab_step,
                                     const int R)
{
    #pragma omp simd
    for (long i = 0; i < n; ++i) {
        const float d = sf_cpu_staggered_up(u + i, stride, c, R);
        psi[i] = b[i * ab_step] * psi[i] + a[i * ab_step] * d;
    }
}

/* CPML memory variables are read and written once a step, in runs of a
 * row's length or a layer's width spread over many arrays: too short and
 * too many for the hardware's prefetcher, so the step waits on them (an
 * elastic 40^3 box with 10-point layers stepped 2.5 times slower with
 * them than without). A kernel that takes a run asks for the same run
 * SF_CPU_PREFETCH_ROWS rows on (pass its address), which the sweep of a
 * block's rows reaches a few runs later. */
enum { SF_CPU_PREFETCH_ROWS = 4, SF_CPU_LINE_FLOATS = 16 /* a 64-byte cache line */ };

static inline void sf_cpu_prefetch_run(const float *run, long n)
{
    for (long i = 0; i < n; i += SF_CPU_LINE_FLOATS) __builtin_prefetch(run + i, 1, 3);
    __builtin_prefetch(run + n - 1, 1, 3);
}

/* Calls a run kernel with a constant radius for the common order 8, so
 * that its loops vectorise unrolled; the last argument is the radius. */
#define SF_CPU_WITH_RADIUS(kernel, state, ...)                                \
    do {                                                                      \
        if ((state)->radius == 4) kernel(__VA_ARGS__, 4);                     \
        else kernel(__VA_ARGS__, (state)->radius);                            \
    } while (0)

#endif
