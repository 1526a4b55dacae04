"""tinyarray's own unit tests; opspec's checks join them through the plugin."""

import numpy as np

import tinyarray as ta


def test_add_floats_promote():
    x = ta.asarray([1.0, 2.0], dtype=ta.float32)
    y = ta.asarray([0.5, 0.25], dtype=ta.float64)
    assert ta.add(x, y).dtype == np.float64


def test_sqrt():
    assert ta.sqrt(ta.asarray([4.0]))[0] == 2.0
