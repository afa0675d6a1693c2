/* The output and run sections of a job file: the gather, snapshots,
 * model and energy files of a single shot or the directory of a survey;
 * the device, progress and checks of the run. */
#include "config_keys.h"
#include "config_sections.h"

#include "sf_physics_registry.h"

#include <stdio.h>

static int takes_energy(sf_physics p, int what) { return (void)what, sf_physics_declared(p)->energy; }

static int read_decimation(cfg_reader *r, sf_yaml_node *snap, const char *path,
                           const cfg_key *key, void *place)
{
    sf_config *c = place;
    sf_yaml_node *n = sf_yaml_take(snap, key->name);
    if (!n) return 0;
    char full[64];
    snprintf(full, sizeof full, "%s.%s", path, key->name);
    double d[3];
    long single;
    if (n->kind == SF_YAML_SEQUENCE) {
        if (cfg_vector(r, n, full, 3, key->range, d) <= 0) return -1;
        for (int a = 0; a < 3; ++a) {
            c->snapshot_decimation[a] = (long)d[a];
            if (d[a] != (double)(long)d[a])
                cfg_problem(r, n->line, n->column, full, "decimation factors must be whole numbers");
        }
        return 1;
    }
    if (cfg_integer_node(r, n, full, key->lo, key->hi, &single) <= 0) return -1;
    for (int a = 0; a < 3; ++a) c->snapshot_decimation[a] = single;
    return 1;
}

/* Snapshots store every component the physics has (p; an elastic job's
 * vx, vy, vz and p) unless `fields` chooses. */
static int read_snapshot_fields(cfg_reader *r, sf_yaml_node *snap, const char *path,
                                const cfg_key *key, void *place)
{
    sf_config *c = place;
    return cfg_read_components(r, snap, key->name, path, c, sf_config_physics(c)->components,
                               c->snapshot_field, &c->snapshot_nfields);
}

static const cfg_key SNAPSHOT_ROWS[] = {
    {.name = "path", .type = CFG_KEY_TEXT, .required = 1,
     .help = "HDF5 file of the snapshots (and an .xdmf file beside it)",
     .form = "path", .value = CFG_AT(sf_config, snapshot_path), .mark = CFG_AT(sf_config, snapshot_mark)},
    {.name = "every", .type = CFG_KEY_INTEGER, .lo = 1, .hi = SF_MAX_STEPS, .required = 1,
     .unit = "steps", .help = "steps between snapshots",
     .value = CFG_AT(sf_config, snapshot_every)},
    {.name = "decimation", .type = CFG_KEY_SPECIAL, .read = read_decimation, .lo = 1, .hi = 1000,
     .range = {1, 1000, 0, 0}, .form = "whole number, or a list of 3 for x, y, z",
     .fallback = "1", .help = "keep every Nth point on each axis"},
    {.name = "fields", .type = CFG_KEY_SPECIAL, .read = read_snapshot_fields,
     .form = "list of distinct names out of vx, vy, vz, p",
     .fallback = "every component the physics has", .help = "the wavefield components stored"},
};
static const cfg_table CFG_SNAPSHOT_KEYS =
    CFG_TABLE("output.snapshots", NULL, "Optional; single-shot jobs only.", SNAPSHOT_ROWS);

/* Only a physics that declares an energy series takes output.energy. */
static int offers_energy(const sf_config *c) { return sf_config_physics(c)->energy; }
static void energy_physics(char *out, size_t len) { cfg_physics_taking(takes_energy, 0, out, len); }

/* A survey's segy is a switch; the mark is the directory's. */
static const cfg_key SURVEY_OUTPUT_ROWS[] = {
    {.name = "directory", .type = CFG_KEY_TEXT, .required = 1,
     .help = "directory of the shots' gathers (shot_NNNN.h5) and the manifest",
     .form = "path", .value = CFG_AT(sf_config, output_directory),
     .mark = CFG_AT(sf_config, output_directory_mark)},
    {.name = "segy", .type = CFG_KEY_BOOLEAN, .fallback = "false",
     .help = "write each shot's gather as SEG-Y rev 1 too",
     .value = CFG_AT(sf_config, survey_segy)},
    {.name = "overwrite", .type = CFG_KEY_BOOLEAN, .fallback = "false",
     .help = "replace existing output files instead of refusing to",
     .value = CFG_AT(sf_config, overwrite)},
    {.name = "report", .type = CFG_KEY_TEXT, .fallback = "in the directory",
     .help = "the run report (JSON)", .form = "path", .value = CFG_AT(sf_config, report_path),
     .mark = CFG_AT(sf_config, report_mark)},
};
static const cfg_table SURVEY_OUTPUT_KEYS =
    CFG_TABLE("output", "output, a survey", "Required.", SURVEY_OUTPUT_ROWS);

