"""Stability of the second-order CPML (issue 23): the spectral radius of the
one-step operator of the CPU schemes with their absorbing layers.

The state after a step is a linear map of the state before it, x' = M x,
and a mode grows (however slowly, however late) exactly when M has an
eigenvalue of modulus > 1. The tests build M densely in numpy, in 1D and
in 2D (small grids, layers on every side, corners included), for the
acoustic scheme (src/backends/cpu/acoustic.c), the VTI one and the TTI
one (src/backends/cpu/anisotropic.c), with the stencil and the layers'
coefficients that the code computes, read from bin/cpml_coefficients
(tests/cpml_coefficients.c: sf_stencil_init, sf_cfl_dt_max,
sf_cpml_alpha_floor, sf_cpml_axis_init, sf_cpml_layer_span), so that a
change of the profile or of the floor in src/cpml.c changes these matrices.

A step is written below as the backends do it, on a batch of states (one
per column), and M is that step applied to the identity. Per field u and
axis d, with D2 the centred second difference (order 2R), D1+ the
staggered first difference from the points to the half points and D1- back,
u zero outside the grid:

  memory stage:  psi_d <- b_half psi_d + a_half D1+_d u        (the layer's half points)
  advance stage: zeta_d <- b zeta_d + a (D2_d u + D1-_d psi_d)  (the layer's points)
                 S_d u = D2_d u + [D1-_d psi_d + zeta_d]         (the bracket where the update
                                                                  reads psi: the span's flo..fhi)
  acoustic:      p' = 2 p - p_prev + v^2 dt^2 sum_d S_d p
  VTI:           H1 u = S_z u, H2 u = S_x u + S_y u;
                 p' = 2 p - p_prev + vx H2 p + vz H1 q + vs (H1 p - H1 q)
                 q' = 2 q - q_prev + vn H2 p + vz H1 q - vs (H2 p - H2 q)   (sf_fdf_rhs)

psi lives on the span's half points hlo..hhi, zero elsewhere (the code's
padding); zeta is kept where the code's a != 0 (the layer's points): on the
other points of the span a = 0 and b = 1, so zeta stays 0 there for good
and is left out (it would only add eigenvalues of exactly 1). The stencil
coefficients are rounded to float as the backends store them (second / h^2,
first / h), as are a and b (the driver prints the floats).

TTI (tti_step) adds the tilt's weights w (sf_tilt_weights: H1 = sum_a w_aa
S_a u + sum_{a<b} w_ab (D_a D_b u + corr_ab), H2 = sum_a S_a u - H1, D_a
the centred first derivative, stencil.centered / h) and the stretch of
each mixed derivative by both of its axes' layers, two point-wise memory
variables per pair and field (sf_mixed_stretch):

  inner <- b_b inner + a_b y,  outer <- b_a outer + a_a (y + inner),
  corr_ab = inner + outer,     y = D_a D_b u, a and b the points' coefficients

(two first-order filters at one point, F = a z / (z - b) in the shift z:
corr = ((1 + F_a)(1 + F_b) - 1) y, the same whichever axis is inner), in
the code's order (advance_row's plain operators, correct_point's layer
terms, correct_mixed's stretch). Its matrices are built on x-z grids (no
variation along y, tilt in the x-z plane), which tti_model_reduces checks
to be the 3D model's reduction, and tti_model_is_the_code holds the 3D
model to the CPU backend itself (bin/tti_steps, tests/tti_steps.c).
"""
import functools
import json
import os
import subprocess

import numpy as np

from testlib import BIN_DIR, check, check_sanitizers, time_limit

DRIVER = os.path.join(BIN_DIR, "cpml_coefficients")

# How far above 1 the spectral radius may lie: 1e-6 per step is a growth
# of at most e^0.01 over 10^4 steps, while without the floor the layers of
# the user's jobs grow by 1.6e-4 to 4e-3 per step in 1D (orders 4 and 8, dt
# 0.3 to 1 of the limit; more in 3D), 160 times the tolerance and more.
# The matrices hold the float a, b and stencil coefficients the code
# stores. With a floor (orders 4 and 8) alpha > 0 throughout the layer and
# the acoustic eigenvalues stay well inside the circle (no closer to 1
# than 5e-5 in the sweeps), out of reach of the rounding of a and b (2^-24 of each);
# what the tolerance covers is LAPACK's error where the scheme itself has
# an eigenvalue of modulus 1: VTI media with epsilon = delta, whose p or q
# does not move by itself along an axis (a Jordan pair at 1, computed as
# 1 + 7e-8).
TOLERANCE = 1e-6

# With no floor alpha reaches 0 at the layer's outer point, where then
# a = b - 1: zeta cancels the point's whole second derivative at zero
# frequency, and the step has a double eigenvalue 1 (a static state
# there). The exact coefficients keep it at 1 (checked: the matrices with
# a, b in double from the printed d and alpha, within TOLERANCE), but a and
# b rounded to float apart leave a + 1 - b off 0 by up to about 2^-24,
# which splits the pair to 1 +- eps, the more the smaller b is there:
# up to 3.6e-5 (3-point layers, reflection 1e-12, dt 0.91 of the limit,
# b = 7e-4 at the outer point), a real if slow growth at order 2, whose
# stability bound is 0. So order 2 too has a floor (0.001 d, the least
# sf_cpml_alpha_floor returns), which keeps it at 1 - 6e-6 or less; the
# cases without the floor below use the exact coefficients.
# A floor below this is none.
NO_FLOOR = 1e-6

# The user's jobs of issue 23 (25^3-like grids, dt: auto = 0.8 of the
# limit): h, vp, peak frequency, layer thickness, points on the axis.
USER_JOBS = [dict(h=10.0, v=4500.0, f=3.0, thick=(6, 6), n=25),
             dict(h=10.0, v=3000.0, f=6.0, thick=(6, 6), n=25),
             dict(h=20.0, v=3000.0, f=6.0, thick=(20, 20), n=53)]

# The growth rate bin/seisfd showed with no floor on 25^3, cpml 6, 4500 m/s,
# 3 Hz, h 10 m, dt 0.8 of the limit, measured in the research of issue 23
# (whose sparse model of the 3D step gave 2.6609/s by power iteration). A
# change of the profile in src/cpml.c moves it: it is then to be measured
# again.
BINARY_RATE_25_CUBED = 2.6607


# ---- the code's coefficients -------------------------------------------------

