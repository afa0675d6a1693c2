/* The output and run sections of a job file: the gather, snapshots,
 * model and energy files of a single shot or the directory of a survey;
 * the device, progress and checks of the run. */
#include "config_sections.h"

#include "sf_physics_registry.h"

#include <stdio.h>

static int takes_energy(sf_physics p, int what) { return (void)what, sf_physics_declared(p)->energy; }

static void read_decimation(cfg_reader *r, sf_yaml_node *snap, sf_config *c)
{
    sf_yaml_node *n = sf_yaml_take(snap, "decimation");
    if (!n) return;
    double d[3];
    long single;
    if (n->kind == SF_YAML_SEQUENCE) {
        if (cfg_vector(r, n, "output.snapshots.decimation", 3, (cfg_range){1, 1000, 0, 0}, d) <= 0)
            return;
        for (int a = 0; a < 3; ++a) {
            c->snapshot_decimation[a] = (long)d[a];
            if (d[a] != (double)(long)d[a])
                cfg_problem(r, n->line, n->column, "output.snapshots.decimation",
                            "decimation factors must be whole numbers");
        }
    } else if (cfg_integer_node(r, n, "output.snapshots.decimation", 1, 1000, &single) > 0) {
        for (int a = 0; a < 3; ++a) c->snapshot_decimation[a] = single;
    }
}

/* Snapshots store every component the physics has (p; an elastic job's
 * vx, vy, vz and p) unless `fields` chooses. */
static void read_snapshot_fields(cfg_reader *r, sf_yaml_node *snap, sf_config *c)
{
    int n = cfg_read_components(r, snap, "fields", "output.snapshots", c, c->snapshot_field);
    if (n > 0) {
        c->snapshot_nfields = n;
        return;
    }
    c->snapshot_nfields = 0;
    for (int k = 0; k < SF_COMPONENTS; ++k)
        if ((sf_config_physics(c)->components >> k) & 1)
            c->snapshot_field[c->snapshot_nfields++] = (sf_component)k;
}

static void read_snapshots(cfg_reader *r, sf_yaml_node *o, sf_config *c)
{
    sf_yaml_node *snap = cfg_section(r, o, "snapshots", "output", 0);
    if (!snap) return;
    cfg_string(r, snap, "path", "output.snapshots", 1, &c->snapshot_path, &c->snapshot_mark);
    cfg_integer(r, snap, "every", "output.snapshots", 1, SF_MAX_STEPS, 1, &c->snapshot_every, NULL);
    read_decimation(r, snap, c);
    read_snapshot_fields(r, snap, c);
    cfg_reject_unknown(r, snap, "output.snapshots", "path, every, decimation, fields");
}

/* A survey writes each shot into output.directory under names of its
 * own; the single-shot keys that name files are not for it. */
static void read_survey_output(cfg_reader *r, sf_yaml_node *o, sf_config *c)
{
    static const char *const single_shot[] = {"gather", "snapshots", "model", "energy", NULL};
    static const char *const why[] = {
        "a survey names each shot's gather shot_NNNN.h5 in output.directory; give that instead",
        "snapshots are for single-shot jobs; a survey writes gathers only",
        "the model on the grid is written by single-shot jobs only (run one shot without survey:)",
        "the energy series is for single-shot jobs; a survey writes gathers only"};
    for (int k = 0; single_shot[k]; ++k) {
        const sf_yaml_node *n = sf_yaml_take(o, single_shot[k]);
        char full[64];
        snprintf(full, sizeof full, "output.%s", single_shot[k]);
        if (n) cfg_problem(r, n->line, n->column, full, "%s", why[k]);
    }
    cfg_string(r, o, "directory", "output", 1, &c->output_directory, &c->output_directory_mark);
    cfg_boolean(r, o, "segy", "output", &c->survey_segy);
    c->segy_mark = c->output_directory_mark;
}

void cfg_read_output(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *o = cfg_section(r, root, "output", "", 1);
    if (!o) return;
    cfg_boolean(r, o, "overwrite", "output", &c->overwrite);
    cfg_string(r, o, "report", "output", 0, &c->report_path, &c->report_mark);
    if (c->survey.enabled) {
        read_survey_output(r, o, c);
        cfg_reject_unknown(r, o, "output", "directory, segy, overwrite, report");
        return;
    }
    const sf_yaml_node *dir = sf_yaml_take(o, "directory");
    if (dir)
        cfg_problem(r, dir->line, dir->column, "output.directory",
                    "only a survey (a survey: section) writes into a directory; a single shot "
                    "names its gather with output.gather");
    cfg_string(r, o, "gather", "output", 1, &c->gather_path, &c->gather_mark);
    cfg_string(r, o, "segy", "output", 0, &c->segy_path, &c->segy_mark);
    read_snapshots(r, o, c);
    cfg_string(r, o, "model", "output", 0, &c->model_output_path, &c->model_output_mark);
    cfg_reject_foreign_key(r, o, "output", "energy", c, takes_energy, 0);
    cfg_string(r, o, "energy", "output", 0, &c->energy_path, &c->energy_mark);
    cfg_reject_unknown(r, o, "output", sf_config_physics(c)->energy
                                           ? "gather, segy, overwrite, snapshots, model, energy, "
                                             "report"
                                           : "gather, segy, overwrite, snapshots, model, report");
}

void cfg_read_run(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *u = cfg_section(r, root, "run", "", 0);
    if (!u) return;
    int device = 0;
    if (cfg_choice(r, u, "device", "run", "auto|cpu|cuda", 0, &device, NULL) > 0)
        c->device = (sf_device_kind)device;
    int gpu_aware = 0;
    if (cfg_choice(r, u, "gpu_aware_mpi", "run", "auto|on|off", 0, &gpu_aware,
                   &c->gpu_aware_mpi_mark) > 0)
        c->gpu_aware_mpi = (sf_gpu_aware_mode)gpu_aware;
    cfg_number(r, u, "progress_interval", "run", (cfg_range){1e-3, 1e6, 0, 0}, 0,
               &c->progress_interval, NULL);
    cfg_integer(r, u, "check_every", "run", 0, SF_MAX_STEPS, 0, &c->check_every,
                &c->check_every_mark);
    int slabs = 0;
    if (cfg_choice(r, u, "slabs", "run", "balanced|equal", 0, &slabs, NULL) > 0)
        c->slabs = (sf_slab_policy)slabs;
    cfg_reject_unknown(r, u, "run", "device, gpu_aware_mpi, progress_interval, check_every, slabs");
}
