"""CUDA arrays through DLPack, read in place: for a GPU array that has no
__cuda_array_interface__ (JAX, a PyTorch tensor behind a wrapper, ...).

The capsule's DLManagedTensor (dlpack.h; the unversioned capsule named
"dltensor", which __dlpack__ returns when called without max_version) is read
with ctypes. The capsule is not marked as used: its own destructor then hands
the tensor back to the producer when the capsule is freed, so holding the
capsule holds the producer's memory.
"""
import ctypes
from ctypes import POINTER, Structure, c_int32, c_int64, c_uint8, c_uint16, c_uint64, c_void_p

import numpy as np

KDL_CPU = 1
KDL_CUDA = 2

# DLDataTypeCode: the letters of NumPy's typestr
_TYPE_LETTERS = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32),
                ("dtype", DLDataType), ("shape", POINTER(c_int64)),
                ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLManagedTensor(Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", c_void_p)]


_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype = ctypes.c_int
_capsule_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def device_type(obj):
    """obj's DLPack device type (KDL_CPU, KDL_CUDA, ...), or None when obj
    does not speak DLPack."""
    if not hasattr(obj, "__dlpack__") or not hasattr(obj, "__dlpack_device__"):
        return None
    return int(obj.__dlpack_device__()[0])


def host_view(obj, what):
    """obj itself, or, for a non-NumPy object that speaks DLPack (a PyTorch
    CPU tensor, ...), a NumPy view of its host memory; a DLPack array on any
    other device raises TypeError naming `what`."""
    if isinstance(obj, np.ndarray) or not hasattr(obj, "__dlpack__"):
        return obj
    device = device_type(obj)
    if device not in (None, KDL_CPU):
        raise TypeError(f"{what} on DLPack device type {device}: quadrender reads host "
                        "arrays and CUDA arrays")
    return np.from_dlpack(obj)


def describe(capsule):
    """What a DLPack capsule says of its array, in the terms of
    __cuda_array_interface__: a dict of shape, typestr, strides (bytes, or
    None for C order), data (pointer, read-only flag) and device (DLPack
    type, ordinal)."""
    if not _capsule_valid(capsule, b"dltensor"):
        raise TypeError("circles: __dlpack__ returned no DLPack tensor capsule")
    t = DLManagedTensor.from_address(_capsule_pointer(capsule, b"dltensor")).dl_tensor
    shape = tuple(t.shape[k] for k in range(t.ndim))
    size = t.dtype.bits // 8
    letter = _TYPE_LETTERS.get(t.dtype.code, f"?{t.dtype.code}")
    typestr = f"<{letter}{size}" + (f"x{t.dtype.lanes}" if t.dtype.lanes != 1 else "")
    strides = tuple(t.strides[k] * size for k in range(t.ndim)) if t.strides else None
    return {"shape": shape, "typestr": typestr, "strides": strides,
            "data": ((t.data or 0) + t.byte_offset, False),
            "device": (t.device.device_type, t.device.device_id)}


def cuda_array(obj):
    """describe() of obj's DLPack capsule, which must be of a CUDA array,
    with the capsule under "capsule": hold it while the memory is read."""
    # stream=1: the legacy default stream, the one the library's kernels run
    # on; the producer makes it wait for the array's pending writes (the
    # library waits for the whole device before reading, too). None would
    # mean the same in the protocol; naming it leaves producers no doubt.
    capsule = obj.__dlpack__(stream=1)
    a = describe(capsule)
    if a["device"][0] != KDL_CUDA:
        raise TypeError(f"circles: __dlpack_device__ says CUDA, but the DLPack tensor is on "
                        f"device type {a['device'][0]}")
    a["capsule"] = capsule
    return a
