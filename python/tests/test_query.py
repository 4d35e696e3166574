"""quadrender.Index against a brute-force oracle written here in NumPy (the
rule of include/quadrender/query.h in the same float32 operations) and
against the library's own oracle (device="cpu-reference":
qr_query_points_brute, qr_query_boxes_brute): every mode, points and boxes,
built-in and random scenes, points outside the square or with a NaN, empty
batches; the refusals with the library's messages; the tree of leaves().
GPU tests skip without a GPU (and CuPy)."""
import ctypes

import numpy as np
import pytest

import quadrender as qr
from quadrender import _lib

from dlpack_only import DLPackOnly

MODES = ("top", "count", "all")
F32 = np.float32

# ---- the oracle ------------------------------------------------------------


def _draws(r):
    """qr_radius_draws: r > 0 and r * r finite."""
    with np.errstate(over="ignore", invalid="ignore"):
        r2 = r * r
        return (r > 0) & np.isfinite(r2)


def _covers(cx, cy, r, x, y):
    """Whether circles (cx, cy, r) (1-D) cover points (x, y) (column
    vectors): dx, dy, dx*dx + dy*dy <= r*r, each a float32 operation of its
    own (NumPy fuses none)."""
    with np.errstate(over="ignore", invalid="ignore"):
        dx = (x - cx).astype(F32)
        dy = (y - cy).astype(F32)
        d2 = (dx * dx).astype(F32) + (dy * dy).astype(F32)
        return (d2 <= (r * r).astype(F32)) & _draws(r)


def _circles(circles):
    c = np.asarray(circles, F32)
    return c[:, 0], c[:, 1], c[:, 3]


def cover_points(circles, points, chunk=256):
    """(P, C) bools: circle i covers point q, the point in [0,1]^2."""
    cx, cy, r = _circles(circles)
    p = np.asarray(points, F32).reshape(-1, 2)
    out = np.zeros((len(p), len(cx)), bool)
    for s in range(0, len(p), chunk):
        x, y = p[s:s + chunk, :1], p[s:s + chunk, 1:]
        inside = (x >= 0) & (x <= 1) & (y >= 0) & (y <= 1)
        out[s:s + chunk] = _covers(cx, cy, r, x, y) & inside
    return out


def cover_boxes(circles, boxes, chunk=256):
    """(B, C) bools: circle i covers the point of box q clipped to [0,1]^2
    nearest its centre (none when nothing of the box is left)."""
    cx, cy, r = _circles(circles)
    b = np.asarray(boxes, F32).reshape(-1, 4)
    out = np.zeros((len(b), len(cx)), bool)
    zero, one = F32(0), F32(1)
    for s in range(0, len(b), chunk):
        bb = b[s:s + chunk]
        x0 = np.where(bb[:, 0] > 0, bb[:, 0], zero)[:, None]
        y0 = np.where(bb[:, 1] > 0, bb[:, 1], zero)[:, None]
        x1 = np.where(bb[:, 2] < 1, bb[:, 2], one)[:, None]
        y1 = np.where(bb[:, 3] < 1, bb[:, 3], one)[:, None]
        left = (x0 <= x1) & (y0 <= y1)
        nx = np.where(cx < x0, x0, np.where(cx > x1, x1, cx)).astype(F32)
        ny = np.where(cy < y0, y0, np.where(cy > y1, y1, cy)).astype(F32)
        out[s:s + chunk] = _covers(cx, cy, r, nx, ny) & left
    return out


