"""The installed Python package against the installed command (run by tests/harness/python/run.sh).

Run with the Python of a venv the wheel was installed into with its extras, from outside the
checkout; --bare-python is a venv's Python with the wheel but neither duckdb nor polars. Prints
one line per check and last `test_package: N passed, M failed`.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import sysconfig
import traceback
from pathlib import Path
from typing import Any, Callable

parser = argparse.ArgumentParser()
parser.add_argument("--samples", required=True, type=Path)
parser.add_argument("--work", required=True, type=Path)
parser.add_argument("--bare-python", required=True)
parser.add_argument("--cargo-toml", required=True, type=Path)
opts = parser.parse_args()

results = {"passed": 0, "failed": 0}
checks: list[Callable[[], None]] = []


def check(fn: Callable[[], None]) -> Callable[[], None]:
    checks.append(fn)
    return fn


def run(*args: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(args), capture_output=True, text=True, check=False)
    assert done.returncode == expect, f"{args}: exit {done.returncode}, not {expect}: {done.stderr}"
    return done


bindir = Path(sysconfig.get_path("scripts"))
cli = str(bindir / "threefold")
cargo_version = re.search(r'^version = "([^"]+)"', opts.cargo_toml.read_text(), re.M).group(1)  # type: ignore[union-attr]
opts.work.mkdir(parents=True)
dataset = opts.work / "dataset"
moved = opts.work / "elsewhere" / "moved dataset"

import threefold  # noqa: E402  (the installed package, with duckdb and polars)


@check
def the_command_is_the_rust_binary_in_the_venv() -> None:
    with open(cli, "rb") as f:
        assert f.read(4) == b"\x7fELF", f"{cli} is not the executable"
    out = run(cli, "--version").stdout.strip()
    assert out == f"threefold {cargo_version}", out
    assert shutil.which("threefold", path=str(bindir)) == cli


@check
def the_module_is_the_installed_one_typed_and_versioned() -> None:
    path = Path(threefold.__file__).resolve()
    assert Path(sysconfig.get_path("purelib")).resolve() in path.parents, path
    assert (path.parent / "py.typed").is_file()
    assert threefold.__version__ == cargo_version, threefold.__version__
    assert Path(threefold.executable()) == Path(cli).resolve(), threefold.executable()


@check
def python_m_threefold_runs_the_command_and_passes_its_exit_status() -> None:
    out = run(sys.executable, "-m", "threefold", "--version").stdout.strip()
    assert out == f"threefold {cargo_version}", out
    # A missing input: exit status 1 from the command, through `python -m`.
    direct = run(cli, "dump", str(opts.work / "missing.pgn"), expect=1)
    through = run(sys.executable, "-m", "threefold", "dump", str(opts.work / "missing.pgn"), expect=1)
    assert direct.stderr == through.stderr, (direct.stderr, through.stderr)
    run(sys.executable, "-m", "threefold", "no-such-command", expect=2)


@check
def ingest_returns_the_manifest() -> None:
    manifest = threefold.ingest([opts.samples], dataset, threads=2)
    assert manifest == json.loads((dataset / "_manifest.json").read_text())
    entries = {e["source"]: e for e in manifest["inputs"]}
    expected = {p.name.removesuffix(".pgn") for p in opts.samples.glob("*.pgn")}
    assert set(entries) == expected, entries.keys()
    assert all(e["status"] == "ok" for e in entries.values()), entries
    # again: every input is up to date
    again = threefold.ingest(opts.samples, dataset, threads=2)
    assert {e["status"] for e in again["inputs"]} == {"up_to_date"}, again


@check
def ingest_failure_raises_with_stderr_exit_status_and_manifest() -> None:
    out = opts.work / "failing"
    try:
        threefold.ingest([opts.samples / "karpov_miles_tilburg_1986.pgn", opts.work / "missing.pgn"], out)
    except threefold.ThreefoldError as e:
        assert e.returncode == 1, e.returncode
        assert "missing.pgn" in e.stderr, e.stderr
        assert e.manifest is not None
        assert {x["source"]: x["status"] for x in e.manifest["inputs"]} == {
            "karpov_miles_tilburg_1986": "ok",
            "missing": "failed",
        }, e.manifest
    else:
        raise AssertionError("no ThreefoldError")
    try:
        threefold.report(opts.work / "not-a-dataset")
    except threefold.ThreefoldError as e:
        assert e.returncode == 2 and e.stderr.startswith("threefold:"), (e.returncode, e.stderr)
    else:
        raise AssertionError("no ThreefoldError")


@check
def views_sql_of_a_dataset_in_place_is_its_views_sql() -> None:
    assert threefold.views_sql(dataset) == (dataset / "views.sql").read_text()


cli_report: dict[str, Any] = {}


@check
def the_dataset_moves_elsewhere() -> None:
    moved.parent.mkdir(parents=True)
    shutil.move(str(dataset), str(moved))
    # views.sql still names the old place
    assert str(dataset) in (moved / "views.sql").read_text()
    cli_report.update(json.loads(run(cli, "report", str(moved), "--json").stdout))


@check
def connect_counts_equal_the_reports() -> None:
    con = threefold.connect(moved)
    assert con.sql("SELECT count(*) FROM games").fetchall() == [(cli_report["rows"],)]
    # The missed-claim figures leave out the program's claims (docs/events.md, "The rules in force").
    [(games, threefolds, with_claim, missed, opportunities)] = con.sql(
        "SELECT count(*), count(*) FILTER (max_occurrence >= 3), "
        "count(*) FILTER (claim_opportunities > 0 AND claimant <> 'program'), "
        "count(*) FILTER (missed_claims > 0 AND claimant <> 'program'), "
        "sum(claim_opportunities) FILTER (claimant <> 'program') FROM games WHERE status <> 'skipped'"
    ).fetchall()
    overall = cli_report["overall"]
    assert (games, threefolds, with_claim, missed) == (
        overall["games"], overall["threefold"], overall["with_claim"], overall["missed"]
    ), overall
    assert opportunities == cli_report["claims"]["opportunities"], cli_report["claims"]
    [(castling_games, castling_events)] = con.sql(
        "SELECT count(DISTINCT (source, frame_offset, byte_offset)), count(*) "
        "FROM events JOIN games USING (source, frame_offset, byte_offset) "
        "WHERE kind = 'pseudo_repetition' AND differs IN ('castling', 'both') AND status <> 'skipped'"
    ).fetchall()
    assert (castling_games, castling_events) == (cli_report["castling"]["games"], cli_report["castling"]["events"])
    assert castling_events > 0
    # views.sql's own paths would find nothing: the old place is gone
    assert not dataset.exists()
    views = threefold.views_sql(moved)
    # games, and games_unique (each game once, whatever its copies) over the same files
    assert views.count(str(moved / "games" / "source=*" / "*.parquet")) == 2, views
    assert views.count(str(moved / "summary" / "source=*" / "*.parquet")) == 1, views
    assert str(dataset) not in views, views


@check
def games_has_one_row_per_game_and_the_key_columns() -> None:
    games = threefold.games(moved)
    names = games.collect_schema().names()
    for column in ("source", "frame_offset", "byte_offset", "claim_opportunities"):
        assert column in names, names
    frame = games.select("source", "frame_offset", "byte_offset").collect()
    assert frame.height == cli_report["rows"], (frame.height, cli_report["rows"])
    assert frame.unique().height == frame.height
    manifest = json.loads((moved / "_manifest.json").read_text())
    by_source = dict(games.group_by("source").len().collect().iter_rows())
    assert by_source == {e["source"]: e["games"] for e in manifest["inputs"]}, by_source


@check
def events_join_games_on_the_key() -> None:
    import polars as pl

    events = threefold.events(moved)
    manifest = json.loads((moved / "_manifest.json").read_text())
    assert events.select(pl.len()).collect().item() == sum(e["events"] for e in manifest["inputs"])
    joined = events.join(threefold.games(moved), on=["source", "frame_offset", "byte_offset"], how="anti")
    assert joined.select(pl.len()).collect().item() == 0
    kinds = dict(events.group_by("kind").len().collect().iter_rows())
    con = threefold.connect(moved)
    assert kinds == dict(con.sql("SELECT kind, count(*) FROM events GROUP BY kind").fetchall()), kinds


@check
def report_equals_the_commands_json() -> None:
    assert threefold.report(moved) == cli_report
    filtered = threefold.report(moved, source=["lichess*", "karpov*"], time_class="blitz", min_games=10)
    expected = json.loads(
        run(cli, "report", str(moved), "--source", "lichess*", "--source", "karpov*", "--time-class", "blitz",
            "--min-games", "10", "--json").stdout
    )
    assert filtered == expected
    assert filtered["matched"] < cli_report["matched"], filtered["matched"]


@check
def explain_returns_the_commands_text() -> None:
    pgn = opts.samples / "karpov_miles_tilburg_1986.pgn"
    text = threefold.explain(pgn, game=1021)
    assert text == run(cli, "explain", str(pgn), "--game", "1021").stdout
    assert "9.2.2" in text, text
    in_dataset = threefold.explain(moved, game=1021, source="karpov_miles_tilburg_1986")
    assert in_dataset.splitlines()[1:] == text.splitlines()[1:], in_dataset  # the first names the source


@check
def a_notebook_shows_the_boards_and_the_report_inline() -> None:
    pgn = opts.samples / "karpov_miles_tilburg_1986.pgn"
    case = threefold.explain(pgn, game=1021)
    assert isinstance(case, str) and str(case) == run(cli, "explain", str(pgn), "--game", "1021").stdout
    shown = case._repr_html_()
    assert shown.startswith("<iframe srcdoc=") and shown.count("figure class=&quot;board") >= 2, shown[:200]
    saved = case.save(opts.work / "karpov-miles.html")
    assert saved.read_text(encoding="utf-8") == case.html and "<svg" in case.html
    r = threefold.report(moved)
    assert r.data == cli_report and r["matched"] == cli_report["matched"]
    assert "<iframe srcdoc=" in r._repr_html_() and "figure class=&quot;chart" in r._repr_html_()
    figures = r.figures()
    rows = [(f["id"], row["label"], row["series"], row["count"], row["games"]) for f in cli_report["figures"] for row in f["rows"]]
    assert figures.height == len(rows) and figures.height > 50, figures.height
    assert list(zip(*(figures[c].to_list() for c in ("figure", "label", "group", "count", "games")))) == rows
    headline = figures.filter(figures["label"] == "Games replayed").row(0, named=True)
    assert headline["value"] == cli_report["overall"]["games"], headline
    try:
        r.figures("arrow")
    except ValueError as e:
        assert "polars" in str(e) and "pandas" in str(e)
    else:
        raise AssertionError("figures('arrow') was accepted")


@check
def a_missing_extra_names_what_to_install() -> None:
    for call, extra in (("connect", "duckdb"), ("games", "polars"), ("events", "polars")):
        done = subprocess.run(
            [opts.bare_python, "-c", f"import threefold; threefold.{call}({str(moved)!r})"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 1, done
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("ImportError:") and f"pip install 'threefold[{extra}]'" in last, last
    # the rest of the module works without them
    done = run(opts.bare_python, "-c", f"import threefold; print(threefold.report({str(moved)!r})['rows'])")
    assert int(done.stdout) == cli_report["rows"], done.stdout


for fn in checks:
    name = fn.__name__.replace("_", " ")
    try:
        fn()
    except Exception:
        results["failed"] += 1
        print(f"  FAILED: {name}\n{traceback.format_exc()}")
    else:
        results["passed"] += 1
        print(f"  ok: {name}")
print(f"test_package: {results['passed']} passed, {results['failed']} failed")
sys.exit(1 if results["failed"] else 0)
