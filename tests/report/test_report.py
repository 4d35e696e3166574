"""The HTML reports of `quadrender stats --report` and `bench --report`.

Two suites, run by ctest as `report.data` and `report.browser`:

  data     the pages are well-formed, self-contained HTML whose embedded data
           matches what the program says elsewhere: `stats --json` of the same
           run, the leaves against the statistics (count, depths, pairs, the
           image tiled), the grid against its tile, the picture against the
           image size; with a GPU, `bench --report` on real measurements.
  browser  headless Chromium loads each page from a file: no console error,
           nothing fetched, and on a screenshot the picture and the leaves'
           edges are where the data puts them; hovering a leaf tells its list.

Environment (set by tests/CMakeLists.txt): QUADRENDER_CLI, the program;
QR_BENCH_PAGE, tests/report/bench_page (a bench page from made-up rows);
QR_REPORT_TMP, a scratch directory. Usage: test_report.py data|browser
"""
import base64
import json
import os
import subprocess
import sys
import unittest
import zlib
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

CLI = os.environ.get("QUADRENDER_CLI", "quadrender")
BENCH_PAGE = os.environ.get("QR_BENCH_PAGE", "bench_page")
TMP = os.environ.get("QR_REPORT_TMP") or os.path.join("/tmp", "qr_report_%d" % os.getpid())
os.makedirs(TMP, exist_ok=True)
SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests

VOID = {"meta", "link", "br", "hr", "img", "input", "source", "area", "base", "col", "wbr"}


class Page(HTMLParser):
    """Checks tags nest and close, and collects the data element, every
    attribute that could load something and the inline scripts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.urls, self.scripts = [], [], [], []
        self.doctype, self.data, self._in = None, None, None

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href", "srcset", "action", "poster", "data"):
            if k in a:
                self.urls.append(a[k])
        if tag not in VOID:
            self.stack.append(tag)
        self._in = (tag, a)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()

    def handle_data(self, text):
        if self._in and self._in[0] == "script":
            if self._in[1].get("id") == "qr-data":
                self.data = (self.data or "") + text
            else:
                self.scripts.append(text)
        elif self._in and self._in[0] == "style":
            self.scripts.append(text)


def parse_page(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p = Page()
    p.feed(text)
    p.close()
    return text, p


def run(*args, ok=(0,)):
    r = subprocess.run([CLI] + list(args), capture_output=True, text=True)
    if r.returncode not in ok:
        raise AssertionError("quadrender %s: exit %d\n%s" % (" ".join(args), r.returncode, r.stderr))
    return r


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def gpu_usable():
    return run("stats", "rgb", "-s", "16", "--device", "gpu", ok=(0, 5)).returncode == 0


def stats_page(name, *args):
    """`stats --report` and `--json` of one run: (page path, json path)."""
    html, js = os.path.join(TMP, name + ".html"), os.path.join(TMP, name + ".json")
    run("stats", *args, "--report", html, "--json", js, "-q")
    return html, js


def values_npy(name, values):
    """A 1-D float32 .npy file of values (what --color-by reads); its path."""
    import struct
    path = os.path.join(TMP, name)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))
    return path


def rounded_float32(v):
    import struct
    return struct.unpack("<f", struct.pack("<f", v))[0]


def quantile(sorted_values, q):
    """Linear between neighbours, as numpy.quantile's default."""
    x = q * (len(sorted_values) - 1)
    i = int(x)
    j = min(i + 1, len(sorted_values) - 1)
    return sorted_values[i] + (x - i) * (sorted_values[j] - sorted_values[i])


