/* The job-file schema: which keys exist, their types, ranges and defaults,
 * and the checks that need only the file itself (extents, positions). */
#include "config_reader.h"
#include "sf_config.h"
#include "sf_error.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cfg_range ANY = {-INFINITY, INFINITY, 0, 0};
static const cfg_range POSITIVE = {0, INFINITY, 1, 0};
static const cfg_range VELOCITY = {10, 20000, 0, 0}; /* m/s: air to the fastest rocks */

enum { MAX_GRID_POINTS = 1000000 };

static void read_grid(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *g = cfg_section(r, root, "grid", "", 1);
    if (!g) return;
    static const char *nk[3] = {"nx", "ny", "nz"}, *dk[3] = {"dx", "dy", "dz"};
    for (int a = 0; a < 3; ++a) {
        cfg_integer(r, g, nk[a], "grid", 1, MAX_GRID_POINTS, 1, &c->n[a], &c->n_mark[a]);
        cfg_number(r, g, dk[a], "grid", (cfg_range){0, 1e6, 1, 0}, 1, &c->spacing[a], NULL);
    }
    cfg_vector_key(r, g, "origin", "grid", 3, ANY, 0, c->origin, NULL);
    cfg_reject_unknown(r, g, "grid", "nx, ny, nz, dx, dy, dz, origin");
}

static void read_time(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *t = cfg_section(r, root, "time", "", 1);
    if (!t) return;
    const sf_yaml_node *dt = sf_yaml_peek(t, "dt");
    if (cfg_is_auto(dt)) {
        sf_yaml_take(t, "dt");
        c->dt_auto = 1;
        c->dt_mark = cfg_mark(dt);
    } else if (dt) {
        cfg_number(r, t, "dt", "time", (cfg_range){0, 1.0, 1, 0}, 1, &c->dt, &c->dt_mark);
    } else {
        c->dt_auto = 1;
        c->dt_mark = cfg_mark(t);
    }
    cfg_number(r, t, "cfl_safety", "time", (cfg_range){0, 1, 1, 0}, 0, &c->cfl_safety, NULL);
    int has_nt = cfg_integer(r, t, "nt", "time", 1, 100000000, 0, &c->nt, NULL);
    sf_mark dmark;
    int has_duration =
        cfg_number(r, t, "duration", "time", (cfg_range){0, 1e5, 1, 0}, 0, &c->duration, &dmark);
    if (has_nt == 0 && has_duration == 0)
        cfg_problem(r, t->line, t->column, "time", "give either nt (steps) or duration (seconds)");
    if (has_nt > 0 && has_duration > 0)
        cfg_problem(r, dmark.line, dmark.column, "time.duration",
                    "give either nt or duration, not both");
    cfg_reject_unknown(r, t, "time", "dt, cfl_safety, nt, duration");
}

static void read_physics(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *p = cfg_section(r, root, "physics", "", 0);
    if (!p) return;
    int type = 0;
    cfg_choice(r, p, "type", "physics", "acoustic", 0, &type, NULL);
    int order_index = 2;
    if (cfg_choice(r, p, "order", "physics", "2|4|8", 0, &order_index, &c->order_mark) > 0)
        c->order = 2 << order_index;
    cfg_reject_unknown(r, p, "physics", "type, order");
}

static int compare_layers(const void *a, const void *b)
{
    double ta = ((const sf_layer *)a)->top, tb = ((const sf_layer *)b)->top;
    return (ta > tb) - (ta < tb);
}

