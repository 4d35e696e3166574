"""Renderer.plan: it times the quadtree's candidate settings on the
circles and later renders of that mode use the fastest; the picture does
not change (exact mode: the CPU reference's bytes). Needs a GPU."""
import numpy as np
import pytest

import quadrender as qr

needs_gpu = pytest.mark.skipif(not qr.gpu_available()[0], reason="needs a GPU")


@needs_gpu
def test_plan_chooses_the_fastest_and_keeps_the_picture():
    circles = qr.scene("zoo:5")
    ref = qr.render(circles, 256, 200, mode="exact", device="reference")
    with qr.Renderer(256, 200) as r:
        plan = r.plan(circles, mode="exact", trials=2)
        times = [c["median_ms"] for c in plan["candidates"]]
        assert len(times) >= 2 and min(times) > 0
        best = plan["candidates"][times.index(min(times))]
        assert plan["chosen"] == {k: best[k] for k in plan["chosen"]}
        assert plan["plan_ms"] > 0
        assert np.array_equal(r.render(circles, mode="exact"), ref)
        # options given by hand win over the plan
        assert np.array_equal(r.render(circles, mode="exact", capacity=64), ref)


@needs_gpu
@pytest.mark.parametrize("trials", [0, 65, True, 2.0])
def test_plan_refuses_bad_trials(trials):
    with qr.Renderer(64, 64) as r:
        with pytest.raises(qr.InvalidArgument, match="trials"):
            r.plan(qr.scene("rgb"), trials=trials)


@needs_gpu
def test_plan_trials_refused_as_the_command_refuses_plan():
    import subprocess, os
    cli = os.environ.get("QUADRENDER_CLI", "quadrender")
    done = subprocess.run([cli, "render", "rgb", "--plan", "65"], capture_output=True, text=True)
    assert done.returncode == 2
    line = done.stderr.splitlines()[0].removeprefix("quadrender: ").replace("--plan", "trials")
    with qr.Renderer(64, 64) as r:
        with pytest.raises(qr.InvalidArgument) as e:
            r.plan(qr.scene("rgb"), trials=65)
    assert str(e.value) == line
