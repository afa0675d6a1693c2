/* The two time levels of a second-order-in-time physics (cpu_levels.h). */
#include "cpu_levels.h"

void sf_cpu_levels_plan(sf_cpu_levels *v, const sf_cpu_shared *shared, int fields,
                        sf_cpu_levels_stage memory, sf_cpu_levels_stage advance)
{
    v->shared = shared;
    v->fields = fields;
    const sf_cpu_rows rows = sf_cpu_field_rows(&shared->L);
    const unsigned written = SF_CPU_STAGE(SF_ACOUSTIC_ADVANCE);
    for (int f = 0; f < fields; ++f) {
        v->prev[f] = sf_cpu_take_state(shared->arena, shared->L.field_size, rows, written,
                                       "the wavefields");
        v->cur[f] = sf_cpu_take_state(shared->arena, shared->L.field_size, rows, written,
                                      "the wavefields");
    }
    v->stage[SF_ACOUSTIC_MEMORY] = memory;
    v->stage[SF_ACOUSTIC_ADVANCE] = advance;
}

float *sf_cpu_levels_plane(const sf_cpu_levels *v, int f, long k)
{
    return v->prev[f] + sf_field_index(&v->shared->L, 0, 0, k);
}

void sf_cpu_levels_update(void *state, int stage, long k0, long k1)
{
    ((sf_cpu_levels *)state)->stage[stage](state, k0, k1);
}

/* Odd images of the current level above a free surface: the next step's
 * memory update and stencil read them. */
static void mirror_free_surface(float *cur, long sp)
{
    for (long m = 1; m <= SF_HALO; ++m) {
        const float *src = cur + (SF_HALO + m) * sp;
        float *dst = cur + (SF_HALO - m) * sp;
        for (long n = 0; n < sp; ++n) dst[n] = -src[n];
    }
}

void sf_cpu_levels_finish_stage(void *state, int stage)
{
    sf_cpu_levels *v = state;
    if (stage != SF_ACOUSTIC_ADVANCE) return;
    for (int f = 0; f < v->fields; ++f) {
        float *t = v->prev[f];
        v->prev[f] = v->cur[f];
        v->cur[f] = t;
        if (v->shared->free_surface_here) mirror_free_surface(v->cur[f], v->shared->L.sp);
    }
}

/* Every field takes the source alike (in an isotropic medium p = q). */
int sf_cpu_levels_source_arrays(void *state, int stage, int field, float *arrays[SF_CPU_MAX_SOURCE_ARRAYS])
{
    const sf_cpu_levels *v = state;
    (void)field;
    for (int f = 0; f < v->fields; ++f) arrays[f] = v->prev[f];
    return stage == SF_ACOUSTIC_ADVANCE ? v->fields : 0;
}

/* The wavefield group sends every field's new level (prev until the stage
 * ends), the memory group every field's psi z. */
int sf_cpu_levels_halo_arrays(const void *state, int group)
{
    (void)group;
    return ((const sf_cpu_levels *)state)->fields;
}

const float *sf_cpu_levels_component(const void *state, sf_component c)
{
    return c == SF_COMPONENT_P ? ((const sf_cpu_levels *)state)->cur[0] : NULL;
}

/* Only the current level needs a look: a non-finite value anywhere else
 * (the previous level, the CPML memory) reaches it within a step. */
int sf_cpu_levels_guard_fields(const void *state, const float *fields[SF_GUARD_MAX_FIELDS])
{
    const sf_cpu_levels *v = state;
    for (int f = 0; f < v->fields; ++f) fields[f] = v->cur[f];
    return v->fields;
}
