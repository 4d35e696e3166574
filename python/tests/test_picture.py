"""The picture's options (alpha=, background=, antialias=; the command's
--alpha, --background and --antialias): every renderer draws what the CPU reference draws with them
(exact mode to the bit, fast mode within 1e-5), a table's alpha column is
the circles' alpha, alpha 0.5 over white is the plain picture, and the GPU
takes them for host circles and refuses them for circles already on the
GPU."""
import numpy as np
import pytest

import quadrender as qr

CIRCLES = qr.scene("rand10k")
N = len(CIRCLES)
RNG = np.random.default_rng(7)
ALPHA = RNG.random(N, dtype=np.float32)
ALPHA[:50] = 0.0
ALPHA[50:100] = 1.0
BACKGROUND = (0.25, 0.0, 1.0)


def reference(**picture):
    return qr.render(CIRCLES, 96, 64, device="cpu-reference", **picture)


def test_cpu_exact_is_the_reference_and_fast_is_within_the_bound():
    ref = reference(alpha=ALPHA, background=BACKGROUND)
    exact = qr.render(CIRCLES, 96, 64, device="cpu", mode="exact", alpha=ALPHA,
                      background=BACKGROUND)
    assert np.array_equal(exact, ref)
    fast = qr.render(CIRCLES, 96, 64, device="cpu", alpha=ALPHA, background=BACKGROUND)
    assert np.abs(fast - ref).max() <= 1e-5
    # the options change the picture
    assert not np.array_equal(ref, reference())


def test_antialias():
    ref = reference(alpha=ALPHA, background=BACKGROUND, antialias=True)
    assert not np.array_equal(ref, reference(alpha=ALPHA, background=BACKGROUND))
    exact = qr.render(CIRCLES, 96, 64, device="cpu", mode="exact", alpha=ALPHA,
                      background=BACKGROUND, antialias=True)
    assert np.array_equal(exact, ref)
    fast = qr.render(CIRCLES, 96, 64, device="cpu", antialias=True, alpha=ALPHA,
                     background=BACKGROUND)
    assert np.abs(fast - ref).max() <= 1e-5
    with pytest.raises(TypeError, match="antialias must be True or False"):
        qr.render(CIRCLES, 16, device="cpu", antialias="yes")


def test_by_hand():
    # one circle over the middle of a 1 x 1 image: a c + (1 - a) background
    one = np.array([[0.5, 0.5, 0.0, 0.4, 1.0, 0.5, 0.0]], np.float32)
    img = qr.render(one, 1, device="cpu-reference", alpha=0.25, background="#0040FF")
    bg = np.array([0, 64 / 255, 1], np.float32)
    want = np.float32(0.25) * one[0, 4:] + np.float32(0.75) * bg
    assert np.array_equal(img[0, 0], want.astype(np.float32))


def test_table_alpha_column_and_every_spelling():
    import pandas as pd
    df = pd.DataFrame(CIRCLES, columns=["x", "y", "z", "r", "red", "green", "blue"])
    df["alpha"] = ALPHA
    ref = reference(alpha=ALPHA, background=BACKGROUND)
    kw = dict(device="cpu", mode="exact")
    assert np.array_equal(qr.render(df, 96, 64, background=BACKGROUND, **kw), ref)
    df = df.rename(columns={"alpha": "opacity"})
    assert np.array_equal(qr.render(df, 96, 64, alpha="opacity", background="0.25,0,1", **kw),
                          ref)
    half = qr.render(CIRCLES, 96, 64, alpha=0.5, background="white", **kw)
    assert np.array_equal(half, qr.render(CIRCLES, 96, 64, **kw))
    assert np.array_equal(qr.render(CIRCLES, 96, 64, alpha=np.float32(0.3), **kw),
                          qr.render(CIRCLES, 96, 64, alpha=np.full(N, 0.3), **kw))


@pytest.mark.parametrize("kwargs, message", [
    (dict(alpha=1.5), "alpha: expected a number from 0 to 1, got '1.5'"),
    (dict(alpha=np.full(N, 2.0)), "alpha: circle 0's alpha 2 is not between 0 and 1"),
    (dict(alpha=[0.5, 0.5]), f"alpha: expected one alpha a circle, shape ({N},); got (2,)"),
    (dict(alpha="opacity"), "alpha: no column 'opacity'"),
    (dict(background=(1, 2, 3)), "background: expected three numbers from 0 to 1, got 1,2,3"),
    (dict(background=(1, 1)), "background: expected a colour name, '#RRGGBB', three numbers "
                              "from 0 to 1 or 'none', not shape (2,)"),
])
def test_refusals(kwargs, message):
    with pytest.raises(qr.InvalidArgument) as e:
        qr.render(CIRCLES, 16, device="cpu", **kwargs)
    assert str(e.value) == message


def test_render_file_draws_them(tmp_path):
    path = tmp_path / "a.pfm"
    qr.render_file(CIRCLES, 96, 64, out=str(path), device="cpu-reference", alpha=ALPHA,
                   background=BACKGROUND)
    got = []
    qr.render_frames(CIRCLES, 96, 64, out=lambda k, img: got.append(img), device="cpu",
                     mode="exact", alpha=ALPHA, background=BACKGROUND)
    assert np.array_equal(got[0], reference(alpha=ALPHA, background=BACKGROUND))
    with pytest.raises(ValueError, match="named scene"):
        qr.render_file("rand10k", 16, out=str(path), alpha=0.5)


gpu = pytest.mark.skipif(not qr.gpu_available()[0], reason="no usable GPU")


@gpu
def test_gpu_draws_what_the_reference_draws():
    ref = reference(alpha=ALPHA, background=BACKGROUND)
    with qr.Renderer(96, 64) as r:
        for _ in range(2):  # the kept scene is not used for a picture, nor spoiled by one
            exact = r.render(CIRCLES, mode="exact", alpha=ALPHA, background=BACKGROUND)
            assert np.array_equal(exact, ref)
            fast = r.render(CIRCLES, alpha=ALPHA, background=BACKGROUND)
            assert np.abs(fast - ref).max() <= 1e-5
            assert np.array_equal(r.render(CIRCLES, mode="exact"), reference())
            aa = reference(alpha=ALPHA, antialias=True)
            assert np.array_equal(r.render(CIRCLES, mode="exact", alpha=ALPHA, antialias=True), aa)
            assert np.abs(r.render(CIRCLES, alpha=ALPHA, antialias=True) - aa).max() <= 1e-5
    assert np.array_equal(qr.render(CIRCLES, 96, 64, device="gpu", mode="exact", alpha=ALPHA,
                                    background=BACKGROUND), ref)


@gpu
def test_gpu_circles_refuse_the_picture():
    cupy = pytest.importorskip("cupy")
    with pytest.raises(ValueError, match="alpha, background and antialias take host circles"):
        qr.render(cupy.asarray(CIRCLES), 16, alpha=0.3)
