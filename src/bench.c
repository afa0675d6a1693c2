#include "sf_bench.h"
#include "sf_config.h"
#include "sf_device.h"
#include "sf_error.h"
#include "sf_json.h"
#include "sf_shot_report.h"
#include "sf_simulation.h"

#if SF_HAVE_CUDA
#include "sf_gpu.h"
#endif

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long size, steps, warmup;   /* size 0: the backend's default */
    long check_every;           /* --check-every: the instability guard's interval; 0: off */
    long nz;                    /* --nz: planes along z (weak scaling); 0: size */
    int order, cpml;
    int cpml_z;                 /* --cpml-z: the z faces' layers; -1: --cpml */
    sf_physics physics;
    long copy_mib;
    sf_device_kind device;
    int gpu_aware;              /* --gpu-aware-mpi: an sf_gpu_aware_mode, -1 when not given */
    int exchange;               /* --exchange: time halo-sized messages between GPUs instead */
    int plane_costs;            /* --plane-costs: the cost-table row of this device instead */
    sf_slab_policy slabs;       /* --slabs */
    const char *report;         /* --report FILE: the run report, or NULL */
} bench_options;

/* Grids that fill a device: 1000^3 acoustic takes about 14 GiB on a GPU,
 * 512^3 elastic (17 arrays) about 9 GiB, 800^3 TTI (9 arrays) about 19 GiB
 * (and its model is built on the host). */
enum { CPU_DEFAULT_SIZE = 256 };
static const long GPU_DEFAULT_SIZE[SF_PHYSICS_KINDS] = {1000, 512, 800, 800};

/* The least DRAM traffic of one point update: acoustic: read p, p_prev and
 * v^2dt^2, write p_next; elastic: 9 wavefield components read and written
 * plus 3 material parameters read once; vti: p and q at two levels read,
 * the new ones written, vp, epsilon and delta read; tti: theta and phi too. */
static const double BYTES_PER_POINT[SF_PHYSICS_KINDS] = {16.0, 120.0, 36.0, 44.0};

static SF_NORETURN void usage_error(const char *msg)
{
    sf_fail_collective("bench: %s\nusage: seisfd bench [--device cpu|cuda|auto] "
                       "[--gpu-aware-mpi auto|on|off] [--physics acoustic|elastic|vti|tti] [--size N] "
                       "[--nz NZ] "
                       "[--steps S] [--warmup W] [--order 2|4|8] [--cpml C] [--cpml-z CZ] [--copy-mib M] "
                       "[--check-every K] "
                       "[--slabs balanced|equal] [--report FILE] | [--exchange] | [--plane-costs]",
                       msg);
}

static long parse_long(const char *flag, const char *value, long lo, long hi)
{
    char *end = NULL;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || *end || v < lo || v > hi) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s expects a whole number in %ld..%ld", flag, lo, hi);
        usage_error(msg);
    }
    return v;
}

static sf_physics parse_physics(const char *value)
{
    for (int p = 0; value && p < SF_PHYSICS_KINDS; ++p)
        if (!strcmp(value, sf_physics_declared((sf_physics)p)->name)) return (sf_physics)p;
    usage_error("--physics expects acoustic, elastic, vti or tti");
}

static sf_device_kind parse_device(const char *value)
{
    if (value && !strcmp(value, "cpu")) return SF_DEVICE_CPU;
    if (value && !strcmp(value, "cuda")) return SF_DEVICE_CUDA;
    if (!value || strcmp(value, "auto")) usage_error("--device expects cpu, cuda or auto");
    return SF_DEVICE_AUTO;
}

static int parse_gpu_aware(const char *value)
{
    int mode = sf_gpu_aware_parse(value);
    if (mode < 0) usage_error("--gpu-aware-mpi expects auto, on or off");
    return mode;
}

static sf_slab_policy parse_slabs(const char *value)
{
    if (value && !strcmp(value, "balanced")) return SF_SLABS_BALANCED;
    if (!value || strcmp(value, "equal")) usage_error("--slabs expects balanced or equal");
    return SF_SLABS_EQUAL;
}

