/* A shot's time loop: the stages of each step with their halo exchange
 * overlapped, receiver samples, snapshots, progress and interrupts; then
 * the record's checks for NaN and Inf and its time-dispersion transforms. */
#include "simulation_internal.h"
#include "sf_error.h"
#include "sf_output.h"
#include "sf_snapshot.h"
#include "sf_time_dispersion.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void snapshot_fields(sf_simulation *s, sf_snapshot_file *f, float *const *out, int before)
{
    for (int q = 0; q < f->nfields; ++q) {
        sf_component c = s->cfg->snapshot_field[q];
        int half = s->physics->half_step_component && s->physics->half_step_component(c);
        if (before && !half) continue;
        if (before && !s->half_step_before[c])
            s->half_step_before[c] = sf_malloc(sf_snapshot_local_count(f) * sizeof(float),
                                               "a half-step snapshot of this slab");
        s->ops->fetch_field(s->backend, c, &f->lattice, before ? s->half_step_before[c] : out[q]);
    }
}

/* The fields at t = n dt: a half-step component is the mean of its values
 * before and after the stages that precede the sample. */
static void write_snapshot(sf_simulation *s, sf_snapshot_file *f, long n, float *const *samples)
{
    sf_timer_start(&s->timers);
    snapshot_fields(s, f, samples, 0);
    size_t count = sf_snapshot_local_count(f);
    for (int q = 0; q < f->nfields; ++q) {
        const float *before = s->half_step_before[s->cfg->snapshot_field[q]];
        if (!before) continue;   /* kept for half-step components only */
        for (size_t i = 0; i < count; ++i) samples[q][i] = 0.5f * (samples[q][i] + before[i]);
    }
    sf_snapshot_write(f, n, (double)n * s->dt, samples);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
}

/* Stage g of step n over planes [k0, k1), with its source. */
static void update_planes(sf_simulation *s, int g, long n, long k0, long k1)
{
    s->ops->update(s->backend, g, k0, k1);
    int half = s->physics->source_half[g];
    if (half >= 0)
        s->ops->inject_source(s->backend, g, sf_source_signal_at(&s->source, 2 * n + half), k0, k1);
}

/* Stages [first, last) of step n. Each updates the planes its neighbours
 * read first, so that their exchange overlaps the interior; a stage whose
 * interior may wait does it during the next stage's exchange instead. A
 * rank with no neighbour has no exchange to overlap and goes in one piece
 * (on a GPU the edge pieces were launches of a few planes). */
void sim_run_stages(sf_simulation *s, long n, int first, int last)
{
    const sf_physics_plugin *ph = s->physics;
    const long nz = s->slab.nz;
    if (s->slab.lower == MPI_PROC_NULL && s->slab.upper == MPI_PROC_NULL) {
        for (int g = first; g < last; ++g) {
            update_planes(s, g, n, 0, nz);
            s->ops->finish_stage(s->backend, g);
        }
        return;
    }
    long lo[SF_MAX_STAGES], hi[SF_MAX_STAGES];
    int waiting[SF_MAX_STAGES], nwaiting = 0;
    for (int g = first; g < last; ++g) {
        long e = ph->edge_planes[g];
        lo[g] = nz < e ? nz : e;
        hi[g] = nz - e > lo[g] ? nz - e : lo[g];
        update_planes(s, g, n, 0, lo[g]);
        update_planes(s, g, n, hi[g], nz);
        if (ph->interior_waits[g] && g + 1 < last) {
            sf_halo_exchange(&s->halo, s->ops, s->backend, g, &s->timers);
            waiting[nwaiting++] = g;
            continue;
        }
        sf_halo_begin(&s->halo, s->ops, s->backend, g);
        for (int w = 0; w < nwaiting; ++w) {
            update_planes(s, waiting[w], n, lo[waiting[w]], hi[waiting[w]]);
            s->ops->finish_stage(s->backend, waiting[w]);
        }
        nwaiting = 0;
        update_planes(s, g, n, lo[g], hi[g]);
        sf_halo_finish(&s->halo, s->ops, s->backend, g, &s->timers);
        s->ops->finish_stage(s->backend, g);
    }
}

/* Step n up to the sample of t = n dt, with the snapshot of that time. */
static void before_sampling(sf_simulation *s, long n, sf_snapshot_file *snapshot,
                            float *const *samples)
{
    if (snapshot && s->physics->sample_after > 0) {
        sf_timer_start(&s->timers);
        snapshot_fields(s, snapshot, samples, 1);
        sf_timer_stop(&s->timers, SF_PHASE_IO);
    }
    sim_run_stages(s, n, 0, s->physics->sample_after);
    if (snapshot) write_snapshot(s, snapshot, n, samples);
}

/* The rest of step n, and the energy diagnostic of its end. */
static void after_sampling(sf_simulation *s, long n)
{
    sim_run_stages(s, n, s->physics->sample_after, s->physics->stages);
    if (!s->energy) return;
    sf_timer_start(&s->timers);
    s->ops->energy(s->backend, s->energy + 2 * n);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
}

