/* run.precision: mixed stores every wavefield, memory variable and medium
 * array in 16-bit blocks: 16 consecutive values of a row share one
 * exponent e (the least with every |value| < 2^e) and each keeps a signed
 * 16-bit multiple of 2^(e-15). A value then carries 15 bits relative to the
 * largest of its neighbours, where IEEE half keeps 11 relative to itself
 * and needs a scale chosen beforehand; measured against float32 on the
 * order-8 leapfrog (user guide, "Mixed precision"), blocks came 5 to 8
 * times closer than half after 5,000 steps, and never underflow. Blocks
 * of 16, not 32: a receiver in the source's row 20 points away shared its
 * block with the source's near field (an explosion's pressure 1.9% off
 * the analytic wave at 200 m; 0.06% in blocks of 16).
 *
 * A block whose largest magnitude is below 2^SF_BLOCK16_LEAST_EXPONENT
 * holds zeros; one holding a non-finite value, or a value of 2^126 or more,
 * holds NaN throughout, so that the instability guard still sees it.
 * Rounding a block twice changes nothing. This header is the format's
 * one definition: sf_block16_round gives the values a block stores. */
#ifndef SF_BLOCK16_H
#define SF_BLOCK16_H

#include <math.h>
#include <stdint.h>
#include <string.h>

enum {
    SF_BLOCK16_VALUES = 16,           /* values sharing an exponent */
    SF_BLOCK16_MANTISSA_BITS = 15,    /* besides the sign */
    SF_BLOCK16_LEAST_EXPONENT = -110,   /* the least kept steps 2^-124, normal */
    SF_BLOCK16_GREATEST_EXPONENT = 126
};

/* 2^n for n within a normal float's exponents. */
static inline float sf_block16_power_of_two(int n)
{
    const uint32_t bits = (uint32_t)(n + 127) << 23;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* x, |x| < 2^22, to the nearest whole number, ties to even, in the
 * default rounding mode: it vectorises where rintf is a library call. The
 * shift takes x's sign (a bit operation rather than a branch, so that
 * loops of it vectorise); -0 comes out +0 as for +0. */
static inline float sf_block16_nearest_whole(float x)
{
    const float shift = copysignf(12582912.0f, x);   /* 1.5 * 2^23 */
    return (x + shift) - shift;
}

/* The bits of the largest magnitude among count values: they order
 * non-negative floats as their values and put NaN above infinity, and an
 * integer maximum vectorises. */
static inline uint32_t sf_block16_largest(const float *values, long count)
{
    uint32_t largest = 0;
    for (long i = 0; i < count; ++i) {
        uint32_t bits;
        memcpy(&bits, &values[i], sizeof bits);
        bits &= 0x7fffffffu;
        largest = bits > largest ? bits : largest;
    }
    return largest;
}

/* Rounds count values to a block whose largest magnitude has the bits
 * `largest` (sf_block16_largest of these values, or of several arrays'
 * blocks that share one exponent). */
static inline void sf_block16_round_to(float *values, long count, uint32_t largest)
{
    /* largest lies in [2^(e-1), 2^e); subnormals count as below the least. */
    const int e = (int)(largest >> 23) - 126;
    if (largest >= 0x7f800000u || e > SF_BLOCK16_GREATEST_EXPONENT) {   /* inf or NaN */
        for (long i = 0; i < count; ++i) values[i] = NAN;
        return;
    }
    if (largest == 0 || e <= SF_BLOCK16_LEAST_EXPONENT) {
        for (long i = 0; i < count; ++i) values[i] = 0.0f;
        return;
    }
    const float up = sf_block16_power_of_two(SF_BLOCK16_MANTISSA_BITS - e);
    const float down = sf_block16_power_of_two(e - SF_BLOCK16_MANTISSA_BITS);
    const float most = (float)((1 << SF_BLOCK16_MANTISSA_BITS) - 1);
    /* Exact scalings by powers of two around one rounding; |v| < 2^e
     * rounds to at most 2^15, held to 2^15 - 1. */
    for (long i = 0; i < count; ++i) {
        float m = sf_block16_nearest_whole(values[i] * up);
        m = m > most ? most : m;
        m = m < -most ? -most : m;
        values[i] = m * down;
    }
}

/* Rounds count <= SF_BLOCK16_VALUES values, one block, to what it stores. */
static inline void sf_block16_round(float *values, long count)
{
    sf_block16_round_to(values, count, sf_block16_largest(values, count));
}

#endif
