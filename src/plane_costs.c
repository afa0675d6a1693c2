#include "sf_plane_costs.h"
#include "sf_error.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if SF_HAVE_CUDA
#include "sf_gpu.h"
#endif

/* docs/plane-costs.csv, built in by the Makefile. */
extern const char sf_plane_costs_shipped[];

/* backend, physics, order, precision, the kinds' ns, recorded, device */
enum { FIELDS = 4 + SF_COST_KINDS + 2, NS_FIELD = 4, DATE_FIELD = NS_FIELD + SF_COST_KINDS,
       DEVICE_FIELD = FIELDS - 1, LINE = 512 };
static const char ROW_FORMAT[] = "backend, physics, order, precision, interior_ns, x_layer_ns, "
                                 "y_layer_ns, z_layer_ns, neighbour_ns, recorded, device";

static void cpu_model(char *name, size_t len)
{
    snprintf(name, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[LINE];
    while (fgets(line, sizeof line, f)) {
        const char *colon = strchr(line, ':');
        if (!colon || strncmp(line, "model name", 10)) continue;
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t') ++v;
        snprintf(name, len, "%.*s", (int)strcspn(v, "\n"), v);
        break;
    }
    fclose(f);
}

void sf_cost_device_name(int cuda, char *name, size_t len)
{
#if SF_HAVE_CUDA
    if (cuda) {
        char uuid[64];
        int index;
        sf_gpu_identity(&index, name, len, uuid, sizeof uuid);
        return;
    }
#endif
    (void)cuda;
    char model[SF_DEVICE_NAME_TEXT];
    cpu_model(model, sizeof model);
    int threads = omp_get_max_threads();
    snprintf(name, len, "%s, %d thread%s", model, threads, threads == 1 ? "" : "s");
}

/* A row's fields; the device, last, may hold commas. */
typedef struct {
    char *field[FIELDS];
} table_row;

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) ++s;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) *--end = '\0';
    return s;
}

/* 1 for a row, 0 for a blank, comment or header line, -1 for a bad one. */
static int split_row(char *line, table_row *row)
{
    line = trim(line);
    if (!*line || *line == '#' || !strncmp(line, "backend,", 8)) return 0;
    for (int f = 0; f < FIELDS - 1; ++f) {
        char *comma = strchr(line, ',');
        if (!comma) return -1;
        *comma = '\0';
        row->field[f] = trim(line);
        line = comma + 1;
    }
    row->field[FIELDS - 1] = trim(line);
    return 1;
}

static int parse_ns(const char *text, double *seconds)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !(v >= 0.0) || v > 1e9) return -1;
    *seconds = v * 1e-9;
    return 0;
}

static int row_matches(const table_row *r, const sf_cost_key *k)
{
    char order[16];
    snprintf(order, sizeof order, "%d", k->order);
    return !strcmp(r->field[0], k->backend) && !strcmp(r->field[1], k->physics) &&
           !strcmp(r->field[2], order) && !strcmp(r->field[3], k->precision) &&
           (!strcmp(r->field[DEVICE_FIELD], "*") || !strcmp(r->field[DEVICE_FIELD], k->device));
}

/* Searches text (the table's lines) for key; `where` names it in
 * messages. 1 found, 0 not, -1 with the bad row in problem. */
static int search(char *text, const char *where, const sf_cost_key *key, sf_point_costs *out,
                  char *problem, size_t len)
{
    long number = 0;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        ++number;
        table_row row;
        int kind = split_row(line, &row);
        if (kind < 0) {
            snprintf(problem, len, "%s:%ld: a plane-cost row needs %s", where, number, ROW_FORMAT);
            return -1;
        }
        if (kind == 0 || !row_matches(&row, key)) continue;
        for (int q = 0; q < SF_COST_KINDS; ++q)
            if (parse_ns(row.field[NS_FIELD + q], &out->point[q])) {
                snprintf(problem, len, "%s:%ld: '%.40s' is not a number of nanoseconds in "
                         "[0, 1e9] (%s)", where, number, row.field[NS_FIELD + q], ROW_FORMAT);
                return -1;
            }
        snprintf(out->source, sizeof out->source, "%s:%ld (%s, recorded %s)", where, number,
                 row.field[DEVICE_FIELD], row.field[DATE_FIELD]);
        return 1;
    }
    return 0;
}