/* Gathers the receiver samples of the last `count` levels ending at `level`. */
static void flush_samples(sf_simulation *s, long level, int count, float *block)
{
    /* A queuing backend first finishes the steps queued so far, so that
     * wait is not booked as receiver time (the device phases hold it). */
    s->ops->synchronize(s->backend);
    sf_timer_start(&s->timers);
    s->ops->fetch_receivers(s->backend, count, block);
    sf_resampler_accumulate(&s->resampler, level - count + 1, count, s->channel_count, block,
                            s->traces);
    sf_timer_stop(&s->timers, SF_PHASE_ACQUISITION);
}

/* Starts the clock of the timed steps: phase times restart from zero. */
static void start_timing(sf_simulation *s)
{
    double discarded[SF_PHASE_COUNT] = {0};
    s->ops->take_timers(s->backend, discarded);
    memset(&s->timers, 0, sizeof s->timers);
    s->guard_checks = 0;
}

static void print_progress(const sf_simulation *s, long done, double started)
{
    double elapsed = sf_now() - started;
    double rate = (double)s->cfg->n[0] * s->cfg->n[1] * s->cfg->n[2] * done / elapsed;
    double eta = elapsed / (double)done * (double)(s->steps - done);
    sf_info("  step %ld/%ld  t = %.4f s  %3.0f%%  %.3g Mpoints/s  ETA %.0f s", done, s->steps,
            (double)done * s->dt, 100.0 * done / s->steps, rate / 1e6, eta);
}

/* The records become the true medium's (sf_time_dispersion.h): elastic
 * velocities are sampled as the mean of two half steps, whose filter is
 * undone too. */
static void correct_time_dispersion(sf_simulation *s)
{
    const sf_config *c = s->cfg;
    if (!c->dispersion_correction) return;
    sf_timer_start(&s->timers);
    int *averaged = sf_malloc((size_t)(s->channel_count ? s->channel_count : 1) * sizeof(int),
                              "the channels' kinds");
    for (long q = 0; q < s->channel_count; ++q) {
        long component = s->channel_global[q] / c->receivers.count;
        const sf_physics_plugin *ph = s->physics;
        averaged[q] = ph->half_step_component && ph->half_step_component(c->receivers.component[component]);
    }
    const long stored = s->resampler.stored, kept = s->resampler.nsamples;
    sf_tdt_correct_traces(s->traces, s->channel_count, stored, s->interval, s->dt, averaged);
    free(averaged);
    /* The samples past the record's end have served: the rows close up. */
    for (long q = 1; q < s->channel_count; ++q)
        memmove(s->traces + (size_t)q * (size_t)kept, s->traces + (size_t)q * (size_t)stored,
                (size_t)kept * sizeof(float));
    sf_timer_stop(&s->timers, SF_PHASE_ACQUISITION);
}

/* Collective over the slab: the first sample of the record (rows of
 * `stride` samples, `count` of them looked at) that is NaN or Inf, as
 * gather row * count + sample, the same on every rank; -1 when none is. */
static long long first_nonfinite_sample(const sf_simulation *s, long stride, long count)
{
    long long mine = LLONG_MAX, first = LLONG_MAX;
    for (long q = 0; q < s->channel_count; ++q) {
        const float *row = s->traces + (size_t)q * (size_t)stride;
        for (long n = 0; n < count; ++n)
            if (!isfinite(row[n])) {
                long long at = (long long)s->channel_global[q] * count + n;
                mine = at < mine ? at : mine;
                break;
            }
    }
    SF_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_LONG_LONG, MPI_MIN, s->slab.comm),
                 "checking the traces");
    return first == LLONG_MAX ? -1 : first;
}

/* Collective over the slab: a record with a NaN or Inf is never written
 * as a good one, whether the guard was off or the values overflowed after
 * its last check; `stage` says when the record was looked at. 0, or -1
 * with s->failure. */
static int check_traces(sf_simulation *s, long stride, const char *stage)
{
    sf_timer_start(&s->timers);
    const long count = s->resampler.nsamples;
    const long long first = first_nonfinite_sample(s, stride, count);
    sf_timer_stop(&s->timers, SF_PHASE_GUARD);
    if (first < 0) return 0;
    const sf_receiver_config *r = &s->cfg->receivers;
    const long row = (long)(first / count);
    char component[48] = "";
    if (r->ncomponents > 1)
        snprintf(component, sizeof component, ", component %s",
                 sf_component_name(r->component[row / r->count]));
    snprintf(s->failure, sizeof s->failure,
             "unstable: the record holds a value that is not finite (NaN or Inf) %s, first at "
             "receiver %ld of %ld%s, t = %.6g s: the wavefield overflowed float32%s; no gather "
             "is written",
             stage, row % r->count + 1, r->count, component, (double)(first % count) * s->interval,
             s->check_every ? ""
                            : " with the instability guard off (run.check_every: 0); turn it "
                              "on to stop such a run where it starts and learn why");
    return -1;
}