static bench_options parse_options(int argc, char **argv)
{
    bench_options o = {.size = 0, .steps = 100, .warmup = 10, .check_every = 100, .order = 8,
                       .cpml = 20, .copy_mib = 1024, .device = SF_DEVICE_AUTO, .gpu_aware = -1,
                       .cpml_z = -1};
    for (int i = 0; i < argc; ++i) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(flag, "--physics")) o.physics = parse_physics(value);
        else if (!strcmp(flag, "--size")) o.size = parse_long(flag, value, 16, 100000);
        else if (!strcmp(flag, "--nz")) o.nz = parse_long(flag, value, 16, 1000000);
        else if (!strcmp(flag, "--steps")) o.steps = parse_long(flag, value, 1, 10000000);
        else if (!strcmp(flag, "--warmup")) o.warmup = parse_long(flag, value, 0, 10000000);
        else if (!strcmp(flag, "--check-every")) o.check_every = parse_long(flag, value, 0, 10000000);
        else if (!strcmp(flag, "--order")) o.order = (int)parse_long(flag, value, 2, 8);
        else if (!strcmp(flag, "--cpml")) o.cpml = (int)parse_long(flag, value, 0, 1000);
        else if (!strcmp(flag, "--cpml-z")) o.cpml_z = (int)parse_long(flag, value, 0, 1000);
        else if (!strcmp(flag, "--copy-mib")) o.copy_mib = parse_long(flag, value, 1, 1 << 20);
        else if (!strcmp(flag, "--device")) o.device = parse_device(value);
        else if (!strcmp(flag, "--gpu-aware-mpi")) o.gpu_aware = parse_gpu_aware(value);
        else if (!strcmp(flag, "--report") && value) o.report = value;
        else if (!strcmp(flag, "--slabs")) o.slabs = parse_slabs(value);
        else if (!strcmp(flag, "--exchange")) {
            o.exchange = 1;
            continue;   /* takes no value */
        }
        else if (!strcmp(flag, "--plane-costs")) {
            o.plane_costs = 1;
            continue;
        }
        else {
            char msg[160];
            snprintf(msg, sizeof msg, "unknown option '%s'", flag);
            usage_error(msg);
        }
        ++i;
    }
    if (o.order != 2 && o.order != 4 && o.order != 8) usage_error("--order must be 2, 4 or 8");
    return o;
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

static void bench_config(sf_config *c, const bench_options *o, sf_wavelet *ricker)
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
    c->order = o->order;
    for (int f = 0; f < 6; ++f)
        c->cpml[f] = f < SF_FACE_ZMIN || o->cpml_z < 0 ? o->cpml : o->cpml_z;
    sf_config_sample_medium(&c->model);
    c->physics = o->physics;
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
static void choose_placement(const bench_options *o, sf_placement *placement)
{
    sf_placement_request r = {.physics = o->physics,
                              .device = o->device};
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
        usage_error("--exchange times messages between GPUs: it needs the cuda device and at "
                    "least 2 ranks");
    sf_info("seisfd bench --exchange: %d ranks, one GPU each", ranks);
    sf_placement_print(placement, MPI_COMM_WORLD);
#if SF_HAVE_CUDA
    sf_gpu_exchange_bandwidth(MPI_COMM_WORLD, placement->transport);
#endif
    return 0;
}

/* --plane-costs: the physics timed on this device over slabs of
 * bench's rows, as a row of the plane-cost table (docs/plane-costs.csv). */
static int bench_plane_costs(const bench_options *o, const sf_placement *placement)
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

int sf_bench_main(int argc, char **argv)
{
    char started[32];
    sf_utc_time(started);
    double wall_started = sf_now();
    bench_options o = parse_options(argc, argv);
    sf_placement placement;
    choose_placement(&o, &placement);
    if (o.exchange) return bench_exchange(&placement);
    const int cuda = placement.cuda;
    if (o.size == 0)
        o.size = !cuda ? CPU_DEFAULT_SIZE : GPU_DEFAULT_SIZE[o.physics];
    if (o.nz == 0) o.nz = o.size;
    if (o.plane_costs) {
        sf_info("seisfd bench --plane-costs: %s on the %s backend, %ld x %ld rows",
                sf_physics_declared(o.physics)->name, placement.name, o.size, o.size);
        return bench_plane_costs(&o, &placement);
    }
    if (o.cpml_z < 0) o.cpml_z = o.cpml;
    if (2 * o.cpml + o.order / 2 > o.size || 2 * o.cpml_z + o.order / 2 > o.nz)
        usage_error("--cpml leaves fewer interior points than the stencil's radius for this "
                    "--size (or --nz)");
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
    sf_simulation_setup(&s, &c, MPI_COMM_WORLD, &placement);
    s.warmup_steps = o.warmup;
    sf_simulation_run(&s, 0);
    double points = (double)o.size * o.size * o.nz * (double)o.steps;
    double rate = points / s.loop_seconds;
    const double bytes = BYTES_PER_POINT[o.physics];
    char faces[64];
    if (o.cpml_z == o.cpml) snprintf(faces, sizeof faces, "CPML %d on all faces", o.cpml);
    else snprintf(faces, sizeof faces, "CPML %d on the x and y faces, %d on z", o.cpml, o.cpml_z);
    sf_info("  %-8s step       %ld x %ld x %ld points, order %d, %s, %ld steps after %ld "
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