@functools.lru_cache(maxsize=None)
def driver(**kw):
    """bin/cpml_coefficients' JSON for one axis (key=value arguments)."""
    args = [DRIVER] + [f"{k}={v}" for k, v in sorted(kw.items())]
    p = subprocess.run(args, capture_output=True, text=True, timeout=time_limit(60))
    check_sanitizers(p.stderr, " ".join(args))
    check(p.returncode == 0, f"{' '.join(args)} exited {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


class Axis:
    """One axis as a CPU backend holds it: the float stencil coefficients at
    spacing h, a, b, a_half, b_half, and where psi, zeta and the layer term
    live. exact: a and b not rounded to float (see exact_coefficients)."""

    def __init__(self, js, exact=False):
        self.js = js
        n, h, R = js["n"], js["h"], js["radius"]
        self.n, self.h, self.R, self.dt, self.kappa = n, h, R, js["dt"], js["kappa"]
        f32 = lambda x: np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)
        self.c2 = f32(np.array(js["second"]) / (h * h))     # b->cx[m] = (float)(second[m] / h^2)
        self.f1 = f32(np.array(js["first"]) / h)             # b->fx[m] = (float)(first[m] / h)
        self.d1 = f32(np.array(js["centered"]) / h)          # b->d1[a][m]: centred, tti
        self.a, self.b = np.array(js["a"]), np.array(js["b"])
        self.ah, self.bh = np.array(js["a_half"])[:n - 1], np.array(js["b_half"])[:n - 1]
        if exact:
            self.a, self.b = exact_coefficients(js, "d", "alpha", self.a, self.b)
            self.ah, self.bh = exact_coefficients(js, "d_half", "alpha_half", self.ah, self.bh)
        spans = [js["span_low"], js["span_high"]]
        span_halves = np.zeros(n - 1, bool)
        layer = np.zeros(n, bool)
        self.reach = np.zeros(n, bool)
        for s in spans:
            span_halves[s["hlo"]:s["hhi"]] = True
            layer[s["lo"]:s["hi"]] = True
            self.reach[s["flo"]:s["fhi"]] = True
        check(not self.ah[~span_halves].any() and not self.a[~layer].any(),
              "the code's a or a_half is not 0 outside its layers: its memory variables would "
              "not stay 0 there, which this model assumes")
        self.halves = span_halves & (self.ah != 0)   # psi: the span's half points
        self.points = self.reach & (self.a != 0)     # zeta: where it does not stay 0
        check(np.array_equal(self.halves, span_halves),
              "a_half is 0 on a half point of the layer")


def exact_coefficients(js, d_key, alpha_key, a_float, b_float):
    """a and b in double from the profile (d, alpha) the driver printed, as
    src/cpml.c's coefficients() computes them before rounding to float:
    b = exp(-(d + alpha) dt), a = d (b - 1) / (d + alpha). Checked against
    the code's floats (within their rounding), so that a change of that
    formula shows here."""
    m = len(a_float)
    d, alpha = np.array(js[d_key])[:m], np.array(js[alpha_key])[:m]
    b = np.exp(-(d + alpha) * js["dt"])
    a = np.where(d > 0, d * (b - 1) / np.where(d + alpha > 0, d + alpha, 1.0), 0.0)
    ulp = 2.0 ** -23
    check(np.all(np.abs(a - a_float) <= ulp * np.abs(a) + 1e-300)
          and np.all(np.abs(b - b_float) <= ulp * np.abs(b)),
          "src/cpml.c's a, b are not d (b - 1)/(d + alpha), exp(-(d + alpha) dt) rounded to "
          "float: update exact_coefficients")
    return a, b


def axis(order, n, thick, h, vmax, f, cfl=None, dt=None, reflection=0.0, floor="code",
         exact=False):
    kw = dict(order=order, n=n, thick=f"{thick[0]},{thick[1]}", h=repr(float(h)),
              vmax=repr(float(vmax)), frequency=repr(float(f)), reflection=repr(float(reflection)),
              floor=floor)
    if dt is not None:
        kw["dt"] = repr(float(dt))
    else:
        kw["cfl"] = repr(float(cfl))
    return Axis(driver(**kw), exact)


# ---- stencils on batches: arrays of shape grid + (batch,) --------------------

def _slice(u, d, lo, hi):
    idx = [slice(None)] * u.ndim
    idx[d] = slice(lo, hi)
    return u[tuple(idx)]


def _pad(u, d, R):
    """R zeros either side of axis d (outside the grid, or the psi pads)."""
    widths = [(0, 0)] * u.ndim
    widths[d] = (R, R)
    return np.pad(u, widths)


def second(u, ax, d):
    """D2 along d: c0 u + sum_m cm (u[i+m] + u[i-m])."""
    n, R = u.shape[d], ax.R
    up = _pad(u, d, R)
    out = ax.c2[0] * u
    for m in range(1, R + 1):
        out = out + ax.c2[m] * (_slice(up, d, R + m, R + m + n) + _slice(up, d, R - m, R - m + n))
    return out


def first_to_halves(u, ax, d):
    """D1+ along d, half point j (at j + 1/2) of 0..n-2: sum_m fm (u[j+m] - u[j-m+1])."""
    n, R = u.shape[d], ax.R
    up = _pad(u, d, R)
    out = 0.0
    for m in range(1, R + 1):
        out = out + ax.f1[m] * (_slice(up, d, R + m, R + m + n - 1)
                                - _slice(up, d, R - m + 1, R - m + n))
    return out


def first_to_points(psi, ax, d):
    """D1- along d, point i: sum_m fm (psi[i+m-1] - psi[i-m]), psi having n - 1 half points."""
    n, R = psi.shape[d] + 1, ax.R
    pp = _pad(psi, d, R)
    out = 0.0
    for m in range(1, R + 1):
        out = out + ax.f1[m] * (_slice(pp, d, R + m - 1, R + m - 1 + n)
                                - _slice(pp, d, R - m, R - m + n))
    return out


def centered(u, ax, d):
    """The centred first derivative along d on the points: sum_m dm (u[i+m] - u[i-m])."""
    n, R = u.shape[d], ax.R
    up = _pad(u, d, R)
    out = 0.0
    for m in range(1, R + 1):
        out = out + ax.d1[m] * (_slice(up, d, R + m, R + m + n) - _slice(up, d, R - m, R - m + n))
    return out


