"""Circles in data coordinates and coloured by a value (extent=, aspect=,
values=, cmap=, norm=, vmin=, vmax=; quadrender/scene_map.h): the mapping
against NumPy's arithmetic, the colours against the library's tables (and
matplotlib's colormaps at the same entries where matplotlib is installed),
the caller's array left as it was, and the refusals the command's options
give, with its messages. QUADRENDER_CLI names the quadrender program of the
same build."""
import os
import subprocess

import numpy as np
import pytest

import quadrender as qr

try:
    import matplotlib
except ImportError:
    matplotlib = None

CLI = os.environ.get("QUADRENDER_CLI", "quadrender")


def data_circles():
    """rand10k in data units: x -180..180, y -60..30, radii times 90."""
    c = qr.scene("rand10k", seed=3)
    c[:, 0] = c[:, 0] * 360 - 180
    c[:, 1] = c[:, 1] * 90 - 60
    c[:, 3] *= 90
    return c


def draw(circles, **kw):
    return qr.render(circles, 64, 48, mode="exact", device="cpu", **kw)


def expected_mapping(c, extent, aspect):
    """The mapping scene_map.h states, in float64, rounded once."""
    x0, x1, y0, y1 = extent
    w, h = x1 - x0, y1 - y0
    x, y, r = (c[:, k].astype(np.float64) for k in (0, 1, 3))
    if aspect == "equal":
        s = 1 / max(w, h)
        return ((x - x0) * s + (1 - w * s) / 2, (y - y0) * s + (1 - h * s) / 2, r * s)
    sx, sy = 1 / w, 1 / h
    return (x - x0) * sx, (y - y0) * sy, r * np.sqrt(sx) * np.sqrt(sy)


@pytest.mark.parametrize("aspect", ["equal", "stretch"])
@pytest.mark.parametrize("extent", [(-180, 180, -90, 90), (-200.5, 100, -60, 30), "auto"])
def test_extent_maps_as_numpy_does(extent, aspect):
    c = data_circles()
    before = c.copy()
    m = qr._mapped(c, extent=extent, aspect=aspect)
    assert np.array_equal(c, before)  # the caller's array is never changed
    if extent == "auto":
        x, y, r = (c[:, k].astype(np.float64) for k in (0, 1, 3))
        extent = ((x - r).min(), (x + r).max(), (y - r).min(), (y + r).max())
    for got, want in zip((m[:, 0], m[:, 1], m[:, 3]), expected_mapping(c, extent, aspect)):
        assert np.allclose(got, want.astype(np.float32), rtol=0, atol=2e-7)
    assert np.array_equal(m[:, [2, 4, 5, 6]], c[:, [2, 4, 5, 6]])
    # render draws the mapped circles
    assert np.array_equal(draw(c, extent=extent, aspect=aspect), draw(m))


def test_auto_extent_fits_the_square():
    m = qr._mapped(data_circles(), extent="auto")
    lo = (m[:, [0, 1]] - m[:, [3]]).min(axis=0)
    hi = (m[:, [0, 1]] + m[:, [3]]).max(axis=0)
    assert np.isclose(lo[0], 0, atol=1e-6) and np.isclose(hi[0], 1, atol=1e-6)
    assert lo[1] > 0 and hi[1] < 1 and np.isclose(lo[1], 1 - hi[1], atol=1e-6)  # centred


def ranks(v):
    """eq_hist's t: (values below + (equal - 1) / 2) / (n - 1)."""
    s = np.sort(v)
    below = np.searchsorted(s, v, "left")
    equal = np.searchsorted(s, v, "right") - below
    return (below + (equal - 1) / 2) / (len(v) - 1)


def expected_entries(v, norm, vmin=None, vmax=None):
    v = v.astype(np.float64)
    if norm == "eq_hist":
        lo = v.min() if vmin is None else vmin
        hi = v.max() if vmax is None else vmax
        t = ranks(np.clip(v.astype(np.float32), np.float32(lo), np.float32(hi)))
    else:
        f = np.log if norm == "log" else (lambda a: a)
        lo = f(v.min() if vmin is None else vmin)
        hi = f(v.max() if vmax is None else vmax)
        t = np.clip((f(v) - lo) / (hi - lo), 0, 1)
    return np.floor(t * 255 + 0.5).astype(int)  # round half away from zero, t >= 0


VALUES = (1 + (np.arange(10000) * 7919 % 1000) / 10).astype(np.float32)  # ties, all above 0


@pytest.mark.parametrize("cmap", qr.COLORMAPS)
@pytest.mark.parametrize("norm,vmin,vmax", [("linear", None, None), ("linear", 20.0, 80),
                                            ("log", None, None), ("eq_hist", None, None),
                                            ("eq_hist", 5, 50.5)])
def test_colour_by_is_the_table_entry(cmap, norm, vmin, vmax):
    c = qr.scene("rand10k")
    m = qr._mapped(c, values=VALUES, cmap=cmap, norm=norm, vmin=vmin, vmax=vmax)
    table = qr.colormap(cmap)
    entries = expected_entries(VALUES, norm, vmin, vmax)
    assert np.array_equal(m[:, 4:7], table[entries])
    assert np.array_equal(m[:, :4], c[:, :4])
    if matplotlib is not None:
        mpl = matplotlib.colormaps[cmap](entries / 255.0)[:, :3].astype(np.float32)
        assert np.array_equal(m[:, 4:7], mpl)


