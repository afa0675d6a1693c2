/* The CUDA backend's operations, written once for every physics
 * (backend.cu): a physics' file turns its kernel table (cuda_physics.h)
 * into its getter (sf_backend_cuda_acoustic, ...) with SF_CUDA_BACKEND. */
#ifndef SF_CUDA_BACKEND_H
#define SF_CUDA_BACKEND_H

#include "cuda_physics.h"

sf_backend *sf_cuda_backend_create(const sf_cuda_physics *physics, const sf_problem *p);
void sf_cuda_backend_destroy(sf_backend *b);
size_t sf_cuda_backend_memory_bytes(const sf_backend *b);
size_t sf_cuda_backend_halo_count(const sf_backend *b, int group);
float *sf_cuda_backend_send_buffer(sf_backend *b, int group, sf_side s);
float *sf_cuda_backend_recv_buffer(sf_backend *b, int group, sf_side s);
void sf_cuda_backend_halo_pack(sf_backend *b, int group, sf_side s);
void sf_cuda_backend_halo_wait_packed(sf_backend *b);
void sf_cuda_backend_halo_unpack(sf_backend *b, int group, sf_side s);
void sf_cuda_backend_update(sf_backend *b, int stage, long k0, long k1);
void sf_cuda_backend_inject_source(sf_backend *b, int stage, float amplitude, long k0, long k1);
void sf_cuda_backend_finish_stage(sf_backend *b, int stage);
void sf_cuda_backend_sample_receivers(sf_backend *b, int slot);
void sf_cuda_backend_fetch_receivers(sf_backend *b, int count, float *out);
void sf_cuda_backend_fetch_field(sf_backend *b, sf_component c,
                                 const sf_sampling_lattice *lattice, float *out);
/* For physics whose table has energy. */
void sf_cuda_backend_energy(sf_backend *b, double out[2]);
void sf_cuda_backend_reset(sf_backend *b, const sf_problem *shot);
int sf_cuda_backend_find_nonfinite(sf_backend *b, sf_nonfinite *where);
int sf_cuda_backend_field_norms(sf_backend *b, const sf_regions *r, double sums[][SF_REGIONS]);
void sf_cuda_backend_amplify(sf_backend *b, float factor);
void sf_cuda_backend_synchronize(sf_backend *b);
void sf_cuda_backend_take_timers(sf_backend *b, double *seconds);

/* Defines getter, which returns the sf_backend_ops of the physics whose
 * kernel table is kernels; energy is sf_cuda_backend_energy or NULL. */
#define SF_CUDA_BACKEND(getter, kernels, energy)                                                 \
    static sf_backend *getter##_create(const sf_problem *p)                                      \
    {                                                                                            \
        return sf_cuda_backend_create(&kernels, p);                                              \
    }                                                                                            \
    extern "C" const sf_backend_ops *getter(void)                                                \
    {                                                                                            \
        static const sf_backend_ops ops = {                                                      \
            "cuda", getter##_create, sf_cuda_backend_destroy, sf_cuda_backend_memory_bytes,      \
            sf_cuda_backend_halo_count, sf_cuda_backend_send_buffer,                             \
            sf_cuda_backend_recv_buffer, sf_cuda_backend_halo_pack,                              \
            sf_cuda_backend_halo_wait_packed, sf_cuda_backend_halo_unpack,                       \
            sf_cuda_backend_update, sf_cuda_backend_inject_source,                               \
            sf_cuda_backend_finish_stage, sf_cuda_backend_sample_receivers,                      \
            sf_cuda_backend_fetch_receivers, sf_cuda_backend_fetch_field, energy,                \
            sf_cuda_backend_reset, sf_cuda_backend_find_nonfinite,                               \
            sf_cuda_backend_field_norms, sf_cuda_backend_amplify, sf_cuda_backend_synchronize,   \
            sf_cuda_backend_take_timers};                                                        \
        return &ops;                                                                             \
    }

/* Defines getter for a physics built on another's kernels (base, a table
 * defined elsewhere): base's table under its own name, with its own create
 * and upload and no energy diagnostic (its memory variables hold energy
 * that base's sum leaves out); the table is made on first use, after
 * base's exists. */
#define SF_CUDA_DERIVED_BACKEND(getter, base, physics_name, create_state, upload_state)          \
    static const sf_cuda_physics &getter##_kernels()                                             \
    {                                                                                            \
        static const sf_cuda_physics kernels = [] {                                              \
            sf_cuda_physics k = base;                                                            \
            k.name = physics_name;                                                               \
            k.create = create_state;                                                             \
            k.upload = upload_state;                                                             \
            k.energy = NULL;                                                                     \
            return k;                                                                            \
        }();                                                                                     \
        return kernels;                                                                          \
    }                                                                                            \
    SF_CUDA_BACKEND(getter, getter##_kernels(), NULL)

#endif
