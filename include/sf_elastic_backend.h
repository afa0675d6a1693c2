/* The boundary between the elastic solver and a compute backend (CPU,
 * CUDA): the companion of sf_backend.h for the velocity-stress equations.
 * The solver describes one rank's slab in an sf_elastic_problem and drives
 * every time step as two half-steps, velocity then stress, through these
 * operations only. Plane ranges [k0, k1) are local owned planes.
 *
 * Staggering (grid units from node (i, j, k) = origin + (i dx, j dy, k dz)):
 *   sxx, syy, szz  (i, j, k)                vx  (i + 1/2, j, k)
 *   sxy            (i + 1/2, j + 1/2, k)    vy  (i, j + 1/2, k)
 *   sxz            (i + 1/2, j, k + 1/2)    vz  (i, j, k + 1/2)
 *   syz            (i, j + 1/2, k + 1/2)
 * Every field has nx * ny * nz samples per slab, index (i, j, k) at the
 * position above; samples past the grid (padding, the halos at the ends
 * of the grid) are zero. Velocities live at half time steps: after the
 * velocity half-step of step n they are v((n + 1/2) dt), the stresses
 * s(n dt). */
#ifndef SF_ELASTIC_BACKEND_H
#define SF_ELASTIC_BACKEND_H

#include "sf_backend.h"
#include "sf_config.h"
#include "sf_cpml.h"
#include "sf_elastic_medium.h"
#include "sf_stencil.h"

#include <stddef.h>

typedef enum {
    SF_FIELD_VX, SF_FIELD_VY, SF_FIELD_VZ,
    SF_FIELD_SXX, SF_FIELD_SYY, SF_FIELD_SZZ, SF_FIELD_SXY, SF_FIELD_SXZ, SF_FIELD_SYZ,
    SF_ELASTIC_FIELDS
} sf_elastic_field;

/* The two half-steps of a time step, which are also the halo groups: each
 * half-step's fields are exchanged after it, for the other one to read. */
typedef enum { SF_HALF_VELOCITY, SF_HALF_STRESS, SF_HALF_STEPS } sf_half_step;

/* One source interpolation weight on one field at local point (i, j, k). */
typedef struct {
    sf_elastic_field field;
    int i, j, k;
    float weight;
} sf_field_weight;

typedef struct {
    long nx, ny, nz;          /* points of this rank's slab */
    long z0;                  /* global index of local plane 0 */
    sf_stencil stencil;       /* staggered first derivative: stencil.first */
    double h[3], dt;
    const sf_elastic_medium *medium;  /* owned planes (see sf_elastic_medium.h) */
    const sf_cpml_axis *cpml; /* three global axes: x, y, z */
    int free_surface;         /* global plane 0 is a traction-free surface */
    /* Source points owned by this rank. At time t a velocity point adds
     * dt b w s(t) (b: the buoyancy there), a stress point dt w s(t): the
     * weights hold the direction or minus the moment tensor component and
     * the division by the cell volume. */
    const sf_field_weight *source;
    long source_count;
    /* Channels sampled by this rank: channel c records component
     * channel_component[c] from points [channel_offset[c],
     * channel_offset[c + 1]) on that component's staggered grid (p: on
     * the nodes); points may lie in the halo planes. */
    const sf_component *channel_component;
    const sf_point_weight *channel_points;
    const long *channel_offset;
    long channel_count;
    int sample_block;         /* samples kept on the backend before a fetch */
    int exchange_normal_stresses; /* pressure channels near a slab edge read sxx, syy halos */
    int energy;               /* keep what the energy diagnostic needs */
    sf_halo_transport halo_transport;   /* chosen with the backend (sf_device.h) */
} sf_elastic_problem;

typedef struct sf_elastic_backend sf_elastic_backend;

/* As in sf_backend_ops, operations may be queued and take effect in order;
 * results reach the host only through halo_wait_packed, fetch_receivers,
 * fetch_field, energy and synchronize.
 *
 * One time step n, as the solver issues it (R = SF_HALO planes at each
 * slab end; ranges may overlap on thin slabs, each plane is updated once):
 *   update(VELOCITY, edges), inject(VELOCITY, s(n dt), edges)
 *   halo_pack(VELOCITY, each side with a neighbour)
 *   update(VELOCITY, interior), inject(VELOCITY, s(n dt), interior)
 *   halo_wait_packed, MPI exchange, halo_unpack(VELOCITY, ...)
 *   mirror_free_surface(VELOCITY)
 *   sample_receivers(slot of step n)
 *   the same for STRESS with s((n + 1/2) dt), then energy() if wanted. */
