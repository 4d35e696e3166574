"""Render jobs from Python (quadrender.render_frames, render_file) against
the single-image render: the files and the images a function receives
equal qr.render of the scene at each frame, and qr.save of it (PPM: the
same bytes). GPU lists skip without a GPU."""
import numpy as np
import pytest

import quadrender as qr
from ppm import read_ppm


def single(name, frame, w, h, device="cpu"):
    """The existing single-image render of the scene at that frame."""
    return qr.render(qr.scene(name, frame=frame), w, h, device=device)


def test_frames_to_files_equal_single_renders(tmp_path):
    done = qr.render_frames("hypnosis", 64, 48, frames=range(2, 6), device="cpu",
                            out=str(tmp_path / "h_%04d.ppm"))
    assert done == 4
    for k in range(2, 6):
        alone = tmp_path / f"alone_{k}.ppm"
        qr.save(single("hypnosis", k, 64, 48), str(alone))
        assert (tmp_path / f"h_{k:04d}.ppm").read_bytes() == alone.read_bytes(), k
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("h_")) == [
        f"h_{k:04d}.ppm" for k in range(2, 6)]


def test_frames_to_a_function_equal_single_renders():
    seen = {}
    qr.render_frames("hypnosis", 40, 30, frames=range(0, 3), device="cpu",
                     out=lambda k, img: seen.__setitem__(k, img))
    assert sorted(seen) == [0, 1, 2]
    for k, img in seen.items():
        assert img.shape == (30, 40, 3) and img.dtype == np.float32
        assert np.array_equal(img, single("hypnosis", k, 40, 30)), k


def test_circles_array_and_progress(tmp_path):
    circles = qr.scene("rand10k", seed=2)
    steps = []
    qr.render_file(circles, 50, 40, device="cpu", out=str(tmp_path / "r.ppm"),
                   progress=lambda done, total: steps.append((done, total)))
    assert steps == [(1, 1)]
    assert np.array_equal(read_ppm(tmp_path / "r.ppm"),
                          qr.to_uint8(qr.render(circles, 50, 40, device="cpu")))


def test_cancel_from_the_function_leaves_no_partial_file(tmp_path):
    with pytest.raises(qr.Error) as e:
        qr.render_frames("snow", 32, frames=range(0, 10), device="cpu",
                         out=str(tmp_path / "s_%d.png"), progress=lambda done, total: done < 2)
    assert e.value.status == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s_0.png", "s_1.png"]


def test_errors_raise_in_one_line(tmp_path):
    with pytest.raises(qr.Error, match="frame"):
        qr.render_frames("snow", 32, frames=range(3), out=str(tmp_path / "a%s.png"))
    with pytest.raises(ValueError):
        qr.render_frames("snow", 32, frames=range(0, 4, 2), out=str(tmp_path / "x_%d.png"))
    with pytest.raises(qr.Error):
        qr.render_frames("no-such-scene", 32, out=str(tmp_path / "x.png"))
    with pytest.raises(ZeroDivisionError):
        qr.render_frames("snow", 16, frames=range(3), device="cpu", out=lambda k, img: 1 / 0)


gpu = pytest.mark.skipif(not qr.gpu_available()[0], reason="needs a GPU")


@gpu
def test_gpu_list_equals_one_gpu(tmp_path):
    qr.render_file("biglittle", 600, 400, device="gpu", out=str(tmp_path / "one.png"))
    qr.render_file("biglittle", 600, 400, device="gpu", gpus=[0, 0],
                   out=str(tmp_path / "two.png"))
    assert (tmp_path / "one.png").read_bytes() == (tmp_path / "two.png").read_bytes()
    qr.render_frames("snow", 128, frames=range(4), device="gpu", out=str(tmp_path / "a_%d.png"))
    qr.render_frames("snow", 128, frames=range(4), device="gpu", gpus=[0, 0],
                     out=str(tmp_path / "b_%d.png"))
    for k in range(4):
        assert (tmp_path / f"a_{k}.png").read_bytes() == (tmp_path / f"b_{k}.png").read_bytes()


def test_png_level_only_with_png(tmp_path):
    """A PNG level asked of another format is refused, as the CLI refuses
    --png-level with a .ppm name, and nothing is written."""
    with pytest.raises(qr.Error, match="only with PNG output"):
        qr.render_file("rgb", 16, 16, device="cpu", png_level=9, out=str(tmp_path / "x.ppm"))
    assert not list(tmp_path.iterdir())


