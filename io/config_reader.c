#include "config_reader.h"
#include "sf_edit_distance.h"
#include "sf_error.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The wavefield scales with these; beyond float32 a run overflows, which
 * the instability guard reports, so they are only required finite. */
const cfg_range CFG_SCALE = CFG_RANGE_SCALE;
const cfg_range CFG_COORDINATE = CFG_RANGE_COORDINATE;
const cfg_range CFG_SPACING = CFG_RANGE_SPACING;
const cfg_range CFG_FREQUENCY = CFG_RANGE_FREQUENCY;
const cfg_range CFG_DELAY = CFG_RANGE_DELAY;

/* The length of a line break or control character at p (ASCII controls,
 * and NEL, LINE and PARAGRAPH SEPARATOR in UTF-8), 0 for anything else. */
static int control_length(const unsigned char *p)
{
    if (*p < 0x20 || *p == 0x7f) return 1;
    if (p[0] == 0xc2 && p[1] == 0x85) return 2;
    if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) return 3;
    return 0;
}

void cfg_print_line(const char *text)
{
    /* Keys and values come from the file: their control characters are
     * shown escaped, so a message stays one line and cannot drive the
     * terminal. */
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        int n = control_length(p);
        if (n == 0)
            fputc(*p, stderr);
        else if (n == 1)
            fprintf(stderr, "\\x%02x", *p);
        else
            fprintf(stderr, "\\u%04x", n == 2 ? 0x85 : 0x2000 + (p[2] - 0x80));
        p += n ? n : 1;
    }
    fputc('\n', stderr);
}

void cfg_vprint(const char *file, sf_mark mark, const char *key, const char *fmt, va_list ap)
{
    char message[2048], where[64] = "", text[4096];
    vsnprintf(message, sizeof message, fmt, ap);
    /* A job made in the program (bench) has no lines to point at. */
    if (mark.line > 0) snprintf(where, sizeof where, ":%d:%d", mark.line, mark.column);
    snprintf(text, sizeof text, "%s%s: %s%s%s", file, where, key ? key : "", key ? ": " : "",
             message);
    cfg_print_line(text);
}

void cfg_problem(cfg_reader *r, int line, int column, const char *key, const char *fmt, ...)
{
    r->problems++;
    if (!r->print) return;
    va_list ap;
    va_start(ap, fmt);
    cfg_vprint(r->file, (sf_mark){line, column}, key, fmt, ap);
    va_end(ap);
}

sf_mark cfg_mark(const sf_yaml_node *node)
{
    sf_mark m = {node ? node->line : 0, node ? node->column : 0};
    return m;
}

static void join_path(char *buf, size_t len, const char *path, const char *key)
{
    if (path && *path)
        snprintf(buf, len, "%s.%s", path, key);
    else
        snprintf(buf, len, "%s", key);
}

static void report_missing(cfg_reader *r, const sf_yaml_node *map, const char *full)
{
    cfg_problem(r, map ? map->line : 1, map ? map->column : 1, full, "required key is missing");
}

sf_yaml_node *cfg_section(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
                          int required)
{
    char full[256];
    join_path(full, sizeof full, path, key);
    sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) {
        if (required) report_missing(r, map, full);
        return NULL;
    }
    if (n->kind != SF_YAML_MAPPING) {
        cfg_problem(r, n->line, n->column, full, "expected a mapping of keys, got %s",
                    sf_yaml_kind_name(n->kind));
        return NULL;
    }
    return n;
}

void cfg_describe_range(char *buf, size_t len, cfg_range g)
{
    if (isinf(g.hi))
        snprintf(buf, len, "%s %g", g.lo_open ? ">" : ">=", g.lo);
    else
        snprintf(buf, len, "%g %s x %s %g", g.lo, g.lo_open ? "<" : "<=", g.hi_open ? "<" : "<=",
                 g.hi);
}

