/* The job reader's entry points: defaults, the sections in order (each
 * read in the file named for it, config_sections.h), the checks that need
 * the whole job, and freeing a parsed job. */
#include "config_keys.h"
#include "config_sections.h"
#include "survey_config.h"
#include "sf_config.h"
#include "sf_error.h"
#include "sf_file_read.h"
#include "sf_physics_registry.h"
#include "fingerprint.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_defaults(sf_config *c)
{
    memset(c, 0, sizeof *c);
    c->physics = SF_PHYSICS_DEFAULT;
    c->order = 8;
    c->mechanisms = SF_MECHANISMS_DEFAULT;
    for (int f = 0; f < 6; ++f) c->cpml[f] = 20;
    c->cfl_safety = 0.8;
    c->dispersion_correction = 1;
    c->source.amplitude = 1.0;
    c->progress_interval = 5.0;
    c->check_every = 100;
    c->device = SF_DEVICE_AUTO;
    c->gpu_aware_mpi = SF_GPU_AWARE_AUTO;
    for (int a = 0; a < 3; ++a) c->snapshot_decimation[a] = 1;
}


void sf_config_sample_medium(sf_model_config *m, sf_physics p)
{
    const sf_physics_declaration *d = sf_physics_declared(p);
    m->kind = SF_MODEL_HOMOGENEOUS;
    for (int q = 0; q < d->nparams; ++q) m->value[q] = d->param[q]->typical;
}

/* The sections, in the order they are read. */
#define SECTION(section, is_required, table, what)                                             \
    {.name = section, .type = CFG_KEY_MAPPING, .required = is_required,                        \
     .fallback = is_required ? NULL : "none", .keys = table, .help = what}
static const cfg_key SECTION_ROWS[] = {
    SECTION("grid", 1, &CFG_GRID_KEYS, "the grid's points and spacings"),
    SECTION("time", 1, &CFG_TIME_KEYS, "the time step and the record's length"),
    SECTION("physics", 0, &CFG_PHYSICS_KEYS, "the wave equation and the stencil's order"),
    SECTION("model", 1, &CFG_MODEL_KEYS, "the medium"),
    SECTION("boundaries", 0, &CFG_BOUNDARY_KEYS, "the absorbing layers and the free surface"),
    SECTION("source", 1, &CFG_SOURCE_KEYS, "the source and its wavelet"),
    SECTION("receivers", 1, &CFG_RECEIVER_KEYS, "where traces are recorded"),
    SECTION("survey", 0, &CFG_SURVEY_KEYS, "many shots in one job"),
    SECTION("output", 1, &CFG_OUTPUT_KEYS, "the files written (a survey's: below)"),
    SECTION("run", 0, &CFG_RUN_KEYS, "the device, progress lines and instability checks"),
};
const cfg_table CFG_ROOT_KEYS =
    CFG_TABLE("", "The sections", "A job file is a mapping of these sections.", SECTION_ROWS);

typedef void (*section_reader)(cfg_reader *r, sf_yaml_node *root, sf_config *c);

/* Reads a section; 1 when it had no problems. */
static int read_cleanly(cfg_reader *r, sf_yaml_node *root, sf_config *c, section_reader read)
{
    int before = r->problems;
    read(r, root, c);
    return r->problems == before;
}