static const cfg_key OUTPUT_ROWS[] = {
    {.name = "gather", .type = CFG_KEY_TEXT, .required = 1,
     .help = "HDF5 file of the receivers' traces; directories are created as needed",
     .form = "path", .value = CFG_AT(sf_config, gather_path), .mark = CFG_AT(sf_config, gather_mark)},
    {.name = "segy", .type = CFG_KEY_TEXT, .fallback = "none",
     .help = "the same gather as SEG-Y rev 1", .form = "path", .value = CFG_AT(sf_config, segy_path),
     .mark = CFG_AT(sf_config, segy_mark)},
    {.name = "overwrite", .type = CFG_KEY_BOOLEAN, .fallback = "false",
     .help = "replace existing output files instead of refusing to",
     .value = CFG_AT(sf_config, overwrite)},
    {.name = "snapshots", .type = CFG_KEY_MAPPING, .keys = &CFG_SNAPSHOT_KEYS,
     .fallback = "none", .help = "the wavefield every N steps (keys below)"},
    {.name = "model", .type = CFG_KEY_TEXT, .fallback = "none",
     .help = "HDF5 file of the model as sampled on the grid",
     .form = "path", .value = CFG_AT(sf_config, model_output_path), .mark = CFG_AT(sf_config, model_output_mark)},
    {.name = "energy", .type = CFG_KEY_TEXT, .offered = offers_energy, .offered_to = energy_physics, .fallback = "none",
     .help = "CSV file of the wavefield's energy per step",
     .form = "path", .value = CFG_AT(sf_config, energy_path), .mark = CFG_AT(sf_config, energy_mark)},
    {.name = "report", .type = CFG_KEY_TEXT, .fallback = "next to the gather",
     .help = "the run report (JSON)", .form = "path", .value = CFG_AT(sf_config, report_path),
     .mark = CFG_AT(sf_config, report_mark)},
};
const cfg_table CFG_OUTPUT_KEYS = {"output", "output, a single shot", "Required.", OUTPUT_ROWS,
                                   (int)(sizeof OUTPUT_ROWS / sizeof OUTPUT_ROWS[0]),
                                   &SURVEY_OUTPUT_KEYS};

/* A survey writes each shot into output.directory under names of its
 * own; the single-shot keys that name files are not for it. */
static void reject_single_shot_keys(cfg_reader *r, sf_yaml_node *o)
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
}

void cfg_read_output(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *o = cfg_section(r, root, "output", "", 1);
    if (!o) return;
    if (c->survey.enabled) {
        reject_single_shot_keys(r, o);
        cfg_read_keys(r, o, &SURVEY_OUTPUT_KEYS, c, c, NULL);
        c->segy_mark = c->output_directory_mark;
        cfg_reject_unknown_keys(r, o, &SURVEY_OUTPUT_KEYS, c);
        return;
    }
    const sf_yaml_node *dir = sf_yaml_take(o, "directory");
    if (dir)
        cfg_problem(r, dir->line, dir->column, "output.directory",
                    "only a survey (a survey: section) writes into a directory; a single shot "
                    "names its gather with output.gather");
    cfg_reject_foreign_key(r, o, "output", "energy", c, takes_energy, 0);
    cfg_read_keys(r, o, &CFG_OUTPUT_KEYS, c, c, NULL);
    cfg_reject_unknown_keys(r, o, &CFG_OUTPUT_KEYS, c);
}

static const int DEVICES[] = {SF_DEVICE_AUTO, SF_DEVICE_CPU, SF_DEVICE_CUDA};
static const int GPU_AWARE_MODES[] = {SF_GPU_AWARE_AUTO, SF_GPU_AWARE_ON, SF_GPU_AWARE_OFF};
static const int SLAB_POLICIES[] = {SF_SLABS_BALANCED, SF_SLABS_EQUAL};
static const int PRECISIONS[] = {SF_PRECISION_FLOAT32, SF_PRECISION_MIXED};

static const cfg_key RUN_ROWS[] = {
    {.name = "device", .type = CFG_KEY_CHOICE, .choices = "auto|cpu|cuda", .values = DEVICES,
     .fallback = "auto", .help = "where the time steps run; auto: a GPU when there is one",
     .value = CFG_AT(sf_config, device)},
    {.name = "gpu_aware_mpi", .type = CFG_KEY_CHOICE, .choices = "auto|on|off",
     .values = GPU_AWARE_MODES, .fallback = "auto",
     .help = "pass halo buffers in device memory to MPI",
     .value = CFG_AT(sf_config, gpu_aware_mpi), .mark = CFG_AT(sf_config, gpu_aware_mpi_mark)},
    {.name = "progress_interval", .type = CFG_KEY_NUMBER, .range = {1e-3, 1e6, 0, 0},
     .fallback = "5", .unit = "s", .help = "time between progress lines",
     .value = CFG_AT(sf_config, progress_interval)},
    {.name = "check_every", .type = CFG_KEY_INTEGER, .lo = 0, .hi = SF_MAX_STEPS,
     .fallback = "100", .unit = "steps",
     .help = "steps between the instability guard's checks; 0: none",
     .value = CFG_AT(sf_config, check_every), .mark = CFG_AT(sf_config, check_every_mark)},
    {.name = "slabs", .type = CFG_KEY_CHOICE, .choices = "balanced|equal",
     .values = SLAB_POLICIES, .fallback = "balanced",
     .help = "cut the ranks' slabs by their planes' cost, or into equal numbers of planes",
     .value = CFG_AT(sf_config, slabs)},
    {.name = "precision", .type = CFG_KEY_CHOICE, .choices = "float32|mixed", .values = PRECISIONS,
     .fallback = "float32",
     .help = "how wavefields, memory variables and the medium are stored: float32, or mixed: 16-bit "
             "blocks, float32 arithmetic (user guide, \"Mixed precision\"); CPU only so far",
     .value = CFG_AT(sf_config, precision), .mark = CFG_AT(sf_config, precision_mark)},
};
const cfg_table CFG_RUN_KEYS = CFG_TABLE("run", NULL, "Optional.", RUN_ROWS);

/* The table stores a choice as an int. */
_Static_assert(sizeof(sf_device_kind) == sizeof(int) &&
                   sizeof(sf_gpu_aware_mode) == sizeof(int) && sizeof(sf_slab_policy) == sizeof(int) &&
                   sizeof(sf_precision) == sizeof(int),
               "run's choices are read as ints");

const char *sf_precision_name(sf_precision p) { return p == SF_PRECISION_MIXED ? "mixed" : "float32"; }

void cfg_read_run(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    cfg_read_mapping(r, root, "run", "", 0, &CFG_RUN_KEYS, c, c, NULL);
}
