"""Render jobs (include/quadrender/job.h) from Python: a frame range of a
scene to files or to a function, on the CPU, one GPU or several.

    import quadrender as qr
    qr.render_frames("snow", 512, frames=range(100), out="out/snow_%04d.png")
    qr.render_frames("snow", 512, frames=range(10), out=lambda k, img: ...)
    qr.render_file("rand10k", 4096, out="big.png", gpus=[0, 1])

The files are those `quadrender render` writes (the same bytes, the same
PNG text); a function receives each frame as a float32 height x width x 3
image (x 4 with background="none"), top row first, as `render` returns
it. Frames are the scene after frame + 1 animation steps.
"""
from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Sequence
from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char_p, c_int, c_int32, c_int64,
                    c_size_t, c_uint32, c_void_p)
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _lib

QR_JOB_MAX_GPUS = 64
QR_ERR_CANCELLED = 8
_FORMATS = {None: 0, "png": 1, "ppm": 2, "pfm": 3}  # qr_image_format
QR_JOB_FRAME = 1

_FrameFn = CFUNCTYPE(c_int, c_void_p, c_int64, POINTER(_lib.Image))


class JobProgress(Structure):
    """The leading fields of qr_job_progress (the only ones read here; the
    library passes a pointer to the whole)."""
    _fields_ = [("event", c_int), ("done", c_int64), ("total", c_int64)]


_ProgressFn = CFUNCTYPE(c_int, c_void_p, POINTER(JobProgress))
_SeekFn = CFUNCTYPE(None, c_void_p, c_int64, c_int64)


class JobParams(Structure):
    _fields_ = [("scene_name", c_char_p), ("seed", c_uint32), ("scene", POINTER(_lib.Scene)),
                ("width", c_int32), ("height", c_int32), ("first", c_int64), ("last", c_int64),
                ("keep_aspect", c_bool), ("mode", c_int), ("index", _lib.IndexParams),
                ("device", c_int), ("gpus", c_int * QR_JOB_MAX_GPUS), ("ngpus", c_int),
                ("gpu_memory", c_size_t), ("output", c_char_p), ("format", c_int),
                ("png_level", c_int), ("png_deflate", c_int), ("software", c_char_p), ("stage_timing", c_bool),
                ("on_frame", _FrameFn), ("on_progress", _ProgressFn), ("on_seek", _SeekFn),
                ("user", c_void_p), ("plan_trials", c_int32), ("stream", c_void_p),
                ("chunk_circles", c_int32)]


class JobResult(Structure):
    _fields_ = [("frames", c_int64), ("stage", c_int), ("elsewhere", c_bool),
                ("ms", ctypes.c_double), ("gpu_ms", ctypes.c_double), ("planned", c_bool),
                ("plan_chosen", _lib.IndexParams), ("plan_ms", ctypes.c_double),
                ("plan_frame_ms", ctypes.c_double)]


qr_job_params_init = _lib._fn("qr_job_params_init", None, POINTER(JobParams))
qr_job_run = _lib._fn("qr_job_run", _lib._S, POINTER(JobParams), POINTER(JobResult),
                      POINTER(_lib.Error))


def _frame_range(frames):
    """(first, last) of a range of consecutive frames, or of one frame,
    checked as the command checks --frames A:B (range(a, b) is "a:b-1")
    and --frame K (an int); anything else is refused as its repr."""
    from . import _check, _checked, _text

    if isinstance(frames, (int, np.integer)) and not isinstance(frames, bool):
        k = _checked(_lib.qr_scene_check_frame, "frames", frames, c_int64)
        return k, k
    if isinstance(frames, range) and frames.step == 1:
        text = f"{frames.start}:{frames.stop - 1}".encode()
    else:
        text = _text(frames)
    first, last, err = c_int64(), c_int64(), _lib.Error()
    _check(_lib.qr_job_check_frames(b"frames", text, ctypes.byref(first), ctypes.byref(last),
                                    ctypes.byref(err)), err)
    return first.value, last.value


