"""background="none": a picture without a background (the command's
--background none). render returns float32 H x W x 4, top row first, with
STRAIGHT alpha: A is the pixel's coverage, R G B the colour c / a where
a's 8-bit value is not 0, else 0; to_uint8 of it is the very RGBA bytes of
the PNG the library writes for that render. Checked against renders over
black and over white (an oracle that knows nothing of alpha: over black is
the premultiplied colour, white minus black is 1 - A), by hand, against
render_file's PNG (decoded by Pillow), and save() of RGBA images."""
import numpy as np
import pytest

import quadrender as qr

# sparse circles, so that some pixels are bare, some covered in part
RNG = np.random.default_rng(11)
N = 300
CIRCLES = np.zeros((N, 7), np.float32)
CIRCLES[:, 0:2] = RNG.random((N, 2))
CIRCLES[:, 2] = RNG.random(N)
CIRCLES[:, 3] = RNG.uniform(0.01, 0.06, N)
CIRCLES[:, 4:7] = RNG.random((N, 3))
ALPHA = RNG.random(N, dtype=np.float32)
ALPHA[:30] = 0.0
ALPHA[30:60] = 1.0
ALPHA[60:90] = 0.002  # alone on a pixel, below an 8-bit alpha's first step
W, H = 96, 64
RENDERERS = [("cpu-reference", "exact"), ("cpu", "exact"), ("cpu", "fast")]


def render(background, device="cpu-reference", mode="exact", **kw):
    return qr.render(CIRCLES, W, H, device=device, mode=mode, alpha=ALPHA,
                     background=background, **kw)


def byte_nonzero(a):
    """qr_to_byte(a) != 0, as the library computes it in float32."""
    return np.float32(255) * np.clip(a, np.float32(0), np.float32(1)) >= np.float32(1)


@pytest.mark.parametrize("device, mode", RENDERERS)
@pytest.mark.parametrize("antialias", [False, True])
def test_straight_rgba_against_black_and_white(device, mode, antialias):
    img = render("none", device, mode, antialias=antialias)
    assert isinstance(img, qr.Image) and img.dtype == np.float32 and img.shape == (H, W, 4)
    black = render("black", device, mode, antialias=antialias)
    white = render("white", device, mode, antialias=antialias)
    assert black.shape == (H, W, 3)
    rgb, a = img[..., :3], img[..., 3:]
    assert a.min() >= 0.0 and a.max() <= 1.0
    # the scene has bare pixels (alpha 0), pixels covered in part and fully
    assert (a == 0).any() and ((a > 0) & (a < 1)).any() and (a == 1).any()
    # white minus black is what the background shows through: 1 - A
    assert np.abs((white - black) - (1 - a)).max() <= 1e-5
    # a pixel is covered exactly where the background does not show whole
    bare = np.all(white == 1, axis=2) & np.all(black == 0, axis=2)
    assert np.array_equal(a[..., 0] == 0, bare)
    # straight colour times alpha is the colour over black (premultiplied)
    shown = byte_nonzero(a[..., 0])
    assert (~shown & (a[..., 0] > 0)).any()  # the 0.002 circles: covered, 8-bit alpha 0
    assert np.abs(rgb * a - black)[shown].max() <= 1e-5
    # where the 8-bit alpha is 0 the colour is 0, and the colour over black no more than A
    assert not rgb[~shown].any()
    assert (black[~shown] <= a[~shown] + 1e-6).all()


@pytest.mark.parametrize("antialias", [False, True])
def test_exact_is_the_reference_and_fast_within_the_bound(antialias):
    ref = render("none", antialias=antialias)
    assert np.array_equal(render("none", "cpu", "exact", antialias=antialias), ref)
    fast = render("none", "cpu", "fast", antialias=antialias)
    assert np.abs(fast[..., 3] - ref[..., 3]).max() <= 1e-5
    # premultiplied, where both have an 8-bit alpha (fast mode's alpha may
    # differ across 1/255 by its 1e-5)
    both = byte_nonzero(ref[..., 3]) & byte_nonzero(fast[..., 3])
    pre = fast[..., :3] * fast[..., 3:] - ref[..., :3] * ref[..., 3:]
    assert np.abs(pre[both]).max() <= 2e-5
    # with no background, a plain render (no alpha=) too
    plain = qr.render(CIRCLES, W, H, device="cpu-reference", background="none")
    assert np.array_equal(qr.render(CIRCLES, W, H, device="cpu", mode="exact",
                                    background="none"), plain)
    assert set(np.unique(plain[..., 3])) >= {0.0, 0.5, 0.75}  # 1 - 0.5^k


