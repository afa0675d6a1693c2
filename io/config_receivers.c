/* The receivers section of a job file: points, a line or a grid of
 * positions, the sampling, and the components they record, with the
 * components' names as jobs and outputs spell them. */
#include "config_keys.h"
#include "config_sections.h"

#include "sf_error.h"
#include "sf_physics_registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sf_component_name(sf_component c)
{
    static const char *const names[SF_COMPONENTS] = {"vx", "vy", "vz", "p"};
    return (unsigned)c < SF_COMPONENTS ? names[c] : "?";
}

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

/* The list holds 64 positions, then doubles whenever it is full: full
 * when the count is 64 or a power of two above. */
static void add_receiver(sf_receiver_config *rc, const double p[3])
{
    const long n = rc->count;
    if (n == 0 || (n >= 64 && (n & (n - 1)) == 0)) {
        rc->position = realloc(rc->position, (size_t)(n ? 2 * n : 64) * sizeof *rc->position);
        if (!rc->position) sf_fatal("out of memory storing receiver positions");
    }
    memcpy(rc->position[rc->count++], p, sizeof(double[3]));
}

static int read_receiver_points(cfg_reader *r, sf_yaml_node *rs, const char *path,
                                const cfg_key *key, void *place)
{
    sf_config *c = place;
    sf_yaml_node *list = sf_yaml_take(rs, key->name);
    if (!list) return 0;
    if (list->kind != SF_YAML_SEQUENCE || list->count == 0) {
        cfg_problem(r, list->line, list->column, "receivers.points",
                    "expected a list of [x, y, z] positions");
        return -1;
    }
    if (!receivers_fit(r, c, (double)list->count, cfg_mark(list), "receivers.points")) return -1;
    for (size_t i = 0; i < list->count; ++i) {
        char at[64];
        double p[3];
        snprintf(at, sizeof at, "%s.%s[%zu]", path, key->name, i);
        if (cfg_vector(r, list->items[i], at, 3, key->range, p) > 0) add_receiver(&c->receivers, p);
    }
    return 1;
}

/* A line's or a grid's keys, read by their tables. */
typedef struct {
    double start[3], end[3];
    long count;
    sf_mark count_mark;
} receiver_line;

static const cfg_key LINE_ROWS[] = {
    {.name = "start", .type = CFG_KEY_VECTOR, .count = 3, .range = CFG_RANGE_COORDINATE,
     .required = 1, .unit = "m", .help = "the first receiver [x, y, z]",
     .value = CFG_AT(receiver_line, start)},
    {.name = "end", .type = CFG_KEY_VECTOR, .count = 3, .range = CFG_RANGE_COORDINATE,
     .required = 1, .unit = "m", .help = "the last receiver [x, y, z]",
     .value = CFG_AT(receiver_line, end)},
    {.name = "count", .type = CFG_KEY_INTEGER, .lo = 1, .hi = SF_MAX_RECEIVERS, .required = 1,
     .unit = "receivers", .help = "receivers evenly spaced from start to end",
     .value = CFG_AT(receiver_line, count), .mark = CFG_AT(receiver_line, count_mark)},
};
static const cfg_table CFG_RECEIVER_LINE_KEYS = CFG_TABLE("receivers.line", NULL, NULL, LINE_ROWS);

static int read_receiver_line(cfg_reader *r, sf_yaml_node *rs, const char *path,
                              const cfg_key *key, void *place)
{
    sf_config *c = place;
    receiver_line l;
    const int read = cfg_read_whole_mapping(r, rs, path, key, &l, c);
    if (read <= 0) return read;
    if (!receivers_fit(r, c, (double)l.count, l.count_mark, "receivers.line.count")) return -1;
    c->receivers.line = sf_receiver_line_make(c->receivers.count, l.count, l.start, l.end);
    for (long i = 0; i < l.count; ++i) {
        double f = l.count > 1 ? (double)i / (double)(l.count - 1) : 0.0, p[3];
        for (int k = 0; k < 3; ++k) p[k] = l.start[k] + f * (l.end[k] - l.start[k]);
        add_receiver(&c->receivers, p);
    }
    return 1;
}

typedef struct {
    double origin[3], spacing[2], count[2];
    sf_mark count_mark;
} receiver_grid;

static const cfg_key GRID_ROWS[] = {
    {.name = "origin", .type = CFG_KEY_VECTOR, .count = 3, .range = CFG_RANGE_COORDINATE,
     .required = 1, .unit = "m", .help = "the first receiver [x, y, z]; the grid is horizontal",
     .value = CFG_AT(receiver_grid, origin)},
    {.name = "spacing", .type = CFG_KEY_VECTOR, .count = 2, .range = CFG_RANGE_SPACING,
     .required = 1, .unit = "m", .help = "[x, y] distances between receivers",
     .value = CFG_AT(receiver_grid, spacing)},
    {.name = "count", .type = CFG_KEY_VECTOR, .count = 2, .range = {1, 1e6, 0, 0},
     .required = 1, .unit = "receivers", .help = "[x, y] whole numbers of receivers; x runs fastest",
     .value = CFG_AT(receiver_grid, count), .mark = CFG_AT(receiver_grid, count_mark)},
};
static const cfg_table CFG_RECEIVER_GRID_KEYS = CFG_TABLE("receivers.grid", NULL, NULL, GRID_ROWS);

