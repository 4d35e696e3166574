"""Memory checked before it is spent (#37 item 1, row 2): an image the
process cannot hold raises quadrender.OutOfMemory (an Error and a
MemoryError) naming the bytes, before anything is allocated, instead of the
interpreter being killed when the pages are used. Each case runs in a child
interpreter under an address-space limit (RLIMIT_AS) of what it maps plus
2 GiB, so that it behaves the same on any machine."""
import json
import subprocess
import sys
import textwrap

import pytest

import quadrender as qr

_CHILD = textwrap.dedent("""
    import json, os, resource, sys
    import quadrender as qr
    if len(sys.argv) > 2:
        exec(sys.argv[2])  # before the limit: CUDA reserves address space as it starts
    with open("/proc/self/statm") as f:
        mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = mapped + (2 << 30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    try:
        result = {"value": repr(eval(sys.argv[1]))[:80]}
    except BaseException as e:
        result = {"type": type(e).__name__, "memory": isinstance(e, MemoryError),
                  "error": isinstance(e, qr.Error), "status": getattr(e, "status", None),
                  "message": str(e)}
    print(json.dumps(result))
""")


def limited(expr, before=None):
    """What evaluating expr does in a child under the limit (after running
    the statements `before` without it): its value's repr, or the
    exception it raised."""
    done = subprocess.run([sys.executable, "-c", _CHILD, expr] + ([before] if before else []),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.returncode, done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_out_of_memory_is_an_error_and_a_memory_error():
    assert issubclass(qr.OutOfMemory, qr.Error) and issubclass(qr.OutOfMemory, MemoryError)


@pytest.mark.parametrize("device", ["auto", "cpu", "cpu-reference"])
def test_render_too_large_raises_memory_error(device):
    if device == "auto" and qr.gpu_available()[0]:
        pytest.skip("auto renders on the GPU here: test_renderer_download_too_large")
    got = limited(f"qr.render(qr.scene('rand10k'), 32768, 32768, device={device!r})")
    assert got.get("type") == "OutOfMemory", got
    assert got["memory"] and got["error"] and got["status"] == 4, got
    # the float RGBA image and the RGB copy returned: 28 bytes a pixel
    assert "a 32768x32768 image needs 30064771072 bytes (28.0 GiB) of host memory" in \
        got["message"], got


def test_render_frames_to_a_function_too_large_raises_memory_error():
    got = limited("qr.render_frames('rgb', 32768, out=lambda k, img: None, device='cpu')")
    assert got.get("type") == "OutOfMemory" and got["memory"], got
    assert "30064771072 bytes" in got["message"], got


def test_what_fits_still_renders():
    got = limited("qr.render(qr.scene('rgb'), 256, device='cpu').shape")
    assert got == {"value": "(256, 256, 3)"}, got
    # streamed to a file, a large image needs no whole image in memory
    got = limited("qr.render_file('rgb', 16384, 64, out='/dev/null', format='ppm', device='cpu')")
    assert got == {"value": "1"}, got


@pytest.mark.skipif(not qr.gpu_available()[0], reason="no usable GPU")
def test_renderer_download_too_large():
    got = limited("r.render(qr.scene('rgb'))", before="r = qr.Renderer(32768)")
    assert got.get("type") == "OutOfMemory" and got["memory"], got
    assert "30064771072 bytes" in got["message"], got


def test_a_budget_refuses_what_it_cannot_hold():
    # 4096^2 needs 28 bytes a pixel, 448 MiB: past a 64 MiB budget, inside none
    got = limited("(qr.set_memory_budget(64 << 20), qr.render(qr.scene('rgb'), 4096, device='cpu'))")
    assert got.get("type") == "OutOfMemory" and got["memory"], got
    assert "469762048 bytes" in got["message"], got
    got = limited("(qr.set_memory_budget(64 << 20), qr.set_memory_budget(0),"
                  " qr.render(qr.scene('rgb'), 1024, device='cpu').shape)[-1]")
    assert got == {"value": "(1024, 1024, 3)"}, got
    with pytest.raises(qr.InvalidArgument, match="memory budget"):
        qr.set_memory_budget(-1)
