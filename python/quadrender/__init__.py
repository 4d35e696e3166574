"""quadrender: semi-transparent circles, drawn back to front, on the GPU or
every CPU core, from NumPy arrays.

    import numpy as np, quadrender as qr
    circles = qr.scene("rand10k")                 # float32, N x 7: x y z r R G B
    image = qr.render(circles, 1024, 1024)        # float32, H x W x 3, top row first
    qr.save(image, "rand10k.png")                 # or image.save(...); shown in Jupyter
    with qr.Index(circles) as ix:                 # which circles cover a point, touch a box
        top = ix.query_points([[0.5, 0.5]])       # int32: the top circle's index, or -1

Circles are rows of x y z r R G B, the columns of a `.circles` file:
centre in the unit square (y up), depth, radius (unit square), colour; any
array of numbers of shape (N, 7) (float32 in C order, as `scene` returns,
or float64, integers, lists, slices, Fortran order), or a table by column
name (a pandas DataFrame, a NumPy structured array, a dict of columns: x,
y, r; z, red green blue or R G B optional). They are drawn in row order, the reference renderer's
back-to-front blend over a white background. Images come back with the top
row first, as image files and `matplotlib.pyplot.imshow` expect.

Errors raise `quadrender.Error` with the library's one-line message; the
library runs with the GIL released. Arguments are checked by the library's
own checks, those of the quadrender command's options: a value it refuses
raises `quadrender.InvalidArgument` (an Error and a ValueError) with the
message the command prints for the same value ("seed: expected an integer
from 0 to 4294967295, got '4294967296'"). Memory is checked before it is
spent: an image the process cannot hold (what the machine, its cgroup and
its address-space limit leave) raises `quadrender.OutOfMemory` (an Error
and a MemoryError) naming the bytes, before anything is allocated, as does
the GPU running out of memory.
"""
from __future__ import annotations

import contextlib
import ctypes
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any, Union

import numpy as np
import numpy.typing as npt

from . import _dlpack, _lib
from ._version import __version__

__all__ = ["Error", "InvalidArgument", "OutOfMemory", "Renderer", "render", "scene", "save", "stats", "leaves", "to_uint8",
           "gpu_available", "MAX_CIRCLES", "MAX_SIDE", "render_frames", "render_file"]
__all__ += ["Image", "CirclesLike", "Index", "Leaves", "colormap", "COLORMAPS"]

# What circles may be: an N x 7 array-like of numbers (a CuPy or PyTorch
# array too), a structured array, a DataFrame, a mapping of columns.
CirclesLike = Union[npt.ArrayLike, Mapping[str, npt.ArrayLike]]

MAX_CIRCLES = 200_000_000  # QR_SCENE_MAX_CIRCLES
MAX_SIDE = 32768           # QR_IMAGE_MAX_DIM: a whole image in memory
# the colormaps values= colours by (qr_colormap_names)
COLORMAPS = ("viridis", "magma", "inferno", "plasma", "cividis", "gray")


class Error(RuntimeError):
    """A failure the library reported: `status` is its qr_status code."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


_QR_ERR_INVALID = 1


class InvalidArgument(Error, ValueError):
    """A value the library refuses (status QR_ERR_INVALID): an argument out of
    range or of the wrong kind, with the message the quadrender command
    prints for the same value of its option; also circles of a shape or
    columns no circles have (not (N, 7), a missing column), which only
    Python is given, with a message of its own."""


_QR_ERR_NOMEM, _QR_ERR_GPU_NOMEM = 4, 6


class OutOfMemory(Error, MemoryError):
    """Memory that is not there (status QR_ERR_NOMEM, host memory, or
    QR_ERR_GPU_NOMEM, the GPU's): an image larger than the process can
    hold, refused before it is allocated, with the bytes it needs."""


def _check(status, err):
    if status != 0:
        cls = {_QR_ERR_INVALID: InvalidArgument, _QR_ERR_NOMEM: OutOfMemory,
               _QR_ERR_GPU_NOMEM: OutOfMemory}.get(status, Error)
        raise cls(status, err.msg.decode("utf-8", "replace") or f"quadrender error {status}")


def _text(value):
    """A value as the library's checks read it: an int (not a bool) in
    decimal, anything else as its repr, which no check takes (so that
    width=True is refused as "got 'True'", not taken as 1)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value)).encode()
    return repr(value).encode()


def _word(value):
    """A value named by a word ("grid", "cpu") as the library's checks read
    it: a str as its bytes, anything else (or a str holding a NUL, which C
    would cut short) as its repr, which no check takes."""
    if isinstance(value, str) and "\0" not in value:
        return value.encode("utf-8", "surrogateescape")
    return repr(value).encode()


def _checked(check, name, value, ctype, text=_text):
    """value, checked by the library's check(name, text, out, err) (the
    quadrender command's check of the same option), as ctype's value."""
    out, err = ctype(), _lib.Error()
    _check(check(name.encode(), text(value), ctypes.byref(out), ctypes.byref(err)), err)
    return out.value


def _device(device):
    """A device name checked as the command's --device (qr_job_device's
    value): "auto", "gpu", "cpu" or "cpu-reference"; "reference" is
    "cpu-reference" too, the name Python has always taken."""
    return _checked(_lib.qr_job_check_device, "device",
                    "cpu-reference" if device == "reference" else device, ctypes.c_int, _word)


QR_JOB_AUTO, QR_JOB_GPU, QR_JOB_CPU, QR_JOB_CPU_REFERENCE = 0, 1, 2, 3  # qr_job_device


# how Python spells the index options, for qr_index_check_options' messages
_INDEX_OPTION_NAMES = (ctypes.c_char_p * _lib.QR_IXO_COUNT)(
    b"capacity", b"min_leaf", b"max_depth", b"index='grid'", b"tile", b"max_leaf",
    b"split_cost", b"deep_leaf")
_GRID_TILE = 64  # tile's default with index="grid"
# the index's values: (QR_IXO_*, the argument, the IndexParams field it sets)
_INDEX_VALUES = (
    (_lib.QR_IXO_CAPACITY, "capacity", "capacity"), (_lib.QR_IXO_MIN_LEAF, "min_leaf", "min_leaf"),
    (_lib.QR_IXO_MAX_DEPTH, "max_depth", "max_depth"), (_lib.QR_IXO_TILE, "tile", "min_leaf"),
    (_lib.QR_IXO_MAX_LEAF, "max_leaf", "max_leaf"),
    (_lib.QR_IXO_SPLIT_COST, "split_cost", "split_cost"),
    (_lib.QR_IXO_DEEP_LEAF, "deep_leaf", "deep_leaf"))


def _params(index="quadtree", tile=None, capacity=None, min_leaf=None, max_depth=None,
            max_leaf=None, split_cost=None, deep_leaf=None):
    """The index's params from the index arguments (None: not given), each
    checked as the command checks its option: the kind, each value given
    (qr_index_check_value), then which go together."""
    p = _lib.IndexParams()
    _lib.qr_index_params_default(ctypes.byref(p))
    uniform = _checked(_lib.qr_index_check_kind, "index", index, ctypes.c_int32, _word)
    args = dict(tile=tile, capacity=capacity, min_leaf=min_leaf, max_depth=max_depth,
                max_leaf=max_leaf, split_cost=split_cost, deep_leaf=deep_leaf)
    given = 0
    for option, name, field in _INDEX_VALUES:
        if args[name] is None:
            continue
        given |= 1 << option

        def check(name_, text, out, err, option=option):
            return _lib.qr_index_check_value(option, name_, text, out, err)

        setattr(p, field, _checked(check, name, args[name], ctypes.c_int32))
    err = _lib.Error()
    _check(_lib.qr_index_check_options(uniform, given, _INDEX_OPTION_NAMES, ctypes.byref(err)), err)
    if uniform:
        p.uniform = 1
        if tile is None:
            p.min_leaf = _GRID_TILE
    _check(_lib.qr_index_params_check(ctypes.byref(p), ctypes.byref(err)), err)
    return p


