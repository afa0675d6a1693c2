#include "sf_cpu_vectors.h"
#include "sf_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const KEYS[SF_CPU_VECTOR_SETS] = {"portable", "avx2", "avx512"};
#if defined(__x86_64__) && !defined(__AVX__)
#define PORTABLE_NAME "portable (SSE2)"
#else
#define PORTABLE_NAME "portable (the build's own flags)"
#endif
static const char *const NAMES[SF_CPU_VECTOR_SETS] = {PORTABLE_NAME, "AVX2", "AVX-512"};

static sf_cpu_vectors widest_supported(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return SF_CPU_AVX512;
    if (__builtin_cpu_supports("avx2")) return SF_CPU_AVX2;
#endif
    return SF_CPU_PORTABLE;
}

/* SEISFD_CPU_VECTORS as a set, or SF_CPU_VECTOR_SETS when unset. */
static sf_cpu_vectors asked(void)
{
    const char *value = getenv("SEISFD_CPU_VECTORS");
    if (!value || !*value) return SF_CPU_VECTOR_SETS;
    for (int v = 0; v < SF_CPU_VECTOR_SETS; ++v)
        if (!strcmp(value, KEYS[v])) return (sf_cpu_vectors)v;
    sf_fail_collective("SEISFD_CPU_VECTORS='%s': expected portable, avx2 or avx512", value);
}

sf_cpu_vectors sf_cpu_vectors_chosen(void)
{
    const sf_cpu_vectors widest = widest_supported(), want = asked();
    return want < widest ? want : widest;
}

void sf_cpu_vectors_describe(char *text, int len)
{
    const sf_cpu_vectors widest = widest_supported(), want = asked(), chosen = sf_cpu_vectors_chosen();
    if (want == SF_CPU_VECTOR_SETS)
        snprintf(text, (size_t)len, "%s (the widest this CPU has)", NAMES[chosen]);
    else
        snprintf(text, (size_t)len, "%s (SEISFD_CPU_VECTORS=%s; the CPU has %s)", NAMES[chosen],
                 KEYS[want], NAMES[widest]);
}
