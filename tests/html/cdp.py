"""A small client of the Chrome DevTools Protocol over --remote-debugging-pipe.

Headless Chromium reads commands from file descriptor 3 and writes answers to
file descriptor 4, each a JSON text ended by a NUL byte: the standard library
is enough, no Selenium, no chromedriver, no websocket package. One browser
serves every page of a run.
"""

import base64
import ctypes
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Chromium's helper processes outlive the browser by a moment; as a subreaper
    this process gets them, and reaps (or ends) them in Browser.close."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def children():
    me = str(os.getpid())
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            found.append(int(pid))
    return found


def reap(deadline):
    """Wait for this process's children (Chromium's, after the browser) until none is
    left, ending by pid those still there at `deadline`."""
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            return
        left = children()
        if not left:
            return
        if time.monotonic() > deadline:
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            deadline = float("inf")
        time.sleep(0.05)


def chromium_path():
    # The Debian launcher /usr/bin/chromium only adds desktop flags (and prints a
    # warning from its memory check); the browser itself is this.
    for path in ("/usr/lib/chromium/chromium", shutil.which("chromium") or "",
                 shutil.which("chromium-browser") or ""):
        if path and os.access(path, os.X_OK):
            return path
    raise RuntimeError("chromium is missing (apt-get install chromium)")


class Browser:
    def __init__(self, log_path):
        become_subreaper()
        self.profile = tempfile.mkdtemp(prefix="mancala-html-chromium-")
        to_r, self._to_w = os.pipe()
        self._from_r, from_w = os.pipe()

        def child():
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        args = [
            chromium_path(), "--headless", "--remote-debugging-pipe",
            # as root (CI) Chromium refuses to start sandboxed
            "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--hide-scrollbars",
            "--mute-audio", "--disable-extensions", "--disable-sync",
            "--disable-background-networking", "--disable-component-update",
            "--disable-default-apps", "--font-render-hinting=none",
            # the pages load nothing remote: no name resolves
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--user-data-dir={self.profile}", "about:blank",
        ]
        self._log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            args, preexec_fn=child, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=self._log, stderr=self._log)
        os.close(to_r)
        os.close(from_w)
        self._buf = b""
        self._id = 0
        self.events = []
        target = self.send("Target.createTarget", {"url": "about:blank"})
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True})["sessionId"]
        self.version = self.send("Browser.getVersion")["product"]
        for domain in ("Page", "DOM", "CSS", "Runtime"):
            self.page(f"{domain}.enable")

    def send(self, method, params=None, session=None):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_w, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            if "method" in answer:
                self.events.append(answer)
                del self.events[:-200]

    def page(self, method, params=None):
        return self.send(method, params, self.session)

    def _read(self):
        while b"\0" not in self._buf:
            chunk = os.read(self._from_r, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe (see its log)")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\0", 1)
        return json.loads(line)

    # --- what the test needs -------------------------------------------------

    def load(self, html, width, height=900, scale=1):
        """Show `html` as the page's document, at a window `width` CSS pixels wide."""
        self.page("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False})
        frame = self.page("Page.getFrameTree")["frameTree"]["frame"]["id"]
        self.page("Page.setDocumentContent", {"frameId": frame, "html": html})

    def evaluate(self, expression):
        result = self.page("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def fonts_of(self, selector):
        """The platform fonts (family names) that drew the text of the first `selector`."""
        root = self.page("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = self.page("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        if not node:
            return []
        fonts = self.page("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        return [f["familyName"] for f in fonts]

    def screenshot(self, path, clip):
        data = self.page("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": dict(clip, scale=1)})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.send("Browser.close")
                except (RuntimeError, OSError):
                    pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        finally:
            for fd in (self._to_w, self._from_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._log.close()
            reap(time.monotonic() + 5)
            shutil.rmtree(self.profile, ignore_errors=True)