# the columns of a circle, in the library's order (x y z r R G B), and the
# names a table's columns may have for each
_COLUMNS = ("x", "y", "z", "r", "red", "green", "blue")
_COLOUR_NAMES = {"red": ("red", "R"), "green": ("green", "G"), "blue": ("blue", "B")}
# (a table's "value" column colours the circles only with cmap=, _mapped;
# its "alpha" column is their opacity, _picture: neither is one of the 7)


def _invalid(message: str) -> "InvalidArgument":
    return InvalidArgument(_QR_ERR_INVALID, message)


def _numbers(a, what: str) -> np.ndarray:
    """a as a NumPy array of numbers (integers or floats, any byte order
    and strides; object arrays of numbers as float64), without a copy when
    it already is one."""
    try:
        a = np.asarray(a)
    except ValueError as e:  # ragged lists
        raise _invalid(f"{what} must be an array of numbers: {e}") from None
    if a.dtype.kind == "O":
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{what} must be numbers, not {a.dtype} holding "
                            f"{type(a.flat[0]).__name__ if a.size else 'nothing'}") from None
    if a.dtype.kind not in "iuf":
        raise TypeError(f"{what} must be numbers (integers or floats), not {a.dtype}")
    return a


def _table_columns(table, names, used=()) -> list:
    """The 7 columns (1-D arrays of numbers, views where the table allows)
    of a table whose columns have names: x, y, r required; z (0 if absent);
    red, green, blue (or R, G, B), all three or none (black). `used`: the
    columns colour by value reads (not refused as not drawn)."""
    names = [str(n) for n in names]
    have = set(names)

    def column(name):
        col = table[name]
        if hasattr(col, "to_numpy") and not isinstance(col, np.ndarray):
            a = np.asarray(col)
            if a.dtype.kind == "O":  # pandas' nullable columns: a missing value is NaN
                try:
                    a = col.to_numpy(dtype=np.float64, na_value=np.nan)
                except (TypeError, ValueError):
                    pass  # not numbers: _numbers says so
        else:
            a = col
        a = _numbers(a, f"circles column {name!r}")
        if a.ndim != 1:
            raise _invalid(f"circles column {name!r} must be one number a row, "
                           f"not of shape {a.shape}")
        return a

    if "value" in have and "value" not in used:
        raise _invalid("circles: column 'value' colours the circles only with cmap= "
                       "given (colour by value); give cmap, drop it or rename it")
    missing = [n for n in ("x", "y", "r") if n not in have]
    if missing:
        raise _invalid(f"circles: no column {', '.join(map(repr, missing))}: columns x, y, r "
                       f"are required (z, red, green, blue optional); the table has "
                       f"{', '.join(map(repr, names)) or 'none'}")
    colours = {}
    for colour, spellings in _COLOUR_NAMES.items():
        given = [s for s in spellings if s in have]
        if len(given) > 1:
            raise _invalid(f"circles: columns {given[0]!r} and {given[1]!r} are both the "
                           f"{colour} column; keep one")
        if given:
            colours[colour] = given[0]
    if colours and len(colours) != 3:
        absent = [c for c in _COLOUR_NAMES if c not in colours]
        raise _invalid(f"circles: colour columns {', '.join(colours.values())} without "
                       f"{', '.join(absent)}: give red, green and blue, or none (black)")
    cols = {n: column(n) for n in ("x", "y", "r")}
    n = cols["x"].shape[0]
    cols["z"] = column("z") if "z" in have else np.zeros(n, np.float32)
    for colour in _COLOUR_NAMES:
        cols[colour] = column(colours[colour]) if colours else np.zeros(n, np.float32)
    for name, a in cols.items():
        if a.shape[0] != n:
            raise _invalid(f"circles column {name!r} has {a.shape[0]} rows, column 'x' {n}")
    return [cols[c] for c in _COLUMNS]


def _as_circles(circles, used=()):
    """Host circles as the library's scene is filled from them: a 2-D
    array of numbers of shape (N, 7), any dtype, order or strides (a view
    of the caller's array where it is one), or a list of 7 columns (1-D
    arrays of N numbers) from a table with named columns. Nothing is
    copied here but what must be (lists, DLPack host arrays NumPy cannot
    view, object arrays); _Scene converts to float32 as it fills the scene."""
    # a host array of another library (a PyTorch CPU tensor, ...): read in place
    circles = _dlpack.host_view(circles, "circles")
    if isinstance(circles, np.ndarray) and circles.dtype.names is not None:
        if circles.ndim != 1:
            raise _invalid(f"circles: a structured array must have one dimension (a row a "
                           f"circle), not shape {circles.shape}")
        columns = _table_columns(circles, circles.dtype.names, used)
    elif _is_table(circles):
        columns = _table_columns(circles, list(circles.columns), used)  # pandas, polars, ...
    elif isinstance(circles, Mapping):
        columns = _table_columns(circles, list(circles.keys()), used)
    else:
        if circles is None or isinstance(circles, (str, bytes)):
            raise TypeError(f"circles must be an array of numbers, not {type(circles).__name__} "
                            "(a built-in scene's circles: quadrender.scene(name))")
        circles = _numbers(circles, "circles")
        if circles.ndim != 2 or circles.shape[1] != 7:
            raise _invalid(f"circles must have shape (N, 7): x y z r R G B; "
                           f"got {circles.shape}")
        columns = circles
    n = _count(columns)
    if n > MAX_CIRCLES:
        raise _invalid(f"{n} circles: at most {MAX_CIRCLES}")
    return columns


def _is_table(circles) -> bool:
    """Whether circles is a table of named columns other than a NumPy array
    (a pandas or polars DataFrame)."""
    return hasattr(circles, "columns") and hasattr(circles, "__getitem__") \
        and not isinstance(circles, np.ndarray)


def _column_names(circles):
    """The names of circles' columns (a structured array, a DataFrame, a
    mapping), or None for an array of rows."""
    if isinstance(circles, np.ndarray):
        return None if circles.dtype.names is None else [str(n) for n in circles.dtype.names]
    if _is_table(circles):
        return [str(n) for n in circles.columns]
    if isinstance(circles, Mapping):
        return [str(n) for n in circles.keys()]
    return None


# ---- data coordinates and colour (quadrender/scene_map.h) ----------------------------------

