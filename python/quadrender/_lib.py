"""The C library behind the package: loading libquadrender and the few
structs the Python side reads or fills (they mirror include/quadrender/*.h;
ctypes lays them out with the platform's C alignment).

ctypes, not a compiled extension: the package then has nothing to compile
but the library itself (one CMake build serves the CLI, the C library and
Python), and every foreign call releases the GIL.
"""
import ctypes
import os
from ctypes import POINTER, Structure, c_char, c_double, c_float, c_int, c_int32, c_int64
from ctypes import c_size_t, c_uint32, c_void_p

QR_ERROR_MSG_MAX = 512
QR_MAX_DEPTH_LIMIT = 15
QR_STATS_MAX_SIDE_LOG2 = 17


class Error(Structure):
    _fields_ = [("status", c_int), ("msg", c_char * QR_ERROR_MSG_MAX)]


class Scene(Structure):
    _fields_ = [("n", c_int32)] + [
        (name, POINTER(c_float))
        for name in ("x", "y", "z", "r", "red", "green", "blue", "vx", "vy", "vz",
                     "x0", "y0", "vx0", "vy0", "block")
    ] + [("block_floats", c_size_t), ("shading", c_int), ("anim", c_int),
         ("steps", c_int64), ("name", c_char * 64), ("alpha", POINTER(c_float)),
         ("background", c_float * 3), ("antialias", c_int32), ("transparent", c_int32)]


class Image(Structure):
    _fields_ = [("width", c_int32), ("height", c_int32), ("rgba", POINTER(c_float))]


class IndexParams(Structure):
    _fields_ = [(name, c_int32) for name in
                ("capacity", "min_leaf", "max_depth", "uniform", "max_leaf", "split_cost",
                 "deep_leaf")]


QR_PLAN_MAX = 8


class Plan(Structure):
    _fields_ = [("candidates", c_int32), ("chosen", c_int32),
                ("params", IndexParams * QR_PLAN_MAX), ("median_ms", ctypes.c_float * QR_PLAN_MAX),
                ("plan_ms", ctypes.c_double)]


class GpuInfo(Structure):
    _fields_ = [("device", c_int), ("name", c_char * 256), ("cc_major", c_int),
                ("cc_minor", c_int), ("sm_count", c_int), ("mem_total", c_size_t),
                ("mem_free", c_size_t), ("clock_khz", c_int), ("mem_clock_khz", c_int),
                ("runtime_version", c_int), ("driver_version", c_int),
                ("mem_bus_bits", c_int)]


class IndexStats(Structure):
    _fields_ = [("root_size", c_int32), ("nodes", c_int32), ("leaves", c_int32),
                ("max_depth", c_int32),
                ("leaves_per_depth", c_int32 * (QR_MAX_DEPTH_LIMIT + 1)),
                ("leaves_per_side", c_int32 * (QR_STATS_MAX_SIDE_LOG2 + 1)),
                ("clipped_leaves", c_int32), ("min_per_leaf", c_int32),
                ("max_per_leaf", c_int32), ("p90_per_leaf", c_int32),
                ("p99_per_leaf", c_int32), ("mean_per_leaf", c_double),
                ("median_per_leaf", c_double), ("empty_leaves", c_int32),
                ("pairs", c_int64), ("visible", c_int32), ("culled", c_int32),
                ("replication", c_double)]


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(here)):
        if name.startswith("libquadrender.so"):
            yield os.path.join(here, name)
    yield "libquadrender.so.0"


def _load():
    # a library named by QUADRENDER_LIBRARY is the one used, or none: falling
    # back to another would hide which build runs
    env = os.environ.get("QUADRENDER_LIBRARY")
    if env:
        try:
            return ctypes.CDLL(env)
        except OSError as e:
            raise ImportError(f"quadrender: QUADRENDER_LIBRARY={env} cannot be loaded: {e}") from None
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise ImportError("quadrender: cannot load libquadrender (set QUADRENDER_LIBRARY): "
                      + "; ".join(tried))


lib = _load()

_S = c_int  # qr_status
_P = c_void_p


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


qr_scene_create = _fn("qr_scene_create", _S, c_int32, c_int, POINTER(POINTER(Scene)), POINTER(Error))
qr_scene_destroy = _fn("qr_scene_destroy", None, POINTER(Scene))
qr_scene_clone = _fn("qr_scene_clone", _S, POINTER(Scene), POINTER(POINTER(Scene)),
                     POINTER(Error))