static void read_layers(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    sf_yaml_node *list = sf_yaml_take(m, "layers");
    if (!list) {
        cfg_problem(r, m->line, m->column, "model.layers", "required key is missing");
        return;
    }
    if (list->kind != SF_YAML_SEQUENCE || list->count == 0) {
        cfg_problem(r, list->line, list->column, "model.layers",
                    "expected a list of {top: depth, vp: velocity} entries");
        return;
    }
    c->model.nlayers = (int)list->count;
    c->model.layers = sf_calloc(list->count, sizeof *c->model.layers, "model layers");
    for (size_t i = 0; i < list->count; ++i) {
        char path[64];
        snprintf(path, sizeof path, "model.layers[%zu]", i);
        sf_yaml_node *item = list->items[i];
        if (item->kind != SF_YAML_MAPPING) {
            cfg_problem(r, item->line, item->column, path, "expected {top: depth, vp: velocity}");
            continue;
        }
        cfg_number(r, item, "top", path, ANY, 1, &c->model.layers[i].top, NULL);
        cfg_number(r, item, "vp", path, VELOCITY, 1, &c->model.layers[i].vp, NULL);
        cfg_reject_unknown(r, item, path, "top, vp");
        if (i > 0 && c->model.layers[i].top <= c->model.layers[i - 1].top)
            cfg_problem(r, item->line, item->column, path,
                        "layer tops must increase with depth (%g follows %g)",
                        c->model.layers[i].top, c->model.layers[i - 1].top);
    }
    qsort(c->model.layers, list->count, sizeof *c->model.layers, compare_layers);
    if (c->model.layers[0].top > c->origin[2])
        cfg_problem(r, list->line, list->column, "model.layers[0].top",
                    "the first layer starts at %g m, below the top of the grid (z = %g m); "
                    "the model must cover the whole grid",
                    c->model.layers[0].top, c->origin[2]);
}

/* The accepted velocities of a model file; values outside are reported
 * as errors with their index. */
static const double DEFAULT_VP_RANGE[2] = {100.0, 15000.0};

static void read_model_grid(cfg_reader *r, sf_yaml_node *m, sf_model_config *mc)
{
    double dims[3] = {0, 0, 0};
    /* HDF5 datasets carry their shape; raw files cannot; SEG-Y may need it. */
    if (mc->kind != SF_MODEL_HDF5 &&
        cfg_vector_key(r, m, "dims", "model", 3, (cfg_range){1, MAX_GRID_POINTS, 0, 0},
                       mc->kind == SF_MODEL_RAW, dims, &mc->dims_mark) > 0) {
        for (int a = 0; a < 3; ++a) {
            mc->dims[a] = (long)dims[a];
            if (dims[a] != floor(dims[a]))
                cfg_problem(r, mc->dims_mark.line, mc->dims_mark.column, "model.dims",
                            "dimensions must be whole numbers");
        }
    }
    mc->origin_given = cfg_vector_key(r, m, "origin", "model", 3, ANY, 0, mc->origin,
                                      &mc->origin_mark) > 0;
    mc->spacing_given = cfg_vector_key(r, m, "spacing", "model", 3, (cfg_range){0, 1e6, 1, 0},
                                       mc->kind == SF_MODEL_SEGY, mc->spacing,
                                       &mc->spacing_mark) > 0;
    int nearest = 0;
    cfg_choice(r, m, "interpolation", "model", "linear|nearest", 0, &nearest, NULL);
    mc->interpolation = nearest ? SF_INTERP_NEAREST : SF_INTERP_LINEAR;
    cfg_boolean(r, m, "extend", "model", &mc->extend);
    mc->vp_range[0] = DEFAULT_VP_RANGE[0];
    mc->vp_range[1] = DEFAULT_VP_RANGE[1];
    sf_mark range_mark;
    if (cfg_vector_key(r, m, "vp_range", "model", 2, (cfg_range){0, 1e6, 1, 0}, 0, mc->vp_range,
                       &range_mark) > 0 &&
        mc->vp_range[0] >= mc->vp_range[1])
        cfg_problem(r, range_mark.line, range_mark.column, "model.vp_range",
                    "the minimum (%g) must be below the maximum (%g)", mc->vp_range[0],
                    mc->vp_range[1]);
}

static void read_model_file(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    sf_model_config *mc = &c->model;
    cfg_string(r, m, "path", "model", 1, &mc->path, &mc->path_mark);
    if (mc->kind == SF_MODEL_HDF5 && cfg_string(r, m, "dataset", "model", 0, &mc->dataset, NULL) <= 0)
        mc->dataset = sf_strdup("vp");
    if (mc->kind == SF_MODEL_RAW) {
        int endian = 0;
        cfg_choice(r, m, "endian", "model", "little|big", 0, &endian, NULL);
        mc->endian = endian ? SF_ENDIAN_BIG : SF_ENDIAN_LITTLE;
    }
    read_model_grid(r, m, mc);
}

