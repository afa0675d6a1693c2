#include "sf_acquisition.h"
#include "sf_error.h"
#include "sf_hicks.h"
#include "sf_layout.h"

#include <stdlib.h>

/* The interpolation weights of a point at pos on field f's lattice. On
 * an axis where the field sits on the nodes, a point the job's checks let
 * lie a hair outside the grid is kept on it; a staggered lattice reaches
 * half a cell past the nodes anyway. */
static void field_stencil(const sf_config *c, const sf_field_lattice *fl, int f,
                          const double pos[3], long first[3], double w[3][SF_HICKS_WIDTH])
{
    double shift[3] = {0.0, 0.0, 0.0};
    if (fl->shift) fl->shift(f, shift);
    for (int a = 0; a < 3; ++a) {
        double u = (pos[a] - c->origin[a]) / c->spacing[a];
        sf_hicks_fold fold = a == 2 && c->free_surface ? fl->surface_fold(f) : SF_FOLD_NONE;
        if (shift[a] == 0.0)
            sf_hicks_axis(u, c->n[a], fold, &first[a], w[a]);
        else
            sf_hicks_axis_fold(sf_hicks_snap(u - shift[a]), c->n[a], fold, &first[a], w[a]);
    }
}

/* Appends the non-zero tensor-product weights w[0][i] w[1][j] w[2][k] *
 * scale of a stencil starting at first[3] whose global plane lies in
 * [zlo, zhi), with planes made local to z0. */
static void append_weights(const long first[3], double w[3][SF_HICKS_WIDTH], long zlo, long zhi,
                           long z0, double scale, sf_point_weight **list, long *count,
                           long *capacity)
{
    for (int kz = 0; kz < SF_HICKS_WIDTH; ++kz) {
        long gz = first[2] + kz;
        if (w[2][kz] == 0.0 || gz < zlo || gz >= zhi) continue;
        for (int ky = 0; ky < SF_HICKS_WIDTH; ++ky) {
            if (w[1][ky] == 0.0) continue;
            for (int kx = 0; kx < SF_HICKS_WIDTH; ++kx) {
                double weight = w[0][kx] * w[1][ky] * w[2][kz] * scale;
                if (weight == 0.0) continue;
                if (*count == *capacity) {
                    *capacity = *capacity ? 2 * *capacity : 512;
                    *list = realloc(*list, (size_t)*capacity * sizeof **list);
                    if (!*list) sf_fatal("out of memory placing sources and receivers");
                }
                (*list)[(*count)++] = (sf_point_weight){(int)(first[0] + kx),
                                                        (int)(first[1] + ky), (int)(gz - z0),
                                                        (float)weight};
            }
        }
    }
}

static void build_source(sf_acquisition *a, const sf_config *c, const sf_slab *slab,
                         const sf_field_lattice *fl)
{
    double *coef = sf_calloc((size_t)fl->fields, sizeof *coef, "source coefficients");
    long *end = sf_calloc((size_t)fl->fields, sizeof *end, "source coefficients");
    fl->source_coefficients(&c->source, coef);
    const double cell = c->spacing[0] * c->spacing[1] * c->spacing[2];
    sf_point_weight *points = NULL;
    long count = 0, capacity = 0;   /* field f's points end at end[f] */
    for (int f = 0; f < fl->fields; ++f) {
        long first[3];
        double w[3][SF_HICKS_WIDTH];
        field_stencil(c, fl, f, c->source.position, first, w);
        if (coef[f] != 0.0)
            append_weights(first, w, slab->z0, slab->z0 + slab->nz, slab->z0, coef[f] / cell,
                           &points, &count, &capacity);
        end[f] = count;
    }
    a->source = sf_malloc((size_t)(count ? count : 1) * sizeof *a->source, "source points");
    for (long n = 0, f = 0; n < count; ++n) {
        while (n >= end[f]) ++f;
        a->source[n] = (sf_field_weight){(int)f, points[n].i, points[n].j, points[n].k,
                                         points[n].weight};
    }
    a->source_count = count;
    free(points);
    free(coef);
    free(end);
}

static void build_channels(sf_acquisition *a, const sf_config *c, const sf_slab *slab,
                           const sf_field_lattice *fl)
{
    const sf_receiver_config *rc = &c->receivers;
    long most = (long)rc->ncomponents * rc->count;
    a->channel_component = sf_malloc((size_t)(most ? most : 1) * sizeof(sf_component), "channels");
    a->channel_global = sf_malloc((size_t)(most ? most : 1) * sizeof(long), "channels");
    a->channel_offset = sf_malloc((size_t)(most + 1) * sizeof(long), "channels");
    a->channel_points = NULL;
    a->channel_count = 0;
    a->channel_offset[0] = 0;
    long points = 0, capacity = 0;
    for (int q = 0; q < rc->ncomponents; ++q) {
        sf_component k = rc->component[q];
        a->records_pressure |= k == SF_COMPONENT_P;
        for (long r = 0; r < rc->count; ++r) {
            long first[3];
            double w[3][SF_HICKS_WIDTH];
            field_stencil(c, fl, fl->component_field(k), rc->position[r], first, w);
            long base = first[2] + (SF_HICKS_RADIUS - 1);
            base = base < 0 ? 0 : base >= c->n[2] ? c->n[2] - 1 : base;
            if (base < slab->z0 || base >= slab->z0 + slab->nz) continue;
            append_weights(first, w, slab->z0 - SF_HALO, slab->z0 + slab->nz + SF_HALO, slab->z0,
                           1.0, &a->channel_points, &points, &capacity);
            a->channel_component[a->channel_count] = k;
            a->channel_global[a->channel_count++] = (long)q * rc->count + r;
            a->channel_offset[a->channel_count] = points;
        }
    }
}

void sf_acquisition_build(sf_acquisition *a, const sf_config *c, const sf_slab *slab,
                          const sf_field_lattice *fields)
{
    a->records_pressure = 0;
    build_source(a, c, slab, fields);
    build_channels(a, c, slab, fields);
}

void sf_acquisition_free(sf_acquisition *a)
{
    free(a->source);
    free(a->channel_component);
    free(a->channel_global);
    free(a->channel_points);
    free(a->channel_offset);
}
