"""Python refuses what the quadrender command refuses, with the same message.

Each case pairs a command line with the Python call that asks the same: the
command must exit 2 (a bad option) or 3 (a bad scene) and the call raise
quadrender.InvalidArgument (an Error and a ValueError) whose message is the
command's stderr line, after "quadrender: ", with the options spelled as
Python spells them ("--seed" as "seed"). Both come from the same checks of
the library (qr_image_check_side, qr_image_check_png_level,
qr_scene_check_seed, qr_scene_check_frame, qr_job_check_frames,
qr_job_check_device, qr_threads_check, qr_index_check_*,
qr_scene_check_circles, whatever form the circles come in). QUADRENDER_CLI
names the quadrender program of the same build."""
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
    # the quadtree's values
    ("capacity 0", ["render", "rgb", "--capacity", "0"], 2, None,
     lambda c: qr.render(RGB, 16, capacity=0, device="cpu"), {"--capacity": "capacity"}),
    ("capacity 2**30 + 1", ["stats", "rgb", "--capacity", "1073741825"], 2, None,
     lambda c: qr.stats(RGB, 16, capacity=2**30 + 1), {"--capacity": "capacity"}),
    ("min_leaf 48", ["render", "rgb", "--min-leaf", "48"], 2, None,
     lambda c: qr.render(RGB, 16, min_leaf=48, device="cpu"), {"--min-leaf": "min_leaf"}),
    ("min_leaf 2", ["stats", "rgb", "--min-leaf", "2"], 2, None,
     lambda c: qr.leaves(RGB, 16, min_leaf=2), {"--min-leaf": "min_leaf"}),
    ("max_depth 16", ["render", "rgb", "--max-depth", "16"], 2, None,
     lambda c: qr.render(RGB, 16, max_depth=16, device="cpu"), {"--max-depth": "max_depth"}),
    ("max_depth -1", ["stats", "rgb", "--max-depth", "-1"], 2, None,
     lambda c: qr.stats(RGB, 16, max_depth=-1), {"--max-depth": "max_depth"}),
    ("max_leaf 8", ["render", "rgb", "--max-leaf", "8"], 2, None,
     lambda c: qr.render(RGB, 16, max_leaf=8, device="cpu"), {"--max-leaf": "max_leaf"}),
    ("max_leaf 24", ["stats", "rgb", "--max-leaf", "24"], 2, None,
     lambda c: qr.leaves(RGB, 16, max_leaf=24), {"--max-leaf": "max_leaf"}),
    ("split_cost 1001", ["render", "rgb", "--split-cost", "1001"], 2, None,
     lambda c: qr.render(RGB, 16, split_cost=1001, device="cpu"),
     {"--split-cost": "split_cost"}),
    ("split_cost 5.0", ["stats", "rgb", "--split-cost", "5.0"], 2, None,
     lambda c: qr.stats(RGB, 16, split_cost=5.0), {"--split-cost": "split_cost"}),
    ("deep_leaf 2", ["render", "rgb", "--deep-leaf", "2"], 2, None,
     lambda c: qr.render(RGB, 16, deep_leaf=2, device="cpu"), {"--deep-leaf": "deep_leaf"}),
    ("deep_leaf 12", ["stats", "rgb", "--deep-leaf", "12"], 2, None,
     lambda c: qr.stats(RGB, 16, deep_leaf=12), {"--deep-leaf": "deep_leaf"}),
    ("max_leaf with the grid", ["render", "rgb", "--index", "grid", "--max-leaf", "64"], 2,
     None, lambda c: qr.render(RGB, 16, index="grid", max_leaf=64, device="cpu"),
     {"--max-leaf": "max_leaf", "--index grid": "index='grid'", "--tile": "tile"}),
    # frames, the PNG level, the device
    ("frames 5:4", ["render", "rgb", "--frames", "5:4"], 2, None,
     lambda c: qr.render_frames("rgb", 16, frames=range(5, 5), device="cpu",
                                out=lambda k, img: None), {"--frames": "frames"}),
    ("frames -1:2", ["render", "rgb", "--frames", "-1:2"], 2, None,
     lambda c: qr.render_frames("rgb", 16, frames=range(-1, 3), device="cpu",
                                out=lambda k, img: None), {"--frames": "frames"}),
    ("frames past 2**31 - 1", ["render", "rgb", "--frames", "0:2147483648"], 2, None,
     lambda c: qr.render_frames("rgb", 16, frames=range(2**31 + 1), device="cpu",
                                out=lambda k, img: None), {"--frames": "frames"}),
    ("frame -1, render_file", ["render", "rgb", "--frame", "-1"], 2, None,
     lambda c: qr.render_file("rgb", 16, frame=-1, device="cpu", out="never.png"),
     {"--frame": "frame"}),
    ("frame 2**31, scene", ["render", "rgb", "--frame", "2147483648"], 2, None,
     lambda c: qr.scene("snow", frame=2**31), {"--frame": "frame"}),
    ("frame True", ["render", "rgb", "--frame", "True"], 2, None,
     lambda c: qr.scene("snow", frame=True), {"--frame": "frame"}),
    ("png level 10", ["render", "rgb", "--png-level", "10"], 2, None,
     lambda c: qr.render_file("rgb", 16, png_level=10, device="cpu", out="never.png"),
     {"--png-level": "png_level"}),
    ("png level -1", ["render", "rgb", "--png-level", "-1"], 2, None,
     lambda c: qr.render_frames("rgb", 16, png_level=-1, device="cpu",
                                out=lambda k, img: None), {"--png-level": "png_level"}),
    ("deflate gzip", ["render", "rgb", "--deflate", "gzip"], 2, None,
     lambda c: qr.render_file("rgb", 16, deflate="gzip", device="cpu", out="never.png"),
     {"--deflate": "deflate"}),
    ("device tpu", ["render", "rgb", "--device", "tpu"], 2, None,
     lambda c: qr.render(RGB, 16, device="tpu"), {"--device": "device"}),
    ("device CPU, stats", ["stats", "rgb", "--device", "CPU"], 2, None,
     lambda c: qr.render_file("rgb", 16, device="CPU", out="never.png"), {"--device": "device"}),
    # the picture's options
    ("alpha 1.5", ["render", "rgb", "--alpha", "1.5"], 2, None,
     lambda c: qr.render(RGB, 16, alpha=1.5, device="cpu"), {"--alpha": "alpha"}),
    ("background grey", ["render", "rgb", "--background", "grey"], 2, None,
     lambda c: qr.render(RGB, 16, background="grey", device="cpu"),
     {"--background": "background"}),
    ("background #12345", ["render", "rgb", "--background", "#12345"], 2, None,
     lambda c: qr.render(RGB, 16, background="#12345", device="cpu"),
     {"--background": "background"}),
    ("background None", ["render", "rgb", "--background", "None"], 2, None,
     lambda c: qr.render(RGB, 16, background="None", device="cpu"),
     {"--background": "background"}),
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