class Data(unittest.TestCase):
    def check_page(self, path):
        text, p = parse_page(path)
        self.assertEqual(p.doctype.lower(), "doctype html")
        self.assertEqual(p.problems, [])
        self.assertEqual(p.stack, [], "unclosed tags")
        self.assertEqual(p.urls, [], "the page refers to other files")
        for s in p.scripts:  # nothing imported, fetched or loaded by the code
            s = s.replace('"http://www.w3.org/2000/svg"', "")  # SVG's namespace: a name, not a link
            for word in ("http://", "https://", "@import", "fetch(", "XMLHttpRequest", "url("):
                self.assertFalse(word in s, "the page's code holds " + word)
        self.assertEqual(text.count("<script"), 2, "one data element and one script")
        return json.loads(p.data)

    def check_stats(self, name, args, tile=None):
        html, js = stats_page(name, *args)
        d = self.check_page(html)
        with open(js) as f:
            stats = json.load(f)
        self.assertEqual(d["kind"], "stats")
        self.assertEqual(d["stats"], stats)
        W, H = stats["image"]["width"], stats["image"]["height"]
        img = d["image"]
        self.assertEqual((img["width"], img["height"]), (W, H))
        k = img["scale"]
        self.assertEqual(png_size(base64.b64decode(img["png"])), (-(-W // k), -(-H // k)))
        quad, grid = d["indexes"]
        self.assertEqual(quad["name"], "quadtree")
        self.check_leaves(quad, W, H)
        self.check_leaves(grid, W, H)
        lv = quad["leaves"]
        tree = stats["tree"]
        self.assertEqual(len(lv["x0"]), tree["leaves"])
        self.assertEqual(quad["num_leaves"], tree["leaves"])
        per_depth = [0] * len(tree["leaves_per_depth"])
        for dep in lv["depth"]:
            per_depth[dep] += 1
        self.assertEqual(per_depth, tree["leaves_per_depth"])
        self.assertEqual(sum(lv["count"]), stats["circles"]["pairs"])
        self.assertEqual(quad["pairs"], stats["circles"]["pairs"])
        self.assertEqual(max(lv["count"]), stats["circles_per_leaf"]["max"])
        # the grid: every leaf the tile, clipped to the image
        t = grid["tile"]
        self.assertEqual(grid["name"], "grid%d" % t)
        g = grid["leaves"]
        self.assertEqual(len(g["x0"]), -(-W // t) * -(-H // t))
        for i in range(len(g["x0"])):
            self.assertEqual(g["x0"][i] % t, 0)
            self.assertEqual(g["x1"][i], min(W, g["x0"][i] + t))
        # frames: the quadtree and the grids timed, the grid shown the fastest
        # (or the chosen tile)
        frames = {f["index"]: f["times"]["frame_ms"] for f in d["frames"]}
        grids = {k: v for k, v in frames.items() if k != "quadtree"}
        self.assertIn("quadtree", frames)
        if tile:
            self.assertTrue(d["grid_chosen"])
            self.assertEqual(list(grids), ["grid%d" % tile])
        else:
            self.assertFalse(d["grid_chosen"])
            self.assertEqual(sorted(grids), sorted("grid%d" % s for s in (16, 32, 64, 128, 256)))
            self.assertEqual(grid["name"], min(grids, key=grids.get))
        for f in d["frames"]:
            self.assertGreater(f["times"]["frame_ms"], 0)
        return d

    def check_leaves(self, ix, W, H):
        lv = ix["leaves"]
        n = len(lv["x0"])
        area = 0
        for i in range(n):
            x0, y0, x1, y1 = lv["x0"][i], lv["y0"][i], lv["x1"][i], lv["y1"][i]
            self.assertTrue(0 <= x0 < x1 <= W and 0 <= y0 < y1 <= H, (x0, y0, x1, y1))
            area += (x1 - x0) * (y1 - y0)
            c, first, last = lv["count"][i], lv["first"][i], lv["last"][i]
            if c == 0:
                self.assertEqual((first, last), (-1, -1))
            else:
                self.assertTrue(0 <= first <= last, (first, last))
                self.assertTrue(c == 1 or first < last)
        self.assertEqual(area, W * H, "the leaves tile the image")

    def test_stats_page_matches_the_statistics(self):
        self.check_stats("rand10k", ["rand10k", "--width", "200", "--height", "136"])

    def test_crowded_scene_and_a_chosen_tile(self):
        d = self.check_stats("hotspot", ["hotspot", "-s", "512", "--report-tile", "32"], tile=32)
        self.assertGreater(d["stats"]["tree"]["max_depth"], 3, "leaves small where circles crowd")

    def test_animated_frame(self):
        self.check_stats("hypnosis", ["hypnosis", "-s", "96", "--frame", "7", "--min-leaf", "16"])

    def test_colour_bar(self):
        # rand10k's circles coloured by a value: the page's bar is the
        # colormap's entries (the first and the last are the colours a dump
        # gives the circles at vmin and vmax), and its labels the values at
        # the ticks, for each norm; without --color-by there is no bar
        n = 10000
        values = [rounded_float32(1.0 + ((i * 7919) % n) ** 1.5 / 1000.0) for i in range(n)]
        npy = values_npy("values.npy", values)
        lo, hi = min(values), max(values)
        ordered = sorted(values)
        for norm, extra in (("linear", []), ("log", ["--vmin", "2", "--vmax", "900"]),
                            ("eq_hist", [])):
            html, _ = stats_page("bar_" + norm, "rand10k", "-s", "128", "--color-by", npy,
                                 "--cmap", "magma", "--norm", norm, *extra)
            bar = self.check_page(html)["colorbar"]
            self.assertEqual((bar["cmap"], bar["norm"]), ("magma", norm))
            self.assertEqual(len(bar["colors"]), 256)
            vmin, vmax = (2.0, 900.0) if extra else (lo, hi)
            self.assertAlmostEqual(bar["vmin"], vmin, places=4)
            self.assertAlmostEqual(bar["vmax"], vmax, places=4)
            ticks = bar["ticks"]
            self.assertEqual([t for t, _ in ticks], [0, 0.25, 0.5, 0.75, 1])
            for t, v in ticks:
                want = (vmin + t * (vmax - vmin) if norm == "linear"
                        else vmin * (vmax / vmin) ** t if norm == "log"
                        else quantile(ordered, t))
                self.assertAlmostEqual(v, want, delta=1e-6 * max(1.0, abs(want)), msg=(norm, t))
            # the ends of the bar are the colours of the least and the greatest value
            dump = os.path.join(TMP, "bar_%s.circles" % norm)
            run("dump", "rand10k", "--color-by", npy, "--cmap", "magma", "--norm", norm, *extra,
                "-o", dump, "-q")
            with open(dump) as f:
                rows = [line.split() for line in f if line[0] in "0123456789.-"]
            rows = [r for r in rows if len(r) == 7]
            for value, end in ((lo, bar["colors"][0]), (hi, bar["colors"][-1])):
                rgb = rows[values.index(value)][4:7]
                self.assertEqual("#" + "".join("%02x" % round(float(c) * 255) for c in rgb), end)
        html, _ = stats_page("no_bar", "rand10k", "-s", "64")
        self.assertNotIn("colorbar", self.check_page(html))

    def test_million_circle_page_is_small(self):
        html, _ = stats_page("rand1M", "rand1M", "-s", "1024")
        size = os.path.getsize(html)
        self.assertLess(size, 5 * 1024 * 1024, "%d bytes" % size)

    def test_large_image_is_shrunk(self):
        d = self.check_stats("big", ["rgb", "--width", "2100", "--height", "300", "--report-tile", "256"],
                             tile=256)
        self.assertEqual(d["image"]["scale"], 3)

    def test_bench_page_from_rows(self):
        path = os.path.join(TMP, "bench_rows.html")
        subprocess.run([BENCH_PAGE, path], check=True)
        d = self.check_page(path)
        self.assertEqual(d["kind"], "bench")
        rows = d["bench"]["results"]
        self.assertEqual(len(rows), 3 * 2 * 2 * 4)
        self.assertEqual({(f["scene"], f["size"]) for f in d["floors"]},
                         {(r["scene"], r["size"]) for r in rows})
        for f in d["floors"]:
            self.assertEqual(f["bytes"], 32 * f["visible"] + 16 * f["size"] ** 2)
            self.assertLessEqual(f["fast_blends"], f["covered"])
            self.assertLessEqual(f["covered"], f["box_tests"])

    def test_bench_page_on_the_gpu(self):
        if not gpu_usable():
            self.skipTest("no usable GPU")
        path, js = os.path.join(TMP, "bench_gpu.html"), os.path.join(TMP, "bench_gpu.json")
        run("bench", "rand10k", "hotspot", "--size", "256", "--frames", "3", "--warmup", "1",
            "--report", path, "--json", js)
        d = self.check_page(path)
        with open(js) as f:
            self.assertEqual(d["bench"], json.load(f))
        self.assertEqual(len(d["floors"]), 2)
        self.assertGreater(d["rates"]["bytes_per_s"], 1e11)
        self.assertGreater(d["rates"]["flops"], 1e12)

    def test_usage_errors(self):
        for args in (["stats", "rgb", "--report", "x.png"], ["stats", "rgb", "--report-tile", "32"],
                     ["stats", "rgb", "--report", "x.html", "--report-tile", "48"],
                     ["stats", "rgb", "--report", "x.html", "--index", "grid"],
                     ["bench", "rgb", "--report", "x.txt"]):
            r = run(*args, ok=(2,))
            self.assertIn("--report", r.stderr)

    def test_unwritable_report_leaves_nothing(self):
        d = os.path.join(TMP, "ro")
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o500)
        try:
            if os.access(d, os.W_OK):
                self.skipTest("running as a user who may write anywhere")
            r = run("stats", "rgb", "-s", "32", "--report", os.path.join(d, "r.html"), ok=(4,))
            self.assertIn("r.html", r.stderr)
            self.assertEqual(os.listdir(d), [])
        finally:
            os.chmod(d, 0o700)


class Browser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.b = browser.Browser(width=1300, height=1000)

    @classmethod
    def tearDownClass(cls):
        cls.b.close()

    def load(self, path):
        self.b.errors.clear()
        self.b.requests.clear()
        self.b.open(path)
        self.b.wait_for("document.body.dataset.ready === '1' || document.getElementById('error').textContent")
        self.assertEqual(self.b.eval("document.getElementById('error').textContent"), "")
        others = [u for u in self.b.requests if not u.startswith("data:") and u != "file://" + path]
        self.assertEqual(others, [], "the page fetched other things")

    def tearDown(self):
        self.assertEqual(self.b.errors, [], "console errors")

    def test_stats_page_draws_the_image_and_the_leaves(self):
        html, _ = stats_page("browser_stats", "rand10k", "-s", "256", "--min-leaf", "16", "--capacity", "64")
        self.load(html)
        d = self.b.eval("qrReport.data")
        quad = d["indexes"][0]["leaves"]
        png = base64.b64decode(d["image"]["png"])
        pic = browser.decode_png(png)
        # the picture: where no edge is drawn the screenshot shows its pixels
        self.b.eval("qrReport.setOverlay(false)")
        shot = self.b.screenshot()
        near = total = 0
        for k in range(0, 60):
            x, y = 8 + (k * 37) % 240, 8 + (k * 53) % 240
            p = self.b.eval("qrReport.imageToPage(0, %f, %f)" % (x + 0.5, y + 0.5))
            got = browser.pixel(shot, int(p["x"]), int(p["y"]))
            want = pic_pixel(pic, x, 255 - y)
            total += 1
            near += max(abs(a - b) for a, b in zip(got, want)) <= 12
        self.assertGreater(near, total * 0.8, "%d of %d pixels match the picture" % (near, total))
        # the leaves: an inner leaf edge is drawn in the edge colour, and not
        # when the overlay is off
        i = next(i for i in range(len(quad["x0"])) if quad["x0"][i] > 0 and quad["y1"][i] - quad["y0"][i] >= 16)
        ex, ey = quad["x0"][i], (quad["y0"][i] + quad["y1"][i]) / 2
        self.b.eval("qrReport.setOverlay(true)")
        p = self.b.eval("qrReport.imageToPage(0, %f, %f)" % (ex, ey))
        shot = self.b.screenshot()
        xs = range(int(p["x"]) - 2, int(p["x"]) + 3)
        on_edge = [browser.pixel(shot, x, int(p["y"])) for x in xs]
        self.assertTrue(any(is_edge(c) for c in on_edge), on_edge)
        self.assertFalse(is_edge(browser.pixel(shot, int(p["x"]) + 6, int(p["y"]))))
        self.b.eval("qrReport.setOverlay(false)")
        shot = self.b.screenshot()
        self.assertFalse(any(is_edge(browser.pixel(shot, x, int(p["y"]))) for x in xs))
        # the wheel zooms about the cursor: the pixel under it stays put, the
        # others move away from it
        a = self.b.eval("qrReport.imageToPage(0, 100, 100)")
        b0 = self.b.eval("qrReport.imageToPage(0, 140, 100)")
        self.b.eval("qrReport.views[0].canvas.dispatchEvent(new WheelEvent('wheel', {clientX: %f, "
                    "clientY: %f, deltaY: -400, bubbles: true, cancelable: true})), 0" % (a["x"], a["y"]))
        a2 = self.b.eval("qrReport.imageToPage(0, 100, 100)")
        b2 = self.b.eval("qrReport.imageToPage(0, 140, 100)")
        # (events carry whole pixels: within one)
        self.assertAlmostEqual(a2["x"], a["x"], delta=1)
        self.assertAlmostEqual(a2["y"], a["y"], delta=1)
        self.assertGreater(b2["x"] - a2["x"], 1.5 * (b0["x"] - a["x"]))
        self.b.eval("document.getElementById('reset').click(), 0")
        self.assertAlmostEqual(self.b.eval("qrReport.imageToPage(0, 140, 100)")["x"], b0["x"], places=3)
        # colouring by depth paints the leaves
        self.b.eval("qrReport.setOverlay(true); qrReport.setMode('depth')")
        self.assertTrue(self.b.eval("document.querySelector('.legend').textContent.includes('depth')"))

    def test_colour_bar_is_drawn(self):
        values = [float(i % 997) + 1.0 for i in range(10000)]  # rand10k's circles
        npy = values_npy("browser_values.npy", values)
        html, _ = stats_page("browser_bar", "rand10k", "-s", "256", "--color-by", npy)
        self.load(html)
        bar = self.b.eval("qrReport.data.colorbar")
        r = self.b.eval("(() => { const b = document.getElementById('colorbar'); b.scrollIntoView(); "
                        "const c = b.querySelector('canvas').getBoundingClientRect(); "
                        "return {x: c.left, y: c.top, w: c.width, h: c.height}; })()")
        shot = self.b.screenshot()
        for frac, want in ((0.005, bar["colors"][0]), (0.5, bar["colors"][128]),
                           (0.995, bar["colors"][-1])):
            got = browser.pixel(shot, int(r["x"] + frac * r["w"]), int(r["y"] + r["h"] / 2))
            rgb = tuple(int(want[i:i + 2], 16) for i in (1, 3, 5))
            self.assertLessEqual(max(abs(a - b) for a, b in zip(got, rgb)), 8, (frac, got, want))
        labels = self.b.eval("[...document.querySelectorAll('#colorbar .ticks span')]"
                             ".map(s => s.textContent)")
        self.assertEqual(labels, ["1", "250", "499", "748", "997"])

    def test_hovering_a_leaf_tells_its_list(self):
        html, _ = stats_page("browser_hover", "hotspot", "-s", "256")
        self.load(html)
        d = self.b.eval("qrReport.data")
        lv = d["indexes"][0]["leaves"]
        i = max(range(len(lv["count"])), key=lambda i: lv["count"][i])  # the longest list
        # off the centre, where no tile of the grid has an edge either
        cx, cy = (lv["x0"][i] + lv["x1"][i]) / 2 + 1.5, (lv["y0"][i] + lv["y1"][i]) / 2 + 1.5
        p = self.b.eval("qrReport.imageToPage(0, %f, %f)" % (cx, cy))
        self.b.mouse_move(p["x"], p["y"])
        self.b.wait_for("qrReport.tipText() !== ''")
        tip = self.b.eval("qrReport.tipText()")
        self.assertIn("quadtree leaf %d\n" % i, tip)
        self.assertIn("depth %d\n" % lv["depth"][i], tip)
        self.assertIn("first %d, last %d" % (lv["first"][i], lv["last"][i]), tip)
        self.assertIn("[%d, %d) × [%d, %d)" % (lv["x0"][i], lv["x1"][i], lv["y0"][i], lv["y1"][i]), tip)
        self.assertIn("{:,} circles".format(lv["count"][i]), tip)
        # the grid's view beside it answers for its own leaves
        g = d["indexes"][1]["leaves"]
        self.b.eval("qrReport.views[1].canvas.scrollIntoView({block: 'center'}), 0")
        p = self.b.eval("qrReport.imageToPage(1, %f, %f)" % (cx, cy))
        self.b.mouse_move(p["x"], p["y"])
        j = self.b.eval("qrReport.leafAt(1, %f, %f)" % (cx, cy))
        self.b.wait_for("qrReport.tipText().startsWith('%s')" % d["indexes"][1]["name"])
        self.assertIn("{:,} circles".format(g["count"][j]), self.b.eval("qrReport.tipText()"))

    def test_bench_page_charts(self):
        path = os.path.join(TMP, "browser_bench.html")
        subprocess.run([BENCH_PAGE, path], check=True)
        self.load(path)
        d = self.b.eval("qrReport.data")
        # the page's speedups are bench's
        cells = self.b.eval("[...document.querySelectorAll('#speedups tr')].slice(1)"
                            ".map(tr => [...tr.children].map(td => td.textContent))")
        want = {(s["scene"], str(s["size"]), s["mode"]): s for s in d["bench"]["speedups"]}
        self.assertEqual(sorted(tuple(row[:3]) for row in cells), sorted(want))
        for row in cells:
            s = want[tuple(row[:3])]
            self.assertEqual(row[5], "%.2fx" % s["speedup"])
            self.assertIn("grid%d" % s["best_grid_tile"], row[4])
        self.assertEqual(self.b.eval("document.querySelectorAll('svg').length"), 4)
        # hovering a quadtree bar shows its numbers
        r = self.b.eval("(() => { const b = document.querySelector('svg rect.hit').getBoundingClientRect();"
                        " return {x: b.left + b.width / 2, y: b.top + b.height / 2}; })()")
        self.b.mouse_move(r["x"], r["y"])
        self.b.wait_for("document.getElementById('tip').style.display === 'block'")
        self.assertIn("quadtree", self.b.eval("document.getElementById('tip').textContent"))


def pic_pixel(pic, x, y):
    w, h, rgb = pic
    k = 3 * (y * w + x)
    return tuple(rgb[k:k + 3])


def is_edge(c):
    """The edge colour, magenta, as the screenshot shows it."""
    return c[0] > 220 and c[1] < 60 and c[2] > 220


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "data"
    if which == "browser" and not browser.find_browser():
        print("skipped: no Chromium (scripts/deps.sh installs chromium-headless-shell)")
        sys.exit(SKIP)
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Data if which == "data" else Browser)
    ok = unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful()
    sys.exit(0 if ok else 1)