def _number_text(value):
    """A number as the library's checks read it: an int in decimal, a float
    as its repr (which strtod reads back exactly), anything else (a bool, a
    string) as its repr, which no check of a number takes."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value)).encode()
    if isinstance(value, (float, np.floating)):
        return repr(float(value)).encode()
    return repr(value).encode()


def _extent_text(extent):
    """extent as the text the command's --extent takes: "auto", or four
    numbers X0,X1,Y0,Y1; anything else as its repr (refused)."""
    if isinstance(extent, str):
        return _word(extent)
    try:
        parts = list(extent)
    except TypeError:
        return repr(extent).encode()
    if len(parts) != 4 or any(isinstance(p, bool) or
                              not isinstance(p, (int, float, np.integer, np.floating))
                              for p in parts):
        return repr(extent).encode()
    return b",".join(_number_text(p) for p in parts)


def _bound(name, value):
    """vmin or vmax: None (NaN: the values' own), else checked as the
    command's --vmin/--vmax."""
    if value is None:
        return float("nan")
    return _checked(_lib.qr_value_check, name, value, ctypes.c_double, _number_text)


_MAP_NAMES = [b"extent", b"aspect", b"values", b"cmap", b"norm", b"vmin", b"vmax"]


def _mapped(circles, extent=None, aspect=None, values=None, cmap=None, norm=None,
            vmin=None, vmax=None):
    """circles, unchanged when no data option is given; else a new float32
    N x 7 array of them mapped from the data extent into the unit square
    (qr_scene_fit_extent) and coloured by the values (qr_scene_color_by),
    each option checked as the command's (--extent, --data-aspect,
    --color-by, --cmap, --norm, --vmin, --vmax). The caller's array is never
    changed."""
    aspect_v = _checked(_lib.qr_aspect_check, "aspect", aspect or "equal", ctypes.c_int, _word)
    norm_v = _checked(_lib.qr_norm_check, "norm", norm or "linear", ctypes.c_int, _word)
    lo, hi = _bound("vmin", vmin), _bound("vmax", vmax)
    ext = (ctypes.c_double * 4)()
    is_auto = ctypes.c_int(1)
    if extent is not None:
        err = _lib.Error()
        _check(_lib.qr_extent_check(b"extent", _extent_text(extent), ext, ctypes.byref(is_auto),
                                    ctypes.byref(err)), err)
    names = _column_names(circles)
    if values is None and cmap is not None and names is not None and "value" in names:
        values = "value"
    if cmap is not None:
        cmap_v = _checked(_lib.qr_colormap_check, "cmap", cmap, ctypes.c_int, _word)
    else:
        cmap_v = 0  # viridis
    given = [extent, aspect, values, cmap, norm, vmin, vmax]
    bits = sum(1 << k for k, v in enumerate(given) if v is not None)
    spelled = (ctypes.c_char_p * len(_MAP_NAMES))(*_MAP_NAMES)
    err = _lib.Error()
    _check(_lib.qr_scene_map_check_options(bits, spelled, ctypes.byref(err)), err)
    if extent is None and values is None:
        return circles
    if _on_gpu(circles):
        raise ValueError("extent and values map host circles: circles on the GPU are drawn as "
                         "they are")
    used = () if values is None else ("value",)  # a table's value column, read or not
    if isinstance(values, str):
        if names is None:
            raise _invalid(f"values: {values!r} names a column, and the circles have none "
                           "(an array of rows)")
        if values not in names:
            raise _invalid(f"values: no column {values!r}; the table has "
                           f"{', '.join(map(repr, names))}")
        used += (values,)
        column = circles[values]
        if hasattr(column, "to_numpy") and not isinstance(column, np.ndarray):
            column = column.to_numpy(dtype=np.float64, na_value=np.nan)
        values = column
    columns = _as_circles(circles, used)
    n = _count(columns)
    if values is not None:
        values = _numbers(values, "values")
        if values.ndim != 1 or values.shape[0] != n:
            raise _invalid(f"values: expected one value a circle, shape ({n},); got "
                           f"{values.shape}")
        with np.errstate(over="ignore"):
            values = np.ascontiguousarray(values, dtype=np.float32)
    err = _lib.Error()
    with _Scene(columns) as sc:
        if values is not None:
            _check(_lib.qr_scene_color_by(
                sc, values.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), cmap_v, norm_v, lo, hi,
                ctypes.byref(err)), err)
        if extent is not None:
            _check(_lib.qr_scene_fit_extent(sc, None if is_auto.value else ext, aspect_v, None,
                                            ctypes.byref(err)), err)
        if n == 0:
            return np.zeros((0, 7), np.float32)
        return np.ascontiguousarray(np.ctypeslib.as_array(sc.contents.block, shape=(7, n)).T)


def colormap(name: str) -> np.ndarray:
    """The 256 x 3 float32 RGB table of colormap `name` (viridis, magma,
    inferno, plasma, cividis, gray) that values= colours circles from:
    entry round(t * 255) for t in [0, 1]."""
    k = _checked(_lib.qr_colormap_check, "cmap", name, ctypes.c_int, _word)
    table = np.ctypeslib.as_array(_lib.qr_colormap_rgb(k), shape=(_lib.QR_COLORMAP_ENTRIES, 3))
    return table.copy()


def _count(columns) -> int:
    """The number of circles of what _as_circles returned."""
    return columns.shape[0] if isinstance(columns, np.ndarray) else columns[0].shape[0]


class _Picture:
    """The picture's options of a render (the command's --alpha,
    --background and --antialias; quadrender/scene.h): each circle's
    opacity (None: 0.5), the background colour (None: white) or none at
    all (transparent: the image comes back with an alpha channel), set on
    a library scene by apply(). False when none is given."""

    def __init__(self, alpha, background, antialias=False, transparent=False):
        self.alpha, self.background, self.antialias = alpha, background, antialias
        self.transparent = transparent

    def __bool__(self):
        return (self.alpha is not None or self.background is not None or self.antialias
                or self.transparent)

    def background_arg(self):
        """background= as render() takes it, for passing the picture on."""
        if self.transparent:
            return "none"
        return None if self.background is None else list(self.background)

    def apply(self, scene, n):
        err = _lib.Error()
        if self.alpha is not None:
            alpha = self.alpha
            if alpha.ndim == 0:
                alpha = np.full(n, alpha, np.float32)
            elif alpha.shape != (n,):
                raise _invalid(f"alpha: expected one alpha a circle, shape ({n},); got "
                               f"{alpha.shape}")
            _check(_lib.qr_scene_set_alpha(scene, alpha.ctypes.data_as(
                ctypes.POINTER(ctypes.c_float)), b"alpha", ctypes.byref(err)), err)
        if self.background is not None:
            _check(_lib.qr_scene_set_background(scene, self.background, b"background",
                                                ctypes.byref(err)), err)
        if self.transparent:
            _check(_lib.qr_scene_set_transparent(scene, 1, b"background", ctypes.byref(err)), err)
        if self.antialias:
            _check(_lib.qr_scene_set_antialias(scene, 1, b"antialias", ctypes.byref(err)), err)


def _picture(circles, alpha=None, background=None, antialias=False):
    """The _Picture of a render's alpha= and background= (checked as the
    command's --alpha and --background): alpha a number from 0 to 1 for
    every circle, an array of one a circle, or a column's name (a table's
    "alpha" column when None); background "white", "black", "#RRGGBB",
    "R,G,B", three numbers from 0 to 1, or "none" (no background: the
    image has an alpha channel); antialias True or False."""
    if not isinstance(antialias, (bool, np.bool_)):
        raise TypeError(f"antialias must be True or False, not {antialias!r}")
    names = _column_names(circles)
    if alpha is None and names is not None and "alpha" in names:
        alpha = "alpha"
    if isinstance(alpha, str):
        if names is None or alpha not in names:
            raise _invalid(f"alpha: no column {alpha!r}" + (
                "" if names is None else f"; the table has {', '.join(map(repr, names))}"))
        column = circles[alpha]
        if hasattr(column, "to_numpy") and not isinstance(column, np.ndarray):
            column = column.to_numpy(dtype=np.float64, na_value=np.nan)
        alpha = column
    if alpha is not None:
        if np.ndim(alpha) == 0 and not isinstance(alpha, np.ndarray):
            value = float(alpha) if isinstance(alpha, np.generic) else alpha
            alpha = np.array(_checked(_lib.qr_alpha_check, "alpha", value, ctypes.c_float),
                             np.float32)  # 0-d: every circle's
        else:
            alpha = _numbers(alpha, "alpha")
            if alpha.ndim > 1:
                raise _invalid(f"alpha: expected a number or one alpha a circle, not shape "
                               f"{alpha.shape}")
            with np.errstate(over="ignore"):
                alpha = np.ascontiguousarray(alpha, dtype=np.float32)
    rgb = None
    transparent = ctypes.c_int(0)
    if background is not None:
        rgb = (ctypes.c_float * 3)()
        if isinstance(background, str):
            err = _lib.Error()
            _check(_lib.qr_background_check(b"background", _word(background), rgb,
                                            ctypes.byref(transparent), ctypes.byref(err)), err)
            if transparent.value:
                rgb = None  # qr_scene_set_transparent sets the scene's background
        else:
            values = _numbers(background, "background")
            if values.shape != (3,):
                raise _invalid(f"background: expected a colour name, '#RRGGBB', three "
                               f"numbers from 0 to 1 or 'none', not shape {values.shape}")
            rgb[:] = [float(v) for v in values]
    return _Picture(alpha, rgb, bool(antialias), bool(transparent.value))