static void read_model(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *m = cfg_section(r, root, "model", "", 1);
    if (!m) return;
    c->model.mark = cfg_mark(m);
    int kind = 0;
    if (cfg_choice(r, m, "type", "model", "homogeneous|layered|raw|hdf5|segy", 1, &kind, NULL) <= 0)
        return;
    c->model.kind = (sf_model_kind)kind;
    switch (c->model.kind) {
    case SF_MODEL_HOMOGENEOUS:
        cfg_number(r, m, "vp", "model", VELOCITY, 1, &c->model.vp, NULL);
        cfg_reject_unknown(r, m, "model", "type, vp");
        break;
    case SF_MODEL_LAYERED:
        read_layers(r, m, c);
        cfg_reject_unknown(r, m, "model", "type, layers");
        break;
    case SF_MODEL_RAW:
        read_model_file(r, m, c);
        cfg_reject_unknown(r, m, "model", "type, path, dims, endian, origin, spacing, "
                                          "interpolation, extend, vp_range");
        break;
    case SF_MODEL_HDF5:
        read_model_file(r, m, c);
        cfg_reject_unknown(r, m, "model", "type, path, dataset, origin, spacing, interpolation, "
                                          "extend, vp_range");
        break;
    case SF_MODEL_SEGY:
        read_model_file(r, m, c);
        cfg_reject_unknown(r, m, "model", "type, path, dims, origin, spacing, interpolation, "
                                          "extend, vp_range");
        break;
    }
}

