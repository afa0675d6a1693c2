/* The source section of a job file: its type (those the physics takes),
 * position, wavelet, delay, amplitude, and the force direction or moment
 * tensor. */
#include "config_keys.h"
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
static int read_source_type(cfg_reader *r, sf_yaml_node *s, const char *path, const cfg_key *key,
                            void *place)
{
    sf_config *c = place;
    const sf_physics_declaration *d = sf_config_physics(c);
    sf_source_config *src = &c->source;
    int type = d->default_source;
    src->type_mark = cfg_mark(s);
    int got = cfg_choice(r, s, key->name, path, key->choices, 0, &type, &src->type_mark);
    src->type = (sf_source_type)type;
    if (got <= 0 || ((d->sources >> type) & 1)) return got;
    /* A type of another physics is reported once; the job goes on as its
     * default type so that no key is asked for because of it. */
    char taken[96], takers[96];
    source_types(c->physics, taken, sizeof taken);
    cfg_physics_taking(takes_source, type, takers, sizeof takers);
    cfg_problem(r, src->type_mark.line, src->type_mark.column, "source.type",
                "%s sources need physics.type: %s (%s %s job takes %s)", SOURCE_TYPE_NAMES[type],
                takers, cfg_article(d->name), d->name, taken);
    src->type = (sf_source_type)d->default_source;
    return -1;
}

/* A list of numbers that only one source type takes, required there and
 * not all zero. */
static int read_source_vector(cfg_reader *r, sf_yaml_node *s, const char *path, const cfg_key *key,
                              sf_source_type owner, double *out, sf_config *c)
{
    char full[64];
    snprintf(full, sizeof full, "%s.%s", path, key->name);
    if (c->source.type != owner) {
        const sf_yaml_node *v = sf_yaml_take(s, key->name);
        if (v)
            cfg_problem(r, v->line, v->column, full, "only for source.type: %s",
                        SOURCE_TYPE_NAMES[owner]);
        return v ? -1 : 0;
    }
    sf_mark mark;
    int got = cfg_vector_key(r, s, key->name, path, key->count, key->range, 1, out, &mark);
    if (got <= 0) return got;
    double norm = 0.0;
    for (int i = 0; i < key->count; ++i) norm += fabs(out[i]);
    if (norm == 0.0)
        cfg_problem(r, mark.line, mark.column, full, "all components are zero: the source would "
                    "radiate nothing");
    return 1;
}

static int read_direction(cfg_reader *r, sf_yaml_node *s, const char *path, const cfg_key *key,
                          void *place)
{
    sf_config *c = place;
    return read_source_vector(r, s, path, key, SF_SOURCE_FORCE, c->source.direction, c);
}

static int read_moment(cfg_reader *r, sf_yaml_node *s, const char *path, const cfg_key *key,
                       void *place)
{
    sf_config *c = place;
    return read_source_vector(r, s, path, key, SF_SOURCE_MOMENT, c->source.moment, c);
}

/* A survey places each shot; a single shot's source has its position. */
static int read_position(cfg_reader *r, sf_yaml_node *s, const char *path, const cfg_key *key,
                         void *place)
{
    sf_config *c = place;
    if (!c->survey.enabled)
        return cfg_vector_key(r, s, key->name, path, key->count, key->range, 1,
                              c->source.position, &c->source.position_mark);
    const sf_yaml_node *n = sf_yaml_take(s, key->name);
    if (!n) return 0;
    cfg_problem(r, n->line, n->column, "source.position",
                "a survey places each shot in survey.shots or survey.grid; the source section "
                "gives the other keys (wavelet, frequency, ...) for every shot");
    return -1;
}

static int read_wavelet(cfg_reader *r, sf_yaml_node *s, const char *path, const cfg_key *key,
                        void *place)
{
    (void)key;
    return cfg_read_wavelet(r, s, path, NULL, &((sf_config *)place)->source.wavelet);
}

/* source.delay: seconds, or `auto` (also when absent): the wavelet's own. */
static int read_delay(cfg_reader *r, sf_yaml_node *s, const char *path, const cfg_key *key,
                      void *place)
{
    sf_source_config *src = &((sf_config *)place)->source;
    const sf_yaml_node *delay = sf_yaml_peek(s, key->name);
    src->delay_auto = !delay || cfg_is_auto(delay);
    if (!cfg_is_auto(delay)) return cfg_number(r, s, key->name, path, key->range, 0, &src->delay, NULL);
    sf_yaml_take(s, key->name);
    return 1;
}

