/* Where the instability guard measures a field: the interior and the
 * absorbing layer of each face. A point in several layers (along an edge
 * or at a corner of the grid) belongs to the one whose outer face is
 * nearest, the first of xmin, xmax, ymin, ymax, zmin, zmax on a tie, so
 * that every point counts once and a corner goes where it is deepest in.
 * Shared with the CUDA sources, whose kernel applies the same rule. */
#ifndef SF_REGIONS_H
#define SF_REGIONS_H

#include "sf_pointwise.h"

typedef enum {
    SF_REGION_INTERIOR,
    SF_REGION_XMIN, SF_REGION_XMAX, SF_REGION_YMIN, SF_REGION_YMAX, SF_REGION_ZMIN, SF_REGION_ZMAX,
    SF_REGIONS
} sf_region;

/* The layers around one rank's slab: thick[a][0] points at the low end and
 * thick[a][1] at the high end of axis a, of the grid's n[a] points; local
 * plane k is global plane z0 + k. */
typedef struct {
    long n[3];
    long z0;
    long thick[3][2];
} sf_regions;

/* How many points global index g of axis a lies from the outer face of
 * the layer of that axis holding it (0 on the face), with the layer's
 * region; -1 outside the axis's layers. */
SF_POINTWISE long sf_face_distance(const sf_regions *r, int a, long g, int *region)
{
    if (g < r->thick[a][0]) {
        *region = SF_REGION_XMIN + 2 * a;
        return g;
    }
    if (g >= r->n[a] - r->thick[a][1]) {
        *region = SF_REGION_XMAX + 2 * a;
        return r->n[a] - 1 - g;
    }
    return -1;
}

/* The region of row (j, global plane gk) leaving the x layers aside, with
 * its distance from that layer's outer face (-1: the interior). */
SF_POINTWISE long sf_row_region(const sf_regions *r, long j, long gk, int *region)
{
    long nearest = -1;
    *region = SF_REGION_INTERIOR;
    for (int a = 1; a < 3; ++a) {
        int here = SF_REGION_INTERIOR;
        const long d = sf_face_distance(r, a, a == 1 ? j : gk, &here);
        if (d >= 0 && (nearest < 0 || d < nearest)) nearest = d, *region = here;
    }
    return nearest;
}

/* The region of point (i, j, global plane gk). */
SF_POINTWISE int sf_region_of(const sf_regions *r, long i, long j, long gk)
{
    int across, along;
    const long nearest = sf_row_region(r, j, gk, &across);
    const long d = sf_face_distance(r, 0, i, &along);
    return d >= 0 && (nearest < 0 || d <= nearest) ? along : across;
}

#endif
