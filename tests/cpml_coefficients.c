/* Driver of the CPML stability test (tests/test_cpml_stability.py): prints,
 * as one JSON object on stdout, what the code computes for one axis, so
 * that the test's one-step matrices are built from the real coefficients:
 *
 *   cpml_coefficients order=O n=N thick=LOW[,HIGH] h=H vmax=V frequency=F
 *                     (dt=DT | cfl=FRACTION) [reflection=R] [floor=code|off|KAPPA]
 *
 * order: 2, 4 or 8; n points on the axis with layers of LOW and HIGH (=
 * LOW) points at its ends; spacing h (m), the fastest velocity vmax (m/s),
 * the peak frequency the layers are made for (Hz); dt in seconds, or cfl
 * the fraction of sf_cfl_dt_max on a grid of spacing h on all three axes
 * (what dt: auto with cfl_safety does); reflection 0 (the default) lets
 * sf_cpml_axis_init choose it from the thickness; floor: the shift's floor
 * kappa (alpha >= kappa d): code (the default) takes sf_cpml_alpha_floor's,
 * as build_cpml does for the second-order physics, off takes 0, and a
 * number is taken as it is.
 *
 * Printed: the stencil (sf_stencil_init: second[0..R], first[0..R] and
 * centered[0..R] at unit spacing, symbol_max), cfl_dt_max and the dt
 * used, kappa, the reflection aimed at, d0 and alpha_max, the layer spans
 * (sf_cpml_layer_span, low and high: lo, hi, hlo, hhi, flo, fhi), and per
 * point g the float coefficients a[g], b[g] (sf_cpml_axis: memory = b
 * memory + a input) and a_half[g], b_half[g] (half point g + 1/2; the
 * last, g = n - 1, is 0),
 * with the profile d and alpha at the points and half points (sf_cpml_profile).
 * Numbers are printed with 17 digits, so that floats and doubles read back
 * exactly. Exit status 2 on a bad argument. */
#include "sf_cpml.h"
#include "sf_stencil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_NAME "cpml_coefficients"

static void usage(const char *why)
{
    fprintf(stderr,
            "cpml_coefficients: %s\nusage: cpml_coefficients order=O n=N thick=LOW[,HIGH] h=H "
            "vmax=V frequency=F (dt=DT | cfl=FRACTION) [reflection=R] [floor=code|off|KAPPA]\n",
            why);
    exit(2);
}

#include "tool_arguments.h"

static void json_number(double v)
{
    if (isfinite(v)) printf("%.17g", v);
    else fputs("null", stdout);
}

static void json_array(const char *key, const double *v, long n)
{
    printf(",\n \"%s\": [", key);
    for (long i = 0; i < n; ++i) {
        if (i) fputs(", ", stdout);
        json_number(v[i]);
    }
    putchar(']');
}

static void json_floats(const char *key, const float *v, long n)
{
    double *d = malloc((size_t)n * sizeof *d);
    for (long i = 0; i < n; ++i) d[i] = v[i];
    json_array(key, d, n);
    free(d);
}

static void json_scalar(const char *key, double v)
{
    printf(",\n \"%s\": ", key);
    json_number(v);
}