def _line(values, d, ndim):
    """A 1D array along axis d of an ndim grid, broadcast over the batch too."""
    shape = [1] * (ndim + 1)
    shape[d] = len(values)
    return np.reshape(values, shape)


# ---- the state vector --------------------------------------------------------

class Layout:
    """Named blocks of the state: a grid-shaped array restricted to a mask."""

    def __init__(self):
        self.blocks, self.size = {}, 0

    def add(self, name, mask):
        mask = np.asarray(mask, bool)
        self.blocks[name] = (self.size, mask)
        self.size += int(mask.sum())

    def get(self, x, name):
        """The block as a full array (zeros off the mask), batch last."""
        start, mask = self.blocks[name]
        out = np.zeros(mask.shape + (x.shape[1],))
        out[mask] = x[start:start + int(mask.sum())]
        return out

    def put(self, y, name, value):
        start, mask = self.blocks[name]
        y[start:start + int(mask.sum())] = value[mask]


def _grid_mask(axes, d, along):
    """A mask along axis d (length n or n - 1) over the whole grid."""
    shape = [a.n for a in axes]
    shape[d] = len(along)
    return np.broadcast_to(np.reshape(along, [len(along) if e == d else 1
                                              for e in range(len(axes))]), shape)


def add_layer_memory(layout, axes, field, names=None):
    """psi and zeta of field along each axis (named by index, or by names)."""
    for d, ax in enumerate(axes):
        tag = names[d] if names else d
        layout.add(f"psi_{field}{tag}", _grid_mask(axes, d, ax.halves))
        layout.add(f"zeta_{field}{tag}", _grid_mask(axes, d, ax.points))


def layer_terms(x, y, layout, axes, field, u, names=None):
    """(D2_d u, the layer's term [D1-_d psi_d + zeta_d] where the update reads
    psi) for every axis d, advancing field's psi_d and zeta_d (read from
    state x, written to y) as the two stages do."""
    nd = len(axes)
    out = []
    for d, ax in enumerate(axes):
        tag = names[d] if names else d
        psi = layout.get(x, f"psi_{field}{tag}")
        psi = _line(ax.bh, d, nd) * psi + _line(ax.ah, d, nd) * first_to_halves(u, ax, d)
        psi = psi * _line(ax.halves, d, nd)          # stored on the span only
        layout.put(y, f"psi_{field}{tag}", psi)
        d2 = second(u, ax, d)
        dpsi = first_to_points(psi, ax, d)
        zeta = layout.get(x, f"zeta_{field}{tag}")
        zeta = _line(ax.b, d, nd) * zeta + _line(ax.a, d, nd) * (d2 + dpsi)
        zeta = zeta * _line(ax.points, d, nd)
        layout.put(y, f"zeta_{field}{tag}", zeta)
        out.append((d2, _line(ax.reach, d, nd) * (dpsi + zeta)))
    return out


def layer_second(x, y, layout, axes, field, u):
    """S_d u for every axis d (layer_terms' two parts summed)."""
    return [d2 + term for d2, term in layer_terms(x, y, layout, axes, field, u)]


def grid_shape(axes):
    return tuple(a.n for a in axes)


# ---- the schemes -------------------------------------------------------------

def acoustic_step(axes, case):
    """src/backends/cpu/acoustic.c: p' = 2p - p_prev + vdt2 sum_d S_d p."""
    shape = grid_shape(axes)
    dt = axes[0].dt
    vdt2 = float(np.float32(case["v"] * case["v"] * dt * dt))   # b->vdt2, a float
    L = Layout()
    L.add("p", np.ones(shape)), L.add("p_prev", np.ones(shape))
    add_layer_memory(L, axes, "p")

    def step(x):
        y = np.zeros_like(x)
        p, pm = L.get(x, "p"), L.get(x, "p_prev")
        S = layer_second(x, y, L, axes, "p", p)
        L.put(y, "p", 2 * p - pm + vdt2 * sum(S))
        L.put(y, "p_prev", p)
        return y
    return step, L


def vti_speeds(case, dt):
    """sf_fdf_at in float: vz, vx, vn, vs (velocities squared times dt^2)."""
    f = np.float32
    vp, eps, delta, dt2 = f(case["v"]), f(case["epsilon"]), f(case["delta"]), f(dt * dt)
    vz = vp * vp * dt2
    return (float(vz), float(vz * (f(1) + f(2) * eps)), float(vz * (f(1) + f(2) * delta)),
            float(vz * (eps - delta) * f(1.0 / 0.75)))   # SF_ANISOTROPY_SIGMA


def vti_step(axes, case):
    """src/backends/cpu/anisotropic.c with no tilt: fields p and q, each with
    its own memory variables; H1 the z part (the axis named "z" in
    case["axes"]), H2 the others."""
    shape = grid_shape(axes)
    vz, vx, vn, vs = vti_speeds(case, axes[0].dt)
    names = case["axes"]
    L = Layout()
    for name in ("p", "q", "p_prev", "q_prev"):
        L.add(name, np.ones(shape))
    add_layer_memory(L, axes, "p")
    add_layer_memory(L, axes, "q")

    def step(x):
        y = np.zeros_like(x)
        H = {}
        zero = np.zeros(shape + (x.shape[1],))
        for f in "pq":
            S = layer_second(x, y, L, axes, f, L.get(x, f))
            H[f, 1] = sum((s for s, a in zip(S, names) if a == "z"), zero)
            H[f, 2] = sum((s for s, a in zip(S, names) if a != "z"), zero)
        p, q = L.get(x, "p"), L.get(x, "q")
        L.put(y, "p", 2 * p - L.get(x, "p_prev") + vx * H["p", 2] + vz * H["q", 1]
              + vs * (H["p", 1] - H["q", 1]))
        L.put(y, "q", 2 * q - L.get(x, "q_prev") + vn * H["p", 2] + vz * H["q", 1]
              - vs * (H["p", 2] - H["q", 2]))
        L.put(y, "p_prev", p), L.put(y, "q_prev", q)
        return y
    return step, L


def vti_vmax(case):
    """The fastest qP speed, as src/model.c's anisotropic_speeds takes it
    (epsilon a float, as the model holds it)."""
    return case["v"] * np.sqrt(max(1.0, 1.0 + 2.0 * float(np.float32(case["epsilon"]))))


