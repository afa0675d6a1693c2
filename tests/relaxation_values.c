/* Driver of the visco-acoustic analytic test (tests/test_attenuation.py):
 * the standard linear solids a run uses for a job's band, and a point's
 * weights and unrelaxed velocity, as the physics computes them:
 *
 *   relaxation_values band=F0,F1 reference=F mechanisms=L q=Q
 *
 * prints "tau" and the relaxation times (s), "y" and the weights y_l
 * (the modulus normalised by its relaxed value is 1 + sum y_l i w tau_l /
 * (1 + i w tau_l)), and "unrelaxed" and the unrelaxed velocity over the
 * velocity at the reference frequency, 17 digits. Exit status 2 on a bad
 * argument, 1 when the band cannot be fitted. */
#include "sf_visco_acoustic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_NAME "relaxation_values"

static void usage(const char *why)
{
    fprintf(stderr, "relaxation_values: %s\nusage: relaxation_values band=F0,F1 reference=F "
                    "mechanisms=L q=Q\n", why);
    exit(2);
}

#include "tool_arguments.h"

int main(int argc, char **argv)
{
    sf_config c;
    memset(&c, 0, sizeof c);
    double q = 0.0;
    for (int k = 1; k < argc; ++k) {
        size_t n;
        const char *v = value_of(argv[k], &n);
        if (key_is(argv[k], n, "band")) {
            if (sscanf(v, "%lf,%lf", &c.attenuation_band[0], &c.attenuation_band[1]) != 2)
                usage("band=F0,F1");
        } else if (key_is(argv[k], n, "reference")) {
            c.reference_frequency = number("reference", v);
        } else if (key_is(argv[k], n, "mechanisms")) {
            c.mechanisms = (long)number("mechanisms", v);
        } else if (key_is(argv[k], n, "q")) {
            q = number("q", v);
        } else {
            usage("unknown key");
        }
    }
    sf_visco_attenuation a;
    char reason[256];
    if (sf_visco_attenuation_of(&c, &a, reason, sizeof reason) != 0) {
        fprintf(stderr, "relaxation_values: %s\n", reason);
        return 1;
    }
    float weight[SF_MAX_MECHANISMS];
    const double ratio = sf_visco_point(&a, 1.0, q, weight);
    double scaled = 0.0;
    for (int l = 0; l < a.times.count; ++l) scaled += weight[l];
    printf("tau");
    for (int l = 0; l < a.times.count; ++l) printf(" %.17g", a.times.tau[l]);
    /* weight_l = y_l / (1 + sum y): sum y = sum weight / (1 - sum weight). */
    printf("\ny");
    for (int l = 0; l < a.times.count; ++l) printf(" %.17g", weight[l] / (1.0 - scaled));
    printf("\nunrelaxed %.17g\n", ratio);
    return 0;
}
