#include "sf_bench.h"
#include "sf_config.h"
#include "sf_device.h"
#include "sf_edit_distance.h"
#include "sf_error.h"
#include "sf_json.h"
#include "sf_shot_report.h"
#include "sf_simulation.h"

#if SF_HAVE_CUDA
#include "sf_gpu.h"
#endif

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The default --size on the CPU; on a GPU each physics declares its own
 * (sf_physics_bench). */
enum { CPU_DEFAULT_SIZE = 256 };

/* The options: the parser reads them from this table and the usage lists
 * them from it, so that the two agree. A number has its range; a word its
 * reader and the words it takes; a switch takes no value. */
typedef int (*word_reader)(sf_bench_options *o, const char *word);

typedef struct {
    const char *flag;
    const char *value;                      /* its value in the usage; NULL: a switch */
    const char *meaning;
    size_t field;                           /* a number's (long) or a switch's (int) */
    long lo, hi;                            /* a number's range */
    word_reader read;                       /* a word's; NULL: a number or a switch */
    void (*words)(char *out, size_t len);   /* the words, where a registry lists them */
    /* The default, where a registry names it: the usage adds " (default X)". */
    void (*default_word)(char *out, size_t len);
} bench_option;

#define NUMBER(name, lo, hi) offsetof(sf_bench_options, name), lo, hi, NULL, NULL, NULL
#define WORD(reader) 0, 0, 0, reader, NULL, NULL
#define SWITCH(name) offsetof(sf_bench_options, name), 0, 0, NULL, NULL, NULL

static int read_device(sf_bench_options *o, const char *word)
{
    static const char *const names[] = {"auto", "cpu", "cuda"};   /* as sf_device_kind */
    for (int d = 0; d < 3; ++d)
        if (!strcmp(word, names[d])) {
            o->device = (sf_device_kind)d;
            return 0;
        }
    return -1;
}

static int read_gpu_aware(sf_bench_options *o, const char *word)
{
    o->gpu_aware = sf_gpu_aware_parse(word);
    return o->gpu_aware < 0 ? -1 : 0;
}

static int read_physics(sf_bench_options *o, const char *word)
{
    int kind = sf_physics_named(word);
    if (kind >= 0) o->physics = (sf_physics)kind;
    return kind < 0 ? -1 : 0;
}

static void physics_words(char *out, size_t len) { sf_physics_names("|", out, len); }

static void default_physics(char *out, size_t len)
{
    snprintf(out, len, "%s", sf_physics_declared(SF_PHYSICS_DEFAULT)->name);
}

static int read_order(sf_bench_options *o, const char *word)
{
    for (long order = 2; order <= 8; order *= 2) {
        char text[24];   /* any long, so that no compiler sees a truncation */
        snprintf(text, sizeof text, "%ld", order);
        if (!strcmp(word, text)) {
            o->order = order;
            return 0;
        }
    }
    return -1;
}

static int read_slabs(sf_bench_options *o, const char *word)
{
    if (strcmp(word, "balanced") && strcmp(word, "equal")) return -1;
    o->slabs = strcmp(word, "equal") ? SF_SLABS_BALANCED : SF_SLABS_EQUAL;
    return 0;
}

static int read_precision(sf_bench_options *o, const char *word)
{
    if (strcmp(word, "float32") && strcmp(word, "mixed")) return -1;
    o->precision = strcmp(word, "mixed") ? SF_PRECISION_FLOAT32 : SF_PRECISION_MIXED;
    return 0;
}

static int read_layout(sf_bench_options *o, const char *word)
{
    if (strcmp(word, "full") && strcmp(word, "coarse")) return -1;
    o->relaxation_coarse = !strcmp(word, "coarse");
    return 0;
}

static int read_report(sf_bench_options *o, const char *word)
{
    o->report = word;
    return 0;
}

