"""An array wrapper that speaks only DLPack, for the tests."""


class DLPackOnly:
    """An array, on the host or on the GPU, that speaks only DLPack (as
    another library's would: no __cuda_array_interface__)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()
