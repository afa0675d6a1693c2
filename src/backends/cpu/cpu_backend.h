/* The CPU backend's operations, written once for every physics
 * (backend.c): a physics' file turns its kernel table (cpu_physics.h) into
 * its getter (sf_backend_cpu_acoustic, ...) with SF_CPU_BACKEND. */
#ifndef SF_CPU_BACKEND_H
#define SF_CPU_BACKEND_H

#include "cpu_physics.h"

sf_backend *sf_cpu_backend_create(const sf_cpu_physics *physics, const sf_problem *p);
void sf_cpu_backend_destroy(sf_backend *b);
size_t sf_cpu_backend_memory_bytes(const sf_backend *b);
size_t sf_cpu_backend_halo_count(const sf_backend *b, int group);
float *sf_cpu_backend_send_buffer(sf_backend *b, int group, sf_side s);
float *sf_cpu_backend_recv_buffer(sf_backend *b, int group, sf_side s);
void sf_cpu_backend_halo_pack(sf_backend *b, int group, sf_side s);
void sf_cpu_backend_halo_wait_packed(sf_backend *b);
void sf_cpu_backend_halo_unpack(sf_backend *b, int group, sf_side s);
void sf_cpu_backend_update(sf_backend *b, int stage, long k0, long k1);
void sf_cpu_backend_inject_source(sf_backend *b, int stage, float amplitude, long k0, long k1);
void sf_cpu_backend_finish_stage(sf_backend *b, int stage);
void sf_cpu_backend_sample_receivers(sf_backend *b, int slot);
void sf_cpu_backend_fetch_receivers(sf_backend *b, int count, float *out);
void sf_cpu_backend_fetch_field(sf_backend *b, sf_component c,
                                const sf_sampling_lattice *lattice, float *out);
/* For physics whose table has energy. */
void sf_cpu_backend_energy(sf_backend *b, double out[2]);
void sf_cpu_backend_reset(sf_backend *b, const sf_problem *shot);
int sf_cpu_backend_find_nonfinite(sf_backend *b, sf_nonfinite *where);
int sf_cpu_backend_field_norms(sf_backend *b, const sf_regions *r, double sums[][SF_REGIONS]);
void sf_cpu_backend_amplify(sf_backend *b, float factor);
void sf_cpu_backend_synchronize(sf_backend *b);
void sf_cpu_backend_take_timers(sf_backend *b, double *seconds);

/* Defines getter, which returns the sf_backend_ops of the physics whose
 * kernel table is kernels; energy is sf_cpu_backend_energy or NULL. */
#define SF_CPU_BACKEND(getter, kernels, energy)                                                  \
    static sf_backend *getter##_create(const sf_problem *p)                                      \
    {                                                                                            \
        return sf_cpu_backend_create(&kernels, p);                                               \
    }                                                                                            \
    const sf_backend_ops *getter(void)                                                           \
    {                                                                                            \
        static const sf_backend_ops ops = {                                                      \
            "cpu", getter##_create, sf_cpu_backend_destroy, sf_cpu_backend_memory_bytes,         \
            sf_cpu_backend_halo_count, sf_cpu_backend_send_buffer, sf_cpu_backend_recv_buffer,   \
            sf_cpu_backend_halo_pack, sf_cpu_backend_halo_wait_packed,                           \
            sf_cpu_backend_halo_unpack, sf_cpu_backend_update, sf_cpu_backend_inject_source,     \
            sf_cpu_backend_finish_stage, sf_cpu_backend_sample_receivers,                        \
            sf_cpu_backend_fetch_receivers, sf_cpu_backend_fetch_field, energy,                  \
            sf_cpu_backend_reset, sf_cpu_backend_find_nonfinite, sf_cpu_backend_field_norms,     \
            sf_cpu_backend_amplify, sf_cpu_backend_synchronize, sf_cpu_backend_take_timers};     \
        return &ops;                                                                             \
    }

#endif