qr_scene_builtin = _fn("qr_scene_builtin", _S, ctypes.c_char_p, c_uint32,
                       POINTER(POINTER(Scene)), POINTER(Error))
qr_scene_seek_frame = _fn("qr_scene_seek_frame", _S, POINTER(Scene), c_int64, POINTER(Error))
qr_index_params_default = _fn("qr_index_params_default", None, POINTER(IndexParams))
qr_index_params_check = _fn("qr_index_params_check", _S, POINTER(IndexParams), POINTER(Error))
# the checks of a user's values (quadrender/text.h): name, text, out, error
qr_image_check_side = _fn("qr_image_check_side", _S, ctypes.c_char_p, ctypes.c_char_p,
                          POINTER(c_int32), POINTER(Error))
qr_image_check_whole = _fn("qr_image_check_whole", _S, ctypes.c_char_p, ctypes.c_char_p,
                           ctypes.c_char_p, c_int32, c_int32, c_int32, POINTER(Error))
qr_scene_check_seed = _fn("qr_scene_check_seed", _S, ctypes.c_char_p, ctypes.c_char_p,
                          POINTER(c_uint32), POINTER(Error))
qr_threads_check = _fn("qr_threads_check", _S, ctypes.c_char_p, ctypes.c_char_p, POINTER(c_int),
                       POINTER(Error))
qr_index_check_kind = _fn("qr_index_check_kind", _S, ctypes.c_char_p, ctypes.c_char_p,
                          POINTER(c_int32), POINTER(Error))
qr_index_check_tile = _fn("qr_index_check_tile", _S, ctypes.c_char_p, ctypes.c_char_p,
                          POINTER(c_int32), POINTER(Error))
qr_index_check_options = _fn("qr_index_check_options", _S, c_int32, ctypes.c_uint,
                             POINTER(ctypes.c_char_p), POINTER(Error))
qr_index_check_value = _fn("qr_index_check_value", _S, c_int, ctypes.c_char_p, ctypes.c_char_p,
                           POINTER(c_int32), POINTER(Error))
# QR_IXO_*: the index options in the order qr_index_check_options numbers them
(QR_IXO_CAPACITY, QR_IXO_MIN_LEAF, QR_IXO_MAX_DEPTH, QR_IXO_INDEX, QR_IXO_TILE, QR_IXO_MAX_LEAF,
 QR_IXO_SPLIT_COST, QR_IXO_DEEP_LEAF, QR_IXO_COUNT) = range(9)
qr_scene_check_frame = _fn("qr_scene_check_frame", _S, ctypes.c_char_p, ctypes.c_char_p,
                           POINTER(c_int64), POINTER(Error))
qr_image_check_png_level = _fn("qr_image_check_png_level", _S, ctypes.c_char_p, ctypes.c_char_p,
                               POINTER(c_int), POINTER(Error))
qr_image_check_png_deflate = _fn("qr_image_check_png_deflate", _S, ctypes.c_char_p,
                                 ctypes.c_char_p, POINTER(c_int), POINTER(Error))
qr_job_check_device = _fn("qr_job_check_device", _S, ctypes.c_char_p, ctypes.c_char_p,
                          POINTER(c_int), POINTER(Error))
qr_job_check_frames = _fn("qr_job_check_frames", _S, ctypes.c_char_p, ctypes.c_char_p,
                          POINTER(c_int64), POINTER(c_int64), POINTER(Error))
qr_job_check_chunk = _fn("qr_job_check_chunk", _S, ctypes.c_char_p, ctypes.c_char_p,
                         POINTER(c_int32), POINTER(Error))
# a .npy read chunk by chunk (quadrender/scene.h)
qr_scene_stream_open = _fn("qr_scene_stream_open", _S, ctypes.c_char_p, POINTER(ctypes.c_void_p),
                           POINTER(Error))
qr_scene_stream_close = _fn("qr_scene_stream_close", None, ctypes.c_void_p)
qr_scene_check_circles = _fn("qr_scene_check_circles", _S, POINTER(Scene), ctypes.c_char_p,
                             POINTER(Error))
