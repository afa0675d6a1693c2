"""make test-long's part of the attenuation tests: the analytic comparison
of tests/test_attenuation.py out to 2 km, on a grid wide enough (161
points, 1.2 km between the side layers) for the Fresnel zone of the
farthest receiver; the visco-elastic two-receiver line's S wave, and
both waves at Q 100."""
from test_attenuation import analytic_misfits, check_misfits, visco_elastic_q_and_c


def test_cpu_visco_acoustic_analytic_to_2_km(tmp):
    """Misfit within 2% at 200 m, 500 m, 1 km and 2 km."""
    distances = (200.0, 500.0, 1000.0, 2000.0)
    return check_misfits(distances, analytic_misfits(tmp, 161, distances, "analytic-far"))


def test_cpu_visco_elastic_s_q_30_and_both_q_100_between_two_receivers(tmp):
    """tests/test_attenuation.py's visco-elastic line: the S wave at
    qp = qs = 30, both waves at 100."""
    return visco_elastic_q_and_c(tmp, [("S", 30.0), ("P", 100.0), ("S", 100.0)])
