#include "yaml_tree.h"
#include "sf_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Job files are a few levels deep; the limit keeps the recursive reader
 * off the end of the stack on a file of a million '['. */
enum { MAX_DEPTH = 32 };

static const char STR_TAG[] = "tag:yaml.org,2002:str";
static const char CORE_PREFIX[] = "tag:yaml.org,2002:";

typedef struct {
    yaml_parser_t parser;
    const char *text;           /* the document, for what lies at a syntax error */
    size_t length;
    char *err;
    size_t errlen;
    int failed;
    int depth;
    char path[256];             /* where the reader is: "grid.nx", "receivers.points[2]" */
} yaml_reader;

static void reader_error(yaml_reader *r, int line, int column, const char *msg)
{
    if (r->failed) return;
    r->failed = 1;
    snprintf(r->err, r->errlen, "%d:%d: %s", line, column, msg);
}

/* An error about the node being read, naming its key. */
static void node_error(yaml_reader *r, const yaml_event_t *ev, const char *msg)
{
    char text[700];
    snprintf(text, sizeof text, "%s%s%s", r->path, *r->path ? ": " : "", msg);
    reader_error(r, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1, text);
}

/* Appends ".key" or "[index]" to the path; returns the length to restore. */
static size_t path_push(yaml_reader *r, const char *key, size_t index)
{
    size_t used = strlen(r->path);
    if (key)
        snprintf(r->path + used, sizeof r->path - used, "%s%s", used ? "." : "", key);
    else
        snprintf(r->path + used, sizeof r->path - used, "[%zu]", index);
    return used;
}

/* A tag may only make a value text (!!str); any other would change the
 * type the schema checks ("!!int 41" is not the number 41 of the job).
 * 0, or -1 with the error. */
static int check_tag(yaml_reader *r, const yaml_event_t *ev, const yaml_char_t *tag, int scalar)
{
    if (!tag || (scalar && strcmp((const char *)tag, STR_TAG) == 0)) return 0;
    const char *t = (const char *)tag;
    int core = strncmp(t, CORE_PREFIX, strlen(CORE_PREFIX)) == 0;   /* shown as !!name */
    char msg[400];
    snprintf(msg, sizeof msg, "YAML tag '%s%.100s' is not supported; write the value without it "
             "(only !!str is taken, on a single value: it makes the value text)",
             core ? "!!" : "", core ? t + strlen(CORE_PREFIX) : t);
    node_error(r, ev, msg);
    return -1;
}

/* The byte at a mark, -1 past the end: libyaml counts lines and columns
 * in characters, so the text is walked rather than indexed. */
static int char_at(const yaml_reader *r, yaml_mark_t m)
{
    size_t i = 0;
    for (size_t line = 0; line < m.line && i < r->length; ++i)
        if (r->text[i] == '\n') ++line;
    for (size_t column = 0; column < m.column && i < r->length; ++column)
        do ++i; while (i < r->length && ((unsigned char)r->text[i] & 0xc0) == 0x80);
    return i < r->length ? (unsigned char)r->text[i] : -1;
}

/* The common mistakes in words, and where to fix them. libyaml marks a
 * problem where it noticed it, which for a key without ':' or a quote or
 * bracket left open is the next token, often on a later line; the start
 * of what it was reading (the context mark) is then the place. */
static const char *explain_syntax(const yaml_reader *r, const char *problem, const char *context,
                                  yaml_mark_t *at)
{
    const yaml_parser_t *p = &r->parser;
    if (!strcmp(context, "while scanning a simple key")) {
        *at = p->context_mark;
        return "a key needs ': ' (a colon and a space) after it";
    }
    if (!strcmp(context, "while scanning a quoted scalar")) {
        *at = p->context_mark;
        return "the quoted text that starts here is not closed";
    }
    if (!strncmp(context, "while parsing a flow ", 21) &&
        strstr(problem, "did not find expected")) {
        *at = p->context_mark;
        return char_at(r, p->context_mark) == '{'
                   ? "the '{' here is not closed with '}'"
                   : "the '[' here is not closed with ']'";
    }
    if (char_at(r, p->problem_mark) == '\t')
        return "a tab character: YAML indents with spaces only";
    if (!strcmp(problem, "did not find expected key"))
        return "this line is indented unlike the keys of its section";
    if (!strcmp(problem, "mapping values are not allowed in this context"))
        return "': ' inside a value (quote the value), or a key indented deeper than the one "
               "before it";
    return NULL;
}