static const bench_option OPTIONS[] = {
    {"--device", "cpu|cuda|auto", "the backend (default auto: CUDA where every rank sees a GPU)",
     WORD(read_device)},
    {"--gpu-aware-mpi", "auto|on|off", "whether MPI takes GPU buffers for the halos (default "
     "auto; wins over SEISFD_GPU_AWARE_MPI)", WORD(read_gpu_aware)},
    {"--physics", "P", "the physics to time", 0, 0, 0, read_physics, physics_words,
     default_physics},
    {"--size", "N", "grid points along x and y, and z unless --nz (default: 256 on the CPU, "
     "by physics on a GPU)", NUMBER(size, 16, 100000)},
    {"--nz", "NZ", "planes along z, for weak scaling (default --size)", NUMBER(nz, 16, 1000000)},
    {"--steps", "S", "time steps timed (default 100)", NUMBER(steps, 1, 10000000)},
    {"--warmup", "W", "untimed steps before them (default 10)", NUMBER(warmup, 0, 10000000)},
    {"--order", "2|4|8", "spatial order (default 8)", WORD(read_order)},
    {"--cpml", "C", "absorbing-layer points on every face (default 20)", NUMBER(cpml, 0, 1000)},
    {"--cpml-z", "CZ", "absorbing-layer points on the z faces (default --cpml)",
     NUMBER(cpml_z, 0, 1000)},
    {"--copy-mib", "M", "MiB each rank (or GPU) copies for the bandwidth (default 1024)",
     NUMBER(copy_mib, 1, 1 << 20)},
    {"--check-every", "K", "steps between the instability guard's checks, 0: none (default 100)",
     NUMBER(check_every, 0, 10000000)},
    {"--slabs", "balanced|equal", "cut the planes by their cost or in equal numbers (default "
     "balanced)", WORD(read_slabs)},
    {"--precision", "float32|mixed", "how fields and medium are stored: run.precision (default "
     "float32)", WORD(read_precision)},
    {"--relaxation-layout", "full|coarse", "an attenuating physics' memory variables: "
     "physics.relaxation_layout (default full, 3 solids)", WORD(read_layout)},
    {"--report", "FILE", "write the run report of the timed steps to FILE", WORD(read_report)},
    {"--exchange", NULL, "instead: time halo-sized MPI messages between GPUs (2 or more ranks, "
     "cuda)", SWITCH(exchange)},
    {"--plane-costs", NULL, "instead: time this device's row of the plane-cost table "
     "(docs/plane-costs.csv)", SWITCH(plane_costs)},
};
enum { NOPTIONS = sizeof OPTIONS / sizeof OPTIONS[0] };

/* What follows an option's flag in the usage: "N", or the words a
 * registry lists. */
static const char *value_text(const bench_option *opt, char *buf, size_t len)
{
    if (!opt->words) return opt->value;
    opt->words(buf, len);
    return buf;
}

/* What an option takes, for its error: "a whole number in 16..100000". */
static void expectation(const bench_option *opt, char *out, size_t len)
{
    char words[160];
    if (!opt->read && opt->value)
        snprintf(out, len, "a whole number in %ld..%ld", opt->lo, opt->hi);
    else if (opt->words || strchr(opt->value, '|'))
        snprintf(out, len, "one of %s", value_text(opt, words, sizeof words));
    else
        snprintf(out, len, "%s", opt->value);
}

static const bench_option *find_option(const char *flag)
{
    for (int k = 0; k < NOPTIONS; ++k)
        if (!strcmp(flag, OPTIONS[k].flag)) return &OPTIONS[k];
    return NULL;
}

static void unknown_option(const char *flag, char *why, size_t len)
{
    char flags[512] = "", near[SF_EDIT_WORD_MAX + 1];
    for (int k = 0; k < NOPTIONS; ++k)
        snprintf(flags + strlen(flags), sizeof flags - strlen(flags), " %s", OPTIONS[k].flag);
    if (sf_nearest_word(flag, flags, " ", near, sizeof near))
        snprintf(why, len, "unknown option '%s'; did you mean '%s'?", flag, near);
    else
        snprintf(why, len, "unknown option '%s'", flag);
}

/* 0, or -1 and why when value is not what opt takes. */
static int read_value(const bench_option *opt, const char *value, sf_bench_options *o)
{
    if (opt->read) return opt->read(o, value);
    char *end = NULL;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || *end || errno || v < opt->lo || v > opt->hi) return -1;
    *(long *)((char *)o + opt->field) = v;
    return 0;
}

/* The layers must leave the stencil's reach inside the grid; a size left
 * to the backend is checked once the backend is known (sf_bench_main). */
