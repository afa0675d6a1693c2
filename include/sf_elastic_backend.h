/* The elastic physics as its backends see it: the velocity-stress
 * equations' nine fields and two half-steps.
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


typedef enum {
    SF_FIELD_VX, SF_FIELD_VY, SF_FIELD_VZ,
    SF_FIELD_SXX, SF_FIELD_SYY, SF_FIELD_SZZ, SF_FIELD_SXY, SF_FIELD_SXZ, SF_FIELD_SYZ,
    SF_ELASTIC_FIELDS
} sf_elastic_field;

/* The two half-steps of a time step, which are also the halo groups: each
 * half-step's fields are exchanged after it, for the other one to read. */
typedef enum { SF_HALF_VELOCITY, SF_HALF_STRESS, SF_HALF_STEPS } sf_half_step;

/* The elastic stages are its half-steps, velocity then stress, in
 * sf_backend_ops terms (sf_backend.h):
 *   update: the half-step on a range of planes, CPML memory variables
 *           included; with a free surface szz stays zero on it;
 *   inject_source: a velocity point adds dt b w s(t) (b: the buoyancy
 *           there), a stress point dt w s(t), for the half-step's fields;
 *   finish_stage: the images above a free surface of the half-step's
 *           fields: szz, sxz, syz odd, vx, vy, vz even;
 *   halo groups: after the velocity half-step vx, vy, vz; after the
 *           stress half-step szz, sxz, syz (what the velocity update
 *           differentiates across z), plus sxx and syy with
 *           exchange_normal_stresses;
 *   sample_receivers, after the velocity half-step of step n: every
 *           channel at t = n dt: pressure -(sxx+syy+szz)/3 as it is,
 *           velocities as the mean of v((n - 1/2) dt) (kept from the
 *           previous call; 0 before the first) and v((n + 1/2) dt);
 *   fetch_field: pressure, or a velocity averaged from its two staggered
 *           neighbours along its own axis, at the current time level;
 *   energy, after the stress half-step of step n: the slab's kinetic
 *           energy 1/2 sum rho |v|^2 at (n + 1/2) dt and strain energy
 *           1/2 sum s(n dt) : C^-1 : s((n + 1) dt) (the pair the leapfrog
 *           conserves exactly), times the cell volume, in joules (needs
 *           problem->energy);
 *   find_nonfinite: over the owned points of all nine fields, the field
 *           an sf_elastic_field. */

#endif