def run_job(scene, width, height=None, *, frames=0, out=None, seed=0, mode="fast",
            device="auto", gpus=None, format=None, png_level=1, deflate="auto",
            progress=None, scene_ptr=None, transparent=False, chunk=None):
    """The job behind render_frames and render_file; returns the frames done.
    transparent: scene_ptr has no background (a function is given RGBA
    images, _straight's). chunk: circles a chunk (a .npy named is then read
    chunk by chunk)."""
    from . import (_check, _check_fits, _check_size, _checked, _copy_bytes,  # the package's
                   _device, _params, _word)  # helpers

    height = width if height is None else height
    # a whole image in memory for a function, and its copy for each frame;
    # files are streamed, up to 131072
    width, height = _check_size(width, height, "render_frames" if callable(out) else None)
    if callable(out):
        _check_fits(width, height, _copy_bytes(transparent))
    seed = _checked(_lib.qr_scene_check_seed, "seed", seed, c_uint32)
    if mode not in ("fast", "exact"):
        raise ValueError(f"mode must be 'fast' or 'exact', not {mode!r}")
    device = _device(device)
    png_level = _checked(_lib.qr_image_check_png_level, "png_level", png_level, c_int)
    deflate = _checked(_lib.qr_image_check_png_deflate, "deflate", deflate, c_int, _word)
    first, last = _frame_range(frames)
    if format not in _FORMATS:
        raise ValueError(f"format must be 'png', 'ppm', 'pfm' or None, not {format!r}")
    chunk = 0 if chunk is None else _checked(_lib.qr_job_check_chunk, "chunk", chunk, c_int32)
    gpus = list(gpus or [])
    if len(gpus) > QR_JOB_MAX_GPUS:
        raise ValueError(f"at most {QR_JOB_MAX_GPUS} GPUs")
    p = JobParams()
    qr_job_params_init(ctypes.byref(p))
    if scene_ptr is not None:
        p.scene = scene_ptr
    else:
        p.scene_name = os.fsencode(scene)
    p.seed = seed
    p.width, p.height = width, height
    p.first, p.last = first, last
    p.mode = 1 if mode == "exact" else 0
    p.index = _params()
    p.device = device
    p.ngpus = len(gpus)
    for i, g in enumerate(gpus):
        p.gpus[i] = g
    p.format = _FORMATS[format]
    p.png_level = png_level
    p.png_deflate = deflate
    p.chunk_circles = chunk
    stream = ctypes.c_void_p()
    if chunk and scene_ptr is None and os.fsdecode(scene).lower().endswith(".npy"):
        err = _lib.Error()
        _check(_lib.qr_scene_stream_open(os.fsencode(scene), ctypes.byref(stream),
                                         ctypes.byref(err)), err)
        p.stream = stream
    try:
        return _run(p, out, progress, transparent)
    finally:
        _lib.qr_scene_stream_close(stream)


def _run(p, out, progress, transparent):
    """qr_job_run of p, with out's and progress's callbacks."""
    from . import Error, _check, _returned

    raised = []

    def on_frame(_user, k, img):
        try:
            h, w = img.contents.height, img.contents.width
            rgba = np.ctypeslib.as_array(img.contents.rgba, shape=(h, w, 4))
            return 1 if out(k, _returned(rgba, transparent)) is False else 0
        except BaseException as e:  # noqa: BLE001 - raised again below
            raised.append(e)
            return 1

    def on_progress(_user, pr):
        try:
            if pr.contents.event == QR_JOB_FRAME or pr.contents.event == 2:
                return 1 if progress(pr.contents.done, pr.contents.total) is False else 0
            return 0
        except BaseException as e:  # noqa: BLE001
            raised.append(e)
            return 1

    frame_fn = _FrameFn(on_frame) if callable(out) else _FrameFn()
    progress_fn = _ProgressFn(on_progress) if progress else _ProgressFn()
    if callable(out):
        p.on_frame = frame_fn
    elif out is not None:
        p.output = os.fsencode(out)
    p.on_progress = progress_fn
    err, res = _lib.Error(), JobResult()
    status = qr_job_run(ctypes.byref(p), ctypes.byref(res), ctypes.byref(err))
    if raised:
        raise raised[0]
    if status == QR_ERR_CANCELLED:
        raise Error(status, "cancelled")
    _check(status, err)
    return res.frames


