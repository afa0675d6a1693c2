/* Driver of the CPML stability test's TTI check (tests/test_cpml_stability.py):
 * runs the CPU backend of the pseudo-acoustic physics (tilted) through its
 * public operations on one rank, so that the test's numpy model of the step
 * can be held to what the code does:
 *
 *   tti_steps order=O n=NX,NY,NZ thick=X0,X1,Y0,Y1,Z0,Z1 h=H dt=DT vmax=V
 *             frequency=F vp=VP epsilon=E delta=D theta=T phi=P steps=K
 *
 * A homogeneous medium of NX x NY x NZ points, spacing h on every axis,
 * with the absorbing layers sf_cpml_axis_init makes for each axis (the
 * default reflection, vmax and the peak frequency F, sf_cpml_alpha_floor's
 * floor, as tests/cpml_coefficients.c and build_cpml take them). stdin
 * holds NX*NY*NZ source weights (x fastest), then K amplitudes: every point
 * is a source (inject_source, into p and q alike) with that weight, and
 * step s injects amplitude s. After K steps (memory stage, advance stage
 * with the sources, finish) p is printed, x fastest, 9 digits. Exit status
 * 2 on a bad argument. */
#include "sf_acoustic.h"
#include "sf_backend.h"
#include "sf_cpml.h"
#include "sf_stencil.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_NAME "tti_steps"

static void usage(const char *why)
{
    fprintf(stderr,
            "tti_steps: %s\nusage: tti_steps order=O n=NX,NY,NZ thick=X0,X1,Y0,Y1,Z0,Z1 h=H dt=DT "
            "vmax=V frequency=F vp=VP epsilon=E delta=D theta=T phi=P steps=K\n",
            why);
    exit(2);
}

#include "tool_arguments.h"

/* count comma-separated integers into out. */
static void integers(const char *key, const char *text, long *out, int count)
{
    const char *p = text;
    for (int i = 0; i < count; ++i) {
        char *end;
        out[i] = strtol(p, &end, 10);
        if (end == p || (i < count - 1 ? *end != ',' : *end != '\0')) {
            fprintf(stderr, "tti_steps: %s=%s is not %d integers\n", key, text, count);
            exit(2);
        }
        p = end + 1;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n[3] = {0, 0, 0}, t[6] = {-1, -1, -1, -1, -1, -1};
    int order = 0, steps = 0;
    double h = 0, dt = 0, vmax = 0, frequency = -1, vp = 0, eps = 0, delta = 0, theta = 0, phi = 0;
    for (int i = 1; i < argc; ++i) {
        size_t k;
        const char *v = value_of(argv[i], &k);
#define IS(name) key_is(argv[i], k, name)
        if (IS("order")) order = (int)number("order", v);
        else if (IS("n")) integers("n", v, n, 3);
        else if (IS("thick")) integers("thick", v, t, 6);
        else if (IS("h")) h = number("h", v);
        else if (IS("dt")) dt = number("dt", v);
        else if (IS("vmax")) vmax = number("vmax", v);
        else if (IS("frequency")) frequency = number("frequency", v);
        else if (IS("vp")) vp = number("vp", v);
        else if (IS("epsilon")) eps = number("epsilon", v);
        else if (IS("delta")) delta = number("delta", v);
        else if (IS("theta")) theta = number("theta", v);
        else if (IS("phi")) phi = number("phi", v);
        else if (IS("steps")) steps = (int)number("steps", v);
        else usage("unknown key");
#undef IS
    }
    sf_problem p;
    memset(&p, 0, sizeof p);
    if (sf_stencil_init(&p.stencil, order) != 0) usage("order is 2, 4 or 8");
    for (int d = 0; d < 3; ++d)
        if (n[d] < 1 || t[2 * d] < 0 || t[2 * d + 1] < 0 || t[2 * d] + t[2 * d + 1] > n[d])
            usage("n >= 1 and 0 <= thick, low + high <= n on every axis");
    if (h <= 0 || dt <= 0 || vmax <= 0 || frequency < 0 || vp <= 0 || steps < 1)
        usage("h, dt, vmax, vp > 0, frequency >= 0, steps >= 1");
    const long count = n[0] * n[1] * n[2];
    p.nx = n[0], p.ny = n[1], p.nz = n[2];
    p.h[0] = p.h[1] = p.h[2] = h;
    p.dt = dt;
    const float value[5] = {(float)vp, (float)eps, (float)delta, (float)theta, (float)phi};
    float *medium[5];
    for (int q = 0; q < 5; ++q) {
        medium[q] = malloc((size_t)count * sizeof(float));
        for (long i = 0; i < count; ++i) medium[q][i] = value[q];
    }
    const float *const param[5] = {medium[0], medium[1], medium[2], medium[3], medium[4]};
    p.param = param;
    p.nparams = 5;
    sf_cpml_axis cpml[3];
    const double kappa = sf_cpml_alpha_floor(&p.stencil);
    for (int d = 0; d < 3; ++d) {
        const int thick[2] = {(int)t[2 * d], (int)t[2 * d + 1]};
        sf_cpml_axis_init(&cpml[d], n[d], thick, h, dt, vmax, frequency, 0.0, kappa);
    }
    p.cpml = cpml;
    sf_field_weight *source = malloc((size_t)count * sizeof *source);
    for (long k = 0, m = 0; k < n[2]; ++k)
        for (long j = 0; j < n[1]; ++j)
            for (long i = 0; i < n[0]; ++i, ++m) {
                source[m].field = 0;
                source[m].i = (int)i, source[m].j = (int)j, source[m].k = (int)k;
                if (scanf("%f", &source[m].weight) != 1) usage("stdin: too few source weights");
            }
    float *amplitude = malloc((size_t)steps * sizeof(float));
    for (int s = 0; s < steps; ++s)
        if (scanf("%f", &amplitude[s]) != 1) usage("stdin: too few amplitudes");
    p.source = source;
    p.source_count = count;
    p.sample_block = 1;

    const sf_backend_ops *ops = sf_backend_cpu_anisotropic();
    sf_backend *b = ops->create(&p);
    for (int s = 0; s < steps; ++s) {
        ops->update(b, SF_ACOUSTIC_MEMORY, 0, n[2]);
        ops->finish_stage(b, SF_ACOUSTIC_MEMORY);
        ops->update(b, SF_ACOUSTIC_ADVANCE, 0, n[2]);
        ops->inject_source(b, SF_ACOUSTIC_ADVANCE, amplitude[s], 0, n[2]);
        ops->finish_stage(b, SF_ACOUSTIC_ADVANCE);
    }
    float *out = malloc((size_t)count * sizeof(float));
    const sf_sampling_lattice all = {1, 1, 1, 0};
    ops->fetch_field(b, SF_COMPONENT_P, &all, out);
    for (long m = 0; m < count; ++m) printf("%.9g\n", out[m]);
    ops->destroy(b);
    for (int d = 0; d < 3; ++d) sf_cpml_axis_free(&cpml[d]);
    for (int q = 0; q < 5; ++q) free(medium[q]);
    free(source), free(amplitude), free(out);
    MPI_Finalize();
    return 0;
}