/* The site table's text, or NULL with why in problem. */
static char *site_table(const char *path, char *problem, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(problem, len, "%s=%s: cannot open it: %s", SF_PLANE_COSTS_ENV, path,
                 strerror(errno));
        return NULL;
    }
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *text = size >= 0 ? sf_malloc((size_t)size + 1, "the site's plane-cost table") : NULL;
    int failed = size < 0 || fseek(f, 0, SEEK_SET) != 0 ||
                 fread(text, 1, (size_t)size, f) != (size_t)size;
    fclose(f);
    if (failed) {
        free(text);
        snprintf(problem, len, "%s=%s: cannot read it", SF_PLANE_COSTS_ENV, path);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

int sf_plane_costs_lookup(const sf_cost_key *key, sf_point_costs *out, char *problem, size_t len)
{
    const char *path = getenv(SF_PLANE_COSTS_ENV);
    int found = 0;
    if (path && *path) {
        char *text = site_table(path, problem, len);
        if (!text) return -1;
        found = search(text, path, key, out, problem, len);
        free(text);
    }
    if (!found) {
        char *text = sf_strdup(sf_plane_costs_shipped);
        found = search(text, "docs/plane-costs.csv", key, out, problem, len);
        free(text);
    }
    return found;
}

void sf_plane_costs_row(const sf_cost_key *key, const sf_point_costs *costs, const char *date,
                        char *row, size_t len)
{
    int n = snprintf(row, len, "%s,%s,%d,%s", key->backend, key->physics, key->order,
                     key->precision);
    for (int q = 0; q < SF_COST_KINDS && n > 0 && (size_t)n < len; ++q)
        n += snprintf(row + n, len - (size_t)n, ",%.4g", costs->point[q] * 1e9);
    if (n > 0 && (size_t)n < len) snprintf(row + n, len - (size_t)n, ",%s,%s", date, key->device);
}

/* Points of an axis of n within the reach (radius) of its layers. */
static long reach(long n, int low, int high, int radius)
{
    long r = (low > 0 ? low + radius : 0) + (high > 0 ? high + radius : 0);
    return r < n ? r : n;
}

/* Points of plane z in the reach of each axis's layers. */
static void layer_points(const sf_config *cfg, long z, double points[3])
{
    const int R = cfg->order / 2;
    const double nx = (double)cfg->n[0], ny = (double)cfg->n[1];
    points[0] = (double)reach(cfg->n[0], cfg->cpml[SF_FACE_XMIN], cfg->cpml[SF_FACE_XMAX], R) * ny;
    points[1] = (double)reach(cfg->n[1], cfg->cpml[SF_FACE_YMIN], cfg->cpml[SF_FACE_YMAX], R) * nx;
    const int low = cfg->cpml[SF_FACE_ZMIN], high = cfg->cpml[SF_FACE_ZMAX];
    int in_z = (low > 0 && z < low + R) || (high > 0 && z >= cfg->n[2] - high - R);
    points[2] = in_z ? nx * ny : 0.0;
}

int sf_point_costs_known(const sf_point_costs *costs)
{
    return !isnan(costs->point[SF_COST_INTERIOR]);
}

double sf_plane_cost(const sf_point_costs *costs, const sf_config *cfg, long z)
{
    double layer[3];
    layer_points(cfg, z, layer);
    double cost = (double)cfg->n[0] * (double)cfg->n[1] * costs->point[SF_COST_INTERIOR];
    for (int a = 0; a < 3; ++a) {
        double extra = costs->point[SF_COST_X_LAYER + a] - costs->point[SF_COST_INTERIOR];
        cost += layer[a] * (extra > 0.0 ? extra : 0.0);
    }
    return cost;
}

double sf_neighbour_cost(const sf_point_costs *costs, const sf_config *cfg)
{
    return (double)cfg->n[0] * (double)cfg->n[1] * costs->point[SF_COST_NEIGHBOUR];
}

double sf_slab_cost(const sf_point_costs *costs, const sf_config *cfg, long z0, long nz,
                    int neighbours)
{
    double sum = neighbours * sf_neighbour_cost(costs, cfg);
    for (long z = z0; z < z0 + nz; ++z) sum += sf_plane_cost(costs, cfg, z);
    return sum;
}