def render_frames(scene: str | os.PathLike[str] | npt.ArrayLike, width: int,
                  height: int | None = None, *, frames: range | int = range(1),
                  out: str | os.PathLike[str] | Callable[[int, np.ndarray], Any], seed: int = 0,
                  mode: str = "fast", device: str = "auto", gpus: Sequence[int] | None = None,
                  format: str | None = None, png_level: int = 1, deflate: str = "auto",
                  progress: Callable[..., Any] | None = None,
                  alpha: npt.ArrayLike | float | str | None = None,
                  background: str | Sequence[float] | None = None,
                  antialias: bool = False, chunk: int | None = None) -> int:
    """Renders frames of a scene; returns how many were done.

    scene: a built-in name (see `quadrender scenes`) or a .circles or .par
    file, or circles (float32 N x 7, a static scene). frames: a range of
    consecutive frames, or one frame number. out: a file name holding
    "%d" or "%0Nd" for the frame number ("%%" for a '%'), written as
    `quadrender render` writes it (format: by the extension, or "png",
    "ppm", "pfm"), or a function(frame, image) receiving each frame's
    float32 height x width x 3 image, top row first (over several GPUs,
    frames may come out of order). device: "auto", "gpu", "cpu" or
    "cpu-reference" ("reference" too); gpus: CUDA devices to split the
    work over ([0, 1]). png_level: 0 to 9, PNG output only. deflate: PNG's
    compressor, as `quadrender render --deflate`: "zlib" (on the host, at
    png_level), "portable" (quadrender's own, on the GPU when it renders;
    the same bytes on the host; no levels) or "auto" (portable for a PNG of
    4096 x 4096 or more that the GPU renders, else zlib).
    progress: function(done, total) after each frame. A function answering
    False cancels the job (quadrender.Error, status 8); files of frames
    finished stay, no partial file is left. alpha, background, antialias:
    the picture's options as render()'s (circles given as arrays only);
    with background="none" files are RGBA PNGs (PPM and PFM, which have no
    alpha channel, are refused) and a function receives render()'s
    straight RGBA images. chunk: draw the scene in depth-ordered chunks of
    this many circles, as `quadrender render --chunk`: the same image, a
    .npy file read chunk by chunk and never held whole; on the CPU (device
    "auto" picks it; "gpu" and gpus are refused).
    """
    args = dict(frames=frames, out=out, seed=seed, mode=mode, device=device, gpus=gpus,
                format=format, png_level=png_level, deflate=deflate, progress=progress,
                chunk=chunk)
    if isinstance(scene, (str, bytes, os.PathLike)):
        if alpha is not None or background is not None or antialias:
            raise ValueError("alpha, background and antialias take circles given as an "
                             "array; for a named scene, load it with quadrender.scene(name) "
                             "first")
        return run_job(os.fsdecode(scene), width, height, **args)
    from . import _as_circles, _picture, _Scene

    picture = _picture(scene, alpha, background, antialias)
    with _Scene(_as_circles(scene), picture) as ptr:
        # the name the job's messages and the PNG's "Scene" text give it, as
        # the command names a .npy file's scene by the file's
        ptr.contents.name = b"circles"
        return run_job(None, width, height, scene_ptr=ptr, transparent=picture.transparent,
                       **args)


def render_file(scene: str | os.PathLike[str] | npt.ArrayLike, width: int,
                height: int | None = None, *, out: str | os.PathLike[str], frame: int = 0,
                gpus: Sequence[int] | None = None, **kwargs: Any) -> int:
    """Renders one frame of a scene (as render_frames) into the file out;
    with gpus=[0, 1, ...] its stripes of rows are split over those GPUs.
    Sides up to 131072 pixels: the image is streamed into the file."""
    from . import _checked

    frame = _checked(_lib.qr_scene_check_frame, "frame", frame, c_int64)
    return render_frames(scene, width, height, frames=frame, out=out, gpus=gpus, **kwargs)