# circles in data coordinates, coloured by a value (quadrender/scene_map.h)
QR_COLORMAP_COUNT, QR_COLORMAP_ENTRIES = 6, 256
qr_extent_check = _fn("qr_extent_check", _S, ctypes.c_char_p, ctypes.c_char_p, POINTER(c_double),
                      POINTER(c_int), POINTER(Error))
qr_aspect_check = _fn("qr_aspect_check", _S, ctypes.c_char_p, ctypes.c_char_p, POINTER(c_int),
                      POINTER(Error))
qr_colormap_check = _fn("qr_colormap_check", _S, ctypes.c_char_p, ctypes.c_char_p, POINTER(c_int),
                        POINTER(Error))
qr_norm_check = _fn("qr_norm_check", _S, ctypes.c_char_p, ctypes.c_char_p, POINTER(c_int),
                    POINTER(Error))
qr_scene_set_antialias = _fn("qr_scene_set_antialias", _S, POINTER(Scene), c_int,
                             ctypes.c_char_p, POINTER(Error))
qr_alpha_check = _fn("qr_alpha_check", _S, ctypes.c_char_p, ctypes.c_char_p, POINTER(c_float),
                     POINTER(Error))
# out: rgb[3], and *transparent ("none": 1), or NULL where "none" is no value
qr_background_check = _fn("qr_background_check", _S, ctypes.c_char_p, ctypes.c_char_p,
                          POINTER(c_float), POINTER(c_int), POINTER(Error))
qr_scene_set_alpha = _fn("qr_scene_set_alpha", _S, POINTER(Scene), POINTER(c_float),
                         ctypes.c_char_p, POINTER(Error))
qr_scene_set_background = _fn("qr_scene_set_background", _S, POINTER(Scene), POINTER(c_float),
                              ctypes.c_char_p, POINTER(Error))
qr_scene_set_transparent = _fn("qr_scene_set_transparent", _S, POINTER(Scene), c_int,
                               ctypes.c_char_p, POINTER(Error))
qr_value_check = _fn("qr_value_check", _S, ctypes.c_char_p, ctypes.c_char_p, POINTER(c_double),
                     POINTER(Error))
qr_colormap_names = _fn("qr_colormap_names", POINTER(ctypes.c_char_p), POINTER(c_int))
qr_colormap_rgb = _fn("qr_colormap_rgb", POINTER(c_float), c_int)
qr_scene_map_check_options = _fn("qr_scene_map_check_options", _S, ctypes.c_uint,
                                 POINTER(ctypes.c_char_p), POINTER(Error))
qr_scene_fit_extent = _fn("qr_scene_fit_extent", _S, POINTER(Scene), POINTER(c_double), c_int,
                          POINTER(c_double), POINTER(Error))
qr_scene_color_by = _fn("qr_scene_color_by", _S, POINTER(Scene), POINTER(c_float), c_int, c_int,
                        c_double, c_double, POINTER(Error))
qr_image_check_fits = _fn("qr_image_check_fits", _S, c_int32, c_int32, c_uint32, POINTER(Error))
qr_host_memory_available = _fn("qr_host_memory_available", ctypes.c_uint64)
qr_index_check_plan = _fn("qr_index_check_plan", _S, ctypes.c_char_p, ctypes.c_char_p,
                          POINTER(c_int32), POINTER(Error))
qr_host_memory_set_budget = _fn("qr_host_memory_set_budget", None, ctypes.c_uint64)
qr_image_create = _fn("qr_image_create", _S, c_int32, c_int32, POINTER(POINTER(Image)),
                      POINTER(Error))
qr_image_destroy = _fn("qr_image_destroy", None, POINTER(Image))
qr_image_write = _fn("qr_image_write", _S, POINTER(Image), ctypes.c_char_p, POINTER(Error))


class ImageWriteOptions(Structure):
    """qr_image_write_options (quadrender/image.h); text is a
    qr_image_text array, which Python never fills."""
    _fields_ = [("png_level", c_int), ("threads", c_int), ("text", c_void_p), ("ntext", c_int),
                ("alpha", c_int), ("deflate", c_int)]


