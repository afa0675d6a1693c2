#include "sf_cpml_slots.h"

#include "sf_error.h"

#include <stdlib.h>

static int *empty_table(long n)
{
    const long size = n + 2 * SF_CPML_SLOT_SLACK;
    int *t = sf_malloc((size_t)size * sizeof(int), "CPML slots");
    for (long i = 0; i < size; ++i) t[i] = -1;
    return t;
}

static long max_long(long a, long b) { return a > b ? a : b; }
static long min_long(long a, long b) { return a < b ? a : b; }

void sf_cpml_slots_init(sf_cpml_slots *s, const sf_cpml_axis *global, int radius, long n,
                        long first, long half_lo, long half_hi)
{
    s->n = n, s->first = first;
    s->half_slot = empty_table(n), s->point_slot = empty_table(n);
    s->halves = s->points = 0;
    for (int side = 0; side < 2; ++side) {
        const sf_cpml_span span = sf_cpml_layer_span(global, side, radius);
        /* Where the layers of a short axis overlap, an index keeps the
         * low layer's slot: one variable per index. */
        for (long g = span.hlo; g < span.hhi; ++g) {
            const long i = g - first;
            if (i >= half_lo && i < half_hi && s->half_slot[i + SF_CPML_SLOT_SLACK] < 0)
                s->half_slot[i + SF_CPML_SLOT_SLACK] = (int)s->halves++;
        }
        for (long g = span.flo; g < span.fhi; ++g) {
            const long i = g - first;
            if (i >= 0 && i < n && s->point_slot[i + SF_CPML_SLOT_SLACK] < 0)
                s->point_slot[i + SF_CPML_SLOT_SLACK] = (int)s->points++;
        }
        s->lo[side] = min_long(max_long(span.flo - first, 0), n);
        s->hi[side] = max_long(s->lo[side], min_long(span.fhi - first, n));
    }
}

void sf_cpml_slots_free(sf_cpml_slots *s)
{
    free(s->half_slot);
    free(s->point_slot);
    s->half_slot = s->point_slot = NULL;
}