int sf_config_parse(const char *text, size_t length, const char *path, sf_config *c)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    set_defaults(c);
    c->source_path = sf_strdup(path);
    c->text = sf_malloc(length + 1, "the job text");
    memcpy(c->text, text, length);
    c->text[length] = '\0';

    cfg_reader r = {.file = path, .print = rank == 0};
    char err[512];
    sf_yaml_node *root = sf_yaml_parse(text, length, err, sizeof err);
    if (!root) {
        char text[1024];
        snprintf(text, sizeof text, "%s:%s", path, err);
        if (r.print) cfg_print_line(text);
        return 1;
    }
    if (root->kind != SF_YAML_MAPPING) {
        cfg_problem(&r, root->line, root->column, NULL,
                    "a job file is a mapping of sections (grid, time, model, ...)");
        sf_yaml_free(root);
        return r.problems;
    }
    /* The source and output sections read differently in a survey. */
    c->survey.enabled = sf_yaml_peek(root, "survey") != NULL;
    sf_hash_text(cfg_job_hash(root), c->hash);
    cfg_clean_sections ok;
    ok.grid = read_cleanly(&r, root, c, cfg_read_grid);
    cfg_read_time(&r, root, c);
    cfg_read_physics(&r, root, c);
    cfg_read_model(&r, root, c);
    ok.boundaries = read_cleanly(&r, root, c, cfg_read_boundaries);
    ok.source = read_cleanly(&r, root, c, cfg_read_source);
    ok.receivers = read_cleanly(&r, root, c, cfg_read_receivers);
    ok.survey = read_cleanly(&r, root, c, cfg_read_survey);
    cfg_read_output(&r, root, c);
    cfg_read_run(&r, root, c);
    cfg_reject_unknown_keys(&r, root, &CFG_ROOT_KEYS, c);
    cfg_check_geometry(&r, c, &ok);
    sf_yaml_free(root);
    return r.problems;
}

const sf_config *sf_config_job(const sf_config *c) { return c->survey_job ? c->survey_job : c; }

long sf_config_memory_variables(const sf_config *c) { return c->relaxation_coarse ? 1 : c->mechanisms; }

void sf_config_free(sf_config *c)
{
    free(c->source_path);
    free(c->text);
    free(c->model.layers);
    for (int p = 0; p < SF_MAX_PARAMS; ++p) {
        free(c->model.path[p]);
        free(c->model.dataset[p]);
    }
    free(c->receivers.position);
    free(c->gather_path);
    free(c->snapshot_path);
    free(c->model_output_path);
    free(c->segy_path);
    free(c->energy_path);
    free(c->output_directory);
    free(c->report_path);
    sf_wavelet_spec_free(&c->source.wavelet);
    for (long n = 0; n < c->survey.count; ++n) {
        if (!c->survey.shots[n].wavelet) continue;
        sf_wavelet_spec_free(c->survey.shots[n].wavelet);
        free(c->survey.shots[n].wavelet);
    }
    free(c->survey.shots);
    for (long k = 0; k < c->nwavelets; ++k) {
        sf_wavelet_free(c->wavelets[k]);
        free(c->wavelets[k]);
    }
    free(c->wavelets);
    free(c->wavelets_spec);
    memset(c, 0, sizeof *c);
}

/* A job file is text of at most this size (a broadcast of one int count). */
enum { MAX_JOB_BYTES = 1 << 28 };

void sf_config_load(const char *path, sf_config *cfg)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long length = -1;
    char *text = NULL, reason[256] = "";
    if (rank == 0) {
        size_t read = 0;
        text = sf_file_read_text(path, MAX_JOB_BYTES, &read, reason, sizeof reason);
        if (text) length = (long)read;
    }
    SF_MPI_CHECK(MPI_Bcast(&length, 1, MPI_LONG, 0, MPI_COMM_WORLD), "broadcasting the job size");
    if (length < 0) sf_fail_collective("cannot read the job file '%s': %s", path, reason);
    if (rank != 0) text = sf_malloc((size_t)length + 1, "the job text");
    SF_MPI_CHECK(MPI_Bcast(text, (int)length, MPI_CHAR, 0, MPI_COMM_WORLD),
                 "broadcasting the job file");
    int problems = sf_config_parse(text, (size_t)length, path, cfg);
    free(text);
    /* Signature files are read once the job parses: their keys are known good. */
    if (!problems) problems = cfg_load_wavelets(cfg);
    if (problems) {
        if (rank == 0)
            fprintf(stderr, "seisfd: error: %d problem%s in job file '%s'\n", problems,
                    problems == 1 ? "" : "s", path);
        sf_exit_collective();
    }
}

void sf_config_report(const sf_config *cfg, sf_mark mark, const char *fmt, ...)
{
    if (sf_error_rank() != 0) return;
    va_list ap;
    va_start(ap, fmt);
    cfg_vprint(cfg->source_path, mark, NULL, fmt, ap);
    va_end(ap);
}
