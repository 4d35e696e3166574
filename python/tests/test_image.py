"""Images that show and save themselves: render returns a quadrender.Image,
the float32 NumPy array it always returned (an ndarray subclass) with
_repr_png_ (Jupyter), to_pil(), save(); quadrender.save and to_uint8 take
float and uint8 images alike (a uint8 image is written with its bytes)."""
import sys

import numpy as np
import pytest

import quadrender as qr
from ppm import read_ppm

IMAGE = qr.render(qr.scene("rand10k"), 96, 64, mode="exact", device="cpu")


def test_render_returns_an_image_that_is_the_array():
    assert isinstance(IMAGE, qr.Image) and isinstance(IMAGE, np.ndarray)
    assert IMAGE.dtype == np.float32 and IMAGE.shape == (64, 96, 3)
    plain = np.asarray(IMAGE)
    assert type(plain) is np.ndarray and np.shares_memory(plain, IMAGE)
    assert type(IMAGE.__array__()) is np.ndarray
    # reductions are NumPy scalars, as for a plain array
    assert type(IMAGE.max()) is np.float32 and float(IMAGE.min()) >= 0.0
    assert np.array_equal(IMAGE, plain)
    assert isinstance(qr.Image(plain), qr.Image)


def test_every_path_to_numpy_returns_an_image():
    got = []
    qr.render_frames("rgb", 16, frames=range(2), device="cpu", out=lambda k, img: got.append(img))
    assert all(isinstance(img, qr.Image) and img.shape == (16, 16, 3) for img in got)
    assert isinstance(qr.render(qr.scene("rgb"), 16, device="reference"), qr.Image)


def test_repr_png_is_the_png_save_writes(tmp_path):
    IMAGE.save(tmp_path / "a.png")
    png = IMAGE._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == (tmp_path / "a.png").read_bytes()
    # what is no image shows as an array
    for part in (IMAGE[0], IMAGE[..., 0], IMAGE[:, :, :2], IMAGE[:0]):
        assert part._repr_png_() is None


def test_save_of_uint8_keeps_its_bytes(tmp_path):
    """qr.save(qr.to_uint8(img)) wrote an all-white PNG (uint8 read as
    floats, clamped to 1): now the bytes of saving img itself."""
    for ext in ("png", "ppm"):
        qr.save(IMAGE, tmp_path / f"f.{ext}")
        qr.save(qr.to_uint8(IMAGE), tmp_path / f"u.{ext}")
        assert (tmp_path / f"u.{ext}").read_bytes() == (tmp_path / f"f.{ext}").read_bytes(), ext
    # every byte value comes back as it was
    every = np.arange(256 * 3, dtype=np.uint16).astype(np.uint8).reshape(16, 16, 3)
    qr.save(every, tmp_path / "every.ppm")
    assert np.array_equal(read_ppm(tmp_path / "every.ppm"), every)
    assert np.array_equal(qr.to_uint8(every), every)
    assert qr.Image(every)._repr_png_() == qr.Image(every / np.float32(255))._repr_png_()


def test_uint16_and_other_dtypes(tmp_path):
    sixteen = (qr.to_uint8(IMAGE).astype(np.uint16) * 257)  # v * 257 / 65535 == v / 255
    qr.save(sixteen, tmp_path / "s.ppm")
    assert np.array_equal(read_ppm(tmp_path / "s.ppm"), qr.to_uint8(IMAGE))
    qr.save(IMAGE.astype(np.float64), tmp_path / "d.ppm")
    assert np.array_equal(read_ppm(tmp_path / "d.ppm"), qr.to_uint8(IMAGE))
    for bad in (IMAGE.astype(np.int32), IMAGE > 0.5):
        with pytest.raises(TypeError, match="uint8"):
            qr.save(bad, tmp_path / "never.png")
    assert not (tmp_path / "never.png").exists()


def test_to_pil():
    pytest.importorskip("PIL")
    pil = IMAGE.to_pil()
    assert pil.mode == "RGB" and pil.size == (96, 64)
    assert np.array_equal(np.asarray(pil), qr.to_uint8(IMAGE))
    rgba = qr.Image(np.dstack([IMAGE, np.full(IMAGE.shape[:2], 0.5, np.float32)]))
    assert rgba.to_pil().mode == "RGBA"


def test_to_pil_without_pillow_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        IMAGE.to_pil()