class _Scene:
    """A library scene filled from what _as_circles returns (an N x 7
    array of numbers or 7 columns; the one copy, converting to float32 as
    it goes, is this fill: freed on exit), checked
    as the scene readers check a file's circles: finite numbers and no
    negative radius (qr_scene_check_circles)."""

    def __init__(self, circles, picture=None):
        n = _count(circles)
        self.ptr = ctypes.POINTER(_lib.Scene)()
        err = _lib.Error()
        _check(_lib.qr_scene_create(n, 0, ctypes.byref(self.ptr), ctypes.byref(err)), err)
        if n:
            # the block holds x y z r red green blue, n floats each
            block = np.ctypeslib.as_array(self.ptr.contents.block, shape=(7, n))
            # converted to float32 as it is copied: a float64 past float32's
            # range becomes inf, which the check below refuses
            with np.errstate(over="ignore"):
                if isinstance(circles, np.ndarray):
                    block[:] = circles.T
                else:
                    for k, column in enumerate(circles):
                        block[k] = column
        if _lib.qr_scene_check_circles(self.ptr, b"circles", ctypes.byref(err)) != 0:
            _lib.qr_scene_destroy(self.ptr)
            _check(_QR_ERR_INVALID, err)
        if picture:
            try:
                picture.apply(self.ptr, n)
            except BaseException:
                _lib.qr_scene_destroy(self.ptr)
                raise

    def __enter__(self):
        return self.ptr

    def __exit__(self, *exc):
        _lib.qr_scene_destroy(self.ptr)


@contextlib.contextmanager
def _image(width, height):
    """A library image of width x height and a NumPy view of its float RGBA
    (row 0 = bottom), freed on exit."""
    err = _lib.Error()
    img = ctypes.POINTER(_lib.Image)()
    _check(_lib.qr_image_create(width, height, ctypes.byref(img), ctypes.byref(err)), err)
    try:
        yield img, np.ctypeslib.as_array(img.contents.rgba, shape=(height, width, 4))
    finally:
        _lib.qr_image_destroy(img)


def _top_first(rgba):
    """RGB of an RGBA image (row 0 = bottom), top row first, in new memory:
    an Image for a NumPy array (a CuPy one stays CuPy's)."""
    rgb = rgba[::-1, :, :3].copy()
    return rgb.view(Image) if isinstance(rgb, np.ndarray) else rgb


def _straight(rgba):
    """The image of a scene without a background (the library's RGBA, row
    0 = bottom: the colour premultiplied by alpha, the coverage as alpha)
    as render returns it: float32 H x W x 4, top row first, in new memory,
    straight alpha (what matplotlib and Pillow take): A is the coverage a;
    R, G, B are the colour c / a (float32 division) where a's 8-bit value
    qr_to_byte(a) is not 0, else 0. So to_uint8 of it is, byte for byte,
    what the library writes into an RGBA PNG (qr_to_rgba8, image.h). An
    Image for a NumPy array (a CuPy one stays CuPy's)."""
    if isinstance(rgba, np.ndarray):
        xp = np
    else:
        import cupy as xp
    top = rgba[::-1]
    out = xp.empty(top.shape, xp.float32)
    out[..., 3] = top[..., 3]
    a = out[..., 3:4]
    # qr_to_byte(a) != 0: 255 * clamp(a, 0, 1), in float32, is 1 or more (NaN is not)
    hidden = ~(xp.float32(255) * xp.clip(a[..., 0], xp.float32(0), xp.float32(1))
               >= xp.float32(1))
    rgb = out[..., :3]
    with np.errstate(divide="ignore", invalid="ignore"):
        xp.divide(top[..., :3], a, out=rgb)
    rgb[hidden] = 0
    return out.view(Image) if isinstance(out, np.ndarray) else out


def _returned(rgba, transparent):
    """An image as render returns it: _straight's H x W x 4 for a scene
    without a background, else _top_first's H x W x 3."""
    return _straight(rgba) if transparent else _top_first(rgba)


def _check_size(width, height, who=None):
    """(width, height) as ints, checked as the command's --width and
    --height are; with `who` (what holds the image whole), at most
    MAX_SIDE a side."""
    w = _checked(_lib.qr_image_check_side, "width", width, ctypes.c_int32)
    h = _checked(_lib.qr_image_check_side, "height", height, ctypes.c_int32)
    if who is not None:
        err = _lib.Error()
        _check(_lib.qr_image_check_whole(b"width/height", who.encode(), b"render_file", w, h,
                                         MAX_SIDE, ctypes.byref(err)), err)
    return w, h


# bytes a pixel of the top-first RGB copy an image is returned as, beside
# the library's float RGBA image (16 bytes a pixel)
_RGB_COPY = 12
# the same for a scene without a background: the RGBA copy and _straight's
# two masks
_RGBA_COPY = 18


def _copy_bytes(transparent):
    return _RGBA_COPY if transparent else _RGB_COPY


def _check_fits(width, height, extra=_RGB_COPY):
    """Refuses (OutOfMemory, naming the bytes) a width x height image, plus
    `extra` bytes a pixel, that the process cannot hold: before any of it
    is allocated, rather than being killed when it is used."""
    err = _lib.Error()
    _check(_lib.qr_image_check_fits(width, height, extra, ctypes.byref(err)), err)


_QR_ERR_NO_GPU = 5


def set_memory_budget(nbytes):
    """Host memory this process's renders may use, in bytes (0 or None:
    what the machine, its memory cgroup and its address-space limit leave;
    the default), as the CLI's --memory: an image that cannot fit then
    raises OutOfMemory naming the bytes, and files written in bands of rows
    take smaller bands. It counts what the process holds resident (NumPy's
    arrays included), not a hard limit on it."""
    if nbytes is None:
        nbytes = 0
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)) or nbytes < 0:
        raise InvalidArgument(_QR_ERR_INVALID,
                              f"memory budget: expected a number of bytes >= 0, got {nbytes!r}")
    _lib.qr_host_memory_set_budget(int(nbytes))


def gpu_available() -> tuple[bool, str]:
    """Whether a usable GPU is there (and why not, as a string, if not)."""
    info, err = _lib.GpuInfo(), _lib.Error()
    if _lib.qr_gpu_probe(ctypes.byref(info), ctypes.byref(err)) == 0:
        return True, info.name.decode()
    return False, err.msg.decode("utf-8", "replace")