def test_frames_python_spells_otherwise_are_refused_as_the_command_refuses():
    """A range with a step, or a frame range that is not a range, is no A:B:
    refused by the same check, with its repr as what was given."""
    expected = "frames: expected A:B with frame numbers 0 <= A <= B <= 2147483647, got '{}'"
    for frames in (range(0, 4, 2), "3:7", [0, 1], True):
        with pytest.raises(qr.InvalidArgument) as e:
            qr.render_frames("rgb", 16, frames=frames, device="cpu", out=lambda k, img: None)
        assert str(e.value) == expected.format(repr(frames))


def test_what_both_take_still_renders(tmp_path):
    """The edges of each check are taken: seed 2**32 - 1, 1024 threads, the
    grid's tile 16, a radius of 0, numpy integers."""
    circles = qr.scene("rgb", seed=2**32 - 1)
    circles[0, 3] = 0.0
    a = qr.render(circles, np.int64(16), 8, device="cpu", threads=1024, index="grid", tile=16)
    b = qr.render(circles, 16, 8, device="cpu")
    assert a.shape == (8, 16, 3) and np.array_equal(a, b)
    # the edges of the quadtree's values, frames and the PNG level
    c = qr.render(circles, 16, 8, device="cpu", capacity=2**30, min_leaf=4, max_depth=0,
                  max_leaf=0, split_cost=1000, deep_leaf=0)
    d = qr.render(circles, 16, 8, device="cpu-reference", min_leaf=32768, max_depth=15,
                  max_leaf=32768, split_cost=0, deep_leaf=32768, capacity=1)
    assert np.array_equal(c, b) and np.array_equal(d, b)
    assert qr.render_frames("rgb", 8, frames=range(2**31 - 1, 2**31), device="reference",
                            out=lambda k, img: None) == 1
    assert qr.render_file("rgb", 8, frame=np.int64(3), png_level=9, device="cpu",
                          out=str(tmp_path / "r.png")) == 1
    assert qr.render_file("rgb", 8, png_level=0, device="cpu", out=str(tmp_path / "r0.png")) == 1


def _forms(circles):
    """The same circles in the other forms Python takes them in."""
    names = ("x", "y", "z", "r", "red", "green", "blue")
    forms = {"float64": circles.astype(np.float64), "fortran": np.asfortranarray(circles),
             "list": circles.tolist(),
             "structured": np.rec.fromarrays(list(circles.T),
                                             names=",".join(names)).view(np.ndarray),
             "dict": {n: circles[:, k] for k, n in enumerate(names)}}
    try:
        import pandas as pd
        forms["DataFrame"] = pd.DataFrame(circles, columns=names)
    except ImportError:
        pass
    return forms


@pytest.mark.parametrize("circles", [NEGATIVE, NAN], ids=["negative radius", "NaN"])
def test_circles_in_any_form_are_refused_as_the_command_refuses_the_file(tmp_path, circles):
    """The command reads float32 .npy files; Python takes the same circles
    as float64, Fortran order, lists, structured arrays, dicts and
    DataFrames, and refuses each with the command's message for the file."""
    code, message, npy = cli_refusal(tmp_path, ["render", "{npy}"], circles)
    assert code == 3
    expected = message.replace(npy, "circles")
    for form, value in _forms(circles).items():
        with pytest.raises(qr.InvalidArgument) as e:
            qr.render(value, 16, device="cpu")
        assert str(e.value) == expected, form