QR_PNG_LEVEL_DEFAULT = 1
QR_FORMAT_UNKNOWN, QR_FORMAT_PNG, QR_FORMAT_PPM, QR_FORMAT_PFM = range(4)  # qr_image_format
qr_image_format_from_path = _fn("qr_image_format_from_path", c_int, ctypes.c_char_p)
# the streaming writer: rows in the file's order, 8-bit RGB (or RGBA with alpha)
qr_image_writer_open = _fn("qr_image_writer_open", _S, ctypes.c_char_p, c_int, c_int32, c_int32,
                           POINTER(ImageWriteOptions), POINTER(_P), POINTER(Error))
qr_image_writer_append_rgb8 = _fn("qr_image_writer_append_rgb8", _S, _P, _P, c_int32,
                                  POINTER(Error))
qr_image_writer_close = _fn("qr_image_writer_close", _S, _P, POINTER(Error))
qr_image_writer_abort = _fn("qr_image_writer_abort", None, _P)
qr_render_cpu = _fn("qr_render_cpu", _S, POINTER(Scene), POINTER(Image), POINTER(Error))
qr_render_cpu_fast = _fn("qr_render_cpu_fast", _S, POINTER(Scene), POINTER(IndexParams), c_int,
                         c_int, POINTER(Image), _P, POINTER(Error))
qr_gpu_probe = _fn("qr_gpu_probe", _S, POINTER(GpuInfo), POINTER(Error))
qr_gpu_scene_create = _fn("qr_gpu_scene_create", _S, POINTER(Scene), POINTER(_P), POINTER(Error))
qr_gpu_scene_destroy = _fn("qr_gpu_scene_destroy", None, _P)
qr_gpu_renderer_create = _fn("qr_gpu_renderer_create", _S, c_int32, c_int32, POINTER(_P),
                             POINTER(Error))
qr_gpu_renderer_destroy = _fn("qr_gpu_renderer_destroy", None, _P)
qr_gpu_render = _fn("qr_gpu_render", _S, _P, _P, POINTER(IndexParams), c_int, POINTER(Error))
qr_gpu_renderer_plan = _fn("qr_gpu_renderer_plan", _S, _P, _P, POINTER(IndexParams), c_int,
                           c_int32, POINTER(Plan), POINTER(Error))
qr_gpu_renderer_download = _fn("qr_gpu_renderer_download", _S, _P, POINTER(Image), POINTER(Error))
QR_RENDER_FAST = 0  # qr_render_mode
qr_index_build_host = _fn("qr_index_build_host", _S, POINTER(Scene), c_int32, c_int32, _P,
                          POINTER(IndexParams), c_int, POINTER(_P), POINTER(Error))
qr_index_destroy = _fn("qr_index_destroy", None, _P)
qr_index_stats_compute = _fn("qr_index_stats_compute", _S, _P, c_int32, POINTER(IndexStats),
                             POINTER(Error))
qr_index_stats_json = _fn("qr_index_stats_json", _S, POINTER(IndexStats), _P,
                          POINTER(ctypes.c_void_p), POINTER(ctypes.c_size_t), POINTER(Error))

_libc = ctypes.CDLL(None)
free = _libc.free
free.restype = None
free.argtypes = [_P]
qr_image_encode_png = _fn("qr_image_encode_png", _S, POINTER(Image), _P,
                          POINTER(POINTER(ctypes.c_ubyte)), POINTER(ctypes.c_size_t),
                          POINTER(Error))
qr_gpu_scene_create_device = _fn("qr_gpu_scene_create_device", _S, _P, c_int32, POINTER(_P),
                                 POINTER(Error))
qr_gpu_scene_update_device = _fn("qr_gpu_scene_update_device", _S, _P, _P, c_int32,
                                 POINTER(Error))
qr_gpu_renderer_copy_image = _fn("qr_gpu_renderer_copy_image", _S, _P, _P, POINTER(Error))
# host rows through the scene's kept pinned staging; the image as top-first float RGB
qr_gpu_scene_create_host = _fn("qr_gpu_scene_create_host", _S, _P, c_int32, c_int, POINTER(_P),
                               POINTER(Error))
qr_gpu_scene_update_host = _fn("qr_gpu_scene_update_host", _S, _P, _P, c_int32, c_int,
                               POINTER(Error))
qr_gpu_renderer_download_rgb = _fn("qr_gpu_renderer_download_rgb", _S, _P, _P, c_int,
                                   POINTER(Error))