static const char *layers_too_thick(const sf_bench_options *o, long size, long nz)
{
    const long cpml_z = o->cpml_z < 0 ? o->cpml : o->cpml_z;
    if (2 * o->cpml + o->order / 2 > size || 2 * cpml_z + o->order / 2 > nz)
        return "--cpml leaves fewer interior points than the stencil's radius for this --size "
               "(or --nz)";
    return NULL;
}

int sf_bench_parse(int argc, char **argv, sf_bench_options *o, char *why, size_t len)
{
    *o = (sf_bench_options){.size = 0, .steps = 100, .warmup = 10, .check_every = 100, .order = 8,
                            .cpml = 20, .copy_mib = 1024, .device = SF_DEVICE_AUTO,
                            .gpu_aware = -1, .cpml_z = -1, .physics = SF_PHYSICS_DEFAULT};
    for (int i = 0; i < argc; ++i) {
        const bench_option *opt = find_option(argv[i]);
        if (!opt) {
            unknown_option(argv[i], why, len);
            return -1;
        }
        if (!opt->value) {
            *(int *)((char *)o + opt->field) = 1;
            continue;
        }
        char expected[200];
        expectation(opt, expected, sizeof expected);
        if (i + 1 == argc) {
            snprintf(why, len, "%s expects %s", opt->flag, expected);
            return -1;
        }
        if (read_value(opt, argv[++i], o) != 0) {
            char words[160], near[SF_EDIT_WORD_MAX + 1], hint[SF_EDIT_WORD_MAX + 24] = "";
            if (opt->read && sf_nearest_word(argv[i], value_text(opt, words, sizeof words), "|",
                                             near, sizeof near))
                snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
            snprintf(why, len, "%s expects %s, got '%.100s'%s", opt->flag, expected, argv[i], hint);
            return -1;
        }
    }
    const sf_physics_declaration *declared = sf_physics_declared(o->physics);
    if (o->relaxation_coarse && declared->attenuates != SF_ATTENUATES_PER_POINT) {
        snprintf(why, len, "--relaxation-layout: %s %s", declared->name,
                 declared->attenuates ? "takes the full layout only" : "has no attenuation to lay out");
        return -1;
    }
    const char *layers = o->size ? layers_too_thick(o, o->size, o->nz ? o->nz : o->size) : NULL;
    if (layers) snprintf(why, len, "%s", layers);
    return layers ? -1 : 0;
}

