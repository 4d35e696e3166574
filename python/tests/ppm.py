"""A binary PPM read into an (h, w, 3) uint8 array, for the tests."""
import numpy as np


def read_ppm(path):
    data = open(path, "rb").read()
    parts = data.split(maxsplit=4)
    assert parts[0] == b"P6"
    w, h = int(parts[1]), int(parts[2])
    return np.frombuffer(parts[4], np.uint8).reshape(h, w, 3)
