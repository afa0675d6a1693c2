#include "cpu_common.h"
#include "sf_error.h"

#include <limits.h>
#include <mpi.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The list, with room for one more entry past its used ones. */
static void *room(void *list, size_t *capacity, size_t used, size_t size)
{
    if (used < *capacity) return list;
    *capacity = *capacity ? 2 * *capacity : 64;
    void *grown = realloc(list, *capacity * size);
    if (!grown) sf_fatal("out of memory listing the CPU backend's allocations");
    return grown;
}

/* Fills bytes at p with from's (zeros where from is NULL) in one
 * contiguous range a thread, as the steps split their planes: the first
 * touch of a page (a fault, and its memory node) then falls on the
 * threads that will use it, and a slab's arrays are not cleared by one
 * core (0.7-0.9 s of a 400^3 acoustic set-up). */
static void fill_on_every_core(void *p, const void *from, size_t bytes)
{
    enum { PIECE = 1 << 20 };
    const long pieces = (long)((bytes + PIECE - 1) / PIECE);
    #pragma omp parallel for schedule(static)
    for (long n = 0; n < pieces; ++n) {
        const size_t start = (size_t)n * PIECE, length = bytes - start < PIECE ? bytes - start : PIECE;
        if (from)
            memcpy((char *)p + start, (const char *)from + start, length);
        else
            memset((char *)p + start, 0, length);
    }
}

static void *take_filled(sf_cpu_arena *a, const void *from, size_t bytes, const char *what)
{
    if (bytes == 0) return NULL;
    void *p = NULL;
    /* 64-byte alignment matches the padded rows for vector loads. */
    if (posix_memalign(&p, 64, bytes) != 0)
        sf_fatal("out of memory allocating %zu bytes for %s on the CPU backend", bytes, what);
    fill_on_every_core(p, from, bytes);
    a->held = room(a->held, &a->held_capacity, a->helds, sizeof *a->held);
    a->held[a->helds].data = p;
    a->held[a->helds++].bytes = bytes;
    a->bytes += bytes;
    return p;
}

void *sf_cpu_take(sf_cpu_arena *a, size_t count, size_t size, const char *what)
{
    return take_filled(a, NULL, count * size, what);
}

void *sf_cpu_take_copy(sf_cpu_arena *a, const void *from, size_t count, size_t size,
                       const char *what)
{
    return take_filled(a, from, count * size, what);
}

/* Per-shot arrays are among the latest taken: the search starts there. */
void sf_cpu_release(sf_cpu_arena *a, void *data)
{
    if (!data) return;
    for (size_t n = a->helds; n-- > 0;)
        if (a->held[n].data == data) {
            a->bytes -= a->held[n].bytes;
            free(data);
            a->held[n] = a->held[--a->helds];
            return;
        }
    sf_fatal("internal: the CPU backend released memory it does not hold");
}

void sf_cpu_release_all(sf_cpu_arena *a)
{
    for (size_t n = 0; n < a->helds; ++n) free(a->held[n].data);
    free(a->held);
    free(a->state);
    free(a->medium);
    a->medium = NULL;
    a->media = a->medium_capacity = 0;
    a->held = NULL;
    a->state = NULL;
    a->helds = a->held_capacity = a->states = a->state_capacity = 0;
    a->bytes = 0;
}

static void keep(sf_cpu_stored **list, size_t *capacity, size_t *count, float *const *data,
                 int arrays, sf_cpu_stored entry)
{
    if (!data[0]) return;
    if (arrays < 1 || arrays > SF_CPU_SHARED_ARRAYS)
        sf_fatal("internal: %s: %d arrays sharing their blocks", entry.what, arrays);
    for (int n = 0; n < arrays; ++n) entry.data[n] = data[n];
    entry.arrays = arrays;
    if (entry.rows.row < 1 || entry.rows.plane < entry.rows.row ||
        entry.count % (size_t)entry.rows.plane)
        sf_fatal("internal: %s: %zu values kept in rows of %ld, planes of %ld", entry.what,
                 entry.count, entry.rows.row, entry.rows.plane);
    *list = room(*list, capacity, *count, sizeof **list);
    (*list)[(*count)++] = entry;
}

void sf_cpu_keep_as_state_group(sf_cpu_arena *a, float *const *data, int arrays, size_t count,
                                sf_cpu_rows rows, unsigned stages, const char *what)
{
    keep(&a->state, &a->state_capacity, &a->states, data, arrays,
         (sf_cpu_stored){.count = count, .rows = rows, .stages = stages, .what = what});
}

void sf_cpu_keep_as_state(sf_cpu_arena *a, float *data, size_t count, sf_cpu_rows rows,
                          unsigned stages, const char *what)
{
    sf_cpu_keep_as_state_group(a, &data, 1, count, rows, stages, what);
}

void sf_cpu_keep_as_medium_group(sf_cpu_arena *a, float *const *data, int arrays, size_t count,
                                 sf_cpu_rows rows, const char *what)
{
    keep(&a->medium, &a->medium_capacity, &a->media, data, arrays,
         (sf_cpu_stored){.count = count, .rows = rows, .stages = SF_CPU_EVERY_STAGE, .what = what});
}

void sf_cpu_keep_as_medium(sf_cpu_arena *a, float *data, size_t count, sf_cpu_rows rows,
                           const char *what)
{
    sf_cpu_keep_as_medium_group(a, &data, 1, count, rows, what);
}