static void read_cpml(cfg_reader *r, sf_yaml_node *b, sf_config *c)
{
    static const char *faces[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
    sf_yaml_node *n = sf_yaml_take(b, "cpml");
    if (!n) return;
    c->cpml_mark = cfg_mark(n);
    if (n->kind == SF_YAML_MAPPING) {
        for (int f = 0; f < 6; ++f) {
            long v;
            if (cfg_integer(r, n, faces[f], "boundaries.cpml", 0, 1000, 0, &v, NULL) > 0)
                c->cpml[f] = (int)v;
        }
        cfg_reject_unknown(r, n, "boundaries.cpml", "xmin, xmax, ymin, ymax, zmin, zmax");
        return;
    }
    long v; /* a single number applies to every face */
    if (cfg_integer_node(r, n, "boundaries.cpml", 0, 1000, &v) > 0)
        for (int f = 0; f < 6; ++f) c->cpml[f] = (int)v;
}

static void read_boundaries(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *b = cfg_section(r, root, "boundaries", "", 0);
    if (!b) return;
    int zmin_given = sf_yaml_peek(b, "cpml") && sf_yaml_peek(b, "cpml")->kind == SF_YAML_MAPPING &&
                     sf_yaml_peek(sf_yaml_peek(b, "cpml"), "zmin");
    read_cpml(r, b, c);
    cfg_boolean(r, b, "free_surface", "boundaries", &c->free_surface);
    cfg_number(r, b, "cpml_reflection", "boundaries", (cfg_range){1e-12, 0.5, 0, 0}, 0,
               &c->cpml_reflection, NULL);
    cfg_reject_unknown(r, b, "boundaries", "cpml, free_surface, cpml_reflection");
    if (c->free_surface) {
        if (zmin_given && c->cpml[SF_FACE_ZMIN] != 0)
            cfg_problem(r, c->cpml_mark.line, c->cpml_mark.column, "boundaries.cpml.zmin",
                        "must be 0 with free_surface: true (the free surface is the top face)");
        c->cpml[SF_FACE_ZMIN] = 0;
    }
}

static void read_source(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *s = cfg_section(r, root, "source", "", 1);
    if (!s) return;
    cfg_vector_key(r, s, "position", "source", 3, ANY, 1, c->source.position,
                   &c->source.position_mark);
    int wavelet = 0;
    cfg_choice(r, s, "wavelet", "source", "ricker", 0, &wavelet, NULL);
    cfg_number(r, s, "frequency", "source", (cfg_range){0, 1e6, 1, 0}, 1, &c->source.frequency,
               &c->source.frequency_mark);
    const sf_yaml_node *delay = sf_yaml_peek(s, "delay");
    if (cfg_is_auto(delay))
        sf_yaml_take(s, "delay");
    else
        cfg_number(r, s, "delay", "source", (cfg_range){0, 1e5, 0, 0}, 0, &c->source.delay,
                   NULL);
    if (c->source.delay == 0 && (!delay || cfg_is_auto(delay)) && c->source.frequency > 0)
        c->source.delay = 1.5 / c->source.frequency;
    cfg_number(r, s, "amplitude", "source", ANY, 0, &c->source.amplitude, NULL);
    cfg_reject_unknown(r, s, "source", "position, wavelet, frequency, delay, amplitude");
}

static void add_receiver(sf_receiver_config *rc, long *capacity, const double p[3])
{
    if (rc->count == *capacity) {
        *capacity = *capacity ? 2 * *capacity : 64;
        rc->position = realloc(rc->position, (size_t)*capacity * sizeof *rc->position);
        if (!rc->position) sf_fatal("out of memory storing receiver positions");
    }
    memcpy(rc->position[rc->count++], p, sizeof(double[3]));
}

static void read_receiver_points(cfg_reader *r, sf_yaml_node *list, sf_config *c, long *cap)
{
    if (list->kind != SF_YAML_SEQUENCE || list->count == 0) {
        cfg_problem(r, list->line, list->column, "receivers.points",
                    "expected a list of [x, y, z] positions");
        return;
    }
    for (size_t i = 0; i < list->count; ++i) {
        char path[64];
        double p[3];
        snprintf(path, sizeof path, "receivers.points[%zu]", i);
        if (cfg_vector(r, list->items[i], path, 3, ANY, p) > 0)
            add_receiver(&c->receivers, cap, p);
    }
}

static void read_receiver_line(cfg_reader *r, sf_yaml_node *line, sf_config *c, long *cap)
{
    double a[3], b[3];
    long count = 0;
    int ok = cfg_vector_key(r, line, "start", "receivers.line", 3, ANY, 1, a, NULL) > 0;
    ok &= cfg_vector_key(r, line, "end", "receivers.line", 3, ANY, 1, b, NULL) > 0;
    ok &= cfg_integer(r, line, "count", "receivers.line", 1, 10000000, 1, &count, NULL) > 0;
    cfg_reject_unknown(r, line, "receivers.line", "start, end, count");
    if (!ok) return;
    for (long i = 0; i < count; ++i) {
        double f = count > 1 ? (double)i / (double)(count - 1) : 0.0, p[3];
        for (int k = 0; k < 3; ++k) p[k] = a[k] + f * (b[k] - a[k]);
        add_receiver(&c->receivers, cap, p);
    }
}

static void read_receiver_grid(cfg_reader *r, sf_yaml_node *g, sf_config *c, long *cap)
{
    double origin[3], step[2], count[2];
    int ok = cfg_vector_key(r, g, "origin", "receivers.grid", 3, ANY, 1, origin, NULL) > 0;
    ok &= cfg_vector_key(r, g, "spacing", "receivers.grid", 2, POSITIVE, 1, step, NULL) > 0;
    sf_mark cmark;
    ok &= cfg_vector_key(r, g, "count", "receivers.grid", 2, (cfg_range){1, 1e6, 0, 0}, 1, count,
                         &cmark) > 0;
    cfg_reject_unknown(r, g, "receivers.grid", "origin, spacing, count");
    if (!ok) return;
    if (count[0] != floor(count[0]) || count[1] != floor(count[1])) {
        cfg_problem(r, cmark.line, cmark.column, "receivers.grid.count",
                    "counts must be whole numbers");
        return;
    }
    for (long j = 0; j < (long)count[1]; ++j)
        for (long i = 0; i < (long)count[0]; ++i) {
            double p[3] = {origin[0] + (double)i * step[0], origin[1] + (double)j * step[1],
                           origin[2]};
            add_receiver(&c->receivers, cap, p);
        }
}

static void read_receivers(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *rs = cfg_section(r, root, "receivers", "", 1);
    if (!rs) return;
    c->receivers.mark = cfg_mark(rs);
    c->receivers.sampling_mark = c->receivers.mark;
    const sf_yaml_node *sampling = sf_yaml_peek(rs, "sampling");
    if (cfg_is_auto(sampling)) {
        sf_yaml_take(rs, "sampling");
        c->receivers.sampling_mark = cfg_mark(sampling);
    } else {
        cfg_number(r, rs, "sampling", "receivers", (cfg_range){0, 10, 1, 0}, 0,
                   &c->receivers.sampling, &c->receivers.sampling_mark);
    }
    long capacity = 0;
    sf_yaml_node *n;
    if ((n = sf_yaml_take(rs, "points"))) read_receiver_points(r, n, c, &capacity);
    if ((n = cfg_section(r, rs, "line", "receivers", 0))) read_receiver_line(r, n, c, &capacity);
    if ((n = cfg_section(r, rs, "grid", "receivers", 0))) read_receiver_grid(r, n, c, &capacity);
    cfg_reject_unknown(r, rs, "receivers", "sampling, points, line, grid");
    if (!sf_yaml_peek(rs, "points") && !sf_yaml_peek(rs, "line") && !sf_yaml_peek(rs, "grid"))
        cfg_problem(r, rs->line, rs->column, "receivers",
                    "give at least one of points, line or grid");
}

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

static void read_snapshots(cfg_reader *r, sf_yaml_node *o, sf_config *c)
{
    sf_yaml_node *snap = cfg_section(r, o, "snapshots", "output", 0);
    if (!snap) return;
    cfg_string(r, snap, "path", "output.snapshots", 1, &c->snapshot_path, &c->snapshot_mark);
    cfg_integer(r, snap, "every", "output.snapshots", 1, 100000000, 1, &c->snapshot_every, NULL);
    read_decimation(r, snap, c);
    cfg_reject_unknown(r, snap, "output.snapshots", "path, every, decimation");
}

static void read_output(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *o = cfg_section(r, root, "output", "", 1);
    if (!o) return;
    cfg_string(r, o, "gather", "output", 1, &c->gather_path, &c->gather_mark);
    cfg_string(r, o, "segy", "output", 0, &c->segy_path, &c->segy_mark);
    cfg_boolean(r, o, "overwrite", "output", &c->overwrite);
    read_snapshots(r, o, c);
    cfg_string(r, o, "model", "output", 0, &c->model_output_path, &c->model_output_mark);
    cfg_reject_unknown(r, o, "output", "gather, segy, overwrite, snapshots, model");
}

static void read_run(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *u = cfg_section(r, root, "run", "", 0);
    if (!u) return;
    int device = 0;
    if (cfg_choice(r, u, "device", "run", "auto|cpu|cuda", 0, &device, NULL) > 0)
        c->device = (sf_device_kind)device;
    cfg_number(r, u, "progress_interval", "run", (cfg_range){0, 1e6, 1, 0}, 0,
               &c->progress_interval, NULL);
    cfg_reject_unknown(r, u, "run", "device, progress_interval");
}

/* Position checks: every point must lie inside the grid so that the
 * interpolation weights are defined. */
static void check_position(cfg_reader *r, const sf_config *c, const double p[3], sf_mark m,
                           const char *what)
{
    static const char axis[3] = {'x', 'y', 'z'};
    for (int a = 0; a < 3; ++a) {
        double lo = c->origin[a], hi = c->origin[a] + (double)(c->n[a] - 1) * c->spacing[a];
        if (p[a] < lo - 1e-9 * c->spacing[a] || p[a] > hi + 1e-9 * c->spacing[a]) {
            cfg_problem(r, m.line, m.column, what,
                        "%c = %g m lies outside the grid (allowed: %g <= %c <= %g m)", axis[a],
                        p[a], lo, axis[a], hi);
            return;
        }
    }
}

static void check_geometry(cfg_reader *r, const sf_config *c)
{
    static const char axis[3] = {'x', 'y', 'z'};
    for (int a = 0; a < 3; ++a) {
        if (c->n[a] <= 0) return;  /* already reported */
        int lo = c->cpml[2 * a], hi = c->cpml[2 * a + 1];
        if (lo + hi >= c->n[a])
            cfg_problem(r, c->cpml_mark.line, c->cpml_mark.column, "boundaries.cpml",
                        "%cmin + %cmax = %d points leave no interior in n%c = %ld "
                        "(allowed: %cmin + %cmax < %ld)",
                        axis[a], axis[a], lo + hi, axis[a], c->n[a], axis[a], axis[a], c->n[a]);
    }
    check_position(r, c, c->source.position, c->source.position_mark, "source.position");
    for (long i = 0; i < c->receivers.count; ++i) {
        char what[64];
        snprintf(what, sizeof what, "receivers (receiver %ld)", i);
        check_position(r, c, c->receivers.position[i], c->receivers.mark, what);
    }
}

static void set_defaults(sf_config *c)
{
    memset(c, 0, sizeof *c);
    c->order = 8;
    for (int f = 0; f < 6; ++f) c->cpml[f] = 20;
    c->cfl_safety = 0.8;
    c->source.amplitude = 1.0;
    c->progress_interval = 5.0;
    c->device = SF_DEVICE_AUTO;
    for (int a = 0; a < 3; ++a) c->snapshot_decimation[a] = 1;
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
        if (r.print) fprintf(stderr, "%s:%s\n", path, err);
        return 1;
    }
    if (root->kind != SF_YAML_MAPPING) {
        cfg_problem(&r, root->line, root->column, NULL,
                    "a job file is a mapping of sections (grid, time, model, ...)");
        sf_yaml_free(root);
        return r.problems;
    }
    read_grid(&r, root, c);
    read_time(&r, root, c);
    read_physics(&r, root, c);
    read_model(&r, root, c);
    read_boundaries(&r, root, c);
    read_source(&r, root, c);
    read_receivers(&r, root, c);
    read_output(&r, root, c);
    read_run(&r, root, c);
    cfg_reject_unknown(&r, root, "",
                       "grid, time, physics, model, boundaries, source, receivers, output, run");
    if (r.problems == 0) check_geometry(&r, c);
    sf_yaml_free(root);
    return r.problems;
}

