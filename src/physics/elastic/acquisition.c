#include "sf_elastic_acquisition.h"
#include "sf_acquisition.h"
#include "sf_error.h"
#include "sf_hicks.h"
#include "sf_layout.h"

#include <stdlib.h>

/* The grid-unit offsets of a field's samples from the nodes. */
static void field_shift(sf_elastic_field f, double shift[3])
{
    static const double shifts[SF_ELASTIC_FIELDS][3] = {
        [SF_FIELD_VX] = {0.5, 0, 0},    [SF_FIELD_VY] = {0, 0.5, 0},   [SF_FIELD_VZ] = {0, 0, 0.5},
        [SF_FIELD_SXY] = {0.5, 0.5, 0}, [SF_FIELD_SXZ] = {0.5, 0, 0.5}, [SF_FIELD_SYZ] = {0, 0.5, 0.5},
    };
    for (int a = 0; a < 3; ++a) shift[a] = shifts[f][a];
}

/* Velocities are imaged evenly above a free surface, so weights falling
 * there fold back with their sign; the stresses have no image that every
 * component shares, so their weights above the surface are dropped. */
static sf_hicks_fold surface_fold(sf_elastic_field f)
{
    switch (f) {
    case SF_FIELD_VX:
    case SF_FIELD_VY: return SF_FOLD_EVEN_NODE;
    case SF_FIELD_VZ: return SF_FOLD_EVEN_HALF;
    default: return SF_FOLD_NONE;
    }
}

/* The interpolation weights of a point at pos on field f's lattice. */
static void field_stencil(const sf_config *c, sf_elastic_field f, const double pos[3],
                          long first[3], double w[3][SF_HICKS_WIDTH])
{
    double shift[3];
    field_shift(f, shift);
    for (int a = 0; a < 3; ++a) {
        double u = sf_hicks_snap((pos[a] - c->origin[a]) / c->spacing[a] - shift[a]);
        sf_hicks_fold fold = a == 2 && c->free_surface ? surface_fold(f) : SF_FOLD_NONE;
        sf_hicks_axis_fold(u, c->n[a], fold, &first[a], w[a]);
    }
}

/* What the source adds to each field per unit s(t), before the division
 * by the cell volume: a force its direction on the velocities; a moment
 * tensor M (an explosion: the identity) -M on the stresses, so that the
 * stress glut radiates like the body force -div(M delta). */
static void source_coefficients(const sf_source_config *s, double coef[SF_ELASTIC_FIELDS])
{
    static const double identity[6] = {1, 1, 1, 0, 0, 0};
    for (int f = 0; f < SF_ELASTIC_FIELDS; ++f) coef[f] = 0.0;
    if (s->type == SF_SOURCE_FORCE) {
        for (int a = 0; a < 3; ++a) coef[SF_FIELD_VX + a] = s->direction[a];
        return;
    }
    const double *m = s->type == SF_SOURCE_MOMENT ? s->moment : identity;
    for (int q = 0; q < 6; ++q) coef[SF_FIELD_SXX + q] = -m[q];
}

static void build_source(sf_elastic_acquisition *a, const sf_config *c, const sf_slab *slab)
{
    double coef[SF_ELASTIC_FIELDS];
    source_coefficients(&c->source, coef);
    const double cell = c->spacing[0] * c->spacing[1] * c->spacing[2];
    sf_point_weight *points = NULL;
    long count = 0, capacity = 0, end[SF_ELASTIC_FIELDS];   /* field f's points end at end[f] */
    for (int f = 0; f < SF_ELASTIC_FIELDS; ++f) {
        long first[3];
        double w[3][SF_HICKS_WIDTH];
        field_stencil(c, (sf_elastic_field)f, c->source.position, first, w);
        if (coef[f] != 0.0)
            sf_append_weights(first, w, slab->z0, slab->z0 + slab->nz, slab->z0, coef[f] / cell,
                              &points, &count, &capacity);
        end[f] = count;
    }
    a->source = sf_malloc((size_t)(count ? count : 1) * sizeof *a->source, "source points");
    for (long n = 0, f = 0; n < count; ++n) {
        while (n >= end[f]) ++f;
        a->source[n] = (sf_field_weight){(sf_elastic_field)f, points[n].i, points[n].j,
                                         points[n].k, points[n].weight};
    }
    a->source_count = count;
    free(points);
}

/* The field whose lattice a component is interpolated on. */
static sf_elastic_field component_field(sf_component k)
{
    return k == SF_COMPONENT_P ? SF_FIELD_SXX : (sf_elastic_field)(SF_FIELD_VX + k);
}

static void build_channels(sf_elastic_acquisition *a, const sf_config *c, const sf_slab *slab)
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
            field_stencil(c, component_field(k), rc->position[r], first, w);
            long base = first[2] + (SF_HICKS_RADIUS - 1);
            base = base < 0 ? 0 : base >= c->n[2] ? c->n[2] - 1 : base;
            if (base < slab->z0 || base >= slab->z0 + slab->nz) continue;
            sf_append_weights(first, w, slab->z0 - SF_HALO, slab->z0 + slab->nz + SF_HALO,
                              slab->z0, 1.0, &a->channel_points, &points, &capacity);
            a->channel_component[a->channel_count] = k;
            a->channel_global[a->channel_count++] = (long)q * rc->count + r;
            a->channel_offset[a->channel_count] = points;
        }
    }
}

void sf_elastic_acquisition_build(sf_elastic_acquisition *a, const sf_config *c,
                                  const sf_slab *slab)
{
    a->records_pressure = 0;
    build_source(a, c, slab);
    build_channels(a, c, slab);
}

void sf_elastic_acquisition_free(sf_elastic_acquisition *a)
{
    free(a->source);
    free(a->channel_component);
    free(a->channel_global);
    free(a->channel_points);
    free(a->channel_offset);
}