static int in_range(double v, cfg_range g)
{
    if (g.lo_open ? !(v > g.lo) : !(v >= g.lo)) return 0;
    if (g.hi_open ? !(v < g.hi) : !(v <= g.hi)) return 0;
    return 1;
}

/* Parses a plain scalar as a finite number; quoted text is a string. */
static int scalar_number(const sf_yaml_node *n, double *out)
{
    if (n->kind != SF_YAML_SCALAR || !n->plain || !*n->value) return 0;
    char *end = NULL;
    errno = 0;
    double v = strtod(n->value, &end);
    /* A value below the smallest normal double (1e-320) underflows with
     * ERANGE but is still a number: its key's range decides. */
    if ((errno && errno != ERANGE) || *end || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

/* What a value of the wrong type is, for "expected ..., got WHAT". */
static const char *describe_value(const sf_yaml_node *n, char *buf, size_t len)
{
    if (n->kind != SF_YAML_SCALAR) return sf_yaml_kind_name(n->kind);
    snprintf(buf, len, "'%.200s'%s", n->value, n->plain ? "" : " (text: quoted, or tagged !!str)");
    return buf;
}

static int number_node(cfg_reader *r, const sf_yaml_node *n, const char *full, cfg_range g,
                       double *out)
{
    double v;
    char got[256];
    if (!scalar_number(n, &v)) {
        cfg_problem(r, n->line, n->column, full, "expected a number, got %s",
                    describe_value(n, got, sizeof got));
        return -1;
    }
    if (!in_range(v, g)) {
        char allowed[128];
        cfg_describe_range(allowed, sizeof allowed, g);
        cfg_problem(r, n->line, n->column, full, "%g is out of range (allowed: %s)", v, allowed);
        return -1;
    }
    *out = v;
    return 1;
}

int cfg_number(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
               cfg_range range, int required, double *out, sf_mark *mark)
{
    char full[256];
    join_path(full, sizeof full, path, key);
    sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) {
        if (required) report_missing(r, map, full);
        return 0;
    }
    if (mark) *mark = cfg_mark(n);
    return number_node(r, n, full, range, out);
}

int cfg_integer_node(cfg_reader *r, const sf_yaml_node *n, const char *full, long lo, long hi,
                     long *out)
{
    char *end = NULL;
    errno = 0;
    long v = (n->kind == SF_YAML_SCALAR && n->plain && *n->value) ? strtol(n->value, &end, 10) : 0;
    if (!end || *end || errno) {
        char got[256];
        cfg_problem(r, n->line, n->column, full, "expected a whole number, got %s",
                    describe_value(n, got, sizeof got));
        return -1;
    }
    if (v < lo || v > hi) {
        cfg_problem(r, n->line, n->column, full, "%ld is out of range (allowed: %ld .. %ld)", v, lo,
                    hi);
        return -1;
    }
    *out = v;
    return 1;
}

int cfg_integer(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path, long lo,
                long hi, int required, long *out, sf_mark *mark)
{
    char full[256];
    join_path(full, sizeof full, path, key);
    sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) {
        if (required) report_missing(r, map, full);
        return 0;
    }
    if (mark) *mark = cfg_mark(n);
    return cfg_integer_node(r, n, full, lo, hi, out);
}

int cfg_boolean(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path, int *out)
{
    char full[256];
    join_path(full, sizeof full, path, key);
    sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) return 0;
    if (n->kind == SF_YAML_SCALAR && n->plain) {
        if (!strcmp(n->value, "true") || !strcmp(n->value, "yes")) { *out = 1; return 1; }
        if (!strcmp(n->value, "false") || !strcmp(n->value, "no")) { *out = 0; return 1; }
    }
    char got[256];
    cfg_problem(r, n->line, n->column, full, "expected true or false, got %s",
                describe_value(n, got, sizeof got));
    return -1;
}