def test_by_hand():
    # two circles over the centre of a 1 x 1 image, blended as the library
    # does in float32: C' = a c + (1 - a) C, A' = a + (1 - a) A, over black
    two = np.array([[0.5, 0.5, 0.0, 0.4, 1.0, 0.5, 0.0],
                    [0.5, 0.5, 1.0, 0.3, 0.2, 0.4, 0.6]], np.float32)
    alpha = np.array([0.3, 0.6], np.float32)
    c, a = np.zeros(3, np.float32), np.float32(0)
    for k in range(2):
        one_minus = np.float32(1) - alpha[k]
        c = alpha[k] * two[k, 4:] + one_minus * c
        a = alpha[k] + one_minus * a
    want = np.append(c / a, a).astype(np.float32)
    for device, mode in RENDERERS[:2]:
        img = qr.render(two, 1, device=device, mode=mode, alpha=alpha, background="none")
        assert img.shape == (1, 1, 4) and np.array_equal(img[0, 0], want)
    # nothing there: all four channels 0
    away = np.array([[2.0, 2.0, 0.0, 0.1, 1.0, 1.0, 1.0]], np.float32)
    assert not qr.render(away, 2, device="cpu", background="none").any()


def test_to_uint8_is_the_png_render_file_writes(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    for device, mode in RENDERERS[:2]:
        path = tmp_path / f"{device}.png"
        assert qr.render_file(CIRCLES, W, H, out=str(path), device=device, mode=mode,
                              alpha=ALPHA, background="none") == 1
        with pil.open(path) as f:
            assert f.mode == "RGBA"
            decoded = np.asarray(f)
        img = render("none", device, mode)
        assert np.array_equal(decoded, qr.to_uint8(img))
        # saved from Python: the same pixels (the files' PNG text differs)
        img.save(tmp_path / "saved.png")
        with pil.open(tmp_path / "saved.png") as f:
            assert f.mode == "RGBA" and np.array_equal(np.asarray(f), decoded)
        # Pillow's image of it, and what Jupyter shows: the same straight bytes
        assert img.to_pil().mode == "RGBA"
        assert np.array_equal(np.asarray(img.to_pil()), decoded)
        assert img._repr_png_() == (tmp_path / "saved.png").read_bytes()


def test_render_frames_gives_a_function_the_rgba_image(tmp_path):
    got = []
    qr.render_frames(CIRCLES, W, H, out=lambda k, img: got.append(img), device="cpu",
                     mode="exact", alpha=ALPHA, background="none")
    assert isinstance(got[0], qr.Image) and np.array_equal(got[0], render("none"))
    got = []
    qr.render_frames(CIRCLES, W, H, out=lambda k, img: got.append(img), device="cpu",
                     mode="exact", alpha=ALPHA, background="black")
    assert got[0].shape == (H, W, 3)


@pytest.mark.parametrize("name, fmt", [("a.ppm", None), ("a.pfm", None), ("a.png", "ppm")])
def test_render_file_refuses_what_has_no_alpha(tmp_path, name, fmt):
    path = tmp_path / name
    with pytest.raises(qr.InvalidArgument) as e:
        qr.render_file(CIRCLES, 16, out=str(path), format=fmt, device="cpu",
                       background="none")
    kind = "PPM" if (fmt or name[-3:]) == "ppm" else "PFM"
    assert str(e.value) == f"circles has no background: only PNG keeps its alpha channel, " \
                           f"not {kind}"
    assert list(tmp_path.iterdir()) == []


def test_save_of_rgba(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    # uint8 RGBA keeps its bytes, colour under alpha 0 included
    rgba = np.random.default_rng(3).integers(0, 256, (37, 53, 4), dtype=np.uint8)
    rgba[:5, :, 3] = 0
    qr.save(rgba, tmp_path / "u.png")
    with pil.open(tmp_path / "u.png") as f:
        assert f.mode == "RGBA" and np.array_equal(np.asarray(f), rgba)
    assert qr.Image(rgba)._repr_png_() == (tmp_path / "u.png").read_bytes()
    # a float image: to_uint8's bytes
    img = render("none")
    qr.save(img, tmp_path / "f.png")
    with pil.open(tmp_path / "f.png") as f:
        assert np.array_equal(np.asarray(f), qr.to_uint8(img))
    # PPM and PFM have no alpha: refused (nothing written) unless opaque
    for ext, kind in (("ppm", "PPM"), ("pfm", "PFM")):
        with pytest.raises(qr.InvalidArgument) as e:
            qr.save(img, tmp_path / f"never.{ext}")
        assert str(e.value) == f"{tmp_path / f'never.{ext}'}: {kind} has no alpha channel: " \
                               f"write a PNG for a transparent background"
        assert not (tmp_path / f"never.{ext}").exists()
        opaque = img.copy()
        opaque[..., 3] = 1
        qr.save(opaque, tmp_path / f"o.{ext}")
        qr.save(opaque[..., :3], tmp_path / f"rgb.{ext}")
        assert (tmp_path / f"o.{ext}").read_bytes() == (tmp_path / f"rgb.{ext}").read_bytes()
    rgba[..., 3] = 255
    qr.save(rgba, tmp_path / "u.ppm")
    qr.save(rgba[..., :3], tmp_path / "u3.ppm")
    assert (tmp_path / "u.ppm").read_bytes() == (tmp_path / "u3.ppm").read_bytes()


@pytest.mark.parametrize("background", ["None", "transparent", "none "])
def test_refusals_are_the_librarys(background):
    with pytest.raises(qr.InvalidArgument) as e:
        qr.render(CIRCLES, 16, device="cpu", background=background)
    assert str(e.value) == ("background: expected white, black, #RRGGBB, R,G,B (numbers from "
                            f"0 to 1) or none, got '{background}'")
    with pytest.raises(qr.InvalidArgument):
        qr.render_file(CIRCLES, 16, out="never.png", device="cpu", background=background)


gpu = pytest.mark.skipif(not qr.gpu_available()[0], reason="no usable GPU")


@gpu
@pytest.mark.parametrize("antialias", [False, True])
def test_gpu_draws_what_the_cpu_draws(antialias):
    ref = render("none", antialias=antialias)
    with qr.Renderer(W, H) as r:
        for _ in range(2):  # the picture does not stay with the Renderer
            exact = r.render(CIRCLES, mode="exact", alpha=ALPHA, background="none",
                             antialias=antialias)
            assert exact.shape == (H, W, 4) and np.array_equal(exact, ref)
            fast = r.render(CIRCLES, alpha=ALPHA, background="none", antialias=antialias)
            assert np.abs(fast[..., 3] - ref[..., 3]).max() <= 1e-5
            both = byte_nonzero(ref[..., 3]) & byte_nonzero(fast[..., 3])
            pre = fast[..., :3] * fast[..., 3:] - ref[..., :3] * ref[..., 3:]
            assert np.abs(pre[both]).max() <= 2e-5
            opaque = r.render(CIRCLES, mode="exact")
            assert opaque.shape == (H, W, 3)
            assert np.array_equal(opaque, qr.render(CIRCLES, W, H, device="cpu-reference"))
    assert np.array_equal(qr.render(CIRCLES, W, H, device="gpu", mode="exact", alpha=ALPHA,
                                    background="none", antialias=antialias), ref)


@gpu
def test_gpu_render_file_is_the_cpus_png(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    for device in ("gpu", "cpu"):
        qr.render_file(CIRCLES, W, H, out=str(tmp_path / f"{device}.png"), device=device,
                       mode="exact", alpha=ALPHA, background="none")
    with pil.open(tmp_path / "gpu.png") as g, pil.open(tmp_path / "cpu.png") as c:
        assert g.mode == "RGBA" and np.array_equal(np.asarray(g), np.asarray(c))
    got = []
    qr.render_frames(CIRCLES, W, H, out=lambda k, img: got.append(img), device="gpu",
                     mode="exact", alpha=ALPHA, background="none")
    assert np.array_equal(got[0], render("none"))


@gpu
def test_gpu_cupy_output():
    cupy = pytest.importorskip("cupy")
    with qr.Renderer(W, H) as r:
        img = r.render(CIRCLES, mode="exact", alpha=ALPHA, background="none", output="cupy")
        assert isinstance(img, cupy.ndarray) and img.shape == (H, W, 4)
        assert np.array_equal(cupy.asnumpy(img), render("none"))