float *sf_cpu_take_state(sf_cpu_arena *a, size_t count, sf_cpu_rows rows, unsigned stages,
                         const char *what)
{
    float *p = sf_cpu_take(a, count, sizeof(float), what);
    sf_cpu_keep_as_state(a, p, count, rows, stages, what);
    return p;
}

void sf_cpu_zero_state(sf_cpu_arena *a)
{
    for (size_t n = 0; n < a->states; ++n)
        for (int g = 0; g < a->state[n].arrays; ++g)
            fill_on_every_core(a->state[n].data[g], NULL, a->state[n].count * sizeof(float));
}

void sf_cpu_amplify_state(sf_cpu_arena *a, float factor)
{
    for (size_t n = 0; n < a->states; ++n)
        for (int g = 0; g < a->state[n].arrays; ++g) {
            float *data = a->state[n].data[g];
            const size_t count = a->state[n].count;
            #pragma omp parallel for simd schedule(static)
            for (size_t i = 0; i < count; ++i) data[i] *= factor;
        }
    sf_cpu_round_state(a, SF_CPU_EVERY_STAGE, LONG_MIN / 2, LONG_MAX / 2);
}

void sf_cpu_phase_done(sf_cpu_arena *a, sf_phase phase, double started)
{
    a->seconds[phase] += MPI_Wtime() - started;
}

void sf_cpu_take_timers(sf_cpu_arena *a, double *seconds)
{
    for (int p = 0; p < SF_PHASE_COUNT; ++p) seconds[p] += a->seconds[p];
    memset(a->seconds, 0, sizeof a->seconds);
}

void sf_cpu_channels_setup(sf_cpu_channels *c, sf_cpu_arena *a, const sf_layout *L,
                           const sf_problem *p)
{
    const long n = p->channel_count, points = n ? p->channel_offset[n] : 0;
    c->count = n;
    c->component = sf_cpu_take(a, (size_t)n, sizeof(sf_component), "receiver channels");
    c->offset = sf_cpu_take(a, (size_t)n + 1, sizeof(long), "receiver channels");
    if (n) {
        memcpy(c->component, p->channel_component, (size_t)n * sizeof(sf_component));
        memcpy(c->offset, p->channel_offset, (size_t)(n + 1) * sizeof(long));
    }
    c->index = sf_cpu_take(a, (size_t)points, sizeof(size_t), "receiver points");
    c->weight = sf_cpu_take(a, (size_t)points, sizeof(float), "receiver points");
    for (long q = 0; q < points; ++q) {
        const sf_point_weight *w = &p->channel_points[q];
        c->index[q] = sf_field_index(L, w->i, w->j, w->k);
        c->weight[q] = w->weight;
    }
    c->samples = sf_cpu_take(a, (size_t)(n * p->sample_block), sizeof(float), "receiver samples");
}

void sf_cpu_channels_free(sf_cpu_channels *c, sf_cpu_arena *a)
{
    sf_cpu_release(a, c->component), sf_cpu_release(a, c->offset), sf_cpu_release(a, c->index);
    sf_cpu_release(a, c->weight), sf_cpu_release(a, c->samples);
    memset(c, 0, sizeof *c);
}

void sf_cpu_channels_fetch(const sf_cpu_channels *c, int count, float *out)
{
    const size_t bytes = (size_t)count * (size_t)c->count * sizeof(float);
    if (bytes) memcpy(out, c->samples, bytes);   /* a rank with no receivers has no samples */
}

static float *copy_coefficients(sf_cpu_arena *a, const float *src, long n)
{
    return sf_cpu_take_copy(a, src, (size_t)n, sizeof(float), "CPML coefficients");
}

void sf_cpu_cpml_copy(sf_cpu_cpml_coefficients c[3], sf_cpu_arena *a, const sf_cpml_axis axis[3])
{
    for (int d = 0; d < 3; ++d) {
        const sf_cpml_axis *ax = &axis[d];
        c[d].a = copy_coefficients(a, ax->a, ax->n);
        c[d].b = copy_coefficients(a, ax->b, ax->n);
        c[d].a_half = copy_coefficients(a, ax->a_half, ax->n);
        c[d].b_half = copy_coefficients(a, ax->b_half, ax->n);
    }
}

void sf_cpu_cpml_reload(sf_cpu_cpml_coefficients c[3], const sf_cpml_axis axis[3])
{
    for (int d = 0; d < 3; ++d) {
        const size_t bytes = (size_t)axis[d].n * sizeof(float);
        memcpy(c[d].a, axis[d].a, bytes);
        memcpy(c[d].b, axis[d].b, bytes);
        memcpy(c[d].a_half, axis[d].a_half, bytes);
        memcpy(c[d].b_half, axis[d].b_half, bytes);
    }
}

static long cache_budget(void)
{
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return (l2 > 0 ? l2 : 1L << 20) / 8 * 5;
}

long sf_cpu_rows_per_block(long ny, long row_bytes)
{
    const long most = sf_cpu_max(4, sf_cpu_min(ny, cache_budget() / row_bytes));
    const long threads = omp_get_max_threads();
    long blocks = (ny + most - 1) / most;
    blocks = (blocks + threads - 1) / threads * threads;
    return sf_cpu_max(1, (ny + blocks - 1) / blocks);
}

void sf_cpu_each_row(const sf_layout *L, long k0, long k1, void (*row)(void *state, long j, long k),
                     void *state)
{
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = k0; k < k1; ++k)
        for (long j = 0; j < L->ny; ++j) row(state, j, k);
}
