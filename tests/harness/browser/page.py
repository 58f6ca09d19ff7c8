"""Loads a report page (or an `explain --html` page) in headless Chromium and checks it as a
reader's browser shows it.

Talks to Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no
extra Python package). Checks: no console message of level error or warning, no uncaught
exception, no failed request; every chart's and every board's SVG has a non-zero box, and so has
every piece drawn on a board; with --marks, each named square is marked on some board with a
non-zero box; at A4 width in print media nothing is wider than the page (no clipped chart);
printed on A4, at most --max-pages pages (when given; the count is printed either way). Writes a
full-page screenshot (PNG).

    python tests/harness/browser/page.py PAGE.html --screenshot OUT.png [--width 1100] [--chromium PATH]
                                 [--clip-from ID] [--clip-height PIXELS] [--marks a8,e8]
                                 [--max-pages N]

Prints a JSON summary; exits 1 when a check fails, 2 when Chromium cannot be started.
"""
import argparse, base64, json, os, pathlib, re, shutil, subprocess, sys, tempfile, time

A4_CSS_PX = 794  # 210 mm at 96 px per inch


class Browser:
    def __init__(self, chromium, profile):
        # fd 3: commands to Chromium; fd 4: its answers and events (NUL-separated JSON).
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # Out of the way of 3 and 4 first, so that neither dup2 below overwrites the other's source.
        import fcntl
        high_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 20)
        high_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 20)
        os.close(to_child_r)
        os.close(from_child_w)
        to_child_r, from_child_w = high_r, high_w

        def fds():
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--hide-scrollbars",
             "--user-data-dir=" + profile, "about:blank"],
            pass_fds=(3, 4, to_child_r, from_child_w), preexec_fn=fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        want = self.next_id
        while True:
            m = self.read()
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def read(self, deadline=60.0):
        start = time.time()
        while b"\0" not in self.buffer:
            if time.time() - start > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.from_child, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def wait_for(self, method, session, deadline=60.0):
        start = time.time()
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method and m.get("sessionId") == session:
                    return self.events.pop(i)
            if time.time() - start > deadline:
                raise TimeoutError("no " + method)
            self.events.append(self.read(deadline))

    def close(self):
        try:
            os.write(self.to_child, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def evaluate(b, session, expression):
    r = b.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
    return r["result"].get("value")


# The page's documents: its own, and those of its frames (a notebook shows each threefold page in
# a frame of its own, from srcdoc, so of the same origin).
DOCS = """[document, ...[...document.querySelectorAll('iframe')].map(f => f.contentDocument).filter(Boolean)]"""
ALL = "%s.flatMap(d => [...d.querySelectorAll(%%s)])" % DOCS
BOXES = """
""" + ALL % "'figure.chart, figure.board'" + """.map(f => {
  const s = f.querySelector('svg'); const r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
  const id = f.id || ((f.closest('[id]') || {}).id + '@ply' + f.dataset.ply);
  return {id: id, width: r.width, height: r.height, right: r.right,
          rows: f.querySelectorAll('[data-label], [data-piece]').length};
})
"""
# Pieces whose drawing (a <use> of a symbol the page holds once) has an empty box.
EMPTY_PIECES = ALL % "'figure.board use[data-piece]'" + """
  .filter(u => { const r = u.getBoundingClientRect(); return !(r.width > 0 && r.height > 0); })
  .map(u => u.dataset.piece + '@' + u.dataset.square)"""
MARKS = ALL % "'[data-mark][data-square]'" + """
  .filter(m => { const r = m.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
  .map(m => m.dataset.square)"""
OVERFLOW = """({scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
  widest: [...document.body.querySelectorAll('section, figure, table, p, h1, h2')]
    .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
    .slice(0, 5).map(e => e.tagName + '#' + (e.id || e.closest('[id]')?.id || '?')),
  frames: [...document.querySelectorAll('iframe')].map(f => f.contentDocument).filter(Boolean)
    .filter(d => d.documentElement.scrollWidth > d.documentElement.clientWidth)
    .map(d => d.title || '?')})"""


def pdf_pages(pdf):
    """Pages of a PDF: the largest /Count of its page tree (the root's), else its /Page objects."""
    counts = [int(n) for n in re.findall(rb"/Count\s+(\d+)", pdf)]
    return max(counts) if counts else len(re.findall(rb"/Type\s*/Page(?!s)", pdf))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--screenshot", required=True)
    ap.add_argument("--width", type=int, default=1100)
    ap.add_argument("--clip-height", type=int, help="screenshot only this many pixels")
    ap.add_argument("--clip-from", help="screenshot from the top of the element with this id")
    ap.add_argument("--marks", default="", help="squares that must be marked on some board (a8,e8)")
    ap.add_argument("--max-pages", type=int, help="fail when the page prints on more A4 pages")
    ap.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser") or "chromium")
    args = ap.parse_args()
    url = pathlib.Path(args.page).resolve().as_uri()
    profile = tempfile.mkdtemp(prefix="threefold-chromium-")
    try:
        b = Browser(args.chromium, profile)
    except OSError as e:
        print("cannot start Chromium (%s): %s" % (args.chromium, e), file=sys.stderr)
        sys.exit(2)
    problems = []
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            b.send(domain + ".enable", {}, s)
        b.send("Emulation.setDeviceMetricsOverride",
               {"width": args.width, "height": 900, "deviceScaleFactor": 1, "mobile": False}, s)
        b.send("Page.navigate", {"url": url}, s)
        b.wait_for("Page.loadEventFired", s)
        boxes = evaluate(b, s, BOXES)
        empty_pieces = evaluate(b, s, EMPTY_PIECES)
        marked = evaluate(b, s, MARKS)
        screen = evaluate(b, s, OVERFLOW)
        height = evaluate(b, s, "document.documentElement.scrollHeight")
        top = 0
        if args.clip_from:
            top = evaluate(b, s, "document.getElementById(%s).getBoundingClientRect().top + window.scrollY - 12"
                           % json.dumps(args.clip_from))
        if args.clip_height:
            height = min(height - top, args.clip_height)
        shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                      "clip": {"x": 0, "y": top, "width": args.width, "height": height, "scale": 1}}, s)
        pathlib.Path(args.screenshot).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.screenshot).write_bytes(base64.b64decode(shot["data"]))
        # Printed on A4: print media at the page's printable width.
        b.send("Emulation.setEmulatedMedia", {"media": "print"}, s)
        b.send("Emulation.setDeviceMetricsOverride",
               {"width": A4_CSS_PX - 2 * 48, "height": 1100, "deviceScaleFactor": 1, "mobile": False}, s)
        printed = evaluate(b, s, OVERFLOW)
        printed_boxes = evaluate(b, s, BOXES)
        pdf = b.send("Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69}, s)
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)

    for m in b.events:
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            problems.append("console %s: %s" % (p["type"], [a.get("value") for a in p.get("args", [])]))
        elif method == "Runtime.exceptionThrown":
            problems.append("exception: %s" % p["exceptionDetails"].get("text"))
        elif method == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
            problems.append("log %s: %s" % (p["entry"]["level"], p["entry"]["text"]))
        elif method == "Network.loadingFailed":
            problems.append("request failed: %s" % p.get("errorText"))
    if not boxes:
        problems.append("no chart or board on the page")
    if empty_pieces:
        problems.append("pieces not drawn: %s" % empty_pieces[:8])
    for square in filter(None, args.marks.split(",")):
        if square not in marked:
            problems.append("square %s not marked on any board" % square)
    for box in boxes:
        if not (box["width"] > 0 and box["height"] > 0):
            problems.append("chart %s has an empty box" % box["id"])
        if box["rows"] == 0:
            problems.append("chart %s has no figure" % box["id"])
    if screen["frames"]:
        problems.append("a frame's page is wider than its frame: %s" % screen["frames"])
    if screen["scroll"] > screen["client"]:
        problems.append("the page is wider than the window: %s" % screen)
    if printed["scroll"] > printed["client"]:
        problems.append("printed on A4 the page is wider than the paper: %s" % printed)
    for box in printed_boxes:
        if box["right"] > printed["client"] + 0.5:
            problems.append("printed on A4, chart %s is clipped (right edge %.0f > %d)" % (box["id"], box["right"], printed["client"]))
    pdf_bytes = base64.b64decode(pdf["data"])
    pages = pdf_pages(pdf_bytes)
    if args.max_pages is not None and pages > args.max_pages:
        problems.append("printed on A4 the page takes %d pages, more than %d" % (pages, args.max_pages))
    summary = {"charts": len(boxes), "marked": sorted(set(marked)), "screenshot": args.screenshot,
               "pdf_bytes": len(pdf_bytes), "a4_pages": pages, "a4": printed, "problems": problems}
    print(json.dumps(summary))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