class Rect(Structure):
    _fields_ = [("x0", c_int32), ("y0", c_int32), ("x1", c_int32), ("y1", c_int32)]


class Leaf(Structure):
    _fields_ = [("rect", Rect), ("depth", c_int32), ("count", c_int32), ("offset", c_int64)]


class Index(Structure):
    _fields_ = [("width", c_int32), ("height", c_int32), ("region", Rect), ("params", IndexParams),
                ("mode", c_int), ("root_size", c_int32), ("num_nodes", c_int32), ("num_leaves", c_int32),
                ("max_depth_reached", c_int32), ("visible", c_int32), ("culled", c_int32),
                ("num_pairs", c_int64), ("leaves", POINTER(Leaf)), ("lists", POINTER(c_int32))]


# ---- queries (include/quadrender/query.h, gpu_query.h) ----------------------
QR_QUERY_TOP, QR_QUERY_COUNT, QR_QUERY_ALL = 0, 1, 2  # qr_query_mode


class QueryResult(Structure):
    _fields_ = [("queries", c_int64), ("mode", c_int), ("values", POINTER(c_int32)),
                ("offsets", POINTER(c_int64)), ("ids", POINTER(c_int32))]


_FP = POINTER(c_float)
_QR = POINTER(QueryResult)
qr_query_check_mode = _fn("qr_query_check_mode", _S, ctypes.c_char_p, ctypes.c_char_p,
                          POINTER(c_int), POINTER(Error))
qr_query_check_resolution = _fn("qr_query_check_resolution", _S, ctypes.c_char_p,
                                ctypes.c_char_p, POINTER(c_int32), POINTER(Error))
qr_query_check_boxes = _fn("qr_query_check_boxes", _S, _FP, c_int64, POINTER(Error))
qr_query_result_free = _fn("qr_query_result_free", None, _QR)
qr_query_resolution = _fn("qr_query_resolution", c_int32, POINTER(Scene))
qr_query_index_build = _fn("qr_query_index_build", _S, POINTER(Scene), c_int32,
                           POINTER(IndexParams), c_int32, POINTER(_P), POINTER(Error))
qr_query_index_destroy = _fn("qr_query_index_destroy", None, _P)
qr_query_index_resolution = _fn("qr_query_index_resolution", c_int32, _P)
qr_query_index_tree = _fn("qr_query_index_tree", POINTER(Index), _P)
qr_query_points = _fn("qr_query_points", _S, _P, _FP, c_int64, c_int, c_int32, _QR,
                      POINTER(Error))
qr_query_boxes = _fn("qr_query_boxes", _S, _P, _FP, c_int64, c_int, c_int32, _QR,
                     POINTER(Error))
qr_query_points_brute = _fn("qr_query_points_brute", _S, POINTER(Scene), _FP, c_int64, c_int,
                            _QR, POINTER(Error))
qr_query_boxes_brute = _fn("qr_query_boxes_brute", _S, POINTER(Scene), _FP, c_int64, c_int,
                           _QR, POINTER(Error))
qr_gpu_query_create = _fn("qr_gpu_query_create", _S, POINTER(Scene), c_int32,
                          POINTER(IndexParams), POINTER(_P), POINTER(Error))
qr_gpu_query_destroy = _fn("qr_gpu_query_destroy", None, _P)
qr_gpu_query_resolution = _fn("qr_gpu_query_resolution", c_int32, _P)
# the device functions take device pointers (ints), the host ones host arrays
qr_gpu_query_points = _fn("qr_gpu_query_points", _S, _P, _P, c_int64, c_int, _QR,
                          POINTER(Error))
qr_gpu_query_boxes = _fn("qr_gpu_query_boxes", _S, _P, _P, c_int64, c_int, _QR, POINTER(Error))
qr_gpu_query_points_host = _fn("qr_gpu_query_points_host", _S, _P, _FP, c_int64, c_int, _QR,
                               POINTER(Error))
qr_gpu_query_boxes_host = _fn("qr_gpu_query_boxes_host", _S, _P, _FP, c_int64, c_int, _QR,
                              POINTER(Error))
qr_gpu_scene_download = _fn("qr_gpu_scene_download", _S, _P, POINTER(Scene), POINTER(Error))