/* Text from column `indent` on, broken between words before column 79. */
static void print_wrapped(FILE *out, const char *text, int indent, int column)
{
    enum { RIGHT_EDGE = 79 };
    while (*text) {
        int word = (int)strcspn(text, " ");
        if (column > indent && column + 1 + word > RIGHT_EDGE) {
            fprintf(out, "\n%*s", indent, "");
            column = indent;
        } else if (column > indent) {
            fputc(' ', out);
            ++column;
        }
        fprintf(out, "%.*s", word, text);
        column += word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

void sf_bench_usage(FILE *out)
{
    fputs("usage: seisfd bench [OPTIONS]\n"
          "\n"
          "Measures the copy bandwidth and the throughput of the time step on a cube of a\n"
          "sample medium, on the ranks mpirun starts (one rank without mpirun).\n"
          "\n"
          "options:\n",
          out);
    /* The meanings start in one column; an option wider than it (the
     * list of physics grows with each) puts its meaning on the next line,
     * where a column past it squeezed every meaning to a few words a line. */
    enum { WIDEST = 30 };
    char words[160], item[200], meaning[400];
    int width = 0;
    for (int k = 0; k < NOPTIONS; ++k) {
        const bench_option *opt = &OPTIONS[k];
        int n = snprintf(item, sizeof item, "%s%s%s", opt->flag, opt->value ? " " : "",
                         opt->value ? value_text(opt, words, sizeof words) : "");
        if (n > width && n <= WIDEST) width = n;
    }
    for (int k = 0; k < NOPTIONS; ++k) {
        const bench_option *opt = &OPTIONS[k];
        snprintf(item, sizeof item, "%s%s%s", opt->flag, opt->value ? " " : "",
                 opt->value ? value_text(opt, words, sizeof words) : "");
        char fallback[64] = "";
        if (opt->default_word) opt->default_word(fallback, sizeof fallback);
        if (opt->read || !opt->value)
            snprintf(meaning, sizeof meaning, "%s%s%s%s", opt->meaning,
                     *fallback ? " (default " : "", fallback, *fallback ? ")" : "");
        else
            snprintf(meaning, sizeof meaning, "%s; %ld..%ld", opt->meaning, opt->lo, opt->hi);
        if ((int)strlen(item) > width) fprintf(out, "  %s\n%*s", item, width + 4, "");
        else fprintf(out, "  %-*s  ", width, item);
        print_wrapped(out, meaning, width + 4, width + 4);
    }
}

/* STREAM-style copy: bytes read plus bytes written over the best time. */
static double host_copy_bandwidth(long mib)
{
    size_t n = (size_t)mib * 1048576 / sizeof(float) / 2;
    float *a = sf_malloc(n * sizeof(float), "the copy benchmark");
    float *b = sf_malloc(n * sizeof(float), "the copy benchmark");
    #pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) a[i] = (float)(i % 1000), b[i] = 0.0f;
    double best = 1e30;
    for (int rep = 0; rep < 10; ++rep) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        #pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; ++i) b[i] = a[i];
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime() - t;
        if (t < best) best = t;
    }
    if (b[n / 2] != a[n / 2]) sf_fatal("copy benchmark produced wrong data");
    free(a);
    free(b);
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    return 2.0 * (double)n * sizeof(float) * ranks / best;
}

static void bench_config(sf_config *c, const sf_bench_options *o, sf_wavelet *ricker)
{
    static char text[] = "# generated by seisfd bench\n";
    memset(c, 0, sizeof *c);
    c->source_path = "bench";
    c->text = text;
    for (int a = 0; a < 3; ++a) {
        c->n[a] = a < 2 ? o->size : o->nz;
        c->spacing[a] = 10.0;
    }
    c->dt_auto = 1;
    c->cfl_safety = 0.8;
    c->nt = o->steps + o->warmup;
    c->order = (int)o->order;
    for (int f = 0; f < 6; ++f)
        c->cpml[f] = (int)(f < SF_FACE_ZMIN || o->cpml_z < 0 ? o->cpml : o->cpml_z);
    c->physics = o->physics;
    c->mechanisms = SF_MECHANISMS_DEFAULT;
    c->relaxation_coarse = o->relaxation_coarse;
    sf_config_sample_medium(&c->model, c->physics);
    const sf_physics_declaration *d = sf_physics_declared(o->physics);
    c->source.type = (sf_source_type)d->default_source;
    double centre = 10.0 * (double)(o->size / 2) + 3.3;
    for (int a = 0; a < 3; ++a) c->source.position[a] = centre;
    sf_wavelet_spec *w = &c->source.wavelet;
    w->kind = SF_WAVELET_RICKER;
    w->frequency = 10.0;
    snprintf(w->key, sizeof w->key, "bench");
    sf_wavelet_build(ricker, w, NULL, NULL, 0);
    w->built = ricker;
    c->source.delay = 0.15;
    c->source.amplitude = 1.0;
    /* A line of receivers across the interior, off the grid nodes. */
    static double receivers[16][3];
    double first = 10.0 * o->cpml + 1.7, span = 10.0 * (double)(o->size - 1 - 2 * o->cpml) - 3.4;
    for (int r = 0; r < 16; ++r) {
        receivers[r][0] = first + span * r / 15.0;
        receivers[r][1] = centre;
        receivers[r][2] = first;
    }
    c->receivers.count = 16;
    c->receivers.position = receivers;
    c->receivers.ncomponents = 0;
    for (int q = 0; q < SF_COMPONENTS; ++q)
        if ((d->default_receivers >> q) & 1) c->receivers.component[c->receivers.ncomponents++] = (sf_component)q;
    c->progress_interval = 1e30;
    c->slabs = o->slabs;
    c->precision = o->precision;
    c->check_every = o->check_every;
}


/* The copy bandwidth of all ranks together: host memory, or each GPU
 * (device-to-device copies timed with CUDA events, by the first of the
 * ranks sharing it). */
static double copy_bandwidth(int cuda, long mib)
{
#if SF_HAVE_CUDA
    if (cuda) {
        int first = sf_gpu_first_on_device(MPI_COMM_WORLD);
        double mine = first ? sf_gpu_copy_bandwidth(mib) : 0.0, sum = 0.0;
        SF_MPI_CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
                     "adding the copy bandwidths");
        return sum;
    }
#endif
    (void)cuda;
    return host_copy_bandwidth(mib);
}