def test_deflate_encoders_hold_the_same_pixels(tmp_path):
    """deflate="portable" and "zlib" write other bytes of the same pixels;
    portable refuses a level, as the command does."""
    import zlib
    files = {}
    for d in ("portable", "zlib"):
        out = tmp_path / f"{d}.png"
        assert qr.render_file("rand10k", 300, 200, device="cpu", mode="exact", deflate=d,
                              out=str(out)) == 1
        files[d] = out.read_bytes()
    assert files["portable"] != files["zlib"]

    def pixels(png):  # the IDATs' data, inflated: filtered rows, both Up
        at, data = 8, b""
        while at < len(png):
            n = int.from_bytes(png[at:at + 4], "big")
            if png[at + 4:at + 8] == b"IDAT":
                data += png[at + 8:at + 8 + n]
            at += 12 + n
        return zlib.decompress(data)
    assert pixels(files["portable"]) == pixels(files["zlib"])
    with pytest.raises(qr.Error, match="no levels"):
        qr.render_file("rgb", 16, device="cpu", deflate="portable", png_level=5,
                       out=str(tmp_path / "x.png"))


def test_chunks_equal_the_whole_scene(tmp_path):
    """chunk=: a .npy read chunk by chunk, and circles given as an array cut
    into chunks, give the whole scene's files (both modes) on the CPU; the
    chunk is checked as the command checks --chunk, and chunks go on one
    device."""
    circles = np.asarray(qr.scene("rand10k", seed=3), dtype=np.float32)
    path = tmp_path / "c.npy"
    np.save(path, circles)
    for mode in ("fast", "exact"):
        whole, parts, arr = (tmp_path / f"{n}_{mode}.ppm" for n in ("whole", "parts", "arr"))
        qr.render_file(str(path), 96, 64, out=str(whole), mode=mode, device="cpu")
        qr.render_file(str(path), 96, 64, out=str(parts), mode=mode, chunk=777, device="cpu")
        qr.render_file(circles, 96, 64, out=str(arr), mode=mode, chunk=1000, device="cpu")
        assert parts.read_bytes() == whole.read_bytes(), mode
        assert arr.read_bytes() == whole.read_bytes(), mode
    for bad in (0, -1, "x", 200000001):
        with pytest.raises(qr.Error, match="chunk: expected a number of circles"):
            qr.render_file(str(path), 16, out=str(tmp_path / "x.png"), chunk=bad)
    with pytest.raises(qr.Error, match="on one device"):
        qr.render_file(str(path), 16, out=str(tmp_path / "x.png"), chunk=10, gpus=[0, 1])
    assert not (tmp_path / "x.png").exists()


@gpu
def test_chunks_on_the_gpu_equal_its_whole_scene(tmp_path):
    """chunk= on the GPU: circles given as an array cut into chunks give the
    GPU's whole-scene files in both modes; a .npy read chunk by chunk gives
    them in exact mode, and in fast mode exact mode's pixels (a file's fast
    chunks take the exact walk)."""
    circles = np.asarray(qr.scene("rand10k", seed=3), dtype=np.float32)
    path = tmp_path / "c.npy"
    np.save(path, circles)
    exact_whole = tmp_path / "exact_whole.ppm"
    qr.render_file(str(path), 96, 64, out=str(exact_whole), mode="exact", device="gpu")
    for mode in ("fast", "exact"):
        whole, parts, arr = (tmp_path / f"{n}_{mode}.ppm" for n in ("whole", "parts", "arr"))
        qr.render_file(str(path), 96, 64, out=str(whole), mode=mode, device="gpu")
        qr.render_file(str(path), 96, 64, out=str(parts), mode=mode, chunk=777, device="gpu")
        qr.render_file(circles, 96, 64, out=str(arr), mode=mode, chunk=1000, device="gpu")
        assert arr.read_bytes() == whole.read_bytes(), mode
        assert parts.read_bytes() == exact_whole.read_bytes(), mode


def test_a_npy_too_large_to_hold_is_chunked_unasked(tmp_path):
    """A .npy that the memory budget cannot hold whole is drawn in chunks by
    render_file as by the command (the library's qr_job_auto_chunk): one
    chunk of all its circles does not fit the budget, unasked chunks do,
    and the file is the one without the budget."""
    import os

    path = tmp_path / "u.npy"
    np.save(path, np.asarray(qr.scene("uniform:1M"), dtype=np.float32))
    whole, budget = tmp_path / "whole.ppm", tmp_path / "budget.ppm"
    qr.render_file(str(path), 128, out=str(whole), mode="exact", device="cpu")
    def budget_over_resident():
        # 40 MB over what the process holds now (a failed render's freed
        # buffers may stay with it, one arena a thread)
        with open("/proc/self/statm") as f:
            resident = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        qr.set_memory_budget(resident + 40_000_000)

    try:
        budget_over_resident()
        with pytest.raises(qr.OutOfMemory):
            qr.render_file(str(path), 128, out=str(budget), mode="exact", chunk=1_000_000,
                           device="cpu")
        budget_over_resident()
        qr.render_file(str(path), 128, out=str(budget), mode="exact", device="cpu")
    finally:
        qr.set_memory_budget(None)
    assert budget.read_bytes() == whole.read_bytes()
