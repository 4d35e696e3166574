"""The Python package against the library's own outputs: images equal the
CLI's bytes for the same scene, arrays round-trip, bad input raises clear
errors. Runs on the CPU (GPU tests skip without one). QUADRENDER_CLI names
the quadrender program of the same build."""
import os
import subprocess

import numpy as np
import pytest

import quadrender as qr
from dlpack_only import DLPackOnly
from ppm import read_ppm

CLI = os.environ.get("QUADRENDER_CLI", "quadrender")


def cli_ppm(tmp_path, *args):
    out = tmp_path / "cli.ppm"
    subprocess.run([CLI, "render", *args, "-q", "-o", str(out)], check=True)
    return read_ppm(out)


def test_scene_round_trips_through_a_dump(tmp_path):
    circles = qr.scene("rand10k", seed=3)
    assert circles.shape == (10000, 7) and circles.dtype == np.float32
    npy = tmp_path / "r.npy"
    subprocess.run([CLI, "dump", "rand10k", "--seed", "3", "-q", "-o", str(npy)], check=True)
    assert np.array_equal(np.load(npy), circles)


@pytest.mark.parametrize("name,w,h", [("rand10k", 200, 150), ("pattern", 97, 64),
                                      ("biglittle", 128, 128)])
def test_exact_image_equals_the_cli(tmp_path, name, w, h):
    image = qr.render(qr.scene(name), w, h, mode="exact", device="cpu")
    assert image.shape == (h, w, 3) and image.dtype == np.float32
    expect = cli_ppm(tmp_path, name, "--width", str(w), "--height", str(h), "--exact",
                     "--device", "cpu")
    assert np.array_equal(qr.to_uint8(image), expect)


def test_reference_grid_and_quadtree_agree():
    circles = qr.scene("rand10k")
    ref = qr.render(circles, 160, 120, mode="exact", device="reference")
    for index in ("quadtree", "grid"):
        tile = 32 if index == "grid" else None  # a tile only with the grid
        img = qr.render(circles, 160, 120, mode="exact", device="cpu", index=index, tile=tile)
        assert np.array_equal(img, ref), index
    fast = qr.render(circles, 160, 120, mode="fast", device="cpu")
    assert np.abs(fast - ref).max() <= 1e-5


def test_any_array_of_circles():
    rng = np.random.default_rng(1)
    circles = rng.random((500, 7), dtype=np.float32)
    circles[:, 3] *= 0.05
    img = qr.render(circles, 64, 48, mode="exact", device="cpu")
    ref = qr.render(circles, 64, 48, mode="exact", device="reference")
    assert np.array_equal(img, ref)
    empty = qr.render(np.zeros((0, 7), np.float32), 8, 8, device="cpu")
    assert np.all(empty == 1.0)  # white background