int cfg_string(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
               int required, char **out, sf_mark *mark)
{
    char full[256];
    join_path(full, sizeof full, path, key);
    sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) {
        if (required) report_missing(r, map, full);
        return 0;
    }
    if (mark) *mark = cfg_mark(n);
    if (n->kind != SF_YAML_SCALAR || !*n->value) {
        cfg_problem(r, n->line, n->column, full, "expected a non-empty text value, got %s",
                    n->kind == SF_YAML_SCALAR ? "an empty value" : sf_yaml_kind_name(n->kind));
        return -1;
    }
    *out = sf_strdup(n->value);
    return 1;
}

int cfg_choice(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
               const char *choices, int required, int *out, sf_mark *mark)
{
    char full[256];
    join_path(full, sizeof full, path, key);
    sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) {
        if (required) report_missing(r, map, full);
        return 0;
    }
    if (mark) *mark = cfg_mark(n);
    if (n->kind == SF_YAML_SCALAR) {
        int index = 0;
        size_t len = strlen(n->value);
        for (const char *c = choices; *c; ++index) {
            const char *bar = strchr(c, '|');
            size_t clen = bar ? (size_t)(bar - c) : strlen(c);
            if (clen == len && strncmp(c, n->value, len) == 0) {
                *out = index;
                return 1;
            }
            c += clen + (bar ? 1 : 0);
        }
    }
    char got[256], hint[SF_EDIT_WORD_MAX + 24] = "", near[SF_EDIT_WORD_MAX + 1];
    if (n->kind == SF_YAML_SCALAR && sf_nearest_word(n->value, choices, "|", near, sizeof near))
        snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
    cfg_problem(r, n->line, n->column, full, "expected one of %s, got %s%s", choices,
                describe_value(n, got, sizeof got), hint);
    return -1;
}

int cfg_vector(cfg_reader *r, const sf_yaml_node *n, const char *path, int count,
               cfg_range range, double *out)
{
    if (n->kind != SF_YAML_SEQUENCE || n->count != (size_t)count) {
        cfg_problem(r, n->line, n->column, path, "expected a list of %d numbers, got %s", count,
                    n->kind == SF_YAML_SEQUENCE ? "a list of another length"
                                                : sf_yaml_kind_name(n->kind));
        return -1;
    }
    int ok = 1;
    for (int i = 0; i < count; ++i) {
        char full[256];
        snprintf(full, sizeof full, "%s[%d]", path, i);
        if (number_node(r, n->items[i], full, range, &out[i]) < 0) ok = 0;
    }
    return ok ? 1 : -1;
}

int cfg_vector_key(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
                   int count, cfg_range range, int required, double *out, sf_mark *mark)
{
    char full[256];
    join_path(full, sizeof full, path, key);
    sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) {
        if (required) report_missing(r, map, full);
        return 0;
    }
    if (mark) *mark = cfg_mark(n);
    return cfg_vector(r, n, full, count, range, out);
}

void cfg_reject_unknown(cfg_reader *r, const sf_yaml_node *map, const char *path,
                        const char *allowed)
{
    if (!map || map->kind != SF_YAML_MAPPING) return;
    for (size_t i = 0; i < map->count; ++i) {
        if (map->taken[i]) continue;
        char full[256], hint[SF_EDIT_WORD_MAX + 24] = "", near[SF_EDIT_WORD_MAX + 1];
        join_path(full, sizeof full, path, map->keys[i]);
        if (sf_nearest_word(map->keys[i], allowed, ", ", near, sizeof near))
            snprintf(hint, sizeof hint, ", did you mean '%s'?", near);
        cfg_problem(r, map->key_line[i], map->key_column[i], full,
                    "unknown key%s (allowed here: %s)", hint, allowed);
    }
}

int cfg_is_auto(const sf_yaml_node *n)
{
    return n && n->kind == SF_YAML_SCALAR && strcmp(n->value, "auto") == 0;
}
