/* The elastic driver of the time loop: each step is a velocity half-step
 * (before the receivers sample t = n dt, since velocities live half a step
 * off) and a stress half-step, each updating the slab's edge planes first
 * so that their exchange overlaps the interior. */
#include "sf_elastic_halo.h"
#include "sf_elastic_medium.h"
#include "sf_energy.h"
#include "sf_error.h"
#include "sf_layout.h"
#include "sf_simulation.h"

#include <stdlib.h>
#include <string.h>


/* One half-step over the slab, then the images above a free surface of
 * the fields it wrote. */
static void half_step(sf_simulation *s, sf_half_step g, float amplitude)
{
    const sf_elastic_backend_ops *ops = s->elastic.ops;
    sf_elastic_backend *b = s->elastic.backend;
    const long nz = s->slab.nz, R = SF_HALO;
    const long lo = nz < R ? nz : R, hi = nz - R > lo ? nz - R : lo;
    ops->update(b, g, 0, lo);
    ops->inject_source(b, g, amplitude, 0, lo);
    ops->update(b, g, hi, nz);
    ops->inject_source(b, g, amplitude, hi, nz);
    sf_elastic_halo_begin(&s->slab, ops, b, g);
    ops->update(b, g, lo, hi);
    ops->inject_source(b, g, amplitude, lo, hi);
    sf_elastic_halo_finish(&s->slab, ops, b, g, &s->timers);
    ops->mirror_free_surface(b, g);
}

static int is_velocity(sf_component c) { return c != SF_COMPONENT_P; }

/* Snapshot fields at t = n dt: velocities are the mean of the half steps
 * around it, so the ones before the velocity half-step are kept first. */
static void keep_velocities(sf_simulation *s, sf_snapshot_file *f)
{
    sf_elastic_state *e = &s->elastic;
    sf_timer_start(&s->timers);
    for (int q = 0; q < f->nfields; ++q) {
        sf_component c = s->cfg->snapshot_field[q];
        if (!is_velocity(c)) continue;
        if (!e->velocity_before[c])
            e->velocity_before[c] = sf_malloc(sf_snapshot_local_count(f) * sizeof(float),
                                              "a velocity snapshot of this slab");
        e->ops->fetch_field(e->backend, c, &f->lattice, e->velocity_before[c]);
    }
    sf_timer_stop(&s->timers, SF_PHASE_IO);
}

static void write_snapshot(sf_simulation *s, sf_snapshot_file *f, long n, float *const *samples)
{
    sf_elastic_state *e = &s->elastic;
    size_t count = sf_snapshot_local_count(f);
    sf_timer_start(&s->timers);
    for (int q = 0; q < f->nfields; ++q) {
        sf_component c = s->cfg->snapshot_field[q];
        e->ops->fetch_field(e->backend, c, &f->lattice, samples[q]);
        if (!is_velocity(c)) continue;
        for (size_t i = 0; i < count; ++i)
            samples[q][i] = 0.5f * (samples[q][i] + e->velocity_before[c][i]);
    }
    sf_snapshot_write(f, n, (double)n * s->dt, samples);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
}

static void elastic_before_sampling(sf_simulation *s, long n, sf_snapshot_file *snapshot,
                                    float *const *samples)
{
    if (snapshot) keep_velocities(s, snapshot);
    half_step(s, SF_HALF_VELOCITY, sf_source_signal_at(&s->source, 2 * n));
    if (snapshot) write_snapshot(s, snapshot, n, samples);
}

static void elastic_sample(sf_simulation *s, int slot)
{
    s->elastic.ops->sample_receivers(s->elastic.backend, slot);
}

static void elastic_fetch_samples(sf_simulation *s, int count, float *block)
{
    s->elastic.ops->fetch_receivers(s->elastic.backend, count, block);
}

static void elastic_after_sampling(sf_simulation *s, long n)
{
    sf_elastic_state *e = &s->elastic;
    half_step(s, SF_HALF_STRESS, sf_source_signal_at(&s->source, 2 * n + 1));
    if (!e->energy) return;
    sf_timer_start(&s->timers);
    e->ops->energy(e->backend, e->energy + 2 * n);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
}

static void elastic_synchronize(sf_simulation *s) { s->elastic.ops->synchronize(s->elastic.backend); }

static void elastic_take_timers(sf_simulation *s, double *seconds)
{
    s->elastic.ops->take_timers(s->elastic.backend, seconds);
}

static size_t elastic_memory_bytes(const sf_simulation *s)
{
    return s->elastic.ops->memory_bytes(s->elastic.backend);
}

static void elastic_free(sf_simulation *s)
{
    sf_elastic_state *e = &s->elastic;
    if (e->backend) e->ops->destroy(e->backend);
    sf_elastic_acquisition_free(&e->acq);
    free(e->energy);
    for (int c = 0; c < 3; ++c) free(e->velocity_before[c]);
}

static void describe_problem(const sf_simulation *s, const sf_elastic_medium *medium,
                             sf_elastic_problem *problem);

/* The backend keeps what it needs of the medium, which is gone by now. */
static void elastic_begin_shot(sf_simulation *s)
{
    sf_elastic_state *e = &s->elastic;
    sf_elastic_acquisition_free(&e->acq);
    sf_elastic_acquisition_build(&e->acq, s->cfg, &s->slab);
    sf_elastic_problem p;
    describe_problem(s, NULL, &p);
    e->ops->reset(e->backend, &p);
    s->channel_count = e->acq.channel_count;
    s->channel_global = e->acq.channel_global;
    if (e->energy) memset(e->energy, 0, (size_t)(s->steps ? s->steps : 1) * 2 * sizeof(double));
}

