/* run.precision: mixed on the CPU (cpu_common.h): the arena's state and
 * medium arrays rounded to the 16-bit blocks they would store
 * (sf_block16.h), in float32 arrays. */
#include "cpu_common.h"
#include "sf_block16.h"
#include "sf_error.h"

#include <limits.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

/* Rows [r0, r1) of the plane at `offset` in each of `arrays` arrays (rows
 * of `row` values, a shorter last one where row does not divide plane),
 * block by block from each row's start, each block's exponent shared by
 * the arrays. */
static inline void round_rows(float *const *data, int arrays, size_t offset, long row, long plane,
                              long r0, long r1)
{
    for (long r = r0; r < r1; ++r) {
        const long first = r * row, length = plane - first < row ? plane - first : row;
        for (long b = 0; b < length; b += SF_BLOCK16_VALUES) {
            const long count = length - b < SF_BLOCK16_VALUES ? length - b : SF_BLOCK16_VALUES;
            const size_t at = offset + (size_t)(first + b);
            uint32_t largest = 0;
            for (int g = 0; g < arrays; ++g) {
                const uint32_t own = sf_block16_largest(data[g] + at, count);
                largest = own > largest ? own : largest;
            }
            for (int g = 0; g < arrays; ++g) sf_block16_round_to(data[g] + at, count, largest);
        }
    }
}
SF_CPU_VECTOR_KERNEL(round_rows,
                     (float *const *data, int arrays, size_t offset, long row, long plane, long r0,
                      long r1),
                     (data, arrays, offset, row, plane, r0, r1));

/* count values of s from its value `first` (a multiple of its planes'),
 * shared among the threads of the parallel region it is called in. */
static void round_array(const sf_cpu_stored *s, size_t first, size_t count, sf_cpu_vectors vectors)
{
    const long rows = (s->rows.plane + s->rows.row - 1) / s->rows.row;
    const size_t planes = count / (size_t)s->rows.plane;
    /* Rows of 64 at a time among the threads: arrays of one long row a
     * plane (the x layers' memory) and of a few planes alike. */
    enum { ROWS_AT_ONCE = 64 };
    const long pieces = (rows + ROWS_AT_ONCE - 1) / ROWS_AT_ONCE;
    #pragma omp for collapse(2) schedule(static) nowait
    for (size_t p = 0; p < planes; ++p)
        for (long q = 0; q < pieces; ++q)
            round_rows_kernels[vectors](s->data, s->arrays, first + p * (size_t)s->rows.plane,
                                        s->rows.row, s->rows.plane, q * ROWS_AT_ONCE,
                                        sf_cpu_min(rows, (q + 1) * ROWS_AT_ONCE));
}

/* The arrays of list that stages write, over local planes [k0, k1), in
 * one parallel region rather than one an array: small grids round a few
 * rows an array, a dozen arrays a stage. */
static void round_all(const sf_cpu_stored *list, size_t count, unsigned stages, long k0, long k1)
{
    const sf_cpu_vectors vectors = sf_cpu_vectors_chosen();
    #pragma omp parallel
    for (size_t n = 0; n < count; ++n) {
        const sf_cpu_stored *s = &list[n];
        if (!(s->stages & stages)) continue;
        if (!s->rows.zplane) {
            round_array(s, 0, s->count, vectors);
            continue;
        }
        const long planes = (long)(s->count / (size_t)s->rows.zplane);
        const long lo = sf_cpu_max(k0 - s->rows.first_plane, 0);
        const long hi = sf_cpu_min(k1 - s->rows.first_plane, planes);
        if (hi > lo)
            round_array(s, (size_t)lo * (size_t)s->rows.zplane,
                        (size_t)(hi - lo) * (size_t)s->rows.zplane, vectors);
    }
}

/* Does the plane at `offset` of each of s's arrays hold what it stores?
 * Rounds a copy of it and compares by value: a mirror image stores -0
 * for 0. */
static int plane_stored(const sf_cpu_stored *s, size_t offset)
{
    const size_t plane = (size_t)s->rows.plane;
    float *copy = sf_malloc((size_t)s->arrays * plane * sizeof(float), "checking stored values");
    float *copies[SF_CPU_SHARED_ARRAYS];
    for (int g = 0; g < s->arrays; ++g) {
        copies[g] = copy + (size_t)g * plane;
        memcpy(copies[g], s->data[g] + offset, plane * sizeof(float));
    }
    round_rows(copies, s->arrays, 0, s->rows.row, s->rows.plane, 0,
               (s->rows.plane + s->rows.row - 1) / s->rows.row);
    int same = 1;
    for (int g = 0; g < s->arrays; ++g)
        for (size_t i = 0; i < plane; ++i) {
            const float was = s->data[g][offset + i], now = copies[g][i];
            same &= now == was || (isnan(now) && isnan(was));
        }
    free(copy);
    return same;
}

/* SEISFD_TEST_STORED=1: that every state array holds stored values only,
 * or the run ends naming the first that does not. */
static void check_stored(const sf_cpu_arena *a, unsigned stages)
{
    for (size_t n = 0; n < a->states; ++n) {
        const sf_cpu_stored *s = &a->state[n];
        const long planes = (long)(s->count / (size_t)s->rows.plane);
        int stored = 1;
        #pragma omp parallel for reduction(& : stored) schedule(static)
        for (long p = 0; p < planes; ++p) stored &= plane_stored(s, (size_t)p * (size_t)s->rows.plane);
        if (!stored)
            sf_fatal("internal: after stages 0x%x, %s holds values it does not store", stages,
                     s->what);
    }
}

void sf_cpu_round_state(sf_cpu_arena *a, unsigned stages, long k0, long k1)
{
    if (!a->mixed) return;
    round_all(a->state, a->states, stages, k0, k1);
    if (a->check_stored > 0) {
        check_stored(a, stages);
        --a->check_stored;
    }
}

void sf_cpu_round_medium(sf_cpu_arena *a)
{
    if (a->mixed) round_all(a->medium, a->media, SF_CPU_EVERY_STAGE, LONG_MIN / 2, LONG_MAX / 2);
}

void sf_cpu_round_state_at(sf_cpu_arena *a, const float *array, size_t index)
{
    if (!a->mixed) return;
    for (size_t n = 0; n < a->states; ++n) {
        const sf_cpu_stored *s = &a->state[n];
        for (int g = 0; g < s->arrays; ++g) {
            if (array < s->data[g] || array >= s->data[g] + s->count) continue;
            /* The row holding it, in every array sharing its blocks. */
            const size_t at = (size_t)(array - s->data[g]) + index;
            const size_t plane = at / (size_t)s->rows.plane * (size_t)s->rows.plane;
            const long r = (long)(at - plane) / s->rows.row;
            round_rows(s->data, s->arrays, plane, s->rows.row, s->rows.plane, r, r + 1);
            return;
        }
    }
    sf_fatal("internal: a value written outside the shot's state arrays");
}