# The mixed derivatives' pairs of axes in the code's order (SF_MIXED_PAIRS:
# sf_mixed_first_axis, sf_mixed_second_axis) with their weight's index in
# sf_tilt_weights; the second derivatives' weights are 0, 1, 2 (xx, yy, zz).
MIXED_PAIRS = (("x", "y", 3), ("x", "z", 4), ("y", "z", 5))
SECOND_WEIGHT = {"x": 0, "y": 1, "z": 2}


def tilt_weights(theta, phi):
    """sf_tilt_weights in float: xx, yy, zz, xy, xz, yz, the mixed ones
    doubled, for the axis n = (sin theta cos phi, sin theta sin phi, cos theta)."""
    f = np.float32
    radians = f(np.pi / 180.0)
    st, ct = np.sin(f(theta) * radians), np.cos(f(theta) * radians)
    sp, cp = np.sin(f(phi) * radians), np.cos(f(phi) * radians)
    nx, ny, nz = st * cp, st * sp, ct
    return [float(w) for w in (nx * nx, ny * ny, nz * nz, f(2) * nx * ny, f(2) * nx * nz,
                               f(2) * ny * nz)]


def tti_step(axes, case):
    """src/backends/cpu/anisotropic.c with a tilt (b->tilted), the axes
    named by case["axes"] (x, y, z; an absent axis is one the fields do not
    vary along, away from its layers: its derivatives are 0), tilt theta
    and azimuth phi (case["phi"], default 0) the same at every point, the
    layers included. The memory stage advances psi; the advance stage
    takes, as advance_row and correct_row do, the plain operators
    (tti_operators: H1 = w_xx D2_x + w_yy D2_y + w_zz D2_z + sum w_ab D_a D_b,
    H2 = the Laplacian - H1, D_a D_b the product of the centred first
    derivatives over the (2R)^2 square, plain_mixed) through sf_fdf_rhs;
    then per axis the layer's term c = D1- psi + zeta (zeta advanced) with
    H1 += w_aa c, H2 += c - w_aa c (correct_point); then per pair of axes
    the stretch of its mixed derivative (correct_mixed, sf_mixed_stretch):
    inner <- b_b inner + a_b y, outer <- b_a outer + a_a (y + inner), y =
    D_a D_b u, the node coefficients of each axis at the point, H1 += w_ab
    (inner + outer), H2 -= the same. inner lives where the second axis's a
    is not 0, outer where the first's is not (elsewhere they stay 0).
    case["stretch"] False: the scheme before the stretch, no mixed memory."""
    shape = grid_shape(axes)
    nd = len(axes)
    vz, vx, vn, vs = vti_speeds(case, axes[0].dt)
    names = case["axes"]
    w = tilt_weights(case["theta"], case.get("phi", 0.0))
    stretch = case.get("stretch", True)
    index = {name: d for d, name in enumerate(names)}
    pairs = [(index[a], index[c], w[k]) for a, c, k in MIXED_PAIRS if a in index and c in index]
    L = Layout()
    for name in ("p", "q", "p_prev", "q_prev"):
        L.add(name, np.ones(shape))
    for f in "pq":
        add_layer_memory(L, axes, f, names)
    if stretch:
        for f in "pq":
            for a, c, _ in pairs:
                L.add(f"inner_{f}{names[a]}{names[c]}", _grid_mask(axes, c, axes[c].a != 0))
                L.add(f"outer_{f}{names[a]}{names[c]}", _grid_mask(axes, a, axes[a].a != 0))

    def rhs(h1p, h2p, h1q, h2q):   # sf_fdf_rhs
        return (vx * h2p + vz * h1q + vs * (h1p - h1q),
                vn * h2p + vz * h1q - vs * (h2p - h2q))

    def step(x):
        y = np.zeros_like(x)
        u = {f: L.get(x, f) for f in "pq"}
        # the memory stage (psi) and the layers' terms (zeta advanced)
        terms = {f: layer_terms(x, y, L, axes, f, u[f], names) for f in "pq"}
        mixed = {(f, a, c): centered(centered(u[f], axes[c], c), axes[a], a)
                 for f in "pq" for a, c, _ in pairs}
        # advance_row: the plain operators
        H = {}
        for f in "pq":
            h1 = sum(w[SECOND_WEIGHT[names[d]]] * terms[f][d][0] for d in range(nd))
            h1 = h1 + sum(wab * mixed[f, a, c] for a, c, wab in pairs)
            H[f] = (h1, sum(d2 for d2, _ in terms[f]) - h1)
        dp, dq = rhs(H["p"][0], H["p"][1], H["q"][0], H["q"][1])
        new_p = 2 * u["p"] - L.get(x, "p_prev") + dp
        new_q = 2 * u["q"] - L.get(x, "q_prev") + dq
        # correct_point: each axis's layer term, H1 with its weight
        for d in range(nd):
            wd = w[SECOND_WEIGHT[names[d]]]
            cp, cq = terms["p"][d][1], terms["q"][d][1]
            dp, dq = rhs(wd * cp, cp - wd * cp, wd * cq, cq - wd * cq)
            new_p, new_q = new_p + dp, new_q + dq
        # correct_mixed: the pairs' stretch
        for a, c, wab in pairs if stretch else ():
            corr = {}
            for f in "pq":
                tag = f"{f}{names[a]}{names[c]}"
                inner = (_line(axes[c].b, c, nd) * L.get(x, f"inner_{tag}")
                         + _line(axes[c].a, c, nd) * mixed[f, a, c])
                outer = (_line(axes[a].b, a, nd) * L.get(x, f"outer_{tag}")
                         + _line(axes[a].a, a, nd) * (mixed[f, a, c] + inner))
                L.put(y, f"inner_{tag}", inner), L.put(y, f"outer_{tag}", outer)
                corr[f] = inner + outer   # 0 off their masks: a = 0 there
            dp, dq = rhs(wab * corr["p"], -wab * corr["p"], wab * corr["q"], -wab * corr["q"])
            new_p, new_q = new_p + dp, new_q + dq
        L.put(y, "p", new_p), L.put(y, "q", new_q)
        L.put(y, "p_prev", u["p"]), L.put(y, "q_prev", u["q"])
        return y
    return step, L


OPERATORS = {"acoustic": (acoustic_step, lambda c: c["v"]),
             "vti": (vti_step, vti_vmax),
             "tti": (tti_step, vti_vmax)}


# ---- building and measuring --------------------------------------------------