@pytest.mark.skipif(matplotlib is None, reason="matplotlib is not installed (the tables are "
                    "checked against their own entries only)")
def test_tables_are_matplotlibs():
    for name in qr.COLORMAPS:
        want = matplotlib.colormaps[name](np.arange(256) / 255.0)[:, :3].astype(np.float32)
        assert np.array_equal(qr.colormap(name), want), name


def test_values_from_a_column():
    c = qr.scene("rgb")
    st = np.zeros(3, dtype=[("x", "f4"), ("y", "f4"), ("r", "f4"), ("value", "f8"),
                            ("mag", "f4")])
    for k, name in enumerate(("x", "y", "r")):
        st[name] = c[:, [0, 1, 3][k]]
    st["value"], st["mag"] = [1, 2, 3], [3, 2, 1]
    before = st.copy()
    by_value = qr._mapped(st, cmap="magma")  # the value column, as cmap is given
    assert np.array_equal(by_value[:, 4:7], qr.colormap("magma")[[0, 128, 255]])
    by_mag = qr._mapped(st, values="mag")
    assert np.array_equal(by_mag[:, 4:7], qr.colormap("viridis")[[255, 128, 0]])
    assert np.array_equal(st, before)
    assert np.array_equal(draw(st, cmap="magma"), draw(by_value))
    with pytest.raises(qr.InvalidArgument, match="column 'value' colours the circles only"):
        draw(st)
    with pytest.raises(qr.InvalidArgument, match="no column 'size'"):
        draw(st, values="size")
    with pytest.raises(qr.InvalidArgument, match="names a column, and the circles have none"):
        draw(c, values="mag")


def test_stats_takes_the_extent():
    c = data_circles()
    assert qr.stats(c, 64, extent="auto") == qr.stats(qr._mapped(c, extent="auto"), 64)


def write_values(path, v):
    np.save(path, np.asarray(v, np.float64))
    return str(path)


# (command line's data options, the same asked of Python, what the command
#  names that Python spells otherwise)
CASES = [
    (["--extent", "1,0,0,1"], dict(extent=(1, 0, 0, 1)), {"--extent": "extent"}),
    (["--extent", "0,1,0"], dict(extent=(0, 1, 0)), None),  # Python gives the tuple's repr
    (["--extent", "0,inf,0,1"], dict(extent=(0, float("inf"), 0, 1)), {"--extent": "extent"}),
    (["--extent", "autox"], dict(extent="autox"), {"--extent": "extent"}),
    (["--extent", "auto", "--data-aspect", "keep"], dict(extent="auto", aspect="keep"),
     {"--data-aspect": "aspect"}),
    (["--color-by", "{v}", "--cmap", "virdis"], dict(values=[1, 2, 3], cmap="virdis"),
     {"--cmap": "cmap"}),
    (["--color-by", "{v}", "--norm", "log10"], dict(values=[1, 2, 3], norm="log10"),
     {"--norm": "norm"}),
    (["--color-by", "{v}", "--vmin", "nan"], dict(values=[1, 2, 3], vmin=float("nan")),
     {"--vmin": "vmin"}),
    (["--color-by", "{v}", "--vmin", "3", "--vmax", "1"], dict(values=[1, 2, 3], vmin=3, vmax=1),
     {}),
    (["--color-by", "{nan}"], dict(values=[1, np.nan, 3]), {}),
    (["--color-by", "{neg}", "--norm", "log"], dict(values=[1, -2, 3], norm="log"), {}),
]


@pytest.mark.parametrize("case", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_refusals_are_the_commands(tmp_path, case):
    args, kw, spelling = case
    files = {"{v}": write_values(tmp_path / "v.npy", [1, 2, 3]),
             "{nan}": write_values(tmp_path / "nan.npy", [1, np.nan, 3]),
             "{neg}": write_values(tmp_path / "neg.npy", [1, -2, 3])}
    out = tmp_path / "never.png"
    r = subprocess.run([CLI, "render", "rgb", "-s", "16", "--device", "cpu", "-q", "-o", str(out),
                        *[files.get(a, a) for a in args]], capture_output=True, text=True)
    assert r.returncode in (2, 3) and not out.exists(), r.stderr
    message = r.stderr.splitlines()[0][len("quadrender: "):]
    with pytest.raises(qr.InvalidArgument) as e:
        qr.render(qr.scene("rgb"), 16, device="cpu", **kw)
    if spelling is None:
        assert str(e.value) == message.replace("--extent", "extent").replace(
            "'0,1,0'", "'(0, 1, 0)'")
    else:
        for cli, py in spelling.items():
            message = message.replace(cli, py)
        assert str(e.value) == message


def test_cmap_without_values():
    with pytest.raises(qr.InvalidArgument, match="^cmap: only with values$"):
        draw(qr.scene("rgb"), cmap="magma")


def test_options_that_need_another_are_refused_as_the_cli_refuses_them():
    """The library's one check (qr_scene_map_check_options), in each front
    end's spelling: the CLI's --data-aspect without --extent, Python's
    aspect= without extent=."""
    with pytest.raises(qr.InvalidArgument, match="^aspect: only with extent$"):
        draw(qr.scene("rgb"), aspect="stretch")
    for name in ("norm", "vmin", "vmax"):
        with pytest.raises(qr.InvalidArgument, match=f"^{name}: only with values$"):
            draw(qr.scene("rgb"), **{name: "log" if name == "norm" else 1.0})
