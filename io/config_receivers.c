/* The receivers section of a job file: points, a line or a grid of
 * positions, the sampling, and the components they record. */
#include "config_sections.h"

#include "sf_error.h"
#include "sf_physics_registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int takes_component(sf_physics p, int k)
{
    return (sf_physics_declared(p)->components >> k) & 1;
}

/* Receivers are counted before they are made: a 100000 x 100000 grid is
 * refused at once instead of after minutes of positions. 1 when count
 * more fit, else 0 with a problem at mark. */
static int receivers_fit(cfg_reader *r, const sf_config *c, double count, sf_mark mark,
                         const char *key)
{
    if ((double)c->receivers.count + count <= SF_MAX_RECEIVERS) return 1;
    cfg_problem(r, mark.line, mark.column, key, "%.0f receivers, with the %ld listed before, are "
                "more than the %d a job may have", count, c->receivers.count, SF_MAX_RECEIVERS);
    return 0;
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
    if (!receivers_fit(r, c, (double)list->count, cfg_mark(list), "receivers.points")) return;
    for (size_t i = 0; i < list->count; ++i) {
        char path[64];
        double p[3];
        snprintf(path, sizeof path, "receivers.points[%zu]", i);
        if (cfg_vector(r, list->items[i], path, 3, CFG_COORDINATE, p) > 0)
            add_receiver(&c->receivers, cap, p);
    }
}

static void read_receiver_line(cfg_reader *r, sf_yaml_node *line, sf_config *c, long *cap)
{
    double a[3], b[3];
    long count = 0;
    sf_mark cmark;
    int ok = cfg_vector_key(r, line, "start", "receivers.line", 3, CFG_COORDINATE, 1, a, NULL) > 0;
    ok &= cfg_vector_key(r, line, "end", "receivers.line", 3, CFG_COORDINATE, 1, b, NULL) > 0;
    ok &= cfg_integer(r, line, "count", "receivers.line", 1, SF_MAX_RECEIVERS, 1, &count,
                      &cmark) > 0;
    cfg_reject_unknown(r, line, "receivers.line", "start, end, count");
    if (!ok || !receivers_fit(r, c, (double)count, cmark, "receivers.line.count")) return;
    c->receivers.line = sf_receiver_line_make(c->receivers.count, count, a, b);
    for (long i = 0; i < count; ++i) {
        double f = count > 1 ? (double)i / (double)(count - 1) : 0.0, p[3];
        for (int k = 0; k < 3; ++k) p[k] = a[k] + f * (b[k] - a[k]);
        add_receiver(&c->receivers, cap, p);
    }
}

static void read_receiver_grid(cfg_reader *r, sf_yaml_node *g, sf_config *c, long *cap)
{
    double origin[3], step[2], count[2];
    int ok =
        cfg_vector_key(r, g, "origin", "receivers.grid", 3, CFG_COORDINATE, 1, origin, NULL) > 0;
    ok &= cfg_vector_key(r, g, "spacing", "receivers.grid", 2, CFG_SPACING, 1, step, NULL) > 0;
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
    if (!receivers_fit(r, c, count[0] * count[1], cmark, "receivers.grid.count")) return;
    for (long j = 0; j < (long)count[1]; ++j)
        for (long i = 0; i < (long)count[0]; ++i) {
            double p[3] = {origin[0] + (double)i * step[0], origin[1] + (double)j * step[1],
                           origin[2]};
            add_receiver(&c->receivers, cap, p);
        }
}

/* A list of distinct components (or snapshot fields); an acoustic job
 * has pressure only. Returns how many were read, 0 when the key is absent. */
int cfg_read_components(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
                        const sf_config *c, sf_component out[SF_COMPONENTS])
{
    char full[64];
    snprintf(full, sizeof full, "%s.%s", path, key);
    sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) return 0;
    if (n->kind != SF_YAML_SEQUENCE || n->count == 0 || n->count > SF_COMPONENTS) {
        cfg_problem(r, n->line, n->column, full, "expected a list of distinct names out of "
                    "[vx, vy, vz, p]");
        return -1;
    }
    int count = 0, seen[SF_COMPONENTS] = {0};
    for (size_t i = 0; i < n->count; ++i) {
        const sf_yaml_node *item = n->items[i];
        int found = -1;
        for (int k = 0; item->kind == SF_YAML_SCALAR && k < SF_COMPONENTS; ++k)
            if (!strcmp(item->value, sf_component_name((sf_component)k))) found = k;
        if (found < 0 || seen[found]) {
            cfg_problem(r, item->line, item->column, full, found < 0 ? "expected one of vx, vy, "
                        "vz, p, got '%s'" : "'%s' is listed twice",
                        item->kind == SF_YAML_SCALAR ? item->value : sf_yaml_kind_name(item->kind));
            continue;
        }
        const sf_physics_declaration *d = sf_config_physics(c);
        if (!takes_component(c->physics, found)) {
            /* Every physics records the pressure; particle velocity is some physics' only. */
            char who[96];
            cfg_physics_taking(takes_component, found, who, sizeof who);
            cfg_problem(r, item->line, item->column, full, "%s %s job has pressure (p) "
                        "only; particle velocity needs physics.type: %s", cfg_article(d->name),
                        d->name, who);
            continue;
        }
        seen[found] = 1;
        out[count++] = (sf_component)found;
    }
    return count;
}

/* Receivers record what the physics declares by default (vx, vy and vz
 * in an elastic job, p otherwise). */
static void read_receiver_components(cfg_reader *r, sf_yaml_node *rs, sf_config *c)
{
    sf_receiver_config *rc = &c->receivers;
    int n = cfg_read_components(r, rs, "components", "receivers", c, rc->component);
    if (n > 0) {
        rc->ncomponents = n;
        return;
    }
    rc->ncomponents = 0;
    for (int k = 0; k < SF_COMPONENTS; ++k)
        if ((sf_config_physics(c)->default_receivers >> k) & 1)
            rc->component[rc->ncomponents++] = (sf_component)k;
}

void cfg_read_receivers(cfg_reader *r, sf_yaml_node *root, sf_config *c)
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
        cfg_number(r, rs, "sampling", "receivers", (cfg_range){1e-10, 10, 0, 0}, 0,
                   &c->receivers.sampling, &c->receivers.sampling_mark);
    }
    read_receiver_components(r, rs, c);
    long capacity = 0;
    sf_yaml_node *n;
    if ((n = sf_yaml_take(rs, "points"))) read_receiver_points(r, n, c, &capacity);
    if ((n = cfg_section(r, rs, "line", "receivers", 0))) read_receiver_line(r, n, c, &capacity);
    if ((n = cfg_section(r, rs, "grid", "receivers", 0))) read_receiver_grid(r, n, c, &capacity);
    cfg_reject_unknown(r, rs, "receivers", "sampling, components, points, line, grid");
    if (!sf_yaml_peek(rs, "points") && !sf_yaml_peek(rs, "line") && !sf_yaml_peek(rs, "grid"))
        cfg_problem(r, rs->line, rs->column, "receivers",
                    "give at least one of points, line or grid");
}
