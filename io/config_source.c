/* The source section of a job file: its type (those the physics takes),
 * position, wavelet, delay, amplitude, and the force direction or moment
 * tensor. */
#include "config_sections.h"

#include "sf_physics_registry.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int takes_source(sf_physics p, int type) { return (sf_physics_declared(p)->sources >> type) & 1; }

static const char *const SOURCE_TYPE_NAMES[] = {"pressure", "explosive", "force", "moment"};

/* The source types physics p takes, as "explosive, force or moment". */
static void source_types(sf_physics p, char *out, size_t len)
{
    const unsigned taken = sf_physics_declared(p)->sources;
    int total = 0, n = 0;
    for (int t = 0; t < 4; ++t) total += (taken >> t) & 1;
    out[0] = '\0';
    for (int t = 0; t < 4; ++t) {
        if (!((taken >> t) & 1)) continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", n == 0 ? "" : n == total - 1 ? " or " : ", ",
                 SOURCE_TYPE_NAMES[t]);
        ++n;
    }
}

/* The source type: each physics declares those it takes and its default
 * (pressure for the acoustic kinds; an explosion, a force or a moment
 * tensor for elastic jobs). */
static void read_source_type(cfg_reader *r, sf_yaml_node *s, sf_config *c)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    sf_source_config *src = &c->source;
    int type = d->default_source;
    src->type_mark = cfg_mark(s);
    int given = cfg_choice(r, s, "type", "source", "pressure|explosive|force|moment", 0, &type,
                           &src->type_mark) > 0;
    src->type = (sf_source_type)type;
    if (!given || ((d->sources >> type) & 1)) return;
    /* A type of another physics is reported once; the job goes on as its
     * default type so that no key is asked for because of it. */
    char taken[96], takers[96];
    source_types(c->physics, taken, sizeof taken);
    cfg_physics_taking(takes_source, type, takers, sizeof takers);
    cfg_problem(r, src->type_mark.line, src->type_mark.column, "source.type",
                "%s sources need physics.type: %s (%s %s job takes %s)", SOURCE_TYPE_NAMES[type],
                takers, cfg_article(d->name), d->name, taken);
    src->type = (sf_source_type)d->default_source;
}

/* A list of numbers that only one source type takes, required there and
 * not all zero. */
static void read_source_vector(cfg_reader *r, sf_yaml_node *s, const char *key, int n,
                               sf_source_type owner, const char *owner_name, sf_config *c,
                               double *out)
{
    char full[64];
    snprintf(full, sizeof full, "source.%s", key);
    if (c->source.type != owner) {
        const sf_yaml_node *v = sf_yaml_take(s, key);
        if (v) cfg_problem(r, v->line, v->column, full, "only for source.type: %s", owner_name);
        return;
    }
    sf_mark mark;
    if (cfg_vector_key(r, s, key, "source", n, CFG_SCALE, 1, out, &mark) <= 0) return;
    double norm = 0.0;
    for (int i = 0; i < n; ++i) norm += fabs(out[i]);
    if (norm == 0.0)
        cfg_problem(r, mark.line, mark.column, full, "all components are zero: the source would "
                    "radiate nothing");
}

void cfg_read_source(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *s = cfg_section(r, root, "source", "", 1);
    if (!s) return;
    read_source_type(r, s, c);
    if (!c->survey.enabled) {
        cfg_vector_key(r, s, "position", "source", 3, CFG_COORDINATE, 1, c->source.position,
                       &c->source.position_mark);
    } else if (sf_yaml_peek(s, "position")) {
        const sf_yaml_node *n = sf_yaml_take(s, "position");
        cfg_problem(r, n->line, n->column, "source.position",
                    "a survey places each shot in survey.shots or survey.grid; the source section "
                    "gives the other keys (wavelet, frequency, ...) for every shot");
    }
    cfg_read_wavelet(r, s, "source", NULL, &c->source.wavelet);
    const sf_yaml_node *delay = sf_yaml_peek(s, "delay");
    if (cfg_is_auto(delay))
        sf_yaml_take(s, "delay");
    else
        cfg_number(r, s, "delay", "source", CFG_DELAY, 0, &c->source.delay, NULL);
    c->source.delay_auto = !delay || cfg_is_auto(delay);
    cfg_number(r, s, "amplitude", "source", CFG_SCALE, 0, &c->source.amplitude,
               &c->source.amplitude_mark);
    read_source_vector(r, s, "direction", 3, SF_SOURCE_FORCE, "force", c, c->source.direction);
    read_source_vector(r, s, "moment", 6, SF_SOURCE_MOMENT, "moment", c, c->source.moment);
    const unsigned vectors = (1u << SF_SOURCE_FORCE) | (1u << SF_SOURCE_MOMENT);
    cfg_reject_unknown(r, s, "source",
                       sf_config_physics(c)->sources & vectors
                           ? "type, position, " CFG_WAVELET_KEYS ", delay, amplitude, "
                             "direction, moment"
                           : "type, position, " CFG_WAVELET_KEYS ", delay, amplitude");
}
