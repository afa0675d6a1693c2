#include "sf_yaml.h"
#include "sf_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct {
    yaml_parser_t parser;
    char *err;
    size_t errlen;
    int failed;
} yaml_reader;

static void reader_error(yaml_reader *r, int line, int column, const char *msg)
{
    if (r->failed) return;
    r->failed = 1;
    snprintf(r->err, r->errlen, "%d:%d: %s", line, column, msg);
}

static int next_event(yaml_reader *r, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&r->parser, ev)) {
        char msg[256];
        snprintf(msg, sizeof msg, "YAML syntax error: %s%s%s",
                 r->parser.problem ? r->parser.problem : "unknown problem",
                 r->parser.context ? " " : "", r->parser.context ? r->parser.context : "");
        reader_error(r, (int)r->parser.problem_mark.line + 1,
                     (int)r->parser.problem_mark.column + 1, msg);
        return 0;
    }
    return 1;
}

static sf_yaml_node *new_node(sf_yaml_kind kind, const yaml_event_t *ev)
{
    sf_yaml_node *n = sf_calloc(1, sizeof *n, "a YAML node");
    n->kind = kind;
    n->line = (int)ev->start_mark.line + 1;
    n->column = (int)ev->start_mark.column + 1;
    return n;
}

static void grow(sf_yaml_node *n, size_t *capacity)
{
    if (n->count < *capacity) return;
    *capacity = *capacity ? 2 * *capacity : 8;
    n->items = realloc(n->items, *capacity * sizeof *n->items);
    if (n->kind == SF_YAML_MAPPING) {
        n->keys = realloc(n->keys, *capacity * sizeof *n->keys);
        n->key_line = realloc(n->key_line, *capacity * sizeof *n->key_line);
        n->key_column = realloc(n->key_column, *capacity * sizeof *n->key_column);
        n->taken = realloc(n->taken, *capacity);
    }
    if (!n->items || (n->kind == SF_YAML_MAPPING &&
                      (!n->keys || !n->key_line || !n->key_column || !n->taken)))
        sf_fatal("out of memory while reading the YAML configuration");
}

static sf_yaml_node *read_node(yaml_reader *r, yaml_event_t *ev);

static sf_yaml_node *read_sequence(yaml_reader *r, const yaml_event_t *start)
{
    sf_yaml_node *n = new_node(SF_YAML_SEQUENCE, start);
    size_t capacity = 0;
    for (;;) {
        yaml_event_t ev;
        if (!next_event(r, &ev)) return n;
        if (ev.type == YAML_SEQUENCE_END_EVENT) { yaml_event_delete(&ev); return n; }
        sf_yaml_node *item = read_node(r, &ev);
        yaml_event_delete(&ev);
        if (!item) return n;
        grow(n, &capacity);
        n->items[n->count++] = item;
    }
}

static sf_yaml_node *read_mapping(yaml_reader *r, const yaml_event_t *start)
{
    sf_yaml_node *n = new_node(SF_YAML_MAPPING, start);
    size_t capacity = 0;
    for (;;) {
        yaml_event_t kev;
        if (!next_event(r, &kev)) return n;
        if (kev.type == YAML_MAPPING_END_EVENT) { yaml_event_delete(&kev); return n; }
        int kline = (int)kev.start_mark.line + 1, kcol = (int)kev.start_mark.column + 1;
        if (kev.type != YAML_SCALAR_EVENT) {
            yaml_event_delete(&kev);
            reader_error(r, kline, kcol, "mapping keys must be plain words");
            return n;
        }
        char *key = sf_strdup((const char *)kev.data.scalar.value);
        yaml_event_delete(&kev);
        for (size_t i = 0; i < n->count; ++i)
            if (strcmp(n->keys[i], key) == 0) {
                char msg[300];
                snprintf(msg, sizeof msg, "duplicate key '%s' (first given at line %d)", key,
                         n->key_line[i]);
                reader_error(r, kline, kcol, msg);
                free(key);
                return n;
            }
        yaml_event_t vev;
        if (!next_event(r, &vev)) { free(key); return n; }
        sf_yaml_node *value = read_node(r, &vev);
        yaml_event_delete(&vev);
        if (!value) { free(key); return n; }
        grow(n, &capacity);
        n->keys[n->count] = key;
        n->key_line[n->count] = kline;
        n->key_column[n->count] = kcol;
        n->taken[n->count] = 0;
        n->items[n->count++] = value;
    }
}

static sf_yaml_node *read_node(yaml_reader *r, yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        sf_yaml_node *n = new_node(SF_YAML_SCALAR, ev);
        n->value = sf_strdup((const char *)ev->data.scalar.value);
        n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        return n;
    }
    case YAML_SEQUENCE_START_EVENT: return read_sequence(r, ev);
    case YAML_MAPPING_START_EVENT: return read_mapping(r, ev);
    case YAML_ALIAS_EVENT:
        reader_error(r, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
                     "YAML aliases (*name) are not supported in job files; write the value out");
        return NULL;
    default:
        reader_error(r, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
                     "unexpected YAML structure");
        return NULL;
    }
}

sf_yaml_node *sf_yaml_parse(const char *text, size_t length, char *err, size_t errlen)
{
    yaml_reader r = {.err = err, .errlen = errlen};
    if (!yaml_parser_initialize(&r.parser)) sf_fatal("libyaml: cannot initialize the parser");
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)text, length);

    sf_yaml_node *root = NULL;
    yaml_event_t ev;
    while (!r.failed && next_event(&r, &ev)) {
        yaml_event_type_t type = ev.type;
        if (type == YAML_STREAM_END_EVENT) { yaml_event_delete(&ev); break; }
        if (type == YAML_MAPPING_START_EVENT || type == YAML_SEQUENCE_START_EVENT ||
            type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT) {
            if (root) {
                reader_error(&r, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
                             "a job file holds a single YAML document");
            } else {
                root = read_node(&r, &ev);
            }
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&r.parser);
    if (r.failed) {
        sf_yaml_free(root);
        return NULL;
    }
    if (!root) {
        snprintf(err, errlen, "1:1: the job file is empty");
        return NULL;
    }
    return root;
}

void sf_yaml_free(sf_yaml_node *n)
{
    if (!n) return;
    for (size_t i = 0; i < n->count; ++i) {
        sf_yaml_free(n->items[i]);
        if (n->keys) free(n->keys[i]);
    }
    free(n->items);
    free(n->keys);
    free(n->key_line);
    free(n->key_column);
    free(n->taken);
    free(n->value);
    free(n);
}

static long find_key(const sf_yaml_node *map, const char *key)
{
    if (!map || map->kind != SF_YAML_MAPPING) return -1;
    for (size_t i = 0; i < map->count; ++i)
        if (strcmp(map->keys[i], key) == 0) return (long)i;
    return -1;
}

sf_yaml_node *sf_yaml_take(sf_yaml_node *map, const char *key)
{
    long i = find_key(map, key);
    if (i < 0) return NULL;
    map->taken[i] = 1;
    return map->items[i];
}

const sf_yaml_node *sf_yaml_peek(const sf_yaml_node *map, const char *key)
{
    long i = find_key(map, key);
    return i < 0 ? NULL : map->items[i];
}

const char *sf_yaml_kind_name(sf_yaml_kind kind)
{
    switch (kind) {
    case SF_YAML_SCALAR: return "a single value";
    case SF_YAML_SEQUENCE: return "a list";
    case SF_YAML_MAPPING: return "a mapping";
    }
    return "?";
}
