"""A Renderer kept across calls with NumPy circles: float32 rows in C order
refill its GPU scene through the scene's pinned staging
(qr_gpu_scene_update_host) and the image comes back as top-first RGB
(qr_gpu_renderer_download_rgb). Call after call, as the circles grow and
shrink, the images are the bytes of a new Renderer given the same circles
in another form (float64, Fortran order: the scene uploaded afresh through
the library's host scene, the path other inputs take) and, in exact mode,
of the CPU reference; bad rows raise what they always raised."""
import numpy as np
import pytest

import quadrender as qr

needs_gpu = pytest.mark.skipif(not qr.gpu_available()[0], reason="needs a GPU")

W, H = 320, 200


def circles(n, seed):
    """n random circles, float32 N x 7 in C order, radii like rand1M's
    scaled up so that a small image shows them."""
    rng = np.random.default_rng(seed)
    c = rng.random((n, 7), dtype=np.float32)
    c[:, 3] = 0.002 + 0.02 * c[:, 3]
    return c


def fresh(c, mode, form=lambda c: c):
    """The image of circles c, in the form form(c), through a new
    Renderer."""
    with qr.Renderer(W, H) as r:
        return r.render(form(c), mode=mode)


@needs_gpu
@pytest.mark.parametrize("mode", ["fast", "exact"])
def test_kept_renderer_gives_a_new_renderers_bytes(mode):
    sizes = [1000, 250_000, 70_000, 0, 100_001, 7, 250_000, 1]
    with qr.Renderer(W, H) as r:
        for k, n in enumerate(sizes):
            c = circles(n, k)
            got = r.render(c, mode=mode)
            assert isinstance(got, qr.Image), k
            assert got.shape == (H, W, 3) and got.dtype == np.float32, k
            assert got.flags.c_contiguous, k
            assert np.array_equal(got, fresh(c, mode)), (k, n)
            # float64 rows: the scene made from the library's host scene
            assert np.array_equal(got, fresh(c, mode, lambda c: c.astype(np.float64))), (k, n)
            assert np.array_equal(got, qr.render(c, W, H, mode=mode)), (k, n)
            if mode == "exact" and n <= 100_001:
                ref = qr.render(c, W, H, mode="exact", device="cpu")
                assert np.array_equal(got, ref), (k, n)
            # another form in between (the scene made afresh), then rows again
            if k == 2:
                assert np.array_equal(r.render(np.asfortranarray(c), mode=mode), got)


@needs_gpu
def test_each_call_returns_new_memory_and_leaves_the_circles_alone():
    c = circles(50_000, 3)
    c.flags.writeable = False  # the library only reads the rows
    keep = c.copy()
    with qr.Renderer(W, H) as r:
        a = r.render(c)
        b = r.render(c)
        assert not np.shares_memory(a, b)
        assert np.array_equal(a, b)
        # a strided view takes the other path, to the same image
        assert np.array_equal(r.render(c[::2]), r.render(np.ascontiguousarray(c[::2])))
    assert np.array_equal(c, keep)


@needs_gpu
@pytest.mark.parametrize("row,column,value", [(9, 3, -0.25), (3, 3, np.nan), (40_000, 0, np.inf),
                                              (99_999, 6, -np.inf), (65_536, 3, -1e-30)])
def test_bad_rows_raise_as_before(row, column, value):
    good = circles(100_000, 11)
    bad = good.copy()
    bad[row, column] = value
    with pytest.raises(qr.InvalidArgument) as want:  # the library's host check
        qr.render(bad, 64, 48, device="cpu")
    with qr.Renderer(64, 48) as r:
        before = r.render(good)
        with pytest.raises(qr.InvalidArgument) as got:
            r.render(bad)
        assert str(got.value) == str(want.value)
        assert got.value.status == want.value.status
        assert np.array_equal(r.render(good), before)  # the Renderer still renders
    with pytest.raises(qr.InvalidArgument) as got:
        qr.render(bad, 64, 48)
    assert str(got.value) == str(want.value)