/* Only a physics with force or moment sources lists their keys. */
static int offers_vectors(const sf_config *c)
{
    return (sf_config_physics(c)->sources >> SF_SOURCE_FORCE & 1) ||
           (sf_config_physics(c)->sources >> SF_SOURCE_MOMENT & 1);
}
static void force_physics(char *out, size_t len)
{
    cfg_physics_taking(takes_source, SF_SOURCE_FORCE, out, len);
}
static void moment_physics(char *out, size_t len)
{
    cfg_physics_taking(takes_source, SF_SOURCE_MOMENT, out, len);
}

static void physics_source(sf_physics p, char *out, size_t len)
{
    snprintf(out, len, "%s", SOURCE_TYPE_NAMES[sf_physics_declared(p)->default_source]);
}

static void default_source_type(char *out, size_t len) { cfg_physics_defaults(physics_source, out, len); }

static const cfg_key SOURCE_ROWS[] = {
    {.name = "type", .type = CFG_KEY_SPECIAL, .read = read_source_type, .form = "one of",
     .choices = "pressure|explosive|force|moment",
     .list_fallback = default_source_type,
     .help = "what the source injects; each physics takes some types"},
    {.name = "position", .type = CFG_KEY_SPECIAL, .read = read_position, .count = 3,
     .range = CFG_RANGE_COORDINATE, .form = "list of 3 numbers", .required = 1, .unit = "m",
     .help = "[x, y, z] inside the grid; not in a survey, which places its shots"},
    {.name = "wavelet", .type = CFG_KEY_SPECIAL, .read = read_wavelet, .group = 1,
     .keys = &CFG_WAVELET_KEYS, .form = "the wavelet keys (below)",
     .help = "the source signature: wavelet and the keys of its kind"},
    {.name = "delay", .type = CFG_KEY_SPECIAL, .read = read_delay, .form = "number or `auto`",
     .range = CFG_RANGE_DELAY, .fallback = "`auto`: the wavelet's own (ricker: 1.5 / frequency)",
     .unit = "s", .help = "where the wavelet's time zero lies in the run"},
    {.name = "amplitude", .type = CFG_KEY_NUMBER, .range = CFG_RANGE_SCALE, .fallback = "1",
     .help = "scale of the injected wavelet; its density must fit float32 (user guide)",
     .value = CFG_AT(sf_config, source.amplitude), .mark = CFG_AT(sf_config, source.amplitude_mark)},
    {.name = "direction", .type = CFG_KEY_SPECIAL, .read = read_direction, .count = 3,
     .range = CFG_RANGE_SCALE, .form = "list of 3 numbers", .offered = offers_vectors,
     .offered_to = force_physics, .fallback = "required for type: force",
     .help = "a force's [x, y, z] components, not all zero"},
    {.name = "moment", .type = CFG_KEY_SPECIAL, .read = read_moment, .count = 6,
     .range = CFG_RANGE_SCALE, .form = "list of 6 numbers", .offered = offers_vectors,
     .offered_to = moment_physics, .fallback = "required for type: moment",
     .help = "a moment tensor [Mxx, Myy, Mzz, Mxy, Mxz, Myz], not all zero"},
};
const cfg_table CFG_SOURCE_KEYS = CFG_TABLE("source", NULL, "Required.", SOURCE_ROWS);

void cfg_read_source(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *s = cfg_section(r, root, "source", "", 1);
    if (!s) return;
    cfg_read_keys(r, s, &CFG_SOURCE_KEYS, c, c, NULL);
    /* A physics without them still tells a direction or moment whose
     * type they are for. */
    if (!offers_vectors(c))
        for (int k = 0; k < CFG_SOURCE_KEYS.count; ++k)
            if (SOURCE_ROWS[k].offered == offers_vectors)
                SOURCE_ROWS[k].read(r, s, CFG_SOURCE_KEYS.path, &SOURCE_ROWS[k], c);
    cfg_reject_unknown_keys(r, s, &CFG_SOURCE_KEYS, c);
}
