"""Headless Chromium for the browser tests of quadrender's HTML reports.

Drives chromium-headless-shell (or chromium / google-chrome) through the Chrome
DevTools Protocol over a pipe (--remote-debugging-pipe: the browser reads
NUL-terminated JSON commands from fd 3 and writes replies and events to fd 4).
Python standard library only: no websockets, no pip packages.

    with Browser() as b:
        b.open("/abs/path/report.html")
        assert b.eval("document.title") == "..."
        w, h, rgb = img = b.screenshot()
        assert pixel(img, 10, 10) == (255, 255, 255)
        assert not b.errors and all(u.startswith(("file:", "data:")) for u in b.requests)

A reader thread collects console errors, uncaught exceptions, Log errors and
network request URLs from the events at all times; every wait has a deadline,
so a hung browser raises TimeoutError rather than blocking forever.
"""
import base64, glob, json, os, shutil, signal, struct, subprocess, tempfile, threading, time, zlib

NAMES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser():
    """The browser's path: $QR_BROWSER if set, else the first of NAMES on PATH or in /usr/lib/chromium*/."""
    if os.environ.get("QR_BROWSER"):
        return os.environ["QR_BROWSER"]
    dirs = os.environ.get("PATH", "").split(os.pathsep) + sorted(glob.glob("/usr/lib/chromium*"))
    for name in NAMES:
        for d in dirs:
            p = os.path.join(d, name)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    return None


def _high_fd(fd):  # a copy numbered above 4, so that dup2 onto 3 and 4 cannot clobber it
    import fcntl
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return new


