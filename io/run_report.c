#include "sf_run_report.h"
#include "sf_error.h"
#include "sf_interrupt.h"
#include "sf_json.h"
#include "sf_output.h"
#include "sf_version.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The report's names of the phases, in sf_timers order, then "halo_exposed". */
static const char *const PHASE_KEYS[SF_RESULT_PHASES] = {
    "stencil", "halo_pack", "halo_d2h", "halo_mpi", "halo_h2d", "halo_unpack",
    "acquisition", "io", "guard", "halo_exposed"};

void sf_report_default_path(const char *gather, char *out, size_t len)
{
    const char *slash = strrchr(gather, '/'), *dot = strrchr(gather, '.');
    size_t stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - gather) : strlen(gather);
    snprintf(out, len, "%.*s.report.json", (int)stem, gather);
}

static void key_string(FILE *f, const char *key, const char *value, int comma)
{
    sf_json_key(f, key);
    sf_json_string(f, value);
    if (comma) fputs(", ", f);
}

static void key_number(FILE *f, const char *key, double value, int comma)
{
    sf_json_key(f, key);
    sf_json_number(f, value);
    if (comma) fputs(", ", f);
}

static const char *model_name(sf_model_kind kind)
{
    static const char *const names[] = {"homogeneous", "layered", "raw", "hdf5", "segy"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

static int widest_cpml(const sf_config *c)
{
    int widest = 0;
    for (int f = 0; f < 6; ++f) widest = c->cpml[f] > widest ? c->cpml[f] : widest;
    return widest;
}

/* The source's wavelet, and how many shots of a survey have their own. */
static void write_wavelet(FILE *f, const sf_config *c)
{
    char text[1200];
    sf_wavelet_describe(&c->source.wavelet, text, sizeof text);
    key_string(f, "wavelet", text, 1);
    key_string(f, "wavelet_kind", sf_wavelet_kind_name(c->source.wavelet.kind), 1);
    long own = 0;
    for (long n = 0; c->survey.enabled && n < c->survey.count; ++n) own += !!c->survey.shots[n].wavelet;
    fprintf(f, "\"shots_with_own_wavelet\": %ld, ", own);
}

static void write_config(FILE *f, const sf_run_report *r)
{
    const sf_config *c = r->cfg;
    fputs("  \"config\": {", f);
    key_string(f, "physics", sf_config_physics(c)->name, 1);
    fprintf(f, "\"order\": %d, \"nx\": %ld, \"ny\": %ld, \"nz\": %ld, ", c->order, c->n[0], c->n[1],
            c->n[2]);
    key_number(f, "dx", c->spacing[0], 1);
    key_number(f, "dy", c->spacing[1], 1);
    key_number(f, "dz", c->spacing[2], 1);
    key_number(f, "dt", r->dt, 1);
    fprintf(f, "\"steps\": %ld, \"cpml\": %d, \"cpml_faces\": [%d, %d, %d, %d, %d, %d], ", r->steps,
            widest_cpml(c), c->cpml[0], c->cpml[1], c->cpml[2], c->cpml[3], c->cpml[4], c->cpml[5]);
    fprintf(f, "\"free_surface\": %s, ", c->free_surface ? "true" : "false");
    key_string(f, "device", r->placement->name, 1);
    key_string(f, "precision", sf_precision_name(c->precision), 1);
    key_string(f, "gpu_aware_mpi", sf_gpu_aware_name(r->placement->gpu_aware.mode), 1);
    key_string(f, "halo_transport", sf_halo_transport_name(r->placement->transport), 1);
    key_string(f, "model", model_name(c->model.kind), 1);
    write_wavelet(f, c);
    fprintf(f, "\"shots\": %ld, \"receivers\": %ld, ", r->nshots, c->receivers.count);
    key_string(f, "receiver_motion",
               c->survey.receivers == SF_RECEIVERS_MOVING ? "moving" : "fixed", 0);
    fputs("},\n", f);
}

static void write_process(FILE *f, const sf_process_info *p, int last)
{
    fprintf(f, "    {\"rank\": %d, \"group\": %d, ", p->rank, p->group);
    key_string(f, "host", p->host, 1);
    sf_json_key(f, "gpu");
    if (p->gpu_index < 0) {
        fputs("null, ", f);
    } else {
        fprintf(f, "{\"index\": %d, ", p->gpu_index);
        key_string(f, "name", p->gpu_name, 1);
        key_string(f, "uuid", p->gpu_uuid, 0);
        fputs("}, ", f);
    }
    key_string(f, "halo", p->halo_reason, 1);
    fprintf(f, "\"threads\": {\"count\": %d, ", p->threads);
    key_string(f, "origin", p->threads_origin, 0);
    fputs("}, ", f);
    key_number(f, "memory_bytes", p->memory_bytes, 1);
    sf_json_key(f, "setup_seconds");
    fputc('{', f);
    for (int part = 0; part < SF_SETUP_PARTS; ++part)
        key_number(f, sf_setup_part_name((sf_setup_part)part), p->setup_seconds[part],
                   part + 1 < SF_SETUP_PARTS);
    fputs("}, ", f);
    fprintf(f, "\"slab\": {\"first_plane\": %ld, \"planes\": %ld, ", p->slab.first_plane,
            p->slab.planes);
    key_number(f, "predicted_compute_seconds_per_step", p->slab.predicted, 1);
    key_number(f, "measured_compute_seconds_per_step", p->slab.measured, 0);
    fputc('}', f);
    fputs(last ? "}\n" : "},\n", f);
}

/* A phase the halo transport does not have (host copies without host
 * staging) is null, not a time of zero. */
static void write_phases(FILE *f, const sf_shot_result *s, sf_halo_transport transport)
{
    sf_json_key(f, "phases");
    fputc('{', f);
    for (int p = 0; p < SF_RESULT_PHASES; ++p) {
        if (p < SF_PHASE_COUNT && !sf_phase_applies((sf_phase)p, transport)) {
            sf_json_key(f, PHASE_KEYS[p]);
            fputs("null", f);
        } else {
            key_number(f, PHASE_KEYS[p], s->phases[p], 0);
        }
        if (p + 1 < SF_RESULT_PHASES) fputs(", ", f);
    }
    fputc('}', f);
}

static void write_shot(FILE *f, const sf_shot_result *s, const sf_config *c,
                       sf_halo_transport transport, int last)
{
    fprintf(f, "    {\"index\": %ld, ", s->index);
    key_string(f, "status", sf_shot_status_name(s->status), 1);
    char wavelet[1200];
    sf_wavelet_describe(c->survey.enabled ? sf_shot_wavelet(c, s->index - 1) : &c->source.wavelet,
                        wavelet, sizeof wavelet);
    key_string(f, "wavelet", wavelet, 1);
    fprintf(f, "\"group\": %d, ", s->group);
    key_number(f, "seconds", s->seconds, 1);
    key_number(f, "loop_seconds", s->loop_seconds, 1);
    fprintf(f, "\"steps\": %ld, ", s->steps);
    key_number(f, "points_per_second", s->points_per_second, 1);
    sf_json_key(f, "files");
    fputc('[', f);
    for (int k = 0; k < s->nfiles; ++k) {
        if (k) fputs(", ", f);
        sf_json_string(f, s->files[k]);
    }
    fputs("], ", f);
    if (s->status == SF_SHOT_FAILED || s->status == SF_SHOT_INTERRUPTED)
        key_string(f, "reason", s->reason, 1);
    if (s->finished[0]) key_string(f, "finished", s->finished, 1);
    write_phases(f, s, transport);
    fputs(last ? "}\n" : "},\n", f);
}

/* How the run ended: interrupted by a signal with work left undone, with
 * a shot failed, or done. */
static void write_status(FILE *f, const sf_run_report *r)
{
    int failed = 0;
    for (long n = 0; n < r->nshots; ++n) failed |= r->shots[n].status == SF_SHOT_FAILED;
    key_string(f, "status", r->stop ? "interrupted" : failed ? "failed" : "done", 1);
    sf_json_key(f, "signal");
    if (r->stop)
        sf_json_string(f, sf_interrupt_signal_name(r->stop));
    else
        fputs("null", f);
}

static void write_totals(FILE *f, const sf_run_report *r)
{
    long done = 0, failed = 0, skipped = 0, interrupted = 0;
    double points = 0.0, loop = 0.0;
    const sf_config *c = r->cfg;
    for (long n = 0; n < r->nshots; ++n) {
        const sf_shot_result *s = &r->shots[n];
        done += s->status == SF_SHOT_DONE;
        failed += s->status == SF_SHOT_FAILED;
        skipped += s->status == SF_SHOT_SKIPPED;
        interrupted += s->status == SF_SHOT_INTERRUPTED;
        if (s->status != SF_SHOT_DONE) continue;
        points += (double)c->n[0] * (double)c->n[1] * (double)c->n[2] * (double)s->steps;
        loop += s->loop_seconds;
    }
    double wall = r->wall_seconds > 0.0 ? r->wall_seconds : 1e-9;
    double compute = r->compute_seconds > 0.0 ? r->compute_seconds : wall;
    fprintf(f, "  \"totals\": {\"shots\": %ld, \"done\": %ld, \"failed\": %ld, \"skipped\": %ld, "
            "\"interrupted\": %ld, ", r->nshots, done, failed, skipped, interrupted);
    key_number(f, "points_per_second", points / compute, 1);
    key_number(f, "shots_per_hour", 3600.0 * (double)done / wall, 1);
    key_number(f, "loop_seconds", loop, 1);
    key_number(f, "compute_seconds", compute, 0);
    fputs("}\n", f);
}

static void write_report(FILE *f, const sf_run_report *r)
{
    fputs("{\n  ", f);
    key_string(f, "seisfd_version", SEISFD_VERSION, 1);
    key_string(f, "command", r->command, 0);
    fputs(",\n  \"job\": {", f);
    key_string(f, "path", r->job_path, 1);
    key_string(f, "hash", r->job_hash, 0);
    fputs("},\n  ", f);
    key_string(f, "started", r->started, 1);
    key_string(f, "finished", r->finished, 1);
    key_number(f, "wall_seconds", r->wall_seconds, 0);
    fputs(",\n  ", f);
    write_status(f, r);
    fputs(",\n", f);
    write_config(f, r);
    fprintf(f, "  \"ranks\": %d, \"ranks_per_shot\": %d, \"groups\": %d,\n  \"processes\": [\n",
            r->ranks, r->ranks_per_shot, r->groups);
    for (int p = 0; p < r->ranks; ++p) write_process(f, &r->processes[p], p + 1 == r->ranks);
    fputs("  ],\n  \"shots\": [\n", f);
    for (long n = 0; n < r->nshots; ++n)
        write_shot(f, &r->shots[n], r->cfg, r->placement->transport, n + 1 == r->nshots);
    fputs("  ],\n", f);
    write_totals(f, r);
    fputs("}\n", f);
}

int sf_report_write(const char *path, const sf_run_report *report, char *reason, size_t len)
{
    char partial[4200];
    sf_output_partial_name(path, partial, sizeof partial);
    if (sf_output_make_parents(path, reason, len) != 0) return -1;
    FILE *f = fopen(partial, "w");
    if (!f) {
        snprintf(reason, len, "cannot create '%.600s': %s", partial, strerror(errno));
        return -1;
    }
    write_report(f, report);
    int failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        snprintf(reason, len, "cannot write '%.600s': %s", partial, strerror(errno));
        remove(partial);
        return -1;
    }
    return sf_output_commit(path, reason, len);
}
