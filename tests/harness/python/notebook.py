"""Executes examples/draw-study.ipynb as a researcher would, in the venv this runs in (the built
wheel installed with its extras, nbclient, ipykernel, nbconvert, matplotlib), and checks it.

Fails on any cell error (nbclient raises). Then checks the figures its outputs show against the
report's own JSON, computed here by the installed module over the dataset the notebook wrote:
the missed-claim rate per time class (label, rate, interval, counts: every row, in order), the
draw-reason mix of its DuckDB query (every reason and count), the inline report and boards
(frames holding the report's charts and explain's boards), the chart (a PNG). Writes the
executed notebook and its HTML (nbconvert, no script or request beyond the page) to --out.

    python notebook.py --notebook examples/draw-study.ipynb --samples data-samples --work DIR --out DIR

Prints `notebook: N passed, M failed` last (exit 1 if M > 0) and the run's seconds.
"""

import argparse
import html
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

import threefold

passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"  ok: {what}")
    else:
        failed += 1
        print(f"  FAILED: {what}{': ' + str(detail) if detail else ''}")


def cell_with(nb, text):
    """The code cell whose source contains `text` (exactly one)."""
    found = [c for c in nb.cells if c.cell_type == "code" and text in c.source]
    assert len(found) == 1, f"{len(found)} cells contain {text!r}"
    return found[0]


def output_data(cell, mime):
    return [o["data"][mime] for o in cell.outputs if "data" in o and mime in o["data"]]


def table_rows(frame_html):
    """The body rows of a DataFrame's HTML table, as lists of cell texts."""
    body = frame_html.split("<tbody>", 1)[-1]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        rows.append([html.unescape(re.sub(r"<[^>]+>", "", c)).strip().strip('"') for c in re.findall(r"<td>(.*?)</td>", row, re.S)])
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--notebook", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    work, out = Path(args.work).resolve(), Path(args.out).resolve()
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    os.environ["THREEFOLD_SAMPLES"] = str(Path(args.samples).resolve())
    os.environ["THREEFOLD_WORK"] = str(work)
    # Figures as polars prints them in full (the check reads every row).
    os.environ["POLARS_FMT_MAX_ROWS"] = "100"
    os.environ["POLARS_FMT_STR_LEN"] = "100"
    nb = nbformat.read(args.notebook, as_version=4)
    started = time.monotonic()
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(work)}}).execute()
    seconds = time.monotonic() - started
    print(f"notebook: executed {len(nb.cells)} cells in {seconds:.1f} s")
    check(True, "every cell ran without an error")

    dataset = work / "draw-study-dataset"
    reference = threefold.report(dataset).data

    # 1. The missed-claim rate by time class: every row of the report's chart over all games.
    chart = next(f for f in reference["figures"] if f["id"] == "missed_by_time_class")
    want = [[r["label"], r["value"], r["interval"], str(r["count"]), str(r["games"])] for r in chart["rows"] if r["series"] is None]
    shown = output_data(cell_with(nb, '"missed_by_time_class"'), "text/html")
    got = table_rows(shown[0]) if shown else []
    check(bool(want) and got == want, "the missed-claim rates by time class are the report's", f"{got} != {want}")
    inline = output_data(cell_with(nb, "threefold.report(DATASET)"), "text/html")
    check(bool(inline) and "<iframe srcdoc=" in inline[0] and "figure class=&quot;chart" in inline[0],
          "the report shows inline with its charts")

    # The figures as pandas gives them: the same rows as polars.
    report = threefold.report(dataset)
    as_pandas = report.figures("pandas")
    as_polars = report.figures()
    check(as_pandas[["figure", "label", "count", "games"]].values.tolist()
          == [list(r) for r in as_polars.select("figure", "label", "count", "games").rows()], "figures('pandas') has polars's rows")

    # 2. Karpov–Miles: the text names the castling right, the inline page draws the boards.
    text = "".join(o.get("text", "") for o in cell_with(nb, "print(case)").outputs)
    check("queenside castling right is gone" in text and "9.2.2" in text, "explain's text names the castling right")
    boards = output_data(next(c for c in nb.cells if c.cell_type == "code" and c.source.strip() == "case"), "text/html")
    check(bool(boards) and boards[0].count("figure class=&quot;board") >= 2, "explain shows its boards inline")

    # 3. The draw-reason mix in DuckDB: every reason and count, as the report counts them.
    mix = table_rows(output_data(cell_with(nb, "FROM games"), "text/html")[0])
    got = sorted((r[0], int(r[1])) for r in mix)
    want = sorted((d["label"], d["games"]) for d in reference["draw_reasons"] if d["games"] > 0)
    check(got == want, "the draw-reason mix is the report's", f"{got} != {want}")
    check(bool(output_data(cell_with(nb, "plt.subplots"), "image/png")), "the draw-reason chart is drawn")

    nbformat.write(nb, out / "draw-study.ipynb")
    exporter = HTMLExporter()
    # No script from the web (the page is read offline): MathJax and require.js left out.
    exporter.mathjax_url = ""
    exporter.require_js_url = ""
    body, _ = exporter.from_notebook_node(nb)
    body = re.sub(r'<script[^>]*src="(https?:)?//[^"]*"[^>]*>\s*</script>', "", body)
    (out / "draw-study.html").write_text(body, encoding="utf-8")
    print(f"notebook: wrote {out / 'draw-study.ipynb'} and {out / 'draw-study.html'}")
    print(f"notebook: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