/* --report: the run report's schema, with the timed steps as its one shot. */
static void write_report(sf_simulation *s, const char *path, const sf_placement *placement,
                         const char *started, double wall_started)
{
    sf_shot_result shot;
    sf_shot_result_fill(s, 0, 1, 0, wall_started, &shot);
    sf_run_report report = {
        .command = "bench", .cfg = s->cfg, .dt = s->dt, .steps = s->steps, .placement = placement,
        .ranks = s->slab.nranks, .ranks_per_shot = s->slab.nranks, .groups = 1, .shots = &shot,
        .nshots = 1};
    snprintf(report.started, sizeof report.started, "%s", started);
    sf_utc_time(report.finished);
    report.wall_seconds = sf_now() - wall_started;
    report.compute_seconds = s->loop_seconds;
    sf_run_report_finish(&report, path, MPI_COMM_WORLD, 0, s);
}

/* --gpu-aware-mpi wins over SEISFD_GPU_AWARE_MPI, which wins over auto. */
static void choose_placement(const sf_bench_options *o, sf_placement *placement)
{
    sf_placement_request r = {.physics = o->physics, .device = o->device,
                              .precision = o->precision};
    snprintf(r.device_what, sizeof r.device_what, "bench: --device");
    int given = o->gpu_aware >= 0;
    char why[200];
    if (sf_gpu_aware_resolve(given ? (sf_gpu_aware_mode)o->gpu_aware : SF_GPU_AWARE_AUTO,
                             given ? "bench --gpu-aware-mpi" : "the default", !given,
                             &r.gpu_aware, why, sizeof why))
        sf_fail_collective("bench: %s", why);
    sf_placement_choose(&r, MPI_COMM_WORLD, placement);
}

/* --exchange: the MPI rates between GPUs the halos see (sf_gpu_bandwidth.c). */
static int bench_exchange(const sf_placement *placement)
{
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (!placement->cuda || ranks < 2)
        sf_fail_collective("bench: --exchange times messages between GPUs: it needs the cuda "
                           "device and at least 2 ranks");
    sf_info("seisfd bench --exchange: %d ranks, one GPU each", ranks);
    sf_placement_print(placement, MPI_COMM_WORLD);
#if SF_HAVE_CUDA
    sf_gpu_exchange_bandwidth(MPI_COMM_WORLD, placement->transport);
#endif
    return 0;
}

/* --plane-costs: the physics timed on this device over slabs of
 * bench's rows, as a row of the plane-cost table (docs/plane-costs.csv). */
static int bench_plane_costs(const sf_bench_options *o, const sf_placement *placement)
{
    sf_config c;
    sf_wavelet ricker;
    bench_config(&c, o, &ricker);
    sf_point_costs costs;
    sf_simulation_calibrate(&c, placement, MPI_COMM_WORLD, &costs);
    char device[SF_DEVICE_NAME_TEXT], row[600], date[32];
    sf_cost_key key;
    sf_simulation_cost_key(&c, placement, device, &key);
    sf_utc_time(date);
    date[10] = '\0';
    sf_plane_costs_row(&key, &costs, date, row, sizeof row);
    const double *ns = costs.point;
    sf_info("  point costs         %s: %.4g ns a point update outside the layers; in the x, y, "
            "z layers %.4g, %.4g, %.4g ns; a neighbour %.4g ns a point of a plane (%s)",
            key.physics, ns[0] * 1e9, ns[1] * 1e9, ns[2] * 1e9, ns[3] * 1e9, ns[4] * 1e9,
            costs.source);
    sf_info("  table row           %s", row);
    sf_wavelet_free(&ricker);
    return 0;
}

/* The instability guard's share of the timed steps (every rank's checks
 * are collective, so rank 0's time is theirs). */
static void print_guard_cost(const sf_simulation *s)
{
    if (s->check_every == 0) {
        sf_info("  instability guard   off (--check-every 0)");
        return;
    }
    const double seconds = s->loop_timers.seconds[SF_PHASE_GUARD];
    const long checks = s->guard_checks;
    sf_info("  instability guard   %.4f s in %ld check%s every %ld steps (%.3g ms a check), %.2f%% "
            "of the time loop",
            seconds, checks, checks == 1 ? "" : "s", s->check_every,
            checks ? 1e3 * seconds / (double)checks : 0.0, 100.0 * seconds / s->loop_seconds);
}