typedef struct {
    const char *name;
    sf_elastic_backend *(*create)(const sf_elastic_problem *problem);
    void (*destroy)(sf_elastic_backend *b);
    size_t (*memory_bytes)(const sf_elastic_backend *b);

    /* Halo planes of a group, all its fields in one contiguous buffer per
     * side: after the velocity half-step vx, vy, vz; after the stress
     * half-step szz, sxz, syz (what the velocity update differentiates
     * across z), plus sxx and syy with exchange_normal_stresses. */
    size_t (*halo_count)(const sf_elastic_backend *b, sf_half_step g);
    float *(*halo_send_buffer)(sf_elastic_backend *b, sf_half_step g, sf_side s);
    float *(*halo_recv_buffer)(sf_elastic_backend *b, sf_half_step g, sf_side s);
    void (*halo_pack)(sf_elastic_backend *b, sf_half_step g, sf_side s);
    void (*halo_wait_packed)(sf_elastic_backend *b);
    void (*halo_unpack)(sf_elastic_backend *b, sf_half_step g, sf_side s);
    /* Fills the ghost planes above a free surface with the images of the
     * half-step's fields: szz, sxz, syz odd, vx, vy, vz even. */
    void (*mirror_free_surface)(sf_elastic_backend *b, sf_half_step g);

    /* The half-step on a range of planes, CPML memory variables included;
     * with a free surface szz stays zero on it. */
    void (*update)(sf_elastic_backend *b, sf_half_step g, long k0, long k1);
    void (*inject_source)(sf_elastic_backend *b, sf_half_step g, float amplitude, long k0,
                          long k1);

    /* Called after the velocity half-step of step n: records every channel
     * at t = n dt into slot (< sample_block): pressure -(sxx+syy+szz)/3 as
     * it is, velocities as the mean of v((n - 1/2) dt) (kept from the
     * previous call; 0 before the first) and v((n + 1/2) dt). */
    void (*sample_receivers)(sf_elastic_backend *b, int slot);
    /* Copies slots [0, count) out as [count][channel_count]. */
    void (*fetch_receivers)(sf_elastic_backend *b, int count, float *out);
    /* A component on a lattice of the nodes, as [planes][rows][columns]:
     * pressure, or a velocity averaged from its two staggered neighbours
     * along its own axis, at the current time level. */
    void (*fetch_field)(sf_elastic_backend *b, sf_component c, const sf_sampling_lattice *lattice,
                        float *out);
    /* After the stress half-step of step n: this slab's kinetic energy
     * 1/2 sum rho |v|^2 at (n + 1/2) dt and strain energy 1/2 sum
     * s(n dt) : C^-1 : s((n + 1) dt) (the pair the leapfrog conserves
     * exactly), times the cell volume, in joules. Needs problem->energy. */
    void (*energy)(sf_elastic_backend *b, double out[2]);

    /* As in sf_backend_ops: a new shot on the same slab and medium. Zeroes
     * the nine fields, the CPML memory variables, the receivers' state
     * (velocities of the last half step, samples) and the energy's
     * stresses; takes shot->cpml's coefficients and the source and
     * channel tables of shot. shot->medium may be NULL (the backend keeps
     * what it needs of the medium). */
    void (*reset)(sf_elastic_backend *b, const sf_elastic_problem *shot);
    /* The instability guard over the owned points of all nine fields;
     * where->field is an sf_elastic_field. */
    int (*find_nonfinite)(sf_elastic_backend *b, sf_nonfinite *where);

    void (*synchronize)(sf_elastic_backend *b);
    void (*take_timers)(sf_elastic_backend *b, double *seconds);
} sf_elastic_backend_ops;

const sf_elastic_backend_ops *sf_elastic_backend_cpu(void);
/* CUDA builds only: the same results on one GPU per rank. */
const sf_elastic_backend_ops *sf_elastic_backend_cuda(void);

#endif
