"""make test-long's part of the time-accuracy tests: the direct waves of
tests/test_time_accuracy.py out to 2 km where a run of them takes a minute
or more on 2 cores."""
from test_time_accuracy import (ORDER_8_OFFSETS, ORDER_8_SOURCE, explosion_job,
                                explosion_misfits, mixed_direct_wave_misfit, order_8_direct_wave)


def test_cpu_order_8_at_12_hz_within_one_percent_to_2_km(tmp):
    """tests/test_time_accuracy.py's 2 km direct wave at 12 Hz."""
    return f"12 Hz worst {100 * order_8_direct_wave(tmp, 12.0):.2f}% out to 2 km (limit 1%)"


def test_cpu_order_8_in_mixed_precision_within_one_percent_to_2_km(tmp):
    """Mixed precision on the order-8 job's grid: every receiver within 1%
    of the analytic direct wave out to 2 km."""
    worst = mixed_direct_wave_misfit(tmp, (261, 181, 181), ORDER_8_SOURCE, ORDER_8_OFFSETS, 1.3)
    return f"worst {100 * worst:.2f}% out to 2 km (limit 1%)"


def test_cpu_elastic_explosion_p_wave_at_2_km(tmp):
    """An explosion's P wave along a narrow grid out to 2 km (the offsets
    of production gathers), within 1%; the S wave arrives after the
    window."""
    source = [250.3, 701.7, 702.2]
    offsets = [[d, 1.3, -2.1] for d in (1200, 1600, 2000)]
    worst = explosion_misfits(tmp, explosion_job((261, 141, 141), source, offsets, 12.0, 1.23))
    return f"worst pressure misfit {100 * worst:.2f}% at 1.2..2 km (limit 1%)"