def _gpu_device():
    """The CUDA device the library renders on (it makes it the calling
    thread's current device)."""
    info, err = _lib.GpuInfo(), _lib.Error()
    _check(_lib.qr_gpu_probe(ctypes.byref(info), ctypes.byref(err)), err)
    return info.device


def _on_gpu(circles):
    """Whether circles are a CUDA array, which _device_rows reads."""
    return (hasattr(circles, "__cuda_array_interface__")
            or _dlpack.device_type(circles) == _dlpack.KDL_CUDA)


def _host_rows(circles):
    """Host circles that are already the rows qr_gpu_scene_update_host
    reads (a NumPy float32 N x 7 array of native byte order in C order, or
    a host DLPack array NumPy views as one), as that array; None for any
    other circles, which _Scene converts."""
    a = _dlpack.host_view(circles, "circles")
    if (isinstance(a, np.ndarray) and a.dtype == np.float32 and a.ndim == 2
            and a.shape[1] == 7 and a.flags.c_contiguous and a.shape[0] <= MAX_CIRCLES):
        return a
    return None


def _device_rows(circles):
    """(pointer, n, keep) of a CUDA array of float32 N x 7 rows in C order
    (anything with __cuda_array_interface__: CuPy, PyTorch, Numba; or with a
    CUDA DLPack capsule), or None for other arrays. keep holds the array's
    memory while the library reads it."""
    cai = getattr(circles, "__cuda_array_interface__", None)
    if cai is None:
        if _dlpack.device_type(circles) != _dlpack.KDL_CUDA:
            return None
        ok, why = gpu_available()
        if not ok:
            raise Error(_QR_ERR_NO_GPU, why)
        cai = _dlpack.cuda_array(circles)
        if cai["device"][1] != _gpu_device():
            raise ValueError(f"circles are on CUDA device {cai['device'][1]}; quadrender "
                             f"renders on device {_gpu_device()}")
    shape, typestr = tuple(cai["shape"]), cai["typestr"]
    if typestr != "<f4":
        raise TypeError(f"circles on the GPU must be float32, not {typestr}")
    if len(shape) != 2 or shape[1] != 7:
        raise ValueError(f"circles must have shape (N, 7): x y z r R G B; got {shape}")
    strides = cai.get("strides")
    if strides is not None and (strides[1] != 4 or (strides[0] != 28 and shape[0] > 1)):
        raise ValueError("circles on the GPU must be C-contiguous")
    if shape[0] > MAX_CIRCLES:
        raise ValueError(f"{shape[0]} circles: at most {MAX_CIRCLES}")
    return cai["data"][0], shape[0], cai.get("capsule", circles)


class Renderer:
    """A GPU renderer for one image size that keeps its buffers from call
    to call: the image and the index's lists, the pinned buffers the image
    comes back through, and the scene's (refilled in place while the
    circles fit, regrown when they do not) for CUDA input and for NumPy
    float32 N x 7 arrays in C order, which also keep the pinned buffer
    their rows are copied through. For animation loops.

        r = quadrender.Renderer(1024, 1024)
        for frame in frames: image = r.render(circles_of(frame))

    `render` takes what `quadrender.render` takes (NumPy arrays, or CUDA
    arrays used in place); `close()` (or a with block) frees the GPU
    memory."""

    def __init__(self, width: int, height: int | None = None) -> None:
        height = width if height is None else height
        width, height = _check_size(width, height, "Renderer")
        ok, why = gpu_available()
        if not ok:
            raise Error(_QR_ERR_NO_GPU, why)
        self.width, self.height = width, height
        self._r = ctypes.c_void_p()
        self._gs = ctypes.c_void_p()  # the scene of the last CUDA or float32 rows input, kept
        self._plans = {}  # mode -> the IndexParams a plan chose
        # host rows and the image through pinned buffers kept for the next
        # call; render() turns it off for its one call, which would pay for
        # pinning them and use them once
        self._staged = True
        err = _lib.Error()
        _check(_lib.qr_gpu_renderer_create(width, height, ctypes.byref(self._r),
                                           ctypes.byref(err)), err)

    def _drop_scene(self):
        _lib.qr_gpu_scene_destroy(self._gs)
        self._gs = ctypes.c_void_p()

    def close(self) -> None:
        if getattr(self, "_gs", None):
            self._drop_scene()
        if getattr(self, "_r", None):
            _lib.qr_gpu_renderer_destroy(self._r)
            self._r = ctypes.c_void_p()

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self):
        self.close()

    def _kept_scene(self, update, create, *rows):
        """The kept scene, refilled by update(gs, *rows, err) (made by
        create(*rows, &gs, err) the first time)."""
        err = _lib.Error()
        if self._gs:
            status = update(self._gs, *rows, ctypes.byref(err))
        else:
            status = create(*rows, ctypes.byref(self._gs), ctypes.byref(err))
        if status != 0:
            self._drop_scene()  # a failed update may leave it empty
            _check(status, err)
        return self._gs

    @contextlib.contextmanager
    def _scene(self, circles, picture=None):
        """The GPU scene of circles: the kept one refilled for CUDA input
        (yielded with True) and for host float32 rows in C order (checked
        and copied through the scene's pinned buffer on all cores: yielded
        with False), else a new one freed afterwards."""
        err = _lib.Error()
        host_gs = ctypes.c_void_p()
        dev = _device_rows(circles)  # holds the CUDA array's memory till the end
        if picture and dev is not None:
            raise ValueError("alpha, background and antialias take host circles: circles on "
                             "the GPU are drawn with alpha 0.5 over white, hard-edged")
        # the kept rows carry no picture
        rows = None if dev is not None or not self._staged or picture else _host_rows(circles)
        try:
            if dev is not None:
                yield self._kept_scene(_lib.qr_gpu_scene_update_device,
                                       _lib.qr_gpu_scene_create_device, dev[0], dev[1]), True
            elif rows is not None:
                yield self._kept_scene(_lib.qr_gpu_scene_update_host,
                                       _lib.qr_gpu_scene_create_host, rows.ctypes.data,
                                       rows.shape[0], 0), False
            else:
                with _Scene(_as_circles(circles), picture) as sc:
                    _check(_lib.qr_gpu_scene_create(sc, ctypes.byref(host_gs),
                                                    ctypes.byref(err)), err)
                yield host_gs, False
        finally:
            _lib.qr_gpu_scene_destroy(host_gs)

    def plan(self, circles: CirclesLike, *, mode: str = "fast",
             trials: int = 3) -> dict[str, Any]:
        """Times the quadtree's candidate settings on these circles, `trials`
        frames each after one (medians, CUDA events), and keeps the fastest
        for this mode: later render() calls in that mode with the index
        options left at their defaults use it. For many frames of one scene,
        where it pays back what it costs before the first frame. Returns
        {"chosen": settings, "plan_ms": wall time of the planning,
        "candidates": [settings with "median_ms", ...]}; settings are dicts
        of capacity, min_leaf, split_cost, deep_leaf, max_leaf."""
        if mode not in ("fast", "exact"):
            raise ValueError(f"mode must be 'fast' or 'exact', not {mode!r}")
        # the command's check of --plan; 0, which there means no plan, plans nothing here
        trials = _checked(_lib.qr_index_check_plan, "trials", trials, ctypes.c_int32)
        if trials == 0:
            raise InvalidArgument(_QR_ERR_INVALID,
                                  "trials: expected 1 to 64 frames a candidate, got '0'")
        if not self._r:
            raise ValueError("the Renderer is closed")
        base = _params("quadtree")
        plan = _lib.Plan()
        err = _lib.Error()
        with self._scene(circles) as (gs, _):
            _check(_lib.qr_gpu_renderer_plan(self._r, gs, ctypes.byref(base), mode == "exact",
                                             trials, ctypes.byref(plan), ctypes.byref(err)), err)

        def settings(p):
            return {k: getattr(p, k)
                    for k in ("capacity", "min_leaf", "split_cost", "deep_leaf", "max_leaf")}

        chosen = _lib.IndexParams.from_buffer_copy(plan.params[plan.chosen])
        self._plans[mode] = chosen
        return {"chosen": settings(chosen), "plan_ms": plan.plan_ms,
                "candidates": [dict(settings(plan.params[i]), median_ms=plan.median_ms[i])
                               for i in range(plan.candidates)]}

    def render(self, circles: CirclesLike, *, mode: str = "fast", index: str = "quadtree",
               tile: int | None = None, capacity: int | None = None,
               min_leaf: int | None = None, max_depth: int | None = None,
               max_leaf: int | None = None, split_cost: int | None = None,
               deep_leaf: int | None = None, output: str | None = None,
               extent: str | tuple | None = None, aspect: str | None = None,
               values: npt.ArrayLike | str | None = None, cmap: str | None = None,
               norm: str | None = None, vmin: float | None = None,
               vmax: float | None = None, alpha: npt.ArrayLike | float | str | None = None,
               background: str | Sequence[float] | None = None, antialias: bool = False
               ) -> Image | Any:  # Any: a CuPy array (output="cupy")
        """The image of circles, float32 height x width x 3 (x 4 with
        background="none", as render()'s), top row first:
        a quadrender.Image (a NumPy array), or for CUDA input a CuPy array left on the GPU
        (output="numpy" or "cupy" chooses). Each call returns a new array.
        The index arguments, the data ones (extent, aspect, values,
        cmap, norm, vmin, vmax) and the picture's (alpha, background,
        antialias), these for host circles only, are render()'s. After
        plan(), the quadtree's settings are the plan's for its mode unless
        one of them is given."""
        picture = _picture(circles, alpha, background, antialias)
        circles = _mapped(circles, extent, aspect, values, cmap, norm, vmin, vmax)
        if mode not in ("fast", "exact"):
            raise ValueError(f"mode must be 'fast' or 'exact', not {mode!r}")
        if not self._r:
            raise ValueError("the Renderer is closed")
        params = _params(index, tile, capacity, min_leaf, max_depth, max_leaf, split_cost,
                         deep_leaf)
        given = (capacity, min_leaf, max_depth, max_leaf, split_cost, deep_leaf)
        if index == "quadtree" and all(v is None for v in given) and mode in self._plans:
            params = self._plans[mode]
        if output not in (None, "numpy", "cupy"):
            raise ValueError(f"output must be 'numpy' or 'cupy', not {output!r}")
        if output == "numpy" or (output is None and not _on_gpu(circles)):
            _check_fits(self.width, self.height, _copy_bytes(picture.transparent))
        err = _lib.Error()
        with self._scene(circles, picture) as (gs, on_gpu):
            _check(_lib.qr_gpu_render(self._r, gs, ctypes.byref(params), mode == "exact",
                                      ctypes.byref(err)), err)
            if output is None:
                output = "cupy" if on_gpu else "numpy"
            if output == "cupy":
                import cupy
                rgba = cupy.empty((self.height, self.width, 4), cupy.float32)
                _check(_lib.qr_gpu_renderer_copy_image(self._r, rgba.data.ptr, ctypes.byref(err)),
                       err)
                return _returned(rgba, picture.transparent)
            if not self._staged or picture.transparent:
                # the float RGBA image (the RGB download has no alpha channel)
                with _image(self.width, self.height) as (img, rgba):
                    _check(_lib.qr_gpu_renderer_download(self._r, img, ctypes.byref(err)), err)
                    return _returned(rgba, picture.transparent)
            # top-first RGB straight from the GPU (12 bytes a pixel), through
            # the renderer's kept pinned slots, copied into the array on all
            # cores
            rgb = np.empty((self.height, self.width, 3), np.float32)
            _check(_lib.qr_gpu_renderer_download_rgb(self._r, rgb.ctypes.data, 0,
                                                     ctypes.byref(err)), err)
            return rgb.view(Image)