def case_axes(case, floor="code", exact=False):
    """The case's axes from the driver: case["grid"] is [(n, (low, high)), ...]."""
    _, vmax = OPERATORS[case["physics"]]
    return [axis(case["order"], n, thick, case["h"], vmax(case), case["f"], cfl=case["cfl"],
                 reflection=case.get("reflection", 0.0), floor=floor, exact=exact)
            for n, thick in case["grid"]]


def radius(case, floor="code", exact=False):
    """(spectral radius, its eigenvalue, dt, matrix size, kappa) of the case's step."""
    axes = case_axes(case, floor, exact)
    build, _ = OPERATORS[case["physics"]]
    step, layout = build(axes, case)
    w = np.linalg.eigvals(step(np.eye(layout.size)))
    k = int(np.argmax(np.abs(w)))
    return float(abs(w[k])), complex(w[k]), axes[0].dt, layout.size, axes[0].kappa


def describe(case):
    keys = ("physics", "order", "grid", "h", "v", "f", "reflection", "cfl", "epsilon", "delta",
            "theta", "phi", "stretch", "axes")
    return ", ".join(f"{k} {case[k]}" for k in keys if k in case)


def sweep_1d():
    """Deterministic 1D cases: every order and thickness pair, the other
    parameters drawn so that each of their values comes up about equally."""
    rng = np.random.RandomState(23)   # the legacy generator: its stream is fixed
    thicknesses = [(3, 3), (6, 6), (10, 10), (20, 20), (3, 10), (20, 6)]
    values = dict(v=[1500.0, 3000.0, 4500.0, 8000.0, 20000.0], h=[5.0, 10.0, 20.0],
                  ppw=[1000.0, 100.0, 30.0, 10.0, 5.0, 3.0, 2.5],   # points per wavelength at f
                  reflection=[0.0, 1e-1, 1e-3, 1e-6, 1e-9, 1e-12], cfl=[0.3, 0.5, 0.8, 1.0])
    per_pair = 5
    count = 3 * len(thicknesses) * per_pair
    draws = {k: rng.permutation(np.resize(rng.permutation(len(v)), count))
             for k, v in values.items()}
    cases, i = [], 0
    for order in (2, 4, 8):
        for thick in thicknesses:
            for _ in range(per_pair):
                p = {k: values[k][draws[k][i]] for k in values}
                i += 1
                # an interior of 2R + 1 or more points: the two layers' reaches
                # (each R points past its layer) stay apart, as in any real grid
                n = thick[0] + thick[1] + order + 1 + i % 5
                cases.append(dict(physics="acoustic", order=order, grid=[(n, thick)], h=p["h"],
                                  v=p["v"], f=p["v"] / (p["ppw"] * p["h"]),
                                  reflection=p["reflection"], cfl=p["cfl"]))
    # where order 2's double eigenvalue 1 split the most without its floor
    cases.append(dict(physics="acoustic", order=2, grid=[(11, (3, 3))], h=10.0, v=3000.0, f=3.0,
                      reflection=1e-12, cfl=0.9125))
    for job in USER_JOBS:
        for order in (2, 4, 8):
            for cfl in (0.3, 0.8, 1.0):
                cases.append(dict(physics="acoustic", order=order, grid=[(job["n"], job["thick"])],
                                  h=job["h"], v=job["v"], f=job["f"], cfl=cfl))
    return cases


def check_radii(cases):
    """Every case has a floor and a spectral radius within TOLERANCE of 1;
    returns the largest radius, its case, and the largest matrix."""
    worst, size = (0.0, None), 0
    for case in cases:
        r, lam, dt, m, kappa = radius(case)
        size = max(size, m)
        check(kappa > NO_FLOOR, f"no floor for {describe(case)}: kappa {kappa:g}")
        check(r <= 1.0 + TOLERANCE,
              f"a growing mode: |lambda| = {r:.9f} ({lam:.6g}; {np.log(r) / dt:.4g}/s) for "
              f"{describe(case)}")
        if r > worst[0]:
            worst = (r, case)
    return worst, size


def radii_summary(cases, worst, size):
    r, case = worst
    return (f"{len(cases)} cases, matrices up to {size}; largest |lambda| 1{r - 1:+.2e} "
            f"({describe(case)})")


# ---- the tests ---------------------------------------------------------------

def test_acoustic_1d_sweep(tmp):
    """Orders 2, 4, 8; layers of 3, 6, 10, 20 points and unequal ones; 1500
    to 20000 m/s; 5 to 20 m; peak frequencies from 1000 to 2.5 points per
    wavelength; reflections 1e-1 to 1e-12 and the default; dt 0.3 to 1 of
    the 3D limit; the user's jobs at each order: no eigenvalue above 1."""
    cases = sweep_1d()
    return radii_summary(cases, *check_radii(cases))


def cases_2d():
    """Layers on all four sides, so the corners (both axes' terms) are in;
    the second axis's layers thin to keep the matrices quick to solve."""
    return [
        dict(physics="acoustic", order=8, grid=[(21, (6, 6)), (13, (2, 2))], h=10.0, v=4500.0,
             f=3.0, cfl=0.8),
        dict(physics="acoustic", order=8, grid=[(16, (3, 4)), (15, (3, 3))], h=20.0, v=20000.0,
             f=20000.0 / (3 * 20.0), reflection=1e-12, cfl=1.0),
        dict(physics="acoustic", order=4, grid=[(14, (3, 6)), (11, (3, 3))], h=5.0, v=1500.0,
             f=0.3, reflection=1e-1, cfl=0.3),
        dict(physics="acoustic", order=2, grid=[(15, (6, 6)), (10, (3, 4))], h=10.0, v=3000.0,
             f=6.0, cfl=0.8),
    ]


def test_acoustic_2d_corners(tmp):
    """2D grids with layers on every side: no eigenvalue above 1."""
    cases = cases_2d()
    return radii_summary(cases, *check_radii(cases))