/* The snapshots of a shot, under their temporary names. */
static void open_snapshots(sf_simulation *s, sf_snapshot_file *f, float **snapshot)
{
    const sf_config *c = s->cfg;
    char xdmf[SF_OUTPUT_PATH];
    sf_snapshot_xdmf_name(c->snapshot_path, xdmf, sizeof xdmf);
    sf_output_set_add(&s->outputs, c->snapshot_path);
    sf_output_set_add(&s->outputs, xdmf);
    sf_snapshot_open(f, c, &s->slab);
    for (int q = 0; q < f->nfields; ++q)
        snapshot[q] = sf_malloc(sf_snapshot_local_count(f) * sizeof(float),
                                "a snapshot of this slab");
}

/* 0, or -1 with s->failure when kept snapshots could not be finished. */
static int close_snapshots(sf_simulation *s, sf_snapshot_file *f, float **snapshot, int keep)
{
    if (!snapshot[0]) return 0;
    sf_timer_start(&s->timers);
    int rc = 0;
    if (keep)
        rc = sf_snapshot_close(f, s->failure, sizeof s->failure);
    else
        sf_snapshot_abandon(f);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
    for (int q = 0; q < SF_COMPONENTS; ++q) free(snapshot[q]);
    return rc;
}

/* Does the agreed request stop the shot? Then s->stop and s->failure say
 * so, naming the step. */
int sim_stopped_by(sf_simulation *s, int request, long step)
{
    if (request == 0 || sf_interrupt_kind(request) < s->stops_on) return 0;
    s->stop = request;
    s->stop_step = step;
    snprintf(s->failure, sizeof s->failure, "interrupted by %s at step %ld of %ld",
             sf_interrupt_signal_name(request), step, s->steps);
    return 1;
}

int sf_simulation_run(sf_simulation *s, int progress)
{
    float *block = sf_malloc((size_t)SF_SAMPLE_BLOCK *
                                 (size_t)(s->channel_count ? s->channel_count : 1) * sizeof(float),
                             "a block of receiver samples");
    const sf_config *c = s->cfg;
    if (c->model_output_path) sim_write_model(s);
    SF_MPI_CHECK(MPI_Barrier(s->slab.comm), "starting the time loop");
    s->setup_timers = s->timers;
    start_timing(s);
    sf_snapshot_file snapshots;
    float *snapshot[SF_COMPONENTS] = {NULL};
    if (c->snapshot_path) open_snapshots(s, &snapshots, snapshot);
    sf_growth_guard_init(&s->growth, sim_guard_start(s));
    int failed = 0;
    sf_interrupt_poll poll;
    sf_interrupt_poll_begin(&poll);
    double started = sf_now(), last_print = started;
    for (long n = 0; n <= s->steps; ++n) {
        if (n == s->warmup_steps && n > 0) {
            /* Benchmarks time only the steps after the warm-up. */
            s->ops->synchronize(s->backend);
            SF_MPI_CHECK(MPI_Barrier(s->slab.comm), "ending the warm-up");
            start_timing(s);
            started = sf_now();
        }
        int snap = snapshot[0] && n > 0 && n % c->snapshot_every == 0;
        before_sampling(s, n, snap ? &snapshots : NULL, snapshot);

        sf_timer_start(&s->timers);
        int slot = (int)(n % SF_SAMPLE_BLOCK);
        s->ops->sample_receivers(s->backend, slot);
        sf_timer_stop(&s->timers, SF_PHASE_ACQUISITION);
        if (slot == SF_SAMPLE_BLOCK - 1 || n == s->steps) flush_samples(s, n, slot + 1, block);
        if (n == s->steps) break;

        after_sampling(s, n);
        if (sim_test_growth_here(s)) s->ops->amplify(s->backend, (float)s->test_growth);
        if (sim_guard_due(s, n + 1) && sim_check_stability(s, n + 1) != 0) {
            failed = 1;
            break;
        }
        if (s->between_steps) s->between_steps(s->between_steps_arg);
        if (sim_stopped_by(s, sf_interrupt_poll_step(&poll, s->slab.comm), n + 1)) {
            failed = 1;
            break;
        }
        if (progress && s->slab.rank == 0 && sf_now() - last_print >= s->cfg->progress_interval) {
            print_progress(s, n + 1, started);
            last_print = sf_now();
        }
    }
    sf_interrupt_poll_end(&poll);
    s->ops->synchronize(s->backend);
    SF_MPI_CHECK(MPI_Barrier(s->slab.comm), "finishing the time loop");
    s->loop_seconds = sf_now() - started;
    s->ops->take_timers(s->backend, s->timers.seconds);
    s->loop_timers = s->timers;
    free(block);
    if (!failed) failed = check_traces(s, s->resampler.stored, "as recorded") != 0;
    if (!failed) correct_time_dispersion(s);
    if (!failed && c->dispersion_correction)
        failed = check_traces(s, s->resampler.nsamples,
                              "after the time-dispersion transforms") != 0;
    if (close_snapshots(s, &snapshots, snapshot, !failed) != 0) failed = 1;
    return failed ? -1 : 0;
}