static int elastic_find_nonfinite(sf_simulation *s, sf_nonfinite *where)
{
    return s->elastic.ops->find_nonfinite(s->elastic.backend, where);
}

static const char *elastic_field_name(int field)
{
    static const char *const names[SF_ELASTIC_FIELDS] = {"vx",  "vy",  "vz",  "sxx", "syy",
                                                         "szz", "sxy", "sxz", "syz"};
    return field >= 0 && field < SF_ELASTIC_FIELDS ? names[field] : "?";
}

static const sf_physics_driver ELASTIC = {
    .name = "elastic",
    .before_sampling = elastic_before_sampling,
    .sample = elastic_sample,
    .fetch_samples = elastic_fetch_samples,
    .after_sampling = elastic_after_sampling,
    .synchronize = elastic_synchronize,
    .take_timers = elastic_take_timers,
    .memory_bytes = elastic_memory_bytes,
    .begin_shot = elastic_begin_shot,
    .find_nonfinite = elastic_find_nonfinite,
    .field_name = elastic_field_name,
    .free = elastic_free,
};

static void describe_problem(const sf_simulation *s, const sf_elastic_medium *medium,
                             sf_elastic_problem *problem)
{
    const sf_config *c = s->cfg;
    const sf_elastic_state *e = &s->elastic;
    sf_elastic_problem p = {0};
    p.nx = c->n[0];
    p.ny = c->n[1];
    p.nz = s->slab.nz;
    p.z0 = s->slab.z0;
    p.stencil = s->stencil;
    memcpy(p.h, c->spacing, sizeof p.h);
    p.dt = s->dt;
    p.medium = medium;
    p.cpml = s->cpml;
    p.free_surface = c->free_surface;
    p.source = e->acq.source;
    p.source_count = e->acq.source_count;
    p.channel_component = e->acq.channel_component;
    p.channel_points = e->acq.channel_points;
    p.channel_offset = e->acq.channel_offset;
    p.channel_count = e->acq.channel_count;
    p.sample_block = SF_SAMPLE_BLOCK;
    p.exchange_normal_stresses = e->acq.records_pressure;
    p.energy = c->energy_path != NULL;
    p.halo_transport = s->halo_transport;
    *problem = p;
}

static void create_backend(sf_simulation *s, const sf_elastic_medium *medium)
{
    sf_elastic_problem p;
    describe_problem(s, medium, &p);
    s->elastic.backend = s->elastic.ops->create(&p);
}

void sf_elastic_setup(sf_simulation *s, const sf_elastic_backend_ops *ops)
{
    const sf_config *c = s->cfg;
    sf_elastic_state *e = &s->elastic;
    s->driver = &ELASTIC;
    e->ops = ops;
    sf_elastic_medium medium;
    sf_elastic_medium_build(&medium, &s->model, &s->slab, c);
    sf_elastic_acquisition_build(&e->acq, c, &s->slab);
    create_backend(s, &medium);
    sf_elastic_medium_free(&medium);
    s->channel_count = e->acq.channel_count;
    s->channel_global = e->acq.channel_global;
    if (c->energy_path)
        e->energy = sf_calloc((size_t)(s->steps ? s->steps : 1) * 2, sizeof(double),
                              "the energy series");
}

static void describe_source(const sf_source_config *src, char *out, size_t len)
{
    const double *d = src->direction, *m = src->moment;
    switch (src->type) {
    case SF_SOURCE_FORCE:
        snprintf(out, len, "force (%g, %g, %g) N", d[0], d[1], d[2]);
        break;
    case SF_SOURCE_MOMENT:
        snprintf(out, len, "moment (xx %g, yy %g, zz %g, xy %g, xz %g, yz %g) N m", m[0], m[1],
                 m[2], m[3], m[4], m[5]);
        break;
    default: snprintf(out, len, "explosive");
    }
}

void sf_elastic_summary(const sf_simulation *s)
{
    const sf_config *c = s->cfg;
    char source[160], components[32] = "", wavelet[1200];
    sf_wavelet_describe(&c->source.wavelet, wavelet, sizeof wavelet);
    describe_source(&c->source, source, sizeof source);
    for (int q = 0; q < c->receivers.ncomponents; ++q)
        snprintf(components + strlen(components), sizeof components - strlen(components), "%s%s",
                 q ? " " : "", sf_component_name(c->receivers.component[q]));
    sf_info("  source            %s, %s, delay %g s at (%g, %g, %g) m", source, wavelet,
            c->source.delay, c->source.position[0], c->source.position[1],
            c->source.position[2]);
    sf_info("  receivers         %ld, components %s, %ld samples at %.6g s", c->receivers.count,
            components, s->resampler.nsamples, s->interval);
}

int sf_elastic_write_energy(sf_simulation *s)
{
    long count = s->steps;
    double *sum = s->slab.rank == 0 ? sf_malloc((size_t)(count ? count : 1) * 2 * sizeof(double),
                                                "the energy series")
                                    : NULL;
    if (count > 0)
        SF_MPI_CHECK(MPI_Reduce(s->elastic.energy, sum, (int)(2 * count), MPI_DOUBLE, MPI_SUM, 0,
                                s->slab.comm),
                     "summing the energy over ranks");
    int rc = sf_energy_write(s->cfg->energy_path, s->slab.comm, count, s->dt, sum, s->failure,
                             sizeof s->failure);
    free(sum);
    if (rc == 0)
        sf_info("seisfd: energy series written to %s (%ld steps)", s->cfg->energy_path, count);
    return rc;
}
