#!/usr/bin/env python3
"""Time stepping measured, not modelled: the README's choice between the
time-dispersion transforms and a 4th-order (modified-equation) integrator.

A 1D line with seisfd's order-8 Laplacian, 2000 m/s, 10 m, a 12 Hz Ricker
as the field (its derivative injected), and the step `dt: auto` gives the
issue's 3D job (0.8 of the 3D leapfrog limit). Each scheme runs; the trace at
800 m and 2 km is compared with the exact `r(t - x/v) / (2v)` by the
windowed L2 misfit of the test suite. Along a grid axis the 1D phase errors,
time and space, are the 3D ones, so the misfits are the 3D job's along
its axis.

  leapfrog            p+ = 2p - p- + dt^2 (A p + s)
  leapfrog + TDT      the same with the source warped before and the trace
                      after (the transforms of src/time_dispersion.c, here
                      as direct non-uniform DFTs)
  modified equation   p+ = 2p - p- + dt^2 (A p + s) + dt^4/12 (A (A p + s) + s'')
                      two Laplacians a step (and, on ranks, two exchanges)

Run time is counted in Laplacians per simulated second: the kernels are
memory bound, one Laplacian pass is one step's traffic (docs/performance.md),
so the count is the ratio of run times. Usage: python3 docs/time_stepping_study.py
"""
import numpy as np

V, H, F0 = 2000.0, 10.0, 12.0
DELAY = 1.5 / F0
COEF = [-205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560]   # order 8, d2/dx2 * h^2
OFFSETS = (800.0, 2000.0)


def ricker(t):
    a = (np.pi * F0 * (t - DELAY)) ** 2
    return (1 - 2 * a) * np.exp(-a)


def ricker_derivative(t, order=1, h=1e-5):
    """Central differences of the Ricker, float64 (h^2 error ~1e-10)."""
    if order == 0:
        return ricker(t)
    return (ricker_derivative(t + h, order - 1, h) - ricker_derivative(t - h, order - 1, h)) / (2 * h)


def leapfrog_dt_max():
    """0.8 of the 3D leapfrog limit, as dt: auto chooses it."""
    symbol = abs(COEF[0] + 2 * sum(c * (-1) ** k for k, c in enumerate(COEF[1:], 1)))
    return 2.0 / (V * np.sqrt(3 * symbol / H ** 2))


def laplacian(p):
    out = COEF[0] * p
    for k, c in enumerate(COEF[1:], 1):
        out[k:-k] += c * (p[2 * k:] + p[:-2 * k])
    out[:len(COEF) - 1] = out[-len(COEF) + 1:] = 0.0
    return out * V * V / (H * H)


def warp(series, dt, to_frequency, steps_out):
    """The series whose component at w is the input's at to_frequency(w):
    a direct DFT of the input evaluated at the mapped frequencies."""
    n = len(series)
    w = 2 * np.pi * np.fft.rfftfreq(2 * n, dt)
    mapped = to_frequency(w)
    keep = np.isfinite(mapped) & (w < 1.0 / dt)
    t = np.arange(n) * dt
    spectrum = np.zeros_like(w, dtype=complex)
    spectrum[keep] = np.exp(-1j * np.outer(mapped[keep], t)) @ series
    return np.fft.irfft(spectrum, 2 * n)[:steps_out]


def run(dt, duration, scheme, source):
    """Traces at OFFSETS from a point source of `source` (samples at n dt)."""
    nx = int(2 * (max(OFFSETS) + V * duration) / H) + 64
    x0 = nx // 2
    steps = int(np.ceil(duration / dt))
    p_old, p = np.zeros(nx), np.zeros(nx)
    receivers = [x0 + int(round(o / H)) for o in OFFSETS]
    traces = np.zeros((len(OFFSETS), steps + 1))
    t = np.arange(steps + 1) * dt
    s_tt = ricker_derivative(t, 3)
    for n in range(steps):
        s = np.zeros(nx)
        s[x0] = source[n] / H
        a = laplacian(p) + s
        p_new = 2 * p - p_old + dt * dt * a
        if scheme == "modified":
            s2 = np.zeros(nx)
            s2[x0] = s_tt[n] / H
            p_new += dt ** 4 / 12 * (laplacian(a) + s2)
        p_old, p = p, p_new
        traces[:, n + 1] = p[receivers]
    return t, traces


def misfits(t, traces):
    out = []
    for offset, trace in zip(OFFSETS, traces):
        exact = ricker(t - offset / V) / (2 * V)
        window = np.abs(t - offset / V - DELAY) <= 1.2 / F0
        out.append(np.linalg.norm(trace[window] - exact[window]) / np.linalg.norm(exact[window]))
    return out


def main():
    dt = 0.8 * leapfrog_dt_max()
    duration = max(OFFSETS) / V + DELAY + 1.5 / F0
    rows = []
    steps = int(np.ceil(duration / dt)) + 1
    t = np.arange(steps) * dt
    t_lf, lf = run(dt, duration, "leapfrog", ricker_derivative(t))
    rows.append(("leapfrog, dt: auto", 1.0, misfits(t_lf, lf)))
    # The transforms: the source's component at w becomes the wavelet's at
    # (2/dt) sin(w dt/2); the trace's at w the run's at (2/dt) asin(w dt/2).
    forward = warp(ricker_derivative(t), dt, lambda w: 2 / dt * np.sin(w * dt / 2), steps)
    t_c, raw = run(dt, duration, "leapfrog", forward)
    with np.errstate(invalid="ignore"):
        corrected = np.array([warp(tr, dt, lambda w: 2 / dt * np.arcsin(w * dt / 2), len(tr))
                              for tr in raw])
    rows.append(("leapfrog + transforms", 1.0, misfits(t_c, corrected)))
    t3 = np.arange(int(np.ceil(duration * 3 / dt)) + 1) * dt / 3
    rows.append(("leapfrog, dt/3", 3.0, misfits(*run(dt / 3, duration, "leapfrog",
                                                      ricker_derivative(t3)))))
    for factor in (1.0, 1.5):
        tm = np.arange(int(np.ceil(duration * 1 / (factor * dt))) + 1) * factor * dt
        rows.append((f"modified equation, {factor:g} dt", 2.0 / factor,
                     misfits(*run(factor * dt, duration, "modified", ricker_derivative(tm)))))
    print(f"1D, order 8, {V:g} m/s, {H:g} m, {F0:g} Hz Ricker, dt: auto = {dt * 1e3:.4f} ms")
    print(f"{'scheme':<32} {'Laplacians/s (rel.)':>20} " +
          " ".join(f"{'misfit ' + str(int(o)) + ' m':>14}" for o in OFFSETS))
    for name, cost, m in rows:
        print(f"{name:<32} {cost:>20.2f} " + " ".join(f"{100 * x:>13.3f}%" for x in m))


if __name__ == "__main__":
    main()
