/* run.precision: mixed on the CPU (cpu_common.h): the arena's state and
 * medium arrays rounded to the 16-bit blocks they would store
 * (sf_block16.h), in float32 arrays. */
#include "cpu_common.h"
#include "sf_block16.h"
#include "sf_error.h"

#include <math.h>
#include <string.h>

/* Rows [r0, r1) of a plane (rows of `row` values, a shorter last one where
 * row does not divide plane), block by block from each row's start. */
static inline void round_rows(float *plane_data, long row, long plane, long r0, long r1)
{
    for (long r = r0; r < r1; ++r) {
        const long first = r * row, length = plane - first < row ? plane - first : row;
        for (long b = 0; b < length; b += SF_BLOCK16_VALUES)
            sf_block16_round(plane_data + first + b,
                             length - b < SF_BLOCK16_VALUES ? length - b : SF_BLOCK16_VALUES);
    }
}
SF_CPU_VECTOR_KERNEL(round_rows, (float *plane_data, long row, long plane, long r0, long r1),
                     (plane_data, row, plane, r0, r1));

static void round_array(const sf_cpu_stored *s, sf_cpu_vectors vectors)
{
    const long rows = (s->rows.plane + s->rows.row - 1) / s->rows.row;
    const size_t planes = s->count / (size_t)s->rows.plane;
    /* Rows of 64 at a time among the threads: arrays of one long row a
     * plane (the x layers' memory) and of a few planes alike. */
    enum { ROWS_AT_ONCE = 64 };
    const long pieces = (rows + ROWS_AT_ONCE - 1) / ROWS_AT_ONCE;
    #pragma omp parallel for collapse(2) schedule(static)
    for (size_t p = 0; p < planes; ++p)
        for (long q = 0; q < pieces; ++q)
            round_rows_kernels[vectors](s->data + p * (size_t)s->rows.plane, s->rows.row,
                                        s->rows.plane, q * ROWS_AT_ONCE,
                                        sf_cpu_min(rows, (q + 1) * ROWS_AT_ONCE));
}

static void round_all(const sf_cpu_stored *list, size_t count, unsigned stages)
{
    const sf_cpu_vectors vectors = sf_cpu_vectors_chosen();
    for (size_t n = 0; n < count; ++n)
        if (list[n].stages & stages) round_array(&list[n], vectors);
}

/* Does each block of rows [r0, r1) of a plane hold what it stores? By
 * value: a mirror image stores -0 for 0. */
static int rows_stored(const float *plane_data, long row, long plane, long r0, long r1)
{
    int same = 1;
    for (long r = r0; r < r1; ++r) {
        const long first = r * row, length = plane - first < row ? plane - first : row;
        for (long b = 0; b < length; b += SF_BLOCK16_VALUES) {
            const long count = length - b < SF_BLOCK16_VALUES ? length - b : SF_BLOCK16_VALUES;
            const float *values = plane_data + first + b;
            float copy[SF_BLOCK16_VALUES];
            memcpy(copy, values, (size_t)count * sizeof(float));
            sf_block16_round(copy, count);
            for (long i = 0; i < count; ++i)
                same &= copy[i] == values[i] || (isnan(copy[i]) && isnan(values[i]));
        }
    }
    return same;
}

/* SEISFD_TEST_STORED=1: that every state array holds stored values only,
 * or the run ends naming the first that does not. */
static void check_stored(const sf_cpu_arena *a, unsigned stages)
{
    for (size_t n = 0; n < a->states; ++n) {
        const sf_cpu_stored *s = &a->state[n];
        const long rows = (s->rows.plane + s->rows.row - 1) / s->rows.row;
        const long planes = (long)(s->count / (size_t)s->rows.plane);
        int stored = 1;
        #pragma omp parallel for reduction(& : stored) schedule(static)
        for (long p = 0; p < planes; ++p)
            stored &= rows_stored(s->data + (size_t)p * (size_t)s->rows.plane, s->rows.row,
                                  s->rows.plane, 0, rows);
        if (!stored)
            sf_fatal("internal: after stages 0x%x, %s holds values it does not store", stages,
                     s->what);
    }
}

void sf_cpu_round_state(sf_cpu_arena *a, unsigned stages)
{
    if (!a->mixed) return;
    round_all(a->state, a->states, stages);
    if (a->check_stored > 0) {
        check_stored(a, stages);
        --a->check_stored;
    }
}

void sf_cpu_round_medium(sf_cpu_arena *a)
{
    if (a->mixed) round_all(a->medium, a->media, SF_CPU_EVERY_STAGE);
}

void sf_cpu_round_state_at(sf_cpu_arena *a, const float *array, size_t index)
{
    if (!a->mixed) return;
    for (size_t n = 0; n < a->states; ++n) {
        const sf_cpu_stored *s = &a->state[n];
        if (array < s->data || array >= s->data + s->count) continue;
        const size_t at = (size_t)(array - s->data) + index;
        const size_t plane = at / (size_t)s->rows.plane;
        const long within = (long)(at - plane * (size_t)s->rows.plane), r = within / s->rows.row;
        round_rows(s->data + plane * (size_t)s->rows.plane, s->rows.row, s->rows.plane, r, r + 1);
        return;
    }
    sf_fatal("internal: a value written outside the shot's state arrays");
}
