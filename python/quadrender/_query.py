"""Questions asked of circles (include/quadrender/query.h, gpu_query.h):
which cover a point, which is on top there, how many; which touch a box.

    import quadrender as qr
    with qr.Index(qr.scene("rand10k")) as ix:         # on the GPU when usable
        top = ix.query_points([[0.5, 0.5], [0.1, 0.9]])           # int32: index or -1
        offsets, ids = ix.query_boxes([[0.2, 0.2, 0.3, 0.3]])     # mode="all": CSR

A point is covered by circle i when the renderer's own test says so (dx =
x - cx, dy = y - cy, dx*dx + dy*dy <= r*r in float32, no fused
multiply-add) and it lies in the scene's square [0,1]^2; a box is clipped to
the square and touches a circle covering the box's point nearest the
circle's centre. Answers list circles in drawing order (ascending index),
the top one the highest. The answers do not depend on the resolution, the
device or the thread count.
"""
from __future__ import annotations

import contextlib
import ctypes
import threading
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from . import (QR_JOB_AUTO, QR_JOB_CPU_REFERENCE, QR_JOB_GPU, CirclesLike, Error, _as_circles,
               _check, _checked, _device, _device_rows, _dlpack, _gpu_device, _invalid, _lib,
               _numbers, _on_gpu, _QR_ERR_NO_GPU, _Scene, _word, gpu_available)

__all__ = ["Index", "Leaves"]

_MODES = {_lib.QR_QUERY_TOP: "top", _lib.QR_QUERY_COUNT: "count", _lib.QR_QUERY_ALL: "all"}
_COLUMNS = {2: "x y", 4: "x0 y0 x1 y1"}
_CUDA_MEMCPY_DEVICE_TO_HOST, _CUDA_MEMCPY_DEVICE_TO_DEVICE = 2, 3


class Leaves(NamedTuple):
    """An index's leaves (Index.leaves()): `rects`, a structured array of
    one row a leaf, in the tree's depth-first order, with fields x0, y0,
    x1, y1 (float64: the leaf's rectangle [x0, x1) x [y0, y1) in scene
    coordinates, y up; cells / resolution), depth (int32, root 0) and count
    (int32: circles in its list); and the lists as CSR: leaf k's circles
    are ids[offsets[k]:offsets[k + 1]] (offsets int64, one more than the
    leaves; ids int32, ascending circle index in each list). A list holds
    every circle that can touch its leaf (radii are widened by a cell
    before the build): a superset of the circles an answer there gives."""
    rects: np.ndarray
    offsets: np.ndarray
    ids: np.ndarray


_RECT_DTYPE = np.dtype([("x0", "<f8"), ("y0", "<f8"), ("x1", "<f8"), ("y1", "<f8"),
                        ("depth", "<i4"), ("count", "<i4")])


def _leaf_dtype():
    """qr_leaf as a NumPy dtype, its fields where ctypes (checked against C
    by test_struct_layout) places them."""
    rect = _lib.Leaf.rect.offset
    names = ["x0", "y0", "x1", "y1", "depth", "count", "offset"]
    offsets = [rect + getattr(_lib.Rect, f).offset for f in names[:4]]
    offsets += [getattr(_lib.Leaf, f).offset for f in names[4:]]
    return np.dtype({"names": names, "formats": ["<i4"] * 6 + ["<i8"], "offsets": offsets,
                     "itemsize": ctypes.sizeof(_lib.Leaf)})


_LEAF_DTYPE = _leaf_dtype()


class _Answers:
    """Owns a host qr_query_result: frees it when the last array viewing
    its memory is gone (the arrays are views, not copies)."""

    def __init__(self, res):
        self.res = res

    def __del__(self):
        _lib.qr_query_result_free(ctypes.byref(self.res))


def _address(ptr) -> int:
    return ctypes.cast(ptr, ctypes.c_void_p).value or 0


def _view(ptr, count: int, ctype, dtype, owner) -> np.ndarray:
    """count values of ctype at ptr as a NumPy array whose memory `owner`
    holds (a copy-free view: the array keeps owner alive)."""
    if count == 0:
        return np.zeros(0, dtype)
    if not ptr:
        raise Error(7, f"the library returned no memory for {count} answers")
    buf = (ctype * count).from_address(_address(ptr))
    buf._owner = owner
    return np.frombuffer(buf, dtype)


