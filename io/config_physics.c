/* The physics section of a job file (the physics and the stencil order),
 * and the messages for a key that only other physics take: they name
 * the physics that take it. */
#include "config_keys.h"
#include "config_sections.h"

#include "sf_physics_registry.h"
#include "sf_relaxation_fit.h"

#include <stdio.h>
#include <string.h>

static void physics_choices(char *out, size_t len) { sf_physics_names("|", out, len); }

static void default_physics(char *out, size_t len)
{
    snprintf(out, len, "%s", sf_physics_declared(SF_PHYSICS_DEFAULT)->name);
}

static const int ORDERS[] = {2, 4, 8};

static int attenuates(const sf_config *c) { return sf_physics_declared(c->physics)->attenuates; }

static int takes_attenuation(sf_physics p, int what)
{
    (void)what;
    return sf_physics_declared(p)->attenuates;
}

static void attenuating_physics(char *out, size_t len) { cfg_physics_taking(takes_attenuation, 0, out, len); }

static const cfg_key PHYSICS_ROWS[] = {
    {.name = "type", .type = CFG_KEY_CHOICE, .list_choices = physics_choices,
     .list_fallback = default_physics, .help = "the wave equation solved (physics.md)",
     .value = CFG_AT(sf_config, physics), .mark = CFG_AT(sf_config, physics_mark)},
    {.name = "order", .type = CFG_KEY_CHOICE, .choices = "2|4|8", .values = ORDERS,
     .fallback = "8", .help = "spatial order of the finite-difference stencil",
     .value = CFG_AT(sf_config, order), .mark = CFG_AT(sf_config, order_mark)},
    {.name = "attenuation_band", .type = CFG_KEY_VECTOR, .count = 2,
     .range = CFG_RANGE_FREQUENCY, .offered = attenuates,
     .offered_to = attenuating_physics, .unit = "Hz",
     .fallback = "from a quarter of the source wavelet's dominant frequency to its upper one",
     .help = "the band over which Q is held constant: [lowest, highest]",
     .value = CFG_AT(sf_config, attenuation_band), .mark = CFG_AT(sf_config, attenuation_band_mark)},
    {.name = "reference_frequency", .type = CFG_KEY_NUMBER, .range = CFG_RANGE_FREQUENCY,
     .offered = attenuates, .offered_to = attenuating_physics, .unit = "Hz",
     .fallback = "the source wavelet's dominant frequency",
     .help = "the frequency at which the model's velocities hold",
     .value = CFG_AT(sf_config, reference_frequency),
     .mark = CFG_AT(sf_config, reference_frequency_mark)},
    {.name = "mechanisms", .type = CFG_KEY_INTEGER, .lo = 1, .hi = SF_MAX_MECHANISMS,
     .offered = attenuates, .offered_to = attenuating_physics, .fallback = "3",
     .help = "standard linear solids per point (3 hold Q within 1% over 1.4 decades, 4 over 2)",
     .value = CFG_AT(sf_config, mechanisms), .mark = CFG_AT(sf_config, mechanisms_mark)},
    {.name = "relaxation_layout", .type = CFG_KEY_CHOICE, .choices = "full|coarse",
     .offered = attenuates, .offered_to = attenuating_physics, .fallback = "full",
     .help = "full: `mechanisms` solids at every point; coarse: one of 8 a point, by its corner "
             "of a 2 x 2 x 2 cell (a memory variable a point)",
     .value = CFG_AT(sf_config, relaxation_coarse), .mark = CFG_AT(sf_config, relaxation_layout_mark)},
};
const cfg_table CFG_PHYSICS_KEYS = CFG_TABLE("physics", NULL, "Optional.", PHYSICS_ROWS);

/* The table stores a choice as an int. */
_Static_assert(sizeof(sf_physics) == sizeof(int), "physics.type is read as an int");

