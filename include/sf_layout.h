/* Memory layout of one rank's slab: x fastest, then y, then z. Every
 * plane is padded with SF_PAD zero points on each side in x and y so
 * stencils need no edge branches, rows are padded to an aligned stride,
 * and SF_HALO planes above and below hold the neighbours' planes. */
#ifndef SF_LAYOUT_H
#define SF_LAYOUT_H

#include <stddef.h>

enum {
    SF_PAD = 4,   /* x/y padding: the stencil radius */
    SF_HALO = 4   /* z halo planes: stencil and interpolation radius */
};

typedef struct {
    long nx, ny, nz;   /* interior points of the slab */
    long gx;           /* offset of interior column 0 within a row */
    long sx;           /* row stride, floats */
    long sp;           /* plane stride, floats */
    size_t field_size; /* floats in a field with its z halos */
    size_t plane_size; /* floats in an owned-planes-only array (nz planes) */
} sf_layout;

/* align: row alignment in floats (16 for 64-byte cache lines). */
void sf_layout_init(sf_layout *l, long nx, long ny, long nz, long align);

/* Offset of point (i, j, k) in a field with halos; -SF_HALO <= k < nz + SF_HALO. */
static inline size_t sf_field_index(const sf_layout *l, long i, long j, long k)
{
    return (size_t)((k + SF_HALO) * l->sp + (j + SF_PAD) * l->sx + (i + l->gx));
}

/* Offset of point (i, j, k) in an owned-planes array; 0 <= k < nz. */
static inline size_t sf_plane_index(const sf_layout *l, long i, long j, long k)
{
    return (size_t)(k * l->sp + (j + SF_PAD) * l->sx + (i + l->gx));
}

/* Owned planes [k0, k0 + count) of a compact [nz][ny][nx] array into
 * planes (count x sp floats in the layout's rows), on every core; the
 * padding is left as it is. */
void sf_layout_planes_from_compact(const sf_layout *l, const float *compact, long k0, long count,
                                   float *planes);

#endif