def test_save_writes_the_cli_bytes(tmp_path):
    image = qr.render(qr.scene("rgb"), 64, 64, mode="exact", device="cpu")
    qr.save(image, tmp_path / "py.ppm")
    assert np.array_equal(read_ppm(tmp_path / "py.ppm"),
                          cli_ppm(tmp_path, "rgb", "-s", "64", "--exact", "--device", "cpu"))
    qr.save(image, tmp_path / "py.png")
    assert (tmp_path / "py.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stats_equal_the_clis(tmp_path):
    import json
    s = qr.stats(qr.scene("rand10k"), 512)
    out = subprocess.run([CLI, "stats", "rand10k", "-s", "512", "--device", "cpu", "--json", "-"],
                         check=True, capture_output=True, text=True).stdout
    cli = json.loads(out)
    for key in ("tree", "circles_per_leaf", "circles"):
        assert s[key] == cli[key], key
    assert s["schema_version"] == cli["schema_version"]


@pytest.mark.parametrize("bad,error", [
    (np.zeros((4, 6), np.float32), ValueError),
    (np.zeros((4, 7, 1), np.float32), ValueError),
    (np.zeros((4, 7), np.complex64), TypeError),
    ([["0"] * 7], TypeError),
])
def test_bad_arrays_raise(bad, error):
    # other array-likes of numbers are taken (test_circles_input.py)
    with pytest.raises(error):
        qr.render(bad, 16, 16, device="cpu")


def test_nan_and_bad_sizes_raise():
    circles = qr.scene("rand10k")
    circles[17, 3] = np.nan
    with pytest.raises(ValueError, match="row 17"):
        qr.render(circles, 16, 16, device="cpu")
    with pytest.raises(ValueError):
        qr.render(qr.scene("rgb"), 0, 16)
    with pytest.raises(ValueError):
        qr.render(qr.scene("rgb"), 16, 40000)
    with pytest.raises(ValueError):
        qr.render(qr.scene("rgb"), 16, mode="slow")


def test_library_errors_carry_their_message():
    with pytest.raises(qr.Error, match="unknown built-in scene"):
        qr.scene("no-such-scene")
    with pytest.raises(qr.Error):
        qr.render(qr.scene("rgb"), 16, device="cpu", min_leaf=24)


def test_to_uint8_is_the_writers_rule():
    v = np.array([[[-1.0, 0.0, 0.5], [1.0, 2.0, np.nan]]], np.float32)
    assert qr.to_uint8(v).tolist() == [[[0, 0, 127], [255, 255, 0]]]


@pytest.mark.skipif(not qr.gpu_available()[0], reason="no usable GPU")
def test_gpu_exact_equals_the_cpu():
    circles = qr.scene("rand100k")
    gpu = qr.render(circles, 300, 200, mode="exact", device="gpu")
    cpu = qr.render(circles, 300, 200, mode="exact", device="reference")
    assert np.array_equal(gpu, cpu)


def test_renderer_needs_a_gpu():
    if qr.gpu_available()[0]:
        pytest.skip("a GPU is there")
    with pytest.raises(qr.Error):
        qr.Renderer(64, 64)


cupy = None
if qr.gpu_available()[0]:
    try:
        import cupy
    except ImportError:
        pass


@pytest.mark.skipif(cupy is None, reason="no usable GPU, or no CuPy")
def test_cupy_circles_render_in_place():
    # circles made on the GPU: no host copy of them exists
    rng = cupy.random.default_rng(7)
    circles = rng.random((200_000, 7), dtype=cupy.float32)
    circles[:, 3] *= 0.01
    for mode in ("exact", "fast"):
        img = qr.render(circles, 320, 240, mode=mode)
        assert isinstance(img, cupy.ndarray) and img.shape == (240, 320, 3)
        host = qr.render(cupy.asnumpy(circles), 320, 240, mode=mode, device="gpu")
        assert np.array_equal(cupy.asnumpy(img), host), mode
    ref = qr.render(cupy.asnumpy(circles), 320, 240, mode="exact", device="reference")
    assert np.array_equal(cupy.asnumpy(qr.render(circles, 320, 240, mode="exact")), ref)


@pytest.mark.skipif(cupy is None, reason="no usable GPU, or no CuPy")
def test_renderer_keeps_its_buffers():
    circles = cupy.asarray(qr.scene("rand100k"))
    with qr.Renderer(256, 200) as r:
        a = r.render(circles, mode="exact", output="numpy")
        b = r.render(circles, mode="exact", output="numpy")
    assert np.array_equal(a, b)
    with pytest.raises(TypeError):
        qr.render(cupy.zeros((4, 7), cupy.float64), 16, 16)
    with pytest.raises(ValueError):
        qr.render(cupy.zeros((7, 4), cupy.float32).T, 16, 16)


def test_leaves_tile_the_image_and_match_stats():
    circles = qr.scene("clustered:100k")
    lv = qr.leaves(circles, 512, 384, capacity=256)
    s = qr.stats(circles, 512, 384, capacity=256)
    assert lv.shape == (s["tree"]["leaves"], 6)
    area = ((lv[:, 2] - lv[:, 0]) * (lv[:, 3] - lv[:, 1])).sum()
    assert area == 512 * 384
    assert lv[:, 5].sum() == s["circles"]["pairs"]
    assert lv[:, 4].max() == s["tree"]["max_depth"]


def test_dlpack_host_arrays_render_in_place():
    circles = qr.scene("rand10k")
    a = qr.render(DLPackOnly(circles), 96, 64, mode="exact", device="cpu")
    b = qr.render(circles, 96, 64, mode="exact", device="cpu")
    assert np.array_equal(a, b)


def test_dlpack_capsules_read_as_numpy_made_them():
    # the ctypes layout of DLManagedTensor, checked against NumPy's capsules
    from quadrender import _dlpack
    a = qr.scene("rand10k")
    d = _dlpack.describe(a.__dlpack__())
    assert d["shape"] == (10000, 7) and d["typestr"] == "<f4"
    assert d["data"][0] == a.ctypes.data and d["device"] == (_dlpack.KDL_CPU, 0)
    assert d["strides"] in (None, (28, 4))
    b = a.astype(np.float64)[1::2, 2:]
    d = _dlpack.describe(b.__dlpack__())
    assert d["shape"] == (5000, 5) and d["typestr"] == "<f8"
    assert d["strides"] == (112, 8) and d["data"][0] == b.ctypes.data


class CudaDLPackClaim:
    """A host array that claims, through __dlpack_device__ alone, to be on
    CUDA device 0: the device path must take it (and find it out)."""

    def __init__(self, a):
        self.a = a
        self.exported = 0

    def __dlpack__(self, **kw):
        self.exported += 1
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA


def test_cuda_dlpack_takes_the_device_path():
    claim = CudaDLPackClaim(qr.scene("rgb"))
    with pytest.raises(ValueError, match="render on the GPU"):
        qr.render(claim, 16, 16, device="cpu")
    if qr.gpu_available()[0]:
        with pytest.raises(TypeError, match="device type 1"):
            qr.render(claim, 16, 16)
        assert claim.exported == 1
    else:
        with pytest.raises(qr.Error) as e:
            qr.render(claim, 16, 16)
        assert e.value.status == 5 and str(e.value)  # QR_ERR_NO_GPU, with the reason
        assert claim.exported == 0


torch = None
if qr.gpu_available()[0]:
    try:
        import torch
        if not torch.cuda.is_available():
            torch = None
    except ImportError:
        pass


@pytest.mark.skipif(torch is None, reason="no usable GPU, or no PyTorch with CUDA")
def test_torch_dlpack_circles_render_in_place():
    # circles made on the GPU: no host copy of them exists
    g = torch.Generator(device="cuda").manual_seed(5)
    t = torch.rand((150_000, 7), device="cuda", generator=g, dtype=torch.float32)
    t[:, 3] *= 0.01
    wrapped = DLPackOnly(t)
    assert not hasattr(wrapped, "__cuda_array_interface__")
    host = t.cpu().numpy()
    with qr.Renderer(320, 240) as r:
        for mode in ("exact", "fast"):
            img = r.render(wrapped, mode=mode, output="numpy")
            assert np.array_equal(img, qr.render(host, 320, 240, mode=mode, device="gpu")), mode
    ref = qr.render(host, 320, 240, mode="exact", device="reference")
    with qr.Renderer(320, 240) as r:
        assert np.array_equal(r.render(wrapped, mode="exact", output="numpy"), ref)
    with pytest.raises(TypeError, match="float32"):
        qr.render(DLPackOnly(t.double()), 16, 16)
    with pytest.raises(ValueError, match="C-contiguous"):
        qr.render(DLPackOnly(t.T.contiguous().T), 16, 16)
    with pytest.raises(ValueError, match="shape"):
        qr.render(DLPackOnly(t[:, :6].contiguous()), 16, 16)


@pytest.mark.skipif(cupy is None, reason="no usable GPU, or no CuPy")
def test_renderer_keeps_the_scene_as_circles_grow_and_shrink():
    # one Renderer's kept scene, refilled and regrown, draws what a new one draws
    rng = cupy.random.default_rng(11)
    host_between = qr.scene("rand10k")
    with qr.Renderer(256, 192) as r:
        for k, n in enumerate((20_000, 300_000, 70_000, 0, 300_000, 5, 400_000)):
            circles = rng.random((n, 7), dtype=cupy.float32)
            circles[:, 3] *= 0.02
            mode = ("exact", "fast")[k % 2]
            kept = r.render(circles, mode=mode)
            fresh = qr.render(circles, 256, 192, mode=mode)
            assert isinstance(kept, cupy.ndarray)
            assert np.array_equal(cupy.asnumpy(kept), cupy.asnumpy(fresh)), (n, mode)
            if k == 2:  # a host array between CUDA ones leaves the kept scene be
                host = r.render(host_between, mode="exact")
                assert np.array_equal(host, qr.render(host_between, 256, 192, mode="exact",
                                                      device="reference"))
        ref = qr.render(cupy.asnumpy(circles), 256, 192, mode="exact", device="reference")
        assert np.array_equal(r.render(circles, mode="exact", output="numpy"), ref)


def test_a_library_named_that_cannot_load_is_an_error():
    """QUADRENDER_LIBRARY names the library used, or the import fails
    saying so: it never falls back to another build silently."""
    import sys
    env = dict(os.environ, QUADRENDER_LIBRARY="/nonexistent/libquadrender.so")
    r = subprocess.run([sys.executable, "-c", "import quadrender"], env=env,
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "QUADRENDER_LIBRARY=/nonexistent/libquadrender.so cannot be loaded" in r.stderr