def vti_cases():
    media = [dict(epsilon=0.3, delta=0.1), dict(epsilon=0.2, delta=0.2),
             dict(epsilon=2.0, delta=1.6), dict(epsilon=0.0, delta=0.0)]
    cases = []
    for k, medium in enumerate(media):
        for order, thick, cfl, f in ((8, (6, 6), 0.8, 3.0), (4, (3, 10), 1.0, 30.0),
                                     (8, (20, 20), 0.3, 1.0), (2, (6, 3), 0.5, 10.0)):
            for name in ("x", "z"):
                n = thick[0] + thick[1] + order + 1 + k
                cases.append(dict(physics="vti", order=order, grid=[(n, thick)], axes=[name],
                                  h=10.0, v=4500.0, f=f, cfl=cfl, **medium))
        if k in (0, 2):   # x-z grids (order 4: the order-8 one is too large to be quick)
            cases.append(dict(physics="vti", order=4, grid=[(11, (3, 3)), (9, (2, 2))],
                              axes=["x", "z"], h=10.0, v=3000.0, f=6.0, cfl=0.8, **medium))
    return cases


def test_vti_1d_2d(tmp):
    """VTI (p and q, each with its memory variables) along x and along z,
    and on an x-z grid: no eigenvalue above 1, for epsilon/delta 0.3/0.1,
    0.2/0.2, 2/1.6 and 0/0."""
    cases = vti_cases()
    return radii_summary(cases, *check_radii(cases))


def layer_operator(ax, lam):
    """L(lambda) of one axis (acoustic): with x^n = lambda^n x the step gives
    (lambda - 2 + 1/lambda) p = vdt2 sum_d L_d(lambda) p, each L_d acting
    along its axis alone (a homogeneous medium), so the modes of a grid of
    several axes follow from the 1D L's: sum_d mu_d(lambda) = (lambda - 2 +
    1/lambda) / vdt2 for eigenvalues mu_d of L_d(lambda)."""
    n = ax.n
    D2 = second(np.eye(n), ax, 0)
    Dp = first_to_halves(np.eye(n), ax, 0)[ax.halves]            # stored halves <- points
    Dm = first_to_points(np.eye(n - 1), ax, 0)[:, ax.halves]      # points <- stored halves
    G = Dm @ ((lam * ax.ah[ax.halves] / (lam - ax.bh[ax.halves]))[:, None] * Dp)   # D1- psi'
    z = np.where(ax.points, lam * ax.a / (lam - ax.b), 0.0)       # zeta' = z (D2 + D1- psi')
    return D2 + ax.reach[:, None] * (G + z[:, None] * (D2 + G))


def real_growth(axes, v):
    """The rate per second of the largest real eigenvalue > 1 of the
    acoustic step on the grid of these axes (0 if none): the largest root
    of sum_d mu_d(lambda) = (lambda - 2 + 1/lambda) / vdt2, mu_d the largest
    real eigenvalue of L_d(lambda). A 3D grid costs three 1D eigenproblems."""
    dt = axes[0].dt
    vdt2 = float(np.float32(v * v * dt * dt))
    distinct = {id(ax): ax for ax in axes}
    times = {k: sum(ax is a for a in axes) for k, ax in distinct.items()}

    def largest_real(ax, lam):
        w = np.linalg.eigvals(layer_operator(ax, lam))
        real = w.real[np.abs(w.imag) <= 1e-9 * np.abs(w).max()]
        return real.max() if real.size else -np.inf

    def g(rate):
        lam = np.exp(rate * dt)
        mu = sum(times[k] * largest_real(ax, lam) for k, ax in distinct.items())
        return mu - (lam - 2 + 1 / lam) / vdt2

    rates = np.geomspace(1e-3, 1e3, 61)
    signs = [g(r) > 0 for r in rates]
    falls = [i for i in range(len(rates) - 1) if signs[i] and not signs[i + 1]]
    if not falls:
        return 0.0
    lo, hi = rates[falls[-1]], rates[falls[-1] + 1]
    for _ in range(50):
        mid = np.sqrt(lo * hi)
        lo, hi = (mid, hi) if g(mid) > 0 else (lo, mid)
    return float(np.sqrt(lo * hi))


def test_layers_grow_without_the_floor(tmp):
    """The test can fail: the same matrices with the floor off (floor=off)
    have a real eigenvalue > 1 for the user's jobs at orders 4 and 8 (in
    1D, and at order 8 on a 2D grid, the rates agreeing with the 1D
    operators' characteristic equation), and the 3D rate of 25^3, cpml 6, 4500 m/s, 3 Hz is the one
    the binary showed (2.66/s)."""
    notes = []
    for job in USER_JOBS:
        for order in (8, 4):
            case = dict(physics="acoustic", order=order, grid=[(job["n"], job["thick"])],
                        h=job["h"], v=job["v"], f=job["f"], cfl=0.8)
            r, lam, dt, _, _ = radius(case, floor="off")
            rate = np.log(r) / dt
            check(r > 1.0 + 100 * TOLERANCE and abs(lam.imag) < 1e-9,
                  f"no real eigenvalue above 1 with the floor off: |lambda| = {r:.9f} ({lam}) "
                  f"for {describe(case)}")
            ax = case_axes(case, floor="off")[0]
            root = real_growth([ax], job["v"])
            check(abs(root - rate) < 1e-6 * rate + 1e-9,
                  f"1D: the eigenvalue's rate {rate:.8f}/s is not the characteristic "
                  f"equation's {root:.8f}/s for {describe(case)}")
            if order == 8:
                rate3 = real_growth([ax] * 3, job["v"])
                notes.append(f"{job['v']:g} m/s {job['f']:g} Hz h {job['h']:g} cpml "
                             f"{job['thick'][0]}: 1D {rate:.4f}/s, 3D {rate3:.4f}/s")
                if job is USER_JOBS[0]:
                    first3 = rate3
                    check(abs(rate3 - BINARY_RATE_25_CUBED) < 0.01 * BINARY_RATE_25_CUBED,
                          f"3D rate {rate3:.4f}/s, the binary showed {BINARY_RATE_25_CUBED}/s")
    # 2D, corners included: the dense matrix's eigenvalue against the characteristic equation
    case = cases_2d()[0]   # the first user's job on a 21 x 13 grid
    r, lam, dt, _, _ = radius(case, floor="off")
    rate2 = np.log(r) / dt
    root2 = real_growth(case_axes(case, floor="off"), case["v"])
    check(r > 1.0 + 100 * TOLERANCE and abs(rate2 - root2) < 1e-6 * root2,
          f"2D with the floor off: |lambda| {r:.9f} ({rate2:.6f}/s), the characteristic "
          f"equation's rate {root2:.6f}/s")
    return (f"floor off: 25^3-like {first3:.4f}/s in 3D (binary {BINARY_RATE_25_CUBED}/s), "
            f"2D 21x13 {rate2:.4f}/s; " + "; ".join(notes))