class Browser:
    def __init__(self, path=None, width=1400, height=1000, timeout=60):
        path = path or find_browser()
        if not path:
            raise RuntimeError("no Chromium found (set QR_BROWSER)")
        self.timeout, self.width, self.height = timeout, width, height
        self.errors, self.requests = [], []
        self._replies, self._next_id, self._dead = {}, 0, False
        self._cond, self._loaded = threading.Condition(), threading.Event()
        self._proc = None
        self._profile = tempfile.mkdtemp(prefix="qr-browser-")
        try:
            cmd_r, self._cmd_w = map(_high_fd, os.pipe())
            self._rep_r, rep_w = map(_high_fd, os.pipe())

            def child_fds():  # runs in the child before exec: its fds 3 and 4 are the pipes
                os.dup2(cmd_r, 3)
                os.dup2(rep_w, 4)

            args = [path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--remote-debugging-pipe", "--user-data-dir=" + self._profile,
                    "--allow-file-access-from-files", "--hide-scrollbars",
                    "--force-device-scale-factor=1", "--window-size=%d,%d" % (width, height),
                    "about:blank"]
            try:
                self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL, pass_fds=(3, 4),
                                              preexec_fn=child_fds, start_new_session=True)
            finally:  # the child's ends: only the browser keeps them
                os.close(cmd_r)
                os.close(rep_w)
            threading.Thread(target=self._read, daemon=True).start()
            target = self._call("Target.createTarget", {"url": "about:blank", "width": width,
                                                        "height": height})["targetId"]
            self._session = self._call("Target.attachToTarget",
                                       {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                self._call(domain + ".enable", session=True)
            self._call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                       "deviceScaleFactor": 1, "mobile": False}, session=True)
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read(self):  # reader thread: replies go to _replies, events are recorded at once
        buf = b""
        while True:
            try:
                chunk = os.read(self._rep_r, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cond:
                    self._dead = True
                    self._cond.notify_all()
                return
            buf += chunk
            *msgs, buf = buf.split(b"\0")
            for m in msgs:
                msg = json.loads(m)
                if "id" in msg:
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()
                else:
                    self._event(msg.get("method"), msg.get("params", {}))

    def _event(self, method, p):
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append("console.%s: %s" % (p["type"], " ".join(
                str(a.get("value", a.get("description", a.get("type")))) for a in p.get("args", []))))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append("exception: %s" % d.get("exception", {}).get("description", d.get("text")))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            self.errors.append("log: %s %s" % (e.get("text"), e.get("url", "")))
        elif method == "Network.requestWillBeSent":
            self.requests.append(p["request"]["url"])
        elif method == "Page.loadEventFired":
            self._loaded.set()

    def _call(self, method, params=None, session=False, timeout=None):
        with self._cond:
            self._next_id += 1
            mid = self._next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self._session
        try:
            os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")  # small: one write suffices
        except OSError as e:
            raise RuntimeError("browser gone (%s) before %s" % (e, method)) from None
        deadline = time.monotonic() + (timeout or self.timeout)
        with self._cond:
            while mid not in self._replies:
                left = deadline - time.monotonic()
                if self._dead:
                    raise RuntimeError("browser exited while waiting for " + method)
                if left <= 0:
                    raise TimeoutError("no reply to " + method)
                self._cond.wait(left)
            reply = self._replies.pop(mid)
        if "error" in reply:
            raise RuntimeError("%s: %s" % (method, reply["error"]))
        return reply.get("result", {})

    def open(self, file_path):
        """Navigate to file_path's file:// URL and wait for its load event."""
        self._loaded.clear()
        url = "file://" + os.path.abspath(file_path)
        r = self._call("Page.navigate", {"url": url}, session=True)
        if r.get("errorText"):
            raise RuntimeError("navigating to %s: %s" % (url, r["errorText"]))
        if not self._loaded.wait(self.timeout):
            raise TimeoutError("no load event from " + url)

    def eval(self, expr):
        """The value of the JavaScript expression expr (promises awaited); raises on exceptions."""
        r = self._call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                            "awaitPromise": True}, session=True)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise RuntimeError("eval %r: %s" % (expr, d.get("exception", {}).get("description", d.get("text"))))
        return r["result"].get("value")

    def wait_for(self, expr, timeout=20):
        """Poll expr until it is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            v = self.eval(expr)
            if v:
                return v
            if time.monotonic() > deadline:
                raise TimeoutError("waiting for " + expr)
            time.sleep(0.05)

    def screenshot(self):
        """The viewport as (width, height, RGB bytes, row-major, 3 bytes a pixel)."""
        r = self._call("Page.captureScreenshot", {"format": "png"}, session=True)
        return decode_png(base64.b64decode(r["data"]))

    def mouse_move(self, x, y):
        self._call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y}, session=True)

    def close(self):
        if self._proc:
            try:  # let Chromium shut down and reap its own helpers; its pipe's EOF says it is gone
                self._call("Browser.close", timeout=5)
                with self._cond:
                    self._cond.wait_for(lambda: self._dead, 5)
            except Exception:
                pass
            try:  # then the whole group (a wrapper script's child too); our child is not reaped yet
                os.killpg(self._proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self._proc.wait()
            self._proc = None
        for fd in ("_cmd_w", "_rep_r"):
            if getattr(self, fd, None) is not None:
                try:
                    os.close(getattr(self, fd))
                except OSError:
                    pass
                setattr(self, fd, None)
        shutil.rmtree(self._profile, ignore_errors=True)


def pixel(img, x, y):
    """The (r, g, b) of pixel (x, y) of a screenshot (width, height, rgb)."""
    w, _, rgb = img
    i = 3 * (y * w + x)
    return tuple(rgb[i:i + 3])


def decode_png(data):
    """(width, height, RGB bytes) of an 8-bit, non-interlaced RGB or RGBA PNG (alpha dropped)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("PNG not 8-bit RGB/RGBA non-interlaced")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    raw, stride = zlib.decompress(b"".join(idat)), w * bpp
    out, prev = bytearray(), bytearray(stride)
    for y in range(h):
        f, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 255
        elif f == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, prev))
        elif f == 3:
            for i in range(stride):
                row[i] = (row[i] + ((row[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif f:
            raise ValueError("bad PNG filter %d" % f)
        out += row
        prev = row
    if bpp == 4:
        del out[3::4]
    return w, h, bytes(out)