void sf_config_free(sf_config *c)
{
    free(c->source_path);
    free(c->text);
    free(c->model.layers);
    free(c->model.path);
    free(c->model.dataset);
    free(c->receivers.position);
    free(c->gather_path);
    free(c->snapshot_path);
    free(c->model_output_path);
    free(c->segy_path);
    memset(c, 0, sizeof *c);
}

void sf_config_load(const char *path, sf_config *cfg)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long length = -1;
    char *text = NULL, reason[256] = "";
    if (rank == 0) {
        FILE *f = fopen(path, "rb");
        if (f && fseek(f, 0, SEEK_END) == 0 && (length = ftell(f)) >= 0 &&
            fseek(f, 0, SEEK_SET) == 0) {
            text = sf_malloc((size_t)length + 1, "the job text");
            if (fread(text, 1, (size_t)length, f) != (size_t)length) length = -1;
        } else {
            length = -1;
        }
        if (length < 0) snprintf(reason, sizeof reason, "%s", strerror(errno));
        if (f) fclose(f);
    }
    SF_MPI_CHECK(MPI_Bcast(&length, 1, MPI_LONG, 0, MPI_COMM_WORLD), "broadcasting the job size");
    if (length < 0) sf_fail_collective("cannot read the job file '%s': %s", path, reason);
    if (rank != 0) text = sf_malloc((size_t)length + 1, "the job text");
    SF_MPI_CHECK(MPI_Bcast(text, (int)length, MPI_CHAR, 0, MPI_COMM_WORLD),
                 "broadcasting the job file");
    int problems = sf_config_parse(text, (size_t)length, path, cfg);
    free(text);
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
    fprintf(stderr, "%s:%d:%d: ", cfg->source_path, mark.line, mark.column);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