void cfg_read_physics(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *section = cfg_section(r, root, "physics", "", 0);
    if (!section) return;
    cfg_read_keys(r, section, &CFG_PHYSICS_KEYS, c, c, NULL);
    /* The attenuation keys in a lossless job: said so, not "unknown"
     * (the type is known now). */
    for (int k = 0; k < CFG_PHYSICS_KEYS.count; ++k)
        if (CFG_PHYSICS_KEYS.keys[k].offered == attenuates)
            cfg_reject_foreign_key(r, section, "physics", CFG_PHYSICS_KEYS.keys[k].name, c,
                                   takes_attenuation, 0);
    cfg_reject_unknown_keys(r, section, &CFG_PHYSICS_KEYS, c);
    const sf_mark *count = &c->mechanisms_mark;
    if (count->line && c->relaxation_coarse)
        cfg_problem(r, count->line, count->column, "physics.mechanisms",
                    "a coarse relaxation_layout relaxes each point through one of %d solids; "
                    "mechanisms sets the full layout's count", SF_MAX_MECHANISMS);
    const sf_mark *layout = &c->relaxation_layout_mark;
    if (layout->line && c->relaxation_coarse && attenuates(c) == SF_ATTENUATES_STAGGERED)
        cfg_problem(r, layout->line, layout->column, "physics.relaxation_layout",
                    "coarse: %s takes the full layout only: on its staggered grid one solid a "
                    "point made an explosion radiate an S wave of 12%% of its P wave at Q 30 and "
                    "changed the P wave by 22%% (docs/physics.md)", sf_physics_declared(c->physics)->name);
    const sf_mark *band = &c->attenuation_band_mark;
    if (band->line && !(c->attenuation_band[0] < c->attenuation_band[1]))
        cfg_problem(r, band->line, band->column, "physics.attenuation_band",
                    "[%g, %g] Hz: the lowest frequency comes first, below the highest",
                    c->attenuation_band[0], c->attenuation_band[1]);
}

const char *cfg_article(const char *word) { return strchr("aeiou", word[0]) ? "an" : "a"; }

/* "elastic", "vti or tti": the names of the physics that take it. */
void cfg_physics_taking(cfg_physics_takes takes, int what, char *out, size_t len)
{
    int n = 0, total = 0;
    for (int p = 0; p < SF_PHYSICS_KINDS; ++p) total += takes((sf_physics)p, what) != 0;
    out[0] = '\0';
    for (int p = 0; p < SF_PHYSICS_KINDS; ++p) {
        if (!takes((sf_physics)p, what)) continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", n == 0 ? "" : n == total - 1 ? " or " : ", ",
                 sf_physics_declared((sf_physics)p)->name);
        ++n;
    }
}

/* Does physics q describe the default as text does? */
static int alike(cfg_physics_default describe, int q, const char *text)
{
    char other[96];
    describe((sf_physics)q, other, sizeof other);
    return !strcmp(other, text);
}

void cfg_physics_defaults(cfg_physics_default describe, char *out, size_t len)
{
    out[0] = '\0';
    for (int p = 0; p < SF_PHYSICS_KINDS; ++p) {
        char text[96];
        describe((sf_physics)p, text, sizeof text);
        int first = 1;
        for (int q = 0; q < p; ++q) first = first && !alike(describe, q, text);
        if (!first) continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s (", *out ? "; " : "", text);
        for (int q = p, n = 0; q < SF_PHYSICS_KINDS; ++q) {
            if (!alike(describe, q, text)) continue;
            used = strlen(out);
            snprintf(out + used, len - used, "%s%s", n++ ? ", " : "",
                     sf_physics_declared((sf_physics)q)->name);
        }
        used = strlen(out);
        snprintf(out + used, len - used, ")");
    }
}

/* A key only other physics take: reported where it is written (and
 * consumed, so it is not also an unknown key). */
void cfg_reject_foreign_key(cfg_reader *r, sf_yaml_node *map, const char *path, const char *key,
                            const sf_config *c, cfg_physics_takes takes, int what)
{
    if (takes(c->physics, what)) return;
    const sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) return;
    char full[256], who[96];
    snprintf(full, sizeof full, "%s%s%s", path, *path ? "." : "", key);
    cfg_physics_taking(takes, what, who, sizeof who);
    cfg_problem(r, n->line, n->column, full,
                "only %s %s job takes this key (physics.type: %s); this job is %s",
                cfg_article(who), who, who, sf_config_physics(c)->name);
}