int main(int argc, char **argv)
{
    int order = 0, thick[2] = {-1, -1};
    long n = 0;
    double h = 0, vmax = 0, frequency = -1, dt = 0, cfl = 0, reflection = 0;
    const char *floor_arg = "code";
    for (int i = 1; i < argc; ++i) {
        size_t k;
        const char *v = value_of(argv[i], &k);
#define IS(name) key_is(argv[i], k, name)
        if (IS("order")) order = (int)number("order", v);
        else if (IS("n")) n = (long)number("n", v);
        else if (IS("thick")) {
            char *end;
            thick[0] = thick[1] = (int)strtol(v, &end, 10);
            if (*end == ',') thick[1] = (int)strtol(end + 1, &end, 10);
            if (*end || end == v) usage("thick is LOW or LOW,HIGH");
        } else if (IS("h")) h = number("h", v);
        else if (IS("vmax")) vmax = number("vmax", v);
        else if (IS("frequency")) frequency = number("frequency", v);
        else if (IS("dt")) dt = number("dt", v);
        else if (IS("cfl")) cfl = number("cfl", v);
        else if (IS("reflection")) reflection = number("reflection", v);
        else if (IS("floor")) floor_arg = v;
        else usage("unknown key");
#undef IS
    }
    sf_stencil s;
    if (sf_stencil_init(&s, order) != 0) usage("order is 2, 4 or 8");
    if (n < 2 || thick[0] < 0 || thick[1] < 0 || thick[0] + thick[1] > n || h <= 0 || vmax <= 0 ||
        frequency < 0 || reflection < 0 || reflection >= 1)
        usage("n >= 2, 0 <= thick, LOW + HIGH <= n, h > 0, vmax > 0, frequency >= 0, "
              "0 <= reflection < 1");
    if ((dt > 0) == (cfl > 0)) usage("give one of dt and cfl, positive");
    const double spacing[3] = {h, h, h};
    const double dt_max = sf_cfl_dt_max(&s, spacing, vmax);
    if (cfl > 0) dt = cfl * dt_max;
    double kappa;
    if (!strcmp(floor_arg, "code")) kappa = sf_cpml_alpha_floor(&s);
    else if (!strcmp(floor_arg, "off")) kappa = 0.0;
    else kappa = number("floor", floor_arg);

    sf_cpml_axis ax;
    sf_cpml_axis_init(&ax, n, thick, h, dt, vmax, frequency, reflection, kappa);
    const int widest = thick[0] > thick[1] ? thick[0] : thick[1];

    printf("{\"order\": %d, \"radius\": %d", order, s.radius);
    json_array("second", s.second, s.radius + 1);
    json_array("first", s.first, s.radius + 1);
    json_array("centered", s.centered, s.radius + 1);
    json_scalar("symbol_max", sf_stencil_symbol_max(&s));
    json_scalar("h", h);
    json_scalar("vmax", vmax);
    json_scalar("frequency", frequency);
    json_scalar("cfl_dt_max", dt_max);
    json_scalar("dt", dt);
    json_scalar("kappa", kappa);
    json_scalar("reflection", reflection > 0 ? reflection : sf_cpml_default_reflection(widest));
    json_scalar("d0", ax.d0);
    json_scalar("alpha_max", ax.alpha_max);
    printf(",\n \"n\": %ld, \"thick\": [%d, %d]", n, thick[0], thick[1]);
    for (int side = 0; side < 2; ++side) {
        sf_cpml_span sp = sf_cpml_layer_span(&ax, side, s.radius);
        printf(",\n \"span_%s\": {\"lo\": %ld, \"hi\": %ld, \"hlo\": %ld, \"hhi\": %ld, "
               "\"flo\": %ld, \"fhi\": %ld}",
               side ? "high" : "low", sp.lo, sp.hi, sp.hlo, sp.hhi, sp.flo, sp.fhi);
    }
    json_floats("a", ax.a, n);
    json_floats("b", ax.b, n);
    json_floats("a_half", ax.a_half, n);
    json_floats("b_half", ax.b_half, n);
    double *prof[4];
    for (int q = 0; q < 4; ++q) prof[q] = calloc((size_t)n, sizeof(double));
    for (long g = 0; g < n; ++g) {
        sf_cpml_profile(&ax, (double)g, &prof[0][g], &prof[1][g]);
        if (g < n - 1) sf_cpml_profile(&ax, g + 0.5, &prof[2][g], &prof[3][g]);
    }
    json_array("d", prof[0], n);
    json_array("alpha", prof[1], n);
    json_array("d_half", prof[2], n);
    json_array("alpha_half", prof[3], n);
    printf("}\n");
    for (int q = 0; q < 4; ++q) free(prof[q]);
    sf_cpml_axis_free(&ax);
    return 0;
}