def answers(cover, mode):
    """The library's answers of a (Q, C) cover matrix: TOP the highest
    index or -1, COUNT, ALL as CSR in ascending index."""
    counts = cover.sum(axis=1)
    if mode == "count":
        return counts.astype(np.int32)
    if mode == "top":
        c = cover.shape[1]
        top = (c - 1 - np.argmax(cover[:, ::-1], axis=1)) if c else np.zeros(len(cover), int)
        return np.where(counts > 0, top, -1).astype(np.int32)
    offsets = np.zeros(len(cover) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets, np.nonzero(cover)[1].astype(np.int32)


def assert_same(got, want, mode):
    if mode == "all":
        assert isinstance(got, tuple) and len(got) == 2
        (go, gi), (wo, wi) = got, want
        assert go.dtype == np.int64 and gi.dtype == np.int32
        assert np.array_equal(go, wo)
        assert np.array_equal(gi, wi)
    else:
        assert isinstance(got, np.ndarray) and got.dtype == np.int32
        assert np.array_equal(got, want)


# ---- scenes and queries ----------------------------------------------------


def random_scene(seed, n):
    """Circles of every kind the rule must get right: centres in and out of
    the square, radii from tiny to larger than the square, zero radii."""
    rng = np.random.default_rng(seed)
    c = rng.random((n, 7), dtype=F32)
    c[:, :2] = rng.uniform(-0.2, 1.2, (n, 2)).astype(F32)
    c[:, 3] = np.exp(rng.uniform(np.log(1e-4), np.log(0.2), n)).astype(F32)
    c[rng.random(n) < 0.03, 3] = 0
    c[rng.random(n) < 0.002, 3] = 1.5
    return c


def query_points(circles, seed, n=1500):
    """Points uniform around the square, at circle centres, on circles'
    right edges (x + r: the boundary of the test), on the square's edges
    and corners, and outside it."""
    rng = np.random.default_rng(seed)
    p = [rng.uniform(-0.05, 1.05, (n, 2)).astype(F32)]
    if len(circles):
        pick = np.asarray(circles, F32)[rng.integers(0, len(circles), n // 4)]
        p.append(pick[:, :2])
        p.append(np.stack([pick[:, 0] + pick[:, 3], pick[:, 1]], axis=1))
        p.append(np.stack([pick[:, 0], pick[:, 1] - pick[:, 3]], axis=1))
    p.append(np.array([[0, 0], [1, 1], [0, 1], [1, 0], [0.5, 0], [1, 0.5], [-1e-7, 0.5],
                       [0.5, 1.0000001], [2, 2], [-3, 0.5]], F32))
    return np.concatenate(p).astype(F32)


def query_boxes(seed, n=600):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-0.1, 1.1, (n, 2)).astype(F32)
    size = np.exp(rng.uniform(np.log(1e-4), np.log(0.5), (n, 2))).astype(F32)
    boxes = np.concatenate([a, a + size], axis=1).astype(F32)
    extra = np.array([[0.5, 0.5, 0.5, 0.5],            # a point
                      [0, 0, 1, 1],                    # the square
                      [-5, -5, 5, 5],                  # around it
                      [1.5, 0.2, 2, 0.3],              # wholly outside
                      [-1, -1, 0, 0],                  # touching a corner
                      [0.2, -1, 0.3, -0.5]], F32)
    return np.concatenate([boxes, extra])


SCENES = {
    "rgb": lambda: qr.scene("rgb"),
    "rand10k": lambda: qr.scene("rand10k", seed=3),
    "pattern": lambda: qr.scene("pattern"),
    "biglittle": lambda: qr.scene("biglittle"),
    "clustered:20k": lambda: qr.scene("clustered:20k", seed=5),
    "random-4000": lambda: random_scene(1, 4000),
    "random-300": lambda: random_scene(2, 300),
}
_cache = {}


def scene_of(name):
    if name not in _cache:
        _cache[name] = SCENES[name]()
    return _cache[name]


# ---- against the oracles ---------------------------------------------------


@pytest.mark.parametrize("name", list(SCENES))
@pytest.mark.parametrize("resolution", [0, 16, 1024])
def test_points_equal_the_numpy_oracle(name, resolution):
    circles = scene_of(name)
    pts = query_points(circles, seed=len(name) + resolution)
    cover = cover_points(circles, pts)
    with qr.Index(circles, resolution=resolution, device="cpu") as ix:
        for mode in MODES:
            assert_same(ix.query_points(pts, mode=mode), answers(cover, mode), mode)


@pytest.mark.parametrize("name", list(SCENES))
@pytest.mark.parametrize("resolution", [0, 32])
def test_boxes_equal_the_numpy_oracle(name, resolution):
    circles = scene_of(name)
    boxes = query_boxes(seed=len(name))
    cover = cover_boxes(circles, boxes)
    with qr.Index(circles, resolution=resolution, device="cpu") as ix:
        for mode in MODES:
            assert_same(ix.query_boxes(boxes, mode=mode), answers(cover, mode), mode)


@pytest.mark.parametrize("name", ["rand10k", "biglittle", "random-4000"])
def test_the_library_oracle_agrees(name):
    """device="cpu-reference" is the library's brute force
    (qr_query_points_brute, qr_query_boxes_brute): the same answers as the
    index and as the NumPy oracle."""
    circles = scene_of(name)
    pts, boxes = query_points(circles, seed=9), query_boxes(seed=9)
    with qr.Index(circles, device="cpu") as ix, \
            qr.Index(circles, device="cpu-reference") as ref:
        assert ref.device == "cpu-reference" and ix.device == "cpu"
        for mode in MODES:
            want = answers(cover_points(circles, pts), mode)
            assert_same(ref.query_points(pts, mode), want, mode)
            assert_same(ix.query_points(pts, mode), want, mode)
            want = answers(cover_boxes(circles, boxes), mode)
            assert_same(ref.query_boxes(boxes, mode), want, mode)
            assert_same(ix.query_boxes(boxes, mode), want, mode)


def test_answers_depend_on_neither_resolution_nor_threads():
    circles = scene_of("clustered:20k")
    pts, boxes = query_points(circles, seed=4), query_boxes(seed=4)
    base = qr.Index(circles, device="cpu")
    for kw in (dict(resolution=16, threads=1), dict(resolution=4096, threads=2),
               dict(resolution=256, threads=3)):
        with qr.Index(circles, device="cpu", **kw) as ix:
            assert ix.resolution == kw["resolution"]
            for mode in MODES:
                assert_same(ix.query_points(pts, mode), base.query_points(pts, mode), mode)
                assert_same(ix.query_boxes(boxes, mode), base.query_boxes(boxes, mode), mode)
    base.close()


def test_nan_and_outside_points_match_nothing():
    circles = np.array([[0.5, 0.5, 0, 10.0, 1, 0, 0]], F32)  # covers everything
    pts = np.array([[np.nan, 0.5], [0.5, np.nan], [np.nan, np.nan], [-0.01, 0.5],
                    [0.5, 1.01], [np.inf, 0.5], [-np.inf, -np.inf], [0.5, 0.5], [1, 1]], F32)
    with qr.Index(circles, device="cpu") as ix:
        assert ix.query_points(pts, "top").tolist() == [-1] * 7 + [0, 0]
        assert ix.query_points(pts, "count").tolist() == [0] * 7 + [1, 1]
        offsets, ids = ix.query_points(pts, "all")
        assert offsets.tolist() == [0] * 8 + [1, 2] and ids.tolist() == [0, 0]


def test_float64_past_float32_is_outside():
    with qr.Index(np.array([[0.5, 0.5, 0, 10.0, 1, 0, 0]]), device="cpu") as ix:
        assert ix.query_points(np.array([[1e300, 0.5], [0.5, 0.5]]), "count").tolist() == [0, 1]


@pytest.mark.parametrize("empty", [np.zeros((0, 2), F32), np.zeros((0, 2), np.float64), []],
                         ids=["float32", "float64", "list"])
def test_empty_batches(empty):
    with qr.Index(scene_of("rand10k"), device="cpu") as ix:
        for mode in ("top", "count"):
            a = ix.query_points(empty, mode)
            assert a.shape == (0,) and a.dtype == np.int32
        offsets, ids = ix.query_points(empty, "all")
        assert offsets.tolist() == [0] and offsets.dtype == np.int64
        assert ids.shape == (0,) and ids.dtype == np.int32
        boxes = np.zeros((0, 4), F32) if len(np.shape(empty)) == 2 else []
        assert ix.query_boxes(boxes, "count").shape == (0,)
        offsets, ids = ix.query_boxes(boxes)
        assert offsets.tolist() == [0] and ids.shape == (0,)


def test_an_empty_scene_answers_nothing():
    pts = query_points(np.zeros((0, 7), F32), seed=1, n=50)
    for device in ("cpu", "cpu-reference"):
        with qr.Index(np.zeros((0, 7), F32), device=device) as ix:
            assert len(ix) == 0 and ix.resolution == 256
            assert np.all(ix.query_points(pts) == -1)
            assert np.all(ix.query_points(pts, "count") == 0)
            offsets, ids = ix.query_boxes([[0, 0, 1, 1]])
            assert offsets.tolist() == [0, 0] and len(ids) == 0
            lv = ix.leaves()
            assert len(lv.ids) == 0 and lv.offsets[-1] == 0


@pytest.mark.parametrize("make", [
    lambda p: p.astype(np.float64),
    lambda p: np.asfortranarray(p),
    lambda p: p.tolist(),
    lambda p: np.hstack([p, p])[:, 2:],  # a strided view
    lambda p: p.astype(">f4"),
    lambda p: np.ascontiguousarray(p[::-1])[::-1],
], ids=["float64", "fortran", "list", "strided", "big-endian", "reversed"])
def test_array_likes_are_made_float32(make):
    circles = scene_of("rand10k")
    pts = query_points(circles, seed=12, n=300)
    with qr.Index(circles, device="cpu") as ix:
        for mode in MODES:
            assert_same(ix.query_points(make(pts), mode), ix.query_points(pts, mode), mode)


def test_integers_and_scene_forms():
    # circles as render takes them: a table by column name, float64
    c = scene_of("random-300")
    table = {"x": c[:, 0].astype(np.float64), "y": c[:, 1], "r": c[:, 3]}
    pts = query_points(c, seed=5, n=200)
    with qr.Index(table, device="cpu") as a, qr.Index(c, device="cpu") as b:
        assert_same(a.query_points(pts, "all"), b.query_points(pts, "all"), "all")
        assert a.query_points([[0, 0], [1, 1]], "count").dtype == np.int32  # int points


# ---- refusals --------------------------------------------------------------


def _library_message(check, name, text):
    """The message a check of the library gives text (what the CLI prints)."""
    out, err = ctypes.c_int32(), _lib.Error()
    assert check(name, text, ctypes.byref(out), ctypes.byref(err)) == 1
    return err.msg.decode()


@pytest.mark.parametrize("value,text", [(100, b"100"), (8, b"8"), (65536, b"65536"),
                                        (-1, b"-1"), (True, b"True"), (256.0, b"256.0"),
                                        ("256", b"'256'")])
def test_bad_resolution_is_refused_with_the_library_message(value, text):
    msg = _library_message(_lib.qr_query_check_resolution, b"resolution", text)
    assert msg.startswith("resolution: expected 0 (chosen from the scene) or a power of two "
                          "from 16 to 32768, got ")
    with pytest.raises(qr.InvalidArgument) as e:
        qr.Index(scene_of("rgb"), resolution=value, device="cpu")
    assert str(e.value) == msg and e.value.status == 1
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("mode", ["first", "TOP", "", None, 0])
def test_bad_mode_is_refused_with_the_library_message(mode):
    with qr.Index(scene_of("rgb"), device="cpu") as ix:
        for query, batch in ((ix.query_points, [[0.5, 0.5]]), (ix.query_boxes, [[0, 0, 1, 1]])):
            with pytest.raises(qr.InvalidArgument) as e:
                query(batch, mode=mode)
            text = mode.encode() if isinstance(mode, str) else repr(mode).encode()
            assert str(e.value) == _library_message(_lib.qr_query_check_mode, b"mode", text)
            assert str(e.value).startswith("mode: expected 'top', 'count' or 'all', got ")


@pytest.mark.parametrize("box,index,what", [
    ([0.5, 0.0, 0.25, 1.0], 1, "x0"), ([0.0, 0.75, 1.0, 0.5], 1, "y0"),
    ([np.nan, 0.0, 1.0, 1.0], 1, "x0"), ([0.0, 0.0, 1.0, np.nan], 1, "y1")])
def test_a_bad_box_is_refused_with_the_library_message(box, index, what):
    boxes = np.array([[0, 0, 1, 1], box, [0.5, 0.5, 0.25, 0.25]], F32)
    err = _lib.Error()
    assert _lib.qr_query_check_boxes(boxes.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), 3,
                                     ctypes.byref(err)) == 1
    msg = err.msg.decode()
    assert msg.startswith(f"box {index}: {what}")  # the lowest bad box, named
    for device in ("cpu", "cpu-reference"):
        with qr.Index(scene_of("rgb"), device=device) as ix:
            for mode in MODES:
                with pytest.raises(qr.InvalidArgument) as e:
                    ix.query_boxes(boxes, mode)
                assert str(e.value) == msg


def test_bad_device_threads_and_circles_are_refused():
    with pytest.raises(qr.InvalidArgument, match="^device: expected auto, gpu, cpu or "
                       "cpu-reference, got 'tpu'$"):
        qr.Index(scene_of("rgb"), device="tpu")
    with pytest.raises(qr.InvalidArgument, match="^threads: expected a thread count"):
        qr.Index(scene_of("rgb"), threads=100000)
    bad = scene_of("rgb").copy()
    bad[1, 3] = -0.5
    with pytest.raises(qr.InvalidArgument, match=r"^circles: row 1: negative radius -0\.5$"):
        qr.Index(bad, device="cpu")
    with pytest.raises(qr.InvalidArgument, match=r"must have shape \(N, 7\)"):
        qr.Index(np.zeros((3, 4)), device="cpu")


def test_bad_query_arrays_are_refused():
    with qr.Index(scene_of("rgb"), device="cpu") as ix:
        with pytest.raises(qr.InvalidArgument, match=r"points must have shape \(N, 2\)"):
            ix.query_points(np.zeros((4, 3)))
        with pytest.raises(qr.InvalidArgument, match=r"points must have shape \(N, 2\)"):
            ix.query_points([0.5, 0.5])  # one point is [[x, y]]
        with pytest.raises(qr.InvalidArgument, match=r"boxes must have shape \(N, 4\)"):
            ix.query_boxes(np.zeros((4, 2)))
        with pytest.raises(TypeError):
            ix.query_points(np.zeros((4, 2), np.complex64))
        with pytest.raises(TypeError):
            ix.query_points("0.5 0.5")
        with pytest.raises(TypeError):
            ix.query_points([["a", "b"]])


# ---- the object ------------------------------------------------------------


def test_the_object():
    circles = scene_of("rand10k")
    ix = qr.Index(circles, device="cpu", threads=2)
    assert len(ix) == 10000 and ix.resolution == 256 and ix.device == "cpu"

    r = repr(ix)
    assert "10000 circles" in r and "resolution 256" in r and "CPU" in r
    top = ix.query_points([[0.5, 0.5]])
    ix.close()
    ix.close()  # twice is fine
    assert "closed" in repr(ix)
    with pytest.raises(ValueError, match="closed"):
        ix.query_points([[0.5, 0.5]])
    with pytest.raises(ValueError, match="closed"):
        ix.leaves()
    assert top.shape == (1,)  # answers outlive the index
    with qr.Index(scene_of("rgb"), resolution=64, device="reference") as ref:
        assert ref.device == "cpu-reference" and ref.resolution == 64 and len(ref) == 3


def test_default_resolution_follows_the_circles():
    assert qr.Index(np.zeros((0, 7)), device="cpu").resolution == 256
    big = np.tile(scene_of("rand10k"), (100, 1))  # 1M: 2 sqrt(n) = 2000
    with qr.Index(big[:, :], device="cpu-reference") as ix:
        assert ix.resolution == 2048


def test_the_index_keeps_its_own_circles():
    circles = scene_of("random-300").copy()
    pts = query_points(circles, seed=3, n=300)
    want = answers(cover_points(circles, pts), "all")
    for device in ("cpu", "cpu-reference"):
        c = circles.copy()
        with qr.Index(c, device=device) as ix:
            c[:, 3] = 0.9  # changed after the build: not seen
            assert_same(ix.query_points(pts, "all"), want, "all")


def test_answers_are_arrays_of_their_own():
    with qr.Index(scene_of("rand10k"), device="cpu") as ix:
        a = ix.query_points(query_points(scene_of("rand10k"), seed=1, n=100), "all")
        b = ix.query_points([[0.5, 0.5]], "count")
    b[0] += 1  # writable, and they outlive the index
    assert a[0][-1] == len(a[1]) and np.all(np.diff(a[0]) >= 0)


def test_auto_is_the_cpu_without_a_gpu():
    if qr.gpu_available()[0]:
        pytest.skip("a GPU is there")
    with qr.Index(scene_of("rgb")) as ix:
        assert ix.device == "cpu"
    with pytest.raises(qr.Error) as e:
        qr.Index(scene_of("rgb"), device="gpu")
    assert e.value.status == 5 and str(e.value)  # QR_ERR_NO_GPU, saying why


class CudaDLPackClaim:
    """A host array that claims, through __dlpack_device__ alone, to be on
    CUDA device 0."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA


def test_gpu_queries_on_a_cpu_index_are_refused():
    pts = np.array([[0.5, 0.5]], F32)
    for device in ("cpu", "cpu-reference"):
        with qr.Index(scene_of("rgb"), device=device) as ix:
            with pytest.raises(qr.InvalidArgument, match="a CUDA array, and this Index answers "
                               "on the CPU"):
                ix.query_points(CudaDLPackClaim(pts))
            with pytest.raises(qr.InvalidArgument, match="^boxes: a CUDA array"):
                ix.query_boxes(CudaDLPackClaim(np.array([[0, 0, 1, 1]], F32)))


def test_dlpack_host_queries():
    with qr.Index(scene_of("rand10k"), device="cpu") as ix:
        pts = query_points(scene_of("rand10k"), seed=2, n=100)
        assert_same(ix.query_points(DLPackOnly(pts), "all"), ix.query_points(pts, "all"), "all")


# ---- leaves ----------------------------------------------------------------


@pytest.mark.parametrize("name,resolution", [("clustered:20k", 0), ("random-4000", 64),
                                             ("rgb", 16)])
def test_leaves_tile_the_square_and_hold_every_answer(name, resolution):
    circles = scene_of(name)
    with qr.Index(circles, resolution=resolution, device="cpu") as ix:
        lv = ix.leaves()
        res = ix.resolution
        rects, offsets, ids = lv
        assert rects.dtype.names == ("x0", "y0", "x1", "y1", "depth", "count")
        assert rects["x0"].dtype == np.float64 and offsets.dtype == np.int64
        assert ids.dtype == np.int32
        w, h = rects["x1"] - rects["x0"], rects["y1"] - rects["y0"]
        assert np.all(w > 0) and np.all(h > 0)
        assert np.sum(w * h) == 1.0  # the leaves tile [0,1]^2 (sides are powers of two)
        assert np.all(rects["x0"] * res == np.round(rects["x0"] * res))  # whole cells
        assert rects["x0"].min() == 0 and rects["x1"].max() == 1
        assert np.array_equal(np.diff(offsets), rects["count"]) and offsets[-1] == len(ids)
        for k in range(len(rects)):
            lst = ids[offsets[k]:offsets[k + 1]]
            assert np.all(np.diff(lst) > 0)  # drawing order, each once
        # every circle covering a point lies in the list of the point's leaf
        pts = query_points(circles, seed=7, n=800)
        pts = pts[(pts >= 0).all(1) & (pts < 1).all(1)]
        off, hit = ix.query_points(pts, "all")
        for q, (x, y) in enumerate(pts):
            k = np.nonzero((rects["x0"] <= x) & (x < rects["x1"]) & (rects["y0"] <= y)
                           & (y < rects["y1"]))[0]
            assert len(k) == 1
            lst = ids[offsets[k[0]]:offsets[k[0] + 1]]
            assert np.all(np.isin(hit[off[q]:off[q + 1]], lst))


def test_leaves_of_the_reference_are_the_host_tree():
    circles = scene_of("random-4000")
    with qr.Index(circles, resolution=128, device="cpu") as a, \
            qr.Index(circles, resolution=128, device="cpu-reference") as b:
        la, lb = a.leaves(), b.leaves()
        assert lb is not None and np.array_equal(la.rects, lb.rects)
        assert np.array_equal(la.offsets, lb.offsets) and np.array_equal(la.ids, lb.ids)
        assert np.array_equal(b.leaves().ids, lb.ids)  # kept, built once


# ---- on the GPU ------------------------------------------------------------

gpu = qr.gpu_available()[0]
needs_gpu = pytest.mark.skipif(not gpu, reason="no usable GPU")
cupy = None
if gpu:
    try:
        import cupy
    except ImportError:
        pass
needs_cupy = pytest.mark.skipif(cupy is None, reason="no usable GPU, or no CuPy")


@needs_gpu
@pytest.mark.parametrize("name", ["rand10k", "biglittle", "random-4000", "clustered:20k"])
def test_gpu_index_equals_the_oracle(name):
    circles = scene_of(name)
    pts, boxes = query_points(circles, seed=21), query_boxes(seed=21)
    with qr.Index(circles, device="gpu") as ix:
        assert ix.device == "gpu" and "GPU" in repr(ix)
        for mode in MODES:
            assert_same(ix.query_points(pts, mode), answers(cover_points(circles, pts), mode),
                        mode)
            assert_same(ix.query_boxes(boxes, mode), answers(cover_boxes(circles, boxes), mode),
                        mode)
        with pytest.raises(qr.InvalidArgument, match="^box 0: x0"):
            ix.query_boxes([[1, 0, 0, 1]])


@needs_gpu
def test_gpu_leaves_equal_the_cpu_index():
    circles = scene_of("clustered:20k")
    with qr.Index(circles, device="gpu") as g, qr.Index(circles, device="cpu") as c:
        assert g.resolution == c.resolution
        lg, lc = g.leaves(), c.leaves()
        assert np.array_equal(lg.rects, lc.rects) and np.array_equal(lg.ids, lc.ids)


@needs_gpu
def test_auto_is_the_gpu_with_one():
    with qr.Index(scene_of("rgb")) as ix:
        assert ix.device == "gpu"


@needs_cupy
def test_cupy_queries_stay_on_the_gpu():
    circles = scene_of("clustered:20k")
    pts, boxes = query_points(circles, seed=31), query_boxes(seed=31)
    with qr.Index(circles, device="gpu") as ix:
        for batch, query in ((pts, ix.query_points), (boxes, ix.query_boxes)):
            d = cupy.asarray(batch)
            for mode in MODES:
                want = query(batch, mode)
                got = query(d, mode)
                if mode == "all":
                    assert all(isinstance(a, cupy.ndarray) for a in got)
                    got = tuple(cupy.asnumpy(a) for a in got)
                else:
                    assert isinstance(got, cupy.ndarray)
                    got = cupy.asnumpy(got)
                assert_same(got, want, mode)
            # float64 and strided device arrays are made float32 on the device
            got = query(cupy.asfortranarray(d.astype(cupy.float64)), "count")
            assert np.array_equal(cupy.asnumpy(got), query(batch, "count"))
        # the answers are copies: a later query does not change them
        a = ix.query_points(cupy.asarray(pts), "top")
        keep = cupy.asnumpy(a)
        ix.query_points(cupy.asarray(pts[::-1].copy()), "top")
        assert np.array_equal(cupy.asnumpy(a), keep)
        empty = ix.query_points(cupy.zeros((0, 2), cupy.float32), "all")
        assert cupy.asnumpy(empty[0]).tolist() == [0] and empty[1].size == 0
        with pytest.raises(qr.InvalidArgument, match="^box 1: y0"):
            ix.query_boxes(cupy.asarray([[0, 0, 1, 1], [0, 1, 1, 0]], cupy.float32))
    with qr.Index(circles, device="cpu") as cpu:
        with pytest.raises(qr.InvalidArgument, match="a CUDA array"):
            cpu.query_points(cupy.asarray(pts))


@needs_cupy
def test_cupy_circles_make_an_index():
    circles = scene_of("random-4000")
    pts = query_points(circles, seed=41)
    want = answers(cover_points(circles, pts), "all")
    for device in ("auto", "cpu"):
        with qr.Index(cupy.asarray(circles), device=device) as ix:
            assert ix.device == ("gpu" if device == "auto" else "cpu")
            assert_same(ix.query_points(pts, "all"), want, "all")
