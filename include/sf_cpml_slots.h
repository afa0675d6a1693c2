/* The numbering of an axis's CPML memory variables on one rank, shared by
 * the pseudo-acoustic backends so that the CPU (the reference) and the GPU
 * walk the same compact arrays: along the axis, the half points of both
 * layers (psi) and the points whose update reads psi (zeta) get slots
 * 0, 1, .. in order, low layer first; every other index has slot -1 (its
 * memory variable is zero and not stored). A memory array holds one line
 * of `halves` (or `points`) values per line of the grid along the axis. */
#ifndef SF_CPML_SLOTS_H
#define SF_CPML_SLOTS_H

#include "sf_cpml.h"
#include "sf_layout.h"
#include "sf_stencil.h"

#include <stddef.h>

/* The tables run from -SF_CPML_SLOT_SLACK to n + SF_CPML_SLOT_SLACK: a
 * derivative of psi at a point reaches R half points either way, and along
 * z the points read the halves of the halo planes, so lookups near either
 * end need no bounds tests. */
enum { SF_CPML_SLOT_SLACK = 2 * SF_MAX_RADIUS + SF_HALO };

typedef struct {
    long n;             /* local points along the axis */
    long first;         /* global index of local index 0 */
    int *half_slot;     /* psi: [n + 2 slack] at index + slack; -1: none */
    int *point_slot;    /* zeta: likewise */
    long halves, points;
    /* Per side (low, high) the local points [lo, hi) whose update reads
     * that layer's psi, clipped to [0, n) (empty: lo == hi). */
    long lo[2], hi[2];
} sf_cpml_slots;

/* Numbers the half points of global's layers that fall within local
 * [half_lo, half_hi) and the points that read them within [0, n); local
 * index i is global index first + i. z passes its slab with the halo planes
 * for the halves (their psi arrives by exchange). */
void sf_cpml_slots_init(sf_cpml_slots *s, const sf_cpml_axis *global, int radius, long n,
                        long first, long half_lo, long half_hi);
void sf_cpml_slots_free(sf_cpml_slots *s);

/* The slot of local half point i (between i and i + 1) or point i. */
static inline int sf_cpml_half_slot(const sf_cpml_slots *s, long i)
{
    return s->half_slot[i + SF_CPML_SLOT_SLACK];
}

static inline int sf_cpml_point_slot(const sf_cpml_slots *s, long i)
{
    return s->point_slot[i + SF_CPML_SLOT_SLACK];
}

/* Bytes of the two tables (the backends count them in their memory). */
static inline size_t sf_cpml_slots_bytes(const sf_cpml_slots *s)
{
    return 2 * (size_t)(s->n + 2 * SF_CPML_SLOT_SLACK) * sizeof(int);
}

#endif
