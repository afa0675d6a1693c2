/* The two time levels of a second-order-in-time physics (cuda_levels.h). */
#include "cuda_levels.h"

void sf_cuda_levels_plan(sf_cuda_levels *v, sf_cuda_common *c, const sf_problem *p, int fields,
                         sf_cuda_levels_stage memory, sf_cuda_levels_stage advance)
{
    v->stage[SF_ACOUSTIC_MEMORY] = memory;
    v->stage[SF_ACOUSTIC_ADVANCE] = advance;
    v->c = c;
    v->fields = fields;
    v->free_surface_here = p->free_surface && p->z0 == 0;
    for (int f = 0; f < fields; ++f) {
        sf_cuda_want_state(&c->arrays, &v->prev[f], c->L.field_size, sizeof(float), "the wavefields");
        sf_cuda_want_state(&c->arrays, &v->cur[f], c->L.field_size, sizeof(float), "the wavefields");
    }
}

float *sf_cuda_levels_plane(const sf_cuda_levels *v, int f, long k)
{
    return v->prev[f] + sf_field_index(&v->c->L, 0, 0, k);
}

void sf_cuda_levels_update(void *state, int stage, long k0, long k1, cudaStream_t stream)
{
    ((sf_cuda_levels *)state)->stage[stage](state, k0, k1, stream);
}

/* The new level becomes the current one, with its images above a free
 * surface (the next step's memory update and stencil read them). */
int sf_cuda_levels_finish_stage(void *state, int stage)
{
    sf_cuda_levels *v = (sf_cuda_levels *)state;
    if (stage != SF_ACOUSTIC_ADVANCE) return 0;
    for (int f = 0; f < v->fields; ++f) {
        float *t = v->prev[f];
        v->prev[f] = v->cur[f];
        v->cur[f] = t;
    }
    return v->free_surface_here;
}

void sf_cuda_levels_mirror(void *state, int stage, cudaStream_t stream)
{
    const sf_cuda_levels *v = (const sf_cuda_levels *)state;
    (void)stage;   /* the advance's alone */
    for (int f = 0; f < v->fields; ++f) sf_cuda_mirror_surface(v->cur[f], v->c->grid, stream);
}

/* Every field takes the source alike (in an isotropic medium p = q). */
int sf_cuda_levels_source_arrays(void *state, int stage, float *arrays[SF_CUDA_MAX_SOURCE_ARRAYS])
{
    const sf_cuda_levels *v = (const sf_cuda_levels *)state;
    if (stage != SF_ACOUSTIC_ADVANCE) return 0;
    for (int f = 0; f < v->fields; ++f) arrays[f] = v->prev[f];
    return v->fields;
}

/* Each group moves every field's planes. */
int sf_cuda_levels_halo_arrays(const void *state, int group)
{
    (void)group;
    return ((const sf_cuda_levels *)state)->fields;
}

/* The pressure is the only component. */
const float *sf_cuda_levels_component(const void *state, sf_component c)
{
    (void)c;
    return ((const sf_cuda_levels *)state)->cur[0];
}

/* The current level of every field. */
int sf_cuda_levels_guard_fields(const void *state, const float *fields[SF_GUARD_MAX_FIELDS])
{
    const sf_cuda_levels *v = (const sf_cuda_levels *)state;
    for (int f = 0; f < v->fields; ++f) fields[f] = v->cur[f];
    return v->fields;
}