static int read_receiver_grid(cfg_reader *r, sf_yaml_node *rs, const char *path,
                              const cfg_key *key, void *place)
{
    sf_config *c = place;
    receiver_grid q;
    const int read = cfg_read_whole_mapping(r, rs, path, key, &q, c);
    if (read <= 0) return read;
    if (q.count[0] != floor(q.count[0]) || q.count[1] != floor(q.count[1])) {
        cfg_problem(r, q.count_mark.line, q.count_mark.column, "receivers.grid.count",
                    "counts must be whole numbers");
        return -1;
    }
    if (!receivers_fit(r, c, q.count[0] * q.count[1], q.count_mark, "receivers.grid.count"))
        return -1;
    for (long j = 0; j < (long)q.count[1]; ++j)
        for (long i = 0; i < (long)q.count[0]; ++i) {
            double p[3] = {q.origin[0] + (double)i * q.spacing[0],
                           q.origin[1] + (double)j * q.spacing[1], q.origin[2]};
            add_receiver(&c->receivers, p);
        }
    return 1;
}

/* A list of distinct components (or snapshot fields); an acoustic job
 * has pressure only. Returns how many were read, 0 when the key is absent. */
/* The listed components into out: how many were taken (0 when absent,
 * -1 when not a list). */
static int read_component_list(cfg_reader *r, sf_yaml_node *map, const char *key,
                               const char *path, const sf_config *c,
                               sf_component out[SF_COMPONENTS])
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

int cfg_read_components(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
                        const sf_config *c, unsigned fallback, sf_component out[SF_COMPONENTS],
                        int *count)
{
    const int n = read_component_list(r, map, key, path, c, out);
    if (n > 0) {
        *count = n;
        return 1;
    }
    *count = 0;
    for (int k = 0; k < SF_COMPONENTS; ++k)
        if ((fallback >> k) & 1) out[(*count)++] = (sf_component)k;
    return n;
}

/* Receivers record what the physics declares by default (vx, vy and vz
 * in an elastic job, p otherwise). */
static int read_receiver_components(cfg_reader *r, sf_yaml_node *rs, const char *path,
                                    const cfg_key *key, void *place)
{
    sf_config *c = place;
    sf_receiver_config *rc = &c->receivers;
    return cfg_read_components(r, rs, key->name, path, c, sf_config_physics(c)->default_receivers,
                               rc->component, &rc->ncomponents);
}

/* receivers.sampling: a number, or `auto` (also when absent) for dt. */
static int read_sampling(cfg_reader *r, sf_yaml_node *rs, const char *path, const cfg_key *key,
                         void *place)
{
    sf_receiver_config *rc = &((sf_config *)place)->receivers;
    const sf_yaml_node *sampling = sf_yaml_peek(rs, key->name);
    if (!cfg_is_auto(sampling))
        return cfg_number(r, rs, key->name, path, key->range, 0, &rc->sampling,
                          &rc->sampling_mark);
    sf_yaml_take(rs, key->name);
    rc->sampling_mark = cfg_mark(sampling);
    return 1;
}

static void physics_components(sf_physics p, char *out, size_t len)
{
    const unsigned taken = sf_physics_declared(p)->default_receivers;
    out[0] = '\0';
    for (int k = 0; k < SF_COMPONENTS; ++k) {
        if (!((taken >> k) & 1)) continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", *out ? ", " : "", sf_component_name((sf_component)k));
    }
}

static void default_components(char *out, size_t len) { cfg_physics_defaults(physics_components, out, len); }

static const cfg_key RECEIVER_ROWS[] = {
    {.name = "sampling", .type = CFG_KEY_SPECIAL, .read = read_sampling,
     .form = "number or `auto`", .range = {1e-10, 10, 0, 0}, .fallback = "`auto`: dt",
     .unit = "s", .help = "interval between the recorded samples"},
    {.name = "components", .type = CFG_KEY_SPECIAL, .read = read_receiver_components,
     .form = "list of distinct names out of vx, vy, vz, p",
     .list_fallback = default_components, .help = "what each receiver records"},
    {.name = "points", .type = CFG_KEY_SPECIAL, .read = read_receiver_points,
     .form = "list of [x, y, z] positions", .range = CFG_RANGE_COORDINATE, .unit = "m",
     .fallback = "none", .help = "receivers at these positions"},
    {.name = "line", .type = CFG_KEY_SPECIAL, .read = read_receiver_line,
     .form = "mapping (receivers.line)", .keys = &CFG_RECEIVER_LINE_KEYS, .fallback = "none",
     .help = "receivers evenly spaced along a line"},
    {.name = "grid", .type = CFG_KEY_SPECIAL, .read = read_receiver_grid,
     .form = "mapping (receivers.grid)", .keys = &CFG_RECEIVER_GRID_KEYS, .fallback = "none",
     .help = "a horizontal grid of receivers"},
};
const cfg_table CFG_RECEIVER_KEYS =
    CFG_TABLE("receivers", NULL,
              "Required; give at least one of points, line or grid (listed in that order).",
              RECEIVER_ROWS);

void cfg_read_receivers(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *rs = cfg_section(r, root, "receivers", "", 1);
    if (!rs) return;
    c->receivers.mark = cfg_mark(rs);
    c->receivers.sampling_mark = c->receivers.mark;
    cfg_read_keys(r, rs, &CFG_RECEIVER_KEYS, c, c, NULL);
    cfg_reject_unknown_keys(r, rs, &CFG_RECEIVER_KEYS, c);
    if (!sf_yaml_peek(rs, "points") && !sf_yaml_peek(rs, "line") && !sf_yaml_peek(rs, "grid"))
        cfg_problem(r, rs->line, rs->column, "receivers",
                    "give at least one of points, line or grid");
}