def render(circles: CirclesLike, width: int, height: int | None = None, *, mode: str = "fast",
           device: str = "auto", index: str = "quadtree", tile: int | None = None,
           capacity: int | None = None, min_leaf: int | None = None,
           max_depth: int | None = None, max_leaf: int | None = None,
           split_cost: int | None = None, deep_leaf: int | None = None,
           threads: int = 0, extent: str | tuple | None = None, aspect: str | None = None,
           values: npt.ArrayLike | str | None = None, cmap: str | None = None,
           norm: str | None = None, vmin: float | None = None,
           vmax: float | None = None, alpha: npt.ArrayLike | float | str | None = None,
           background: str | Sequence[float] | None = None, antialias: bool = False
           ) -> Image | Any:  # Any: a CuPy array for CUDA circles
    """Renders circles into a float32 height x width x 3 image (x 4,
    straight RGBA, with background="none"), top row
    first: a quadrender.Image, the NumPy array (an ndarray subclass) that
    also shows itself in Jupyter and has save() and to_pil().

    circles: rows of x y z r R G B: an array-like of numbers of shape
    (N, 7) (any dtype of integers or floats, any order or strides: read
    where it lies and converted to float32 as the library's scene is
    filled, the one copy made; lists are made an array first), a NumPy
    structured array, a pandas DataFrame or a mapping of columns by name
    (x, y, r; z, red green blue or R G B optional: 0 and black), a host
    array with DLPack, or a CUDA array
    (CuPy, PyTorch: anything with __cuda_array_interface__ or a CUDA DLPack
    capsule), read in place on the GPU with no host copy; the image then
    stays on the GPU too (a CuPy array). mode: "fast" (front
    to back, every channel within 1e-5 of the exact image) or "exact" (bit
    for bit the CPU reference's). device: "auto" (the GPU when usable, else
    the CPU), "gpu", "cpu" (the fast CPU renderer, on `threads` threads, 0
    for all) or "cpu-reference" (the serial reference; "reference" too).
    index: "quadtree" (capacity, min_leaf, max_depth, max_leaf, split_cost,
    deep_leaf as the CLI's options; None: the library's default) or "grid"
    (a uniform grid of `tile`-pixel tiles, 64 unless given; tile only with
    the grid); the index changes the speed, never the picture. Renderer
    keeps the GPU's buffers across calls.

    Data coordinates and colour (host circles; the command's --extent,
    --data-aspect, --color-by, --cmap, --norm, --vmin, --vmax): extent
    "auto" (the circles' own bounds, radii included) or (x0, x1, y0, y1)
    maps the circles from data coordinates into the unit square, aspect
    "equal" (one scale) or "stretch" (one an axis); values (an array of one
    number a circle, or a column's name; a table's "value" column when cmap
    is given) colour the circles through norm ("linear", "log", "eq_hist"),
    vmin, vmax (None: the values' own) and cmap ("viridis" unless given:
    see colormap()). Applied to a copy: the caller's circles never change.

    The picture (host circles; the command's --alpha and --background):
    alpha, each circle's opacity from 0 to 1 (a number for every circle, an
    array of one a circle, or a column's name; a table's "alpha" column
    unless given; 0.5 without), and background, the colour behind the
    circles ("white" unless given, "black", "#RRGGBB", "R,G,B" or three
    numbers from 0 to 1). Each circle blends as the CPU reference blends,
    a c + (1 - a) C, in every mode and on every device. antialias=True:
    anti-aliased edges (each circle half a pixel larger, the pixels of its
    edge covered in part; the command's --antialias).

    background="none": no background. The image is then float32 height x
    width x 4, top row first, with straight alpha (as matplotlib and
    Pillow take it): A is the pixel's coverage (0 where no circle is); R,
    G, B the colour c / a, c the colour over black (premultiplied), where
    a's 8-bit value is not 0, else 0. to_uint8 of it is the RGBA PNG the
    library writes for it (render_file, the command), and save() writes
    that PNG.
    """
    height = width if height is None else height
    width, height = _check_size(width, height, "render")
    picture = _picture(circles, alpha, background, antialias)
    circles = _mapped(circles, extent, aspect, values, cmap, norm, vmin, vmax)
    threads = _checked(_lib.qr_threads_check, "threads", threads, ctypes.c_int)
    if mode not in ("fast", "exact"):
        raise ValueError(f"mode must be 'fast' or 'exact', not {mode!r}")
    device = _device(device)
    on_gpu = _on_gpu(circles)
    if on_gpu and device in (QR_JOB_CPU, QR_JOB_CPU_REFERENCE):
        raise ValueError("circles on the GPU render on the GPU (device='auto' or 'gpu')")
    index_args = dict(index=index, tile=tile, capacity=capacity, min_leaf=min_leaf,
                      max_depth=max_depth, max_leaf=max_leaf, split_cost=split_cost,
                      deep_leaf=deep_leaf)
    params = _params(**index_args)
    use_gpu = on_gpu or device == QR_JOB_GPU or (device == QR_JOB_AUTO and gpu_available()[0])
    if use_gpu:
        with Renderer(width, height) as r:
            r._staged = False
            return r.render(circles, mode=mode, **index_args, alpha=picture.alpha,
                            background=picture.background_arg(), antialias=picture.antialias)
    circles = _as_circles(circles)
    _check_fits(width, height, _copy_bytes(picture.transparent))
    exact = 1 if mode == "exact" else 0
    err = _lib.Error()
    with _image(width, height) as (img, rgba), _Scene(circles, picture) as sc:
        if device == QR_JOB_CPU_REFERENCE:
            _check(_lib.qr_render_cpu(sc, img, ctypes.byref(err)), err)
        else:
            _check(_lib.qr_render_cpu_fast(sc, ctypes.byref(params), exact, threads, img, None,
                                           ctypes.byref(err)), err)
        return _returned(rgba, picture.transparent)


