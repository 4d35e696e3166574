"""Python refuses what the quadrender command refuses, with the same message.

Each case pairs a command line with the Python call that asks the same: the
command must exit 2 (a bad option) or 3 (a bad scene) and the call raise
quadrender.InvalidArgument (an Error and a ValueError) whose message is the
command's stderr line, after "quadrender: ", with the options spelled as
Python spells them ("--seed" as "seed"). Both come from the same checks of
the library (qr_image_check_side, qr_scene_check_seed, qr_threads_check,
qr_index_check_*, qr_scene_check_circles). QUADRENDER_CLI names the
quadrender program of the same build."""
import os
import subprocess

import numpy as np
import pytest

import quadrender as qr

CLI = os.environ.get("QUADRENDER_CLI", "quadrender")


def bad_circles(row, column, value):
    circles = qr.scene("rgb")
    circles[row, column] = value
    return circles


NEGATIVE = bad_circles(1, 3, -0.5)
NAN = bad_circles(2, 0, np.nan)
RGB = qr.scene("rgb")

# (id, command line (a scene file is written for "{npy}"), exit status,
#  the Python call, how Python spells what the command's message names)
CASES = [
    ("negative radius", ["render", "{npy}"], 3, NEGATIVE,
     lambda c: qr.render(c, 16, device="cpu"), {"{npy}": "circles"}),
    ("negative radius, stats", ["stats", "{npy}"], 3, NEGATIVE,
     lambda c: qr.stats(c, 16), {"{npy}": "circles"}),
    ("NaN", ["render", "{npy}"], 3, NAN,
     lambda c: qr.render(c, 16, device="cpu"), {"{npy}": "circles"}),
    ("seed 2**32", ["render", "rgb", "--seed", "4294967296"], 2, None,
     lambda c: qr.scene("rgb", seed=2**32), {"--seed": "seed"}),
    ("seed -1", ["render", "rgb", "--seed", "-1"], 2, None,
     lambda c: qr.scene("rgb", seed=-1), {"--seed": "seed"}),
    ("seed 2**32, render_frames", ["render", "rgb", "--seed", "4294967296"], 2, None,
     lambda c: qr.render_frames("rgb", 16, seed=2**32, device="cpu", out=lambda k, img: None),
     {"--seed": "seed"}),
    ("grid tile 8", ["render", "rgb", "--index", "grid", "--tile", "8"], 2, None,
     lambda c: qr.render(RGB, 16, index="grid", tile=8, device="cpu"), {"--tile": "tile"}),
    ("grid tile 48", ["stats", "rgb", "--index", "grid", "--tile", "48"], 2, None,
     lambda c: qr.stats(RGB, 16, index="grid", tile=48), {"--tile": "tile"}),
    ("tile with the quadtree", ["render", "rgb", "--tile", "32"], 2, None,
     lambda c: qr.render(RGB, 16, tile=32, device="cpu"),
     {"--tile": "tile", "--index grid": "index='grid'"}),
    ("capacity with the grid", ["render", "rgb", "--index", "grid", "--capacity", "8"], 2, None,
     lambda c: qr.leaves(RGB, 16, index="grid", capacity=8),
     {"--capacity": "capacity", "--index grid": "index='grid'", "--tile": "tile"}),
    ("index kd", ["render", "rgb", "--index", "kd"], 2, None,
     lambda c: qr.render(RGB, 16, index="kd", device="cpu"), {"--index": "index"}),
    ("threads 100000", ["render", "rgb", "--threads", "100000"], 2, None,
     lambda c: qr.render(RGB, 16, threads=100000, device="cpu"), {"--threads": "threads"}),
    ("threads -1", ["render", "rgb", "--threads", "-1"], 2, None,
     lambda c: qr.render(RGB, 16, threads=-1, device="cpu"), {"--threads": "threads"}),
    ("width True", ["render", "rgb", "--width", "True"], 2, None,
     lambda c: qr.render(RGB, True, 16, device="cpu"), {"--width": "width"}),
    ("width 0", ["render", "rgb", "--width", "0"], 2, None,
     lambda c: qr.render(RGB, 0, 16, device="cpu"), {"--width": "width"}),
    ("height 16.0", ["render", "rgb", "--height", "16.0"], 2, None,
     lambda c: qr.render(RGB, 16, 16.0, device="cpu"), {"--height": "height"}),
    ("height past 131072, to a file", ["render", "rgb", "--height", "131073"], 2, None,
     lambda c: qr.render_file("rgb", 16, 131073, device="cpu", out="never.png"),
     {"--height": "height"}),
    ("a whole image past 32768", ["stats", "rgb", "-s", "40000"], 2, None,
     lambda c: qr.stats(RGB, 40000),
     {"-s/--width/--height": "width/height", "'render'": "render_file"}),
]


def cli_refusal(tmp_path, args, circles):
    """(exit status, message) of the command refusing args."""
    npy = tmp_path / "scene.npy"
    if circles is not None:
        np.save(npy, circles)
    args = [str(npy) if a == "{npy}" else a for a in args]
    out = tmp_path / "never.png"
    r = subprocess.run([CLI, *args, "--device", "cpu", "-q", "-o" if args[0] == "render"
                        else "--json", str(out)], capture_output=True, text=True)
    assert not out.exists()
    line = r.stderr.splitlines()[0] if r.stderr else ""
    assert line.startswith("quadrender: "), r.stderr
    return r.returncode, line[len("quadrender: "):], str(npy)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_python_refuses_what_the_cli_refuses(tmp_path, case):
    _, args, status, circles, call, spelling = case
    code, message, npy = cli_refusal(tmp_path, args, circles)
    assert code == status, message
    expected = message
    for cli, py in spelling.items():
        expected = expected.replace(npy if cli == "{npy}" else cli, py)
    with pytest.raises(ValueError) as e:
        call(circles)
    assert isinstance(e.value, qr.Error) and e.value.status == 1
    assert str(e.value) == expected


def test_what_both_take_still_renders(tmp_path):
    """The edges of each check are taken: seed 2**32 - 1, 1024 threads, the
    grid's tile 16, a radius of 0, numpy integers."""
    circles = qr.scene("rgb", seed=2**32 - 1)
    circles[0, 3] = 0.0
    a = qr.render(circles, np.int64(16), 8, device="cpu", threads=1024, index="grid", tile=16)
    b = qr.render(circles, 16, 8, device="cpu")
    assert a.shape == (8, 16, 3) and np.array_equal(a, b)