static void syntax_error(yaml_reader *r)
{
    const yaml_parser_t *p = &r->parser;
    const char *problem = p->problem ? p->problem : "unknown problem";
    const char *context = p->context ? p->context : "";
    yaml_mark_t at = p->problem_mark;
    const char *hint = explain_syntax(r, problem, context, &at);
    char msg[512], noticed[64] = "";
    if (at.index != p->problem_mark.index)
        snprintf(noticed, sizeof noticed, ", noticed at line %d, column %d",
                 (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1);
    if (hint)
        snprintf(msg, sizeof msg, "YAML syntax error: %s (libyaml: %s%s%s%s)", hint, problem,
                 *context ? " " : "", context, noticed);
    else
        snprintf(msg, sizeof msg, "YAML syntax error: %s%s%s", problem, *context ? " " : "",
                 context);
    reader_error(r, (int)at.line + 1, (int)at.column + 1, msg);
}

/* After an error nothing more is read: the readers up the stack return. */
static int next_event(yaml_reader *r, yaml_event_t *ev)
{
    if (r->failed) return 0;
    if (!yaml_parser_parse(&r->parser, ev)) {
        syntax_error(r);
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
        size_t used = path_push(r, NULL, n->count);
        sf_yaml_node *item = read_node(r, &ev);
        r->path[used] = '\0';
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
        if (check_tag(r, &kev, kev.data.scalar.tag, 1) != 0) {
            yaml_event_delete(&kev);
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
        size_t used = path_push(r, key, 0);
        sf_yaml_node *value = read_node(r, &vev);
        r->path[used] = '\0';
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

static sf_yaml_node *read_scalar(yaml_reader *r, const yaml_event_t *ev)
{
    if (check_tag(r, ev, ev->data.scalar.tag, 1) != 0) return NULL;
    sf_yaml_node *n = new_node(SF_YAML_SCALAR, ev);
    n->value = sf_strdup((const char *)ev->data.scalar.value);
    /* "!!str 41" is text, as "41" is. */
    n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag;
    return n;
}

/* A sequence or mapping, within the depth limit and without a tag. */
static sf_yaml_node *read_collection(yaml_reader *r, const yaml_event_t *ev)
{
    int sequence = ev->type == YAML_SEQUENCE_START_EVENT;
    if (check_tag(r, ev, sequence ? ev->data.sequence_start.tag : ev->data.mapping_start.tag, 0))
        return NULL;
    if (r->depth == MAX_DEPTH) {
        char msg[96];
        snprintf(msg, sizeof msg, "lists and mappings nested deeper than %d levels", MAX_DEPTH);
        node_error(r, ev, msg);
        return NULL;
    }
    ++r->depth;
    sf_yaml_node *n = sequence ? read_sequence(r, ev) : read_mapping(r, ev);
    --r->depth;
    return n;
}

static sf_yaml_node *read_node(yaml_reader *r, yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT: return read_scalar(r, ev);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: return read_collection(r, ev);
    case YAML_ALIAS_EVENT:
        node_error(r, ev, "YAML aliases (*name) are not supported in job files; write the "
                          "value out");
        return NULL;
    default:
        reader_error(r, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
                     "unexpected YAML structure");
        return NULL;
    }
}

sf_yaml_node *sf_yaml_parse(const char *text, size_t length, char *err, size_t errlen)
{
    yaml_reader r = {.text = text, .length = length, .err = err, .errlen = errlen};
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
