/* The vector instruction sets the CPU backend's row sweeps are built for:
 * each sweep has a copy per set (SF_CPU_VECTOR_KERNEL, cpu_common.h), and
 * the widest the CPU has runs, unless SEISFD_CPU_VECTORS names a narrower
 * one (the tests compare them). No copy fuses a multiply and an add
 * (-ffp-contract=off), so every set gives the same gathers bit for bit. */
#ifndef SF_CPU_VECTORS_H
#define SF_CPU_VECTORS_H

typedef enum { SF_CPU_PORTABLE, SF_CPU_AVX2, SF_CPU_AVX512, SF_CPU_VECTOR_SETS } sf_cpu_vectors;

/* The set this process runs, chosen once: the widest the CPU has, capped
 * by SEISFD_CPU_VECTORS (portable, avx2, avx512); a value not among those
 * ends the run naming them. */
sf_cpu_vectors sf_cpu_vectors_chosen(void);

/* What the set-up summary says of it: "AVX-512 (the widest this CPU
 * has)", "AVX2 (SEISFD_CPU_VECTORS=avx2; the CPU has AVX-512)". */
void sf_cpu_vectors_describe(char *text, int len);

#endif