# ---- TTI ---------------------------------------------------------------------

# 1.0 of the leapfrog's limit on an x-z grid, as a fraction of the 3D limit
# the driver's cfl is taken of (sf_cfl_dt_max with spacing h on all three
# axes): the Laplacian's symbol peaks at 2 (not 3) times the axis's there.
CFL_2D = float(np.sqrt(1.5))


def tti_cases():
    """x-z grids with layers on all four sides, the symmetry axis in the x-z
    plane (phi 0): tilts 15 (as -15), 30 and -30, 45, 60 and 90 (0 is
    tti_model_reduces' VTI); epsilon/delta 0.3/0.1, 0.3/0.3, 0.2/0, 2/1.6
    (the extreme: vp sqrt(5) across the axis) and 0/0; layers of 3, 6 and
    10 points; orders 2, 4 and 8; dt 0.5 to 1 of the 3D limit and 1 of the
    x-z grid's own (CFL_2D). The grids are the least that keep the two
    layers' reaches apart (2R + 1 interior points), the other axis's layers
    thin where one is thick, so that the matrices stay quick to solve. The
    first is the case closest to 1 (epsilon != delta) of an offline sweep of
    300 (tilts 0 to +-90 by 15, the five media, these orders and
    thicknesses, dt 0.5 to CFL_2D; its layers alike on both sides, so a
    tilt and its negative gave the same radius): 1 - 3.08e-4."""
    def grid(order, x, z):
        R = order // 2
        return [(sum(x) + 2 * R + 1, x), (sum(z) + 2 * R + 1, z)]
    media = {"0.3/0.1": (0.3, 0.1), "0.3/0.3": (0.3, 0.3), "0.2/0": (0.2, 0.0),
             "2/1.6": (2.0, 1.6), "0/0": (0.0, 0.0)}
    plan = [  # order, x layers, z layers, tilt, medium, cfl, v, h, f
        (2, (3, 3), (3, 3), 45.0, "2/1.6", CFL_2D, 4500.0, 10.0, 3.0),
        (2, (10, 3), (2, 2), 30.0, "0.3/0.1", 1.0, 3000.0, 10.0, 6.0),
        (4, (3, 3), (3, 3), -30.0, "0.3/0.3", CFL_2D, 1500.0, 5.0, 15.0),
        (4, (6, 6), (2, 2), 45.0, "0.3/0.1", 0.8, 4500.0, 10.0, 3.0),
        (8, (3, 3), (2, 2), 60.0, "0.2/0", 1.0, 3000.0, 10.0, 6.0),
        (2, (6, 3), (2, 2), -15.0, "0/0", 0.5, 1500.0, 5.0, 15.0),
        (4, (3, 3), (3, 4), 90.0, "2/1.6", 0.8, 3000.0, 20.0, 6.0),
    ]
    return [dict(physics="tti", order=order, grid=grid(order, x, z), axes=["x", "z"], h=h, v=v,
                 f=f, cfl=cfl, epsilon=media[m][0], delta=media[m][1], theta=theta)
            for order, x, z, theta, m, cfl, v, h, f in plan]


def test_tti_2d_sweep(tmp):
    """TTI on x-z grids with layers on all four sides (tti_cases): no
    eigenvalue above 1 with the mixed derivatives stretched. Where epsilon =
    delta p - q does not move by itself (as in VTI) and the radius is that
    Jordan pair's at 1 (computed as 1 + 1e-7); the others' is the layers'."""
    cases = tti_cases()
    apart = [c for c in cases if c["epsilon"] != c["delta"]]
    (r, case), size = check_radii(apart)
    (r_eq, _), size_eq = check_radii([c for c in cases if c["epsilon"] == c["delta"]])
    return (f"{len(cases)} cases, matrices up to {max(size, size_eq)}; largest |lambda| with "
            f"epsilon != delta 1{r - 1:+.2e} ({describe(case)}), with epsilon = delta "
            f"1{r_eq - 1:+.2e}")


def _transfer(x, src, dst, rename=lambda name: name, spread=None):
    """A state of layout src as one of layout dst (blocks matched by name;
    spread: a function widening src's arrays to dst's grid)."""
    y = np.zeros((dst.size, x.shape[1]))
    for name in src.blocks:
        block = src.get(x, name)
        dst.put(y, rename(name), spread(block) if spread else block)
    return y


def test_tti_model_reduces(tmp):
    """The TTI builder checked against the VTI one and against itself in
    3D: with tilt 0 its step is vti_step's (its mixed memory variables, fed
    by a mixed derivative of weight 0, feed nothing back); and the x-z
    step is the 3D step's for fields that do not vary along y (a 3D grid of
    2R + 1 planes along y without layers there, states repeated along y,
    the middle plane after one step), with phi 30 as well as 0: the
    derivatives along y of such fields vanish, so only w_xx, w_zz and w_xz
    remain."""
    rng = np.random.RandomState(23)
    base = dict(physics="tti", order=4, grid=[(11, (3, 3)), (10, (3, 4))], axes=["x", "z"],
                h=10.0, v=3000.0, f=6.0, cfl=0.8, epsilon=0.3, delta=0.1)
    axes = case_axes(dict(base, theta=0.0))
    vti, Lv = vti_step(axes, dict(base, physics="vti"))
    tti, Lt = tti_step(axes, dict(base, theta=0.0))
    x = rng.standard_normal((Lv.size, 6))
    tag = {"0": "x", "1": "z"}
    rename = lambda name: name[:-1] + tag[name[-1]] if name[-1] in tag else name
    y_vti, y_tti = vti(x), tti(_transfer(x, Lv, Lt, rename))
    err = max(np.abs(Lt.get(y_tti, rename(name)) - Lv.get(y_vti, name)).max()
              for name in Lv.blocks)
    check(err <= 1e-12 * np.abs(y_vti).max(),
          f"TTI with tilt 0 is not the VTI step: they differ by {err:.3g}")
    notes = [f"tilt 0 = VTI to {err:.1e}"]
    R = base["order"] // 2
    for phi in (0.0, 30.0):
        case2 = dict(base, theta=45.0, phi=phi)
        case3 = dict(case2, grid=[base["grid"][0], (2 * R + 1, (0, 0)), base["grid"][1]],
                     axes=["x", "y", "z"])
        axes2, axes3 = case_axes(case2), case_axes(case3)
        step2, L2 = tti_step(axes2, case2)
        step3, L3 = tti_step(axes3, case3)
        x = rng.standard_normal((L2.size, 6))
        y2 = step2(x)
        y3 = step3(_transfer(x, L2, L3, spread=lambda a: np.repeat(a[:, None], 2 * R + 1, axis=1)))
        err = max(np.abs(L3.get(y3, name)[:, R] - L2.get(y2, name)).max() for name in L2.blocks)
        # the float second-difference coefficients along y sum to about 1e-8 / h^2, not 0
        check(err <= 1e-6 * np.abs(y2).max(),
              f"the x-z TTI step is not the 3D one's without y variation (phi {phi}): "
              f"they differ by {err:.3g} of {np.abs(y2).max():.3g}")
        notes.append(f"x-z = 3D without y variation to {err / np.abs(y2).max():.1e} (phi {phi:g})")
    return "; ".join(notes)