def _host_answers(res, mode):
    """The arrays of a host qr_query_result (freed with the last of them)."""
    owner = _Answers(res)
    n = res.queries
    if mode != _lib.QR_QUERY_ALL:
        return _view(res.values, n, ctypes.c_int32, np.int32, owner)
    if n == 0 and not res.offsets:  # no queries: one offset, 0
        return np.zeros(1, np.int64), np.zeros(0, np.int32)
    offsets = _view(res.offsets, n + 1, ctypes.c_int64, np.int64, owner)
    return offsets, _view(res.ids, int(offsets[-1]), ctypes.c_int32, np.int32, owner)


def _cupy():
    try:
        import cupy
    except ImportError:
        raise ImportError("queries on the GPU give their answers as CuPy arrays: "
                          "pip install cupy-cuda12x (or the package for your CUDA)") from None
    return cupy


def _host_queries(a, width: int, what: str) -> np.ndarray:
    """Host queries as the library reads them: an N x width float32 array
    in C order (a copy only where a is not one already)."""
    a = _dlpack.host_view(a, what)
    if a is None or isinstance(a, (str, bytes)):
        raise TypeError(f"{what} must be an array of numbers, not {type(a).__name__}")
    a = _numbers(a, what)
    if a.ndim == 1 and a.size == 0:  # [] : no queries
        a = a.reshape(0, width)
    if a.ndim != 2 or a.shape[1] != width:
        raise _invalid(f"{what} must have shape (N, {width}): {_COLUMNS[width]}; got {a.shape}")
    with np.errstate(over="ignore", invalid="ignore"):  # past float32: inf, outside the square
        return np.ascontiguousarray(a, dtype=np.float32)


@contextlib.contextmanager
def _host_scene(circles):
    """A library scene (host memory) of circles, as render takes them: host
    arrays and tables filled and checked as render fills them (_Scene);
    CUDA arrays made a GPU scene (qr_gpu_scene_create_device) and brought
    to the host (qr_gpu_scene_download), unchecked, as render leaves them."""
    dev = _device_rows(circles)
    if dev is None:
        with _Scene(_as_circles(circles)) as sc:
            yield sc
        return
    ptr, n, keep = dev
    err = _lib.Error()
    gs, sc = ctypes.c_void_p(), ctypes.POINTER(_lib.Scene)()
    try:
        _check(_lib.qr_gpu_scene_create_device(ptr, n, ctypes.byref(gs), ctypes.byref(err)), err)
        _check(_lib.qr_scene_create(n, 0, ctypes.byref(sc), ctypes.byref(err)), err)
        _check(_lib.qr_gpu_scene_download(gs, sc, ctypes.byref(err)), err)
    except BaseException:
        _lib.qr_scene_destroy(sc)
        raise
    finally:
        _lib.qr_gpu_scene_destroy(gs)
        del keep
    try:
        yield sc
    finally:
        _lib.qr_scene_destroy(sc)


def _tree_leaves(tree, resolution: int) -> Leaves:
    """Leaves of a query index's tree (qr_query_index_tree), copied."""
    t = tree.contents
    nl = t.num_leaves
    if nl:
        raw = np.frombuffer((_lib.Leaf * nl).from_address(_address(t.leaves)), _LEAF_DTYPE)
    else:
        raw = np.zeros(0, _LEAF_DTYPE)
    rects = np.empty(nl, _RECT_DTYPE)
    for f in ("x0", "y0", "x1", "y1"):
        rects[f] = raw[f] / float(resolution)  # exact: a power of two
    rects["depth"] = raw["depth"]
    rects["count"] = raw["count"]
    offsets = np.zeros(nl + 1, np.int64)
    np.cumsum(raw["count"], out=offsets[1:])
    pairs = int(t.num_pairs)
    if pairs:
        lists = np.frombuffer((ctypes.c_int32 * pairs).from_address(_address(t.lists)), np.int32)
    else:
        lists = np.zeros(0, np.int32)
    if np.array_equal(raw["offset"], offsets[:-1]):  # stored leaf after leaf, as index.h says
        ids = lists[: offsets[-1]].copy()
    else:
        ids = lists[np.repeat(raw["offset"] - offsets[:-1], raw["count"])
                    + np.arange(offsets[-1])]
    return Leaves(rects, offsets, ids)