def scene(name: str, seed: int = 0, frame: int | None = None) -> np.ndarray:
    """A built-in scene (see `quadrender scenes`; "uniform:1M" and the other
    families too) as a float32 N x 7 array; animated scenes at frame `frame`
    (after frame + 1 steps), static ones as generated."""
    seed = _checked(_lib.qr_scene_check_seed, "seed", seed, ctypes.c_uint32)
    if frame is not None:
        frame = _checked(_lib.qr_scene_check_frame, "frame", frame, ctypes.c_int64)
    err = _lib.Error()
    ptr = ctypes.POINTER(_lib.Scene)()
    _check(_lib.qr_scene_builtin(name.encode(), seed, ctypes.byref(ptr), ctypes.byref(err)), err)
    try:
        if frame is not None:
            _check(_lib.qr_scene_seek_frame(ptr, frame, ctypes.byref(err)), err)
        n = ptr.contents.n
        if n == 0:
            return np.zeros((0, 7), np.float32)
        block = np.ctypeslib.as_array(ptr.contents.block, shape=(7, n))
        return np.ascontiguousarray(block.T)
    finally:
        _lib.qr_scene_destroy(ptr)


_NUMPY2 = int(np.__version__.split(".")[0]) >= 2


class Image(np.ndarray):
    """A rendered image: the NumPy array `render` has always returned
    (float32, height x width x 3, or x 4 for background="none", top row
    first; a subclass of
    numpy.ndarray, so every NumPy function and operator takes it, and
    numpy.asarray(image) is the plain array, no copy), which also shows
    and saves itself:

        image = qr.render(circles, 512)
        image                  # in Jupyter: the picture (_repr_png_)
        image.save("a.png")    # quadrender.save(image, "a.png")
        image.to_pil()         # a Pillow image (needs Pillow)

    Arithmetic and slicing keep the class (the result is an Image too), as
    with any ndarray subclass; what is not an image (a row, a channel)
    just shows as an array."""

    def __new__(cls, array: npt.ArrayLike) -> Image:
        return np.asarray(array).view(cls)

    def __array_wrap__(self, obj, context=None, return_scalar=False):
        # a reduction to one number (image.max(), image.sum()) is a NumPy
        # scalar, as for a plain array, not a 0-d Image
        if obj.ndim == 0:
            return obj[()]
        if _NUMPY2:
            return super().__array_wrap__(obj, context, return_scalar)
        return super().__array_wrap__(obj, context)

    def save(self, path: str | os.PathLike[str]) -> None:
        """quadrender.save(self, path): .png, .ppm or .pfm by the extension
        (an RGBA image: PNG, with its alpha)."""
        save(self, path)

    def to_uint8(self) -> np.ndarray:
        """quadrender.to_uint8(self): the 8-bit values a PNG stores."""
        return to_uint8(self)

    def to_pil(self) -> Any:  # a PIL.Image.Image
        """The image as a Pillow image (mode RGB, or RGBA for 4 channels:
        straight alpha, as Pillow holds it), 8 bits a channel as
        quadrender.save writes them. Needs Pillow
        (pip install pillow)."""
        try:
            from PIL import Image as PILImage
        except ImportError:
            raise ImportError("Image.to_pil needs Pillow: pip install pillow") from None
        pixels = to_uint8(_float_image(self))
        return PILImage.fromarray(np.ascontiguousarray(pixels),
                                  "RGBA" if pixels.shape[2] == 4 else "RGB")

    def _repr_png_(self):
        """The PNG bytes quadrender.save would write (for Jupyter's display),
        or None (shown as an array) when this is no image: not height x
        width x 3 or 4 numbers, or sides past MAX_SIDE."""
        if self.ndim != 3 or self.shape[2] not in (3, 4) or 0 in self.shape[:2] \
                or max(self.shape[:2]) > MAX_SIDE or self.dtype.kind not in "uif":
            return None
        return _encode_png(_float_image(self))


def _float_image(image: npt.ArrayLike) -> np.ndarray:
    """An image as float32 values of 0..1, as the library's writers take
    them: floats as they are; uint8 as value / 255 and uint16 as
    value / 65535 (so that a saved uint8 image keeps its bytes); a plain
    ndarray."""
    image = np.asarray(image)
    if image.dtype == np.uint8:
        return image.astype(np.float32) / np.float32(255)
    if image.dtype == np.uint16:
        return (image / 65535.0).astype(np.float32)
    if image.dtype.kind == "f":
        return image.astype(np.float32, copy=False)
    raise TypeError(f"an image of {image.dtype}: quadrender takes float images (0 to 1) "
                    "and uint8 or uint16 ones")


def _library_image(image: np.ndarray, width: int, height: int):
    """A context of a library image holding a float H x W x 3 or 4 image,
    top row first (alpha 1 where not given)."""
    @contextlib.contextmanager
    def filled():
        with _image(width, height) as (img, rgba):
            rgba[..., 3] = 1.0
            rgba[..., : image.shape[2]] = image[::-1]
            yield img
    return filled()