def test_tti_grows_unstretched(tmp):
    """The test can fail: the TTI step as it was before its layers
    stretched the mixed derivatives (tti_step with stretch False: no
    correction, the tilt unturned) has an eigenvalue above 1 on the
    6-point-layer case of tti_cases (tilt 45, epsilon 0.3, delta 0.1, order
    4, dt 0.8 of the limit), which tti_2d_sweep holds within 1 + TOLERANCE
    with the stretch: 1.156 per step, about 207/s (an offline sweep of this
    grid found 98 to 501/s at tilts of 15 to 75 degrees, none at 0 or 90)."""
    case = next(c for c in tti_cases() if c["grid"][0][1] == (6, 6) and c["theta"] == 45.0)
    case = dict(case, stretch=False)
    r, lam, dt, _, _ = radius(case)
    rate = np.log(r) / dt
    check(r > 1.0 + 100 * TOLERANCE,
          f"no eigenvalue above 1 without the stretch: |lambda| = {r:.9f} ({lam}) for "
          f"{describe(case)}")
    return (f"without the stretch: |lambda| {r:.6f} ({lam:.6f}), {rate:.1f}/s, oscillating at "
            f"{abs(np.angle(lam)) / (2 * np.pi * dt):.3g} Hz (dt {dt * 1e3:.4f} ms)")


TTI_STEPS = os.path.join(BIN_DIR, "tti_steps")


def code_steps(case, weights, amplitudes):
    """p after len(amplitudes) steps of the CPU TTI backend (bin/tti_steps,
    tests/tti_steps.c) on case's 3D grid from rest, every point a source of
    the given weight (an [nx, ny, nz] array), step s injecting amplitudes[s]."""
    axes = case_axes(case)
    thick = ",".join(f"{t[0]},{t[1]}" for _, t in case["grid"])
    args = [TTI_STEPS, f"order={case['order']}", f"n={','.join(str(n) for n, _ in case['grid'])}",
            f"thick={thick}", f"h={case['h']!r}", f"dt={axes[0].dt!r}",
            f"vmax={float(vti_vmax(case))!r}", f"frequency={case['f']!r}", f"vp={case['v']!r}",
            f"epsilon={case['epsilon']!r}", f"delta={case['delta']!r}",
            f"theta={case['theta']!r}", f"phi={case.get('phi', 0.0)!r}",
            f"steps={len(amplitudes)}"]
    values = list(weights.transpose(2, 1, 0).ravel()) + list(amplitudes)   # x fastest
    text = "\n".join(f"{w:.9g}" for w in values)
    p = subprocess.run(args, input=text, capture_output=True, text=True, timeout=time_limit(60),
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    check_sanitizers(p.stderr, " ".join(args))
    check(p.returncode == 0, f"{' '.join(args)} exited {p.returncode}: {p.stderr}")
    shape = weights.shape
    return np.array(p.stdout.split(), float).reshape(shape[::-1]).transpose(2, 1, 0)


def model_steps(case, weights, amplitudes):
    """The same with tti_step: the source enters p and q alike after the
    advance (cpu_inject_source: weight vp^2 dt^2 in float, times the
    amplitude)."""
    axes = case_axes(case)
    step, L = tti_step(axes, case)
    f = np.float32
    coef = (weights.astype(f) * f(case["v"]) * f(case["v"]) * f(axes[0].dt * axes[0].dt))
    coef = coef.astype(np.float64)[..., None]
    x = np.zeros((L.size, 1))
    for a in amplitudes:
        x = step(x)
        kick = coef * float(f(a))
        L.put(x, "p", L.get(x, "p") + kick), L.put(x, "q", L.get(x, "q") + kick)
    return L.get(x, "p")[..., 0]


def test_tti_model_is_the_code(tmp):
    """tti_step is the code's step: on 3D grids with layers on all six
    sides (unequal), a tilt with phi oblique to every axis (all three mixed
    pairs), orders 4 and 8, p after 12 steps of the CPU backend from random
    sources at every point (bin/tti_steps) is the model's to float
    rounding (1e-5 of its peak), and the model without the stretch is far
    from it (so that this comparison sees the mixed terms' layers)."""
    rng = np.random.RandomState(23)
    notes = []
    for order, grid, theta, phi, medium in (
            (4, [(13, (3, 4)), (12, (4, 3)), (11, (3, 3))], 45.0, 30.0, (0.3, 0.1)),
            (8, [(17, (4, 3)), (16, (3, 3)), (17, (3, 4))], -60.0, 120.0, (2.0, 1.6))):
        case = dict(physics="tti", order=order, grid=grid, axes=["x", "y", "z"], h=10.0,
                    v=3000.0, f=6.0, cfl=0.8, epsilon=medium[0], delta=medium[1], theta=theta,
                    phi=phi)
        weights = rng.standard_normal(tuple(n for n, _ in grid)).astype(np.float32)
        amplitudes = rng.standard_normal(12).astype(np.float32)
        code = code_steps(case, weights, amplitudes)
        peak = np.abs(code).max()
        err = np.abs(model_steps(case, weights, amplitudes) - code).max() / peak
        plain = model_steps(dict(case, stretch=False), weights, amplitudes)
        off = np.abs(plain - code).max() / peak
        check(err <= 1e-5 and off > 1e-2,
              f"the TTI model is not the code's step: p differs by {err:.3g} of its peak "
              f"({off:.3g} without the stretch) for {describe(case)}")
        notes.append(f"order {order}: {err:.1e} of the peak (without the stretch {off:.2g})")
    return "; ".join(notes)