int sf_bench_main(const sf_bench_options *given)
{
    char started[32];
    sf_utc_time(started);
    double wall_started = sf_now();
    sf_bench_options o = *given;
    sf_placement placement;
    choose_placement(&o, &placement);
    if (o.exchange) return bench_exchange(&placement);
    const int cuda = placement.cuda;
    if (o.size == 0)
        o.size = !cuda ? CPU_DEFAULT_SIZE : sf_physics_of(o.physics)->bench.gpu_size;
    if (o.nz == 0) o.nz = o.size;
    if (o.plane_costs) {
        sf_info("seisfd bench --plane-costs: %s on the %s backend, %ld x %ld rows",
                sf_physics_declared(o.physics)->name, placement.name, o.size, o.size);
        return bench_plane_costs(&o, &placement);
    }
    const char *layers = layers_too_thick(&o, o.size, o.nz);
    if (layers) sf_fail_collective("bench: %s (the default size on the %s backend is %ld)", layers,
                                   placement.name, o.size);
    if (o.cpml_z < 0) o.cpml_z = o.cpml;
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const char *physics = sf_physics_declared(o.physics)->name;
    if (cuda)
        sf_info("seisfd bench: %s, cuda backend, %d rank%s, one GPU each", physics, ranks,
                ranks == 1 ? "" : "s");
    else
        sf_info("seisfd bench: %s, cpu backend, %d rank%s x %d OpenMP thread%s", physics, ranks,
                ranks == 1 ? "" : "s", omp_get_max_threads(),
                omp_get_max_threads() == 1 ? "" : "s");
    sf_placement_print(&placement, MPI_COMM_WORLD);
    double copy = copy_bandwidth(cuda, o.copy_mib);
    sf_info("  copy bandwidth      %.2f GB/s (%s, read + write, %ld MiB per %s, best of 10)",
            copy / 1e9, cuda ? "device to device" : "host memory", o.copy_mib,
            cuda ? "GPU" : "rank");

    sf_config c;
    sf_wavelet ricker;
    bench_config(&c, &o, &ricker);
    sf_simulation s;
    /* Its steps stand for a long run's: its slabs are cut, and its steps predicted, as one's. */
    sf_simulation_setup(&s, &c, MPI_COMM_WORLD, &placement, INFINITY);
    s.warmup_steps = o.warmup;
    sf_simulation_run(&s, 0);
    double points = (double)o.size * o.size * o.nz * (double)o.steps;
    double rate = points / s.loop_seconds;
    const sf_physics_bench *declared = &sf_physics_of(o.physics)->bench;
    const double memory_variables = (double)sf_config_memory_variables(&c);
    const double bytes =
        declared->bytes_per_point + memory_variables * declared->bytes_per_memory_variable;
    char faces[64];
    if (o.cpml_z == o.cpml) snprintf(faces, sizeof faces, "CPML %ld on all faces", o.cpml);
    else snprintf(faces, sizeof faces, "CPML %ld on the x and y faces, %ld on z", o.cpml, o.cpml_z);
    sf_info("  %-8s step       %ld x %ld x %ld points, order %ld, %s, %ld steps after %ld "
            "warm-up, %.4f s",
            physics, o.size, o.size, o.nz, o.order, faces, o.steps, o.warmup, s.loop_seconds);
    sf_info("  throughput          %.4f Gpoints/s", rate / 1e9);
    sf_info("  effective bandwidth %.2f GB/s at %.0f B/point = %.3f of copy bandwidth",
            rate * bytes / 1e9, bytes, rate * bytes / copy);
    if (cuda) {
        /* Rank 0's kernels alone, from CUDA events: the rate without gaps
         * between kernels, launches or halo waits. */
        double kernels = s.loop_timers.seconds[SF_PHASE_STENCIL];
        sf_info("  stencil kernels     %.4f s (CUDA events, rank 0) = %.4f Gpoints/s = %.3f of "
                "copy bandwidth",
                kernels, points / kernels / 1e9, points / kernels * bytes / copy);
    }
    print_guard_cost(&s);
    sf_simulation_report(&s);
    if (o.report) write_report(&s, o.report, &placement, started, wall_started);
    sf_simulation_free(&s);
    sf_wavelet_free(&ricker);
    return 0;
}