class Index:
    """A query index of circles: which cover a point, which is on top
    there, how many; which touch a box (include/quadrender/query.h).

        with quadrender.Index(circles) as ix:
            top = ix.query_points(points)                    # int32, -1: none
            offsets, ids = ix.query_boxes(boxes)             # mode="all"

    scene: circles as render takes them (an N x 7 array-like, a table, a
    CUDA array); the index keeps its own copy. resolution: the index's
    cells a side (a power of two from 16 to 32768; 0: chosen from the
    scene, qr_query_resolution). device: "auto" (the GPU when usable, else
    the CPU), "gpu" (qr_gpu_query_create), "cpu" (qr_query_index_build, on
    `threads` threads, 0 for all) or "cpu-reference" ("reference" too: no
    index, every circle tested against every query, the library's oracle).
    Answers are the same on every device, at every resolution.
    close() (or a with block) frees the library's index.
    """

    def __init__(self, scene: CirclesLike, resolution: int = 0, device: str = "auto",
                 threads: int = 0) -> None:
        self._q = ctypes.c_void_p()      # qr_query_index or qr_gpu_query
        self._scene = ctypes.POINTER(_lib.Scene)()  # cpu-reference: the circles
        self._tree = ctypes.c_void_p()   # gpu, cpu-reference: the host index leaves() builds
        self._xyr = None                 # gpu: x, y, r for that build
        self._lock = threading.Lock()    # one call at a time (a GPU query reuses its buffers)
        self._gpu_name = None
        resolution = _checked(_lib.qr_query_check_resolution, "resolution", resolution,
                              ctypes.c_int32)
        dev = _device(device)
        threads = _checked(_lib.qr_threads_check, "threads", threads, ctypes.c_int)
        if dev == QR_JOB_GPU or (dev == QR_JOB_AUTO and (_on_gpu(scene) or gpu_available()[0])):
            kind = "gpu"
            ok, why = gpu_available()
            if not ok:
                raise Error(_QR_ERR_NO_GPU, why)
            self._gpu_name = why
        elif dev == QR_JOB_CPU_REFERENCE:
            kind = "cpu-reference"
        else:
            kind = "cpu"
        self._kind, self._threads = kind, threads
        err = _lib.Error()
        with _host_scene(scene) as sc:
            self._n = int(sc.contents.n)
            if kind == "cpu":
                _check(_lib.qr_query_index_build(sc, resolution, None, threads,
                                                 ctypes.byref(self._q), ctypes.byref(err)), err)
                self._resolution = int(_lib.qr_query_index_resolution(self._q))
            elif kind == "gpu":
                _check(_lib.qr_gpu_query_create(sc, resolution, None, ctypes.byref(self._q),
                                                ctypes.byref(err)), err)
                self._resolution = int(_lib.qr_gpu_query_resolution(self._q))
                if self._n:  # x, y, r: what leaves() builds the host tree from
                    block = np.ctypeslib.as_array(sc.contents.block, shape=(7, self._n))
                    self._xyr = block[[0, 1, 3]].copy()
            else:
                _check(_lib.qr_scene_clone(sc, ctypes.byref(self._scene), ctypes.byref(err)),
                       err)
                self._resolution = int(resolution or _lib.qr_query_resolution(sc))

    # ---- the object -------------------------------------------------------
    @property
    def resolution(self) -> int:
        """The index's cells a side (the one chosen when 0 was asked)."""
        return self._resolution

    @property
    def device(self) -> str:
        """Where it answers: "gpu", "cpu" or "cpu-reference"."""
        return self._kind

    @property
    def closed(self) -> bool:
        return not (self._q or self._scene)

    def __len__(self) -> int:
        """The circles indexed."""
        return self._n

    def __repr__(self) -> str:
        if self._kind == "gpu":
            where = f"on the GPU ({self._gpu_name})"
        elif self._kind == "cpu":
            where = f"on the CPU ({self._threads or 'all'} threads)"
        else:
            where = "on the CPU, by brute force (cpu-reference)"
        state = ", closed" if self.closed else ""
        return (f"<quadrender.Index of {self._n} circles, resolution {self._resolution}, "
                f"{where}{state}>")

    def close(self) -> None:
        """Frees the library's index (GPU memory for a GPU index); queries
        after it raise ValueError."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before anything was made
            return
        with lock:
            if self._q:
                if self._kind == "gpu":
                    _lib.qr_gpu_query_destroy(self._q)
                else:
                    _lib.qr_query_index_destroy(self._q)
                self._q = ctypes.c_void_p()
            if self._tree:
                _lib.qr_query_index_destroy(self._tree)
                self._tree = ctypes.c_void_p()
            if self._scene:
                _lib.qr_scene_destroy(self._scene)
                self._scene = ctypes.POINTER(_lib.Scene)()
            self._xyr = None

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def _open(self) -> None:
        if self.closed:
            raise ValueError("the Index is closed")

    # ---- queries ----------------------------------------------------------
    def query_points(self, points: npt.ArrayLike, mode: str = "top"
                     ) -> np.ndarray | tuple[np.ndarray, np.ndarray] | Any:
        """Answers for N points: points an (N, 2) array-like of x y (scene
        coordinates; made float32 in C order, as the library reads them).
        mode "top": int32 (N,), the front-most (highest) circle covering
        each point, -1 where none; "count": int32 (N,), how many cover it;
        "all": (offsets, ids), CSR: point q's circles are
        ids[offsets[q]:offsets[q + 1]] in ascending order (offsets int64
        (N + 1,), ids int32). Points outside [0,1]^2, or with a NaN, match
        nothing. NumPy arrays come back for host input; for a CUDA array
        (CuPy, PyTorch, DLPack; a GPU Index only) the points are read on
        the GPU and the answers are new CuPy arrays."""
        return self._query(points, mode, 2, "points")

    def query_boxes(self, boxes: npt.ArrayLike, mode: str = "all"
                    ) -> np.ndarray | tuple[np.ndarray, np.ndarray] | Any:
        """Answers for M boxes: boxes an (M, 4) array-like of x0 y0 x1 y1
        (x0 <= x1, y0 <= y1; a NaN or min > max raises InvalidArgument,
        "box <q>: ..."). A box is clipped to [0,1]^2 and touches circle i
        when i covers the clipped box's point nearest its centre; a box
        wholly outside the square touches nothing. Modes and results as
        query_points (default "all")."""
        return self._query(boxes, mode, 4, "boxes")

    def _query(self, a, mode, width, what):
        m = _checked(_lib.qr_query_check_mode, "mode", mode, ctypes.c_int, _word)
        if _on_gpu(a):
            if self._kind != "gpu":
                raise _invalid(f"{what}: a CUDA array, and this Index answers on the CPU "
                               f"(device={self._kind!r}): pass a host (NumPy) array, or build "
                               "the Index with device='gpu'")
            return self._query_device(a, m, width, what)
        a = _host_queries(a, width, what)
        n = a.shape[0]
        ptr = a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        res, err = _lib.QueryResult(), _lib.Error()
        points = width == 2
        with self._lock:
            self._open()
            if self._kind == "cpu":
                fn = _lib.qr_query_points if points else _lib.qr_query_boxes
                status = fn(self._q, ptr, n, m, self._threads, ctypes.byref(res),
                            ctypes.byref(err))
            elif self._kind == "gpu":
                fn = _lib.qr_gpu_query_points_host if points else _lib.qr_gpu_query_boxes_host
                status = fn(self._q, ptr, n, m, ctypes.byref(res), ctypes.byref(err))
            else:
                status = 0 if points else _lib.qr_query_check_boxes(ptr, n, ctypes.byref(err))
                if status == 0:
                    fn = _lib.qr_query_points_brute if points else _lib.qr_query_boxes_brute
                    status = fn(self._scene, ptr, n, m, ctypes.byref(res), ctypes.byref(err))
        if status != 0:
            _lib.qr_query_result_free(ctypes.byref(res))  # whatever a failure left
            _check(status, err)
        return _host_answers(res, m)

    def _query_device(self, a, m, width, what):
        """Queries in device memory on the GPU index: read where they are
        (made float32 in C order on the GPU where they are not), the answers
        copied from the index's buffers into new CuPy arrays."""
        cupy = _cupy()
        device = _gpu_device()
        with cupy.cuda.Device(device):
            p = cupy.asarray(a) if hasattr(a, "__cuda_array_interface__") else cupy.from_dlpack(a)
            if p.device.id != device:
                raise _invalid(f"{what} are on CUDA device {p.device.id}; quadrender queries "
                               f"on device {device}")
            if p.dtype.kind not in "iuf":
                raise TypeError(f"{what} must be numbers (integers or floats), not {p.dtype}")
            if p.ndim == 1 and p.size == 0:
                p = p.reshape(0, width)
            if p.ndim != 2 or p.shape[1] != width:
                raise _invalid(f"{what} must have shape (N, {width}): {_COLUMNS[width]}; "
                               f"got {tuple(p.shape)}")
            p = cupy.ascontiguousarray(p, dtype=cupy.float32)
            # what the caller's stream (and the conversion) wrote, done before the library reads
            cupy.cuda.get_current_stream().synchronize()
            n = p.shape[0]
            res, err = _lib.QueryResult(), _lib.Error()
            fn = _lib.qr_gpu_query_points if width == 2 else _lib.qr_gpu_query_boxes
            with self._lock:
                self._open()
                _check(fn(self._q, p.data.ptr if n else None, n, m, ctypes.byref(res),
                          ctypes.byref(err)), err)
                # the library's work done, on whichever stream it queued it: the answers
                # complete, and p (maybe a temporary of CuPy's pool) read
                cupy.cuda.runtime.deviceSynchronize()
                # the answers live in the index's buffers until its next query: copied out
                # (cudaMemcpy on the legacy stream, after the library's work, as render's
                # image is)
                if m != _lib.QR_QUERY_ALL:
                    return _device_copy(cupy, res.values, n, cupy.int32)
                if n == 0 and not res.offsets:
                    return cupy.zeros(1, cupy.int64), cupy.zeros(0, cupy.int32)
                offsets = _device_copy(cupy, res.offsets, n + 1, cupy.int64)
                total = ctypes.c_int64(0)
                if res.offsets:
                    cupy.cuda.runtime.memcpy(ctypes.addressof(total),
                                             _address(res.offsets) + 8 * n, 8,
                                             _CUDA_MEMCPY_DEVICE_TO_HOST)
                return offsets, _device_copy(cupy, res.ids, total.value, cupy.int32)

    # ---- the tree ---------------------------------------------------------
    def leaves(self) -> Leaves:
        """The index's leaves (rectangles in scene coordinates, depth,
        count) and their lists (CSR), copied: see Leaves. A CPU index gives
        its own tree (qr_query_index_tree). The library has no call that
        reads a GPU index's tree back, so for a GPU (or cpu-reference)
        Index the first call builds a host query index of the same circles
        at the same resolution (on `threads` threads; kept until close()):
        the tree the GPU builder makes, which gives the host builder's
        index (gpu_query.h)."""
        with self._lock:
            self._open()
            if self._kind == "cpu":
                return _tree_leaves(_lib.qr_query_index_tree(self._q), self._resolution)
            if not self._tree:
                self._build_host_tree()
            return _tree_leaves(_lib.qr_query_index_tree(self._tree), self._resolution)

    def _build_host_tree(self):
        err = _lib.Error()
        if self._kind == "cpu-reference":
            _check(_lib.qr_query_index_build(self._scene, self._resolution, None, self._threads,
                                             ctypes.byref(self._tree), ctypes.byref(err)), err)
            return
        sc = ctypes.POINTER(_lib.Scene)()
        _check(_lib.qr_scene_create(self._n, 0, ctypes.byref(sc), ctypes.byref(err)), err)
        try:
            if self._n:
                block = np.ctypeslib.as_array(sc.contents.block, shape=(7, self._n))
                block[[0, 1, 3]] = self._xyr
            _check(_lib.qr_query_index_build(sc, self._resolution, None, self._threads,
                                             ctypes.byref(self._tree), ctypes.byref(err)), err)
        finally:
            _lib.qr_scene_destroy(sc)


def _device_copy(cupy, ptr, count, dtype):
    """count values at device pointer ptr (the GPU index's buffers) in a
    new CuPy array."""
    out = cupy.empty(count, dtype)
    if count:
        if not ptr:
            raise Error(7, f"the library returned no device memory for {count} answers")
        cupy.cuda.runtime.memcpy(out.data.ptr, _address(ptr), count * out.itemsize,
                                 _CUDA_MEMCPY_DEVICE_TO_DEVICE)
    return out