def _encode_png(image: np.ndarray) -> bytes:
    """The PNG file save() would write for a float image, in memory
    (qr_image_encode_png; for 4 channels the file the writer writes into a
    temporary directory, which keeps the straight 8-bit values as they are,
    where qr_image_encode_png takes premultiplied floats)."""
    if image.shape[2] == 4:
        with tempfile.TemporaryDirectory(prefix="quadrender-") as d:
            path = os.path.join(d, "image.png")
            _write_rgba(to_uint8(image), path, _lib.QR_FORMAT_PNG)
            with open(path, "rb") as f:
                return f.read()
    height, width = image.shape[:2]
    png, size, err = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_size_t(), _lib.Error()
    with _library_image(image, width, height) as img:
        _check(_lib.qr_image_encode_png(img, None, ctypes.byref(png), ctypes.byref(size),
                                        ctypes.byref(err)), err)
    try:
        return ctypes.string_at(png, size.value)
    finally:
        _lib.free(png)


def to_uint8(image: npt.ArrayLike) -> np.ndarray:
    """The 8-bit values image files store: each channel clamped to [0, 1]
    (NaN as 0), times 255, truncated, as the library's writers do. A uint8
    image comes back as it is (a copy), a uint16 one scaled down."""
    image = _float_image(image)
    c = np.clip(np.nan_to_num(image, nan=0.0), np.float32(0), np.float32(1))
    return (np.float32(255) * c).astype(np.uint8)


def _write_rgba(pixels: np.ndarray, path, fmt: int) -> None:
    """Writes 8-bit straight RGBA pixels (H x W x 4, top row first) as they
    are through the library's streaming writer with alpha (a PNG of colour
    type 6); the writer refuses a format without alpha (PPM, PFM) before
    any file exists."""
    height, width = pixels.shape[:2]
    pixels = np.ascontiguousarray(pixels, np.uint8)
    opts = _lib.ImageWriteOptions(png_level=_lib.QR_PNG_LEVEL_DEFAULT, threads=0, text=None,
                                  ntext=0, alpha=1)
    w, err = ctypes.c_void_p(), _lib.Error()
    _check(_lib.qr_image_writer_open(os.fsencode(path), fmt, width, height, ctypes.byref(opts),
                                     ctypes.byref(w), ctypes.byref(err)), err)
    try:
        status = _lib.qr_image_writer_append_rgb8(w, pixels.ctypes.data, height,
                                                  ctypes.byref(err))
    except BaseException:
        _lib.qr_image_writer_abort(w)
        raise
    if status != 0:
        _lib.qr_image_writer_abort(w)
        _check(status, err)
    _check(_lib.qr_image_writer_close(w, ctypes.byref(err)), err)


def save(image: npt.ArrayLike, path: str | os.PathLike[str]) -> None:
    """Writes an H x W x 3 (or x 4) image, top row first, by the
    extension: .png, .ppm or .pfm, through the library's writers (whole or
    not at all). Float images hold 0 to 1 (clamped, as render returns
    them); uint8 images (to_uint8's, Pillow's, imageio's) are written with
    their bytes, uint16 ones as value / 65535.

    An H x W x 4 image is straight (not premultiplied) RGBA, as render
    returns it for background="none" and as Pillow holds it: a PNG keeps
    its alpha (8-bit RGBA, colour type 6, the bytes to_uint8 gives, as
    they are). PPM and PFM have no alpha channel: they take a 4-channel
    image only when it is opaque (every alpha 1, 255 in uint8), written as
    RGB; else InvalidArgument, as the library refuses it."""
    image = _float_image(image)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError(f"image must have shape (H, W, 3) or (H, W, 4), not {image.shape}")
    height, width = image.shape[:2]
    _check_size(width, height, "save")
    if image.shape[2] == 4:
        fmt = _lib.qr_image_format_from_path(os.fsencode(path))
        opaque = bool((image[..., 3] >= 1).all())
        if fmt == _lib.QR_FORMAT_PNG or (fmt != _lib.QR_FORMAT_UNKNOWN and not opaque):
            _write_rgba(to_uint8(image), path, fmt)
            return
    err = _lib.Error()
    with _library_image(image, width, height) as img:
        _check(_lib.qr_image_write(img, os.fsencode(path), ctypes.byref(err)), err)


def leaves(circles: CirclesLike, width: int, height: int | None = None, *,
           index: str = "quadtree", tile: int | None = None, capacity: int | None = None,
           min_leaf: int | None = None, max_depth: int | None = None,
           max_leaf: int | None = None, split_cost: int | None = None,
           deep_leaf: int | None = None) -> np.ndarray:
    """The index's leaves (fast mode's, built on the host) as an int64 array of rows
    x0 y0 x1 y1 depth count: each leaf's pixel rectangle [x0, x1) x [y0, y1)
    (y = 0 is the bottom row, as the library counts; an image's row is
    height - 1 - y), its depth and its circles, in depth-first order."""
    height = width if height is None else height
    width, height = _check_size(width, height, "leaves")
    circles = _as_circles(circles)
    params = _params(index, tile, capacity, min_leaf, max_depth, max_leaf, split_cost, deep_leaf)
    err = _lib.Error()
    ix = ctypes.POINTER(_lib.Index)()
    with _Scene(circles) as sc:
        _check(_lib.qr_index_build_host(sc, width, height, None, ctypes.byref(params),
                                        _lib.QR_RENDER_FAST,
                                        ctypes.cast(ctypes.byref(ix), ctypes.POINTER(ctypes.c_void_p)),
                                        ctypes.byref(err)), err)
    try:
        n = ix.contents.num_leaves
        out = np.empty((n, 6), np.int64)
        for k in range(n):
            lf = ix.contents.leaves[k]
            out[k] = (lf.rect.x0, lf.rect.y0, lf.rect.x1, lf.rect.y1, lf.depth, lf.count)
        return out
    finally:
        _lib.qr_index_destroy(ix)


def stats(circles: CirclesLike, width: int, height: int | None = None, *,
          index: str = "quadtree", tile: int | None = None, capacity: int | None = None,
          min_leaf: int | None = None, max_depth: int | None = None,
          max_leaf: int | None = None, split_cost: int | None = None,
          deep_leaf: int | None = None, extent: str | tuple | None = None,
          aspect: str | None = None) -> dict:
    """The index's statistics (fast mode's, built on the host) as a dict with the keys of
    `quadrender stats --json` (leaves per depth and side, circles per leaf,
    pairs, replication, ...); extent and aspect as render()'s (colour does
    not change an index)."""
    height = width if height is None else height
    width, height = _check_size(width, height, "stats")
    circles = _as_circles(_mapped(circles, extent, aspect))
    params = _params(index, tile, capacity, min_leaf, max_depth, max_leaf, split_cost, deep_leaf)
    err = _lib.Error()
    ix = ctypes.c_void_p()
    with _Scene(circles) as sc:
        _check(_lib.qr_index_build_host(sc, width, height, None, ctypes.byref(params),
                                        _lib.QR_RENDER_FAST, ctypes.byref(ix), ctypes.byref(err)),
               err)
    try:
        st = _lib.IndexStats()
        _check(_lib.qr_index_stats_compute(ix, _count(circles), ctypes.byref(st),
                                           ctypes.byref(err)), err)
        text, n = ctypes.c_void_p(), ctypes.c_size_t()
        _check(_lib.qr_index_stats_json(ctypes.byref(st), None, ctypes.byref(text), ctypes.byref(n),
                                        ctypes.byref(err)), err)
        try:
            return json.loads(ctypes.string_at(text, n.value))
        finally:
            _lib.free(text)
    finally:
        _lib.qr_index_destroy(ix)


from ._job import render_file, render_frames  # noqa: E402 (uses the helpers above)
from ._query import Index, Leaves  # noqa: E402 (uses the helpers above)
