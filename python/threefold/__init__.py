"""threefold from Python: run the bundled ``threefold`` command and read its dataset.

The wheel ships the ``threefold`` executable (the Rust program, installed into the
environment's ``bin/``) and this small module around it:

- :func:`ingest`, :func:`report` and :func:`explain` run the command and return its result
  (the manifest; the report's JSON as a :class:`Report`, with its figures as a DataFrame; the
  timeline text as an :class:`Explanation`), shown inline in a notebook with its charts or boards;
- :func:`connect` opens the dataset in DuckDB with its ``games`` and ``events`` views,
  wherever the dataset now is (``pip install 'threefold[duckdb]'``);
- :func:`games` and :func:`events` scan its tables as polars LazyFrames
  (``pip install 'threefold[polars]'``).

Example (in a checkout, from the repository's root)::

    >>> import threefold
    >>> manifest = threefold.ingest(["data-samples"], "dataset", threads=2)
    >>> manifest["inputs"][0]["status"]
    'ok'
    >>> con = threefold.connect("dataset")
    >>> con.sql("SELECT count(*) FROM games").fetchall()
    [(303,)]
    >>> threefold.report("dataset")["matched"]
    303

``python -m threefold ARGS...`` runs the bundled command itself. The dataset's format is
documented in docs/format.md, the module in docs/python.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from .results import Explanation, Report

if TYPE_CHECKING:  # the optional extras, for the type checker only
    import duckdb
    import polars

__all__ = [
    "Explanation",
    "Report",
    "ThreefoldError",
    "__version__",
    "connect",
    "events",
    "executable",
    "explain",
    "games",
    "ingest",
    "report",
    "views_sql",
]

try:
    __version__: str = metadata.version("threefold")
except metadata.PackageNotFoundError:  # imported from a checkout without being installed
    __version__ = "0+unknown"

StrPath = Union[str, "os.PathLike[str]"]
"""A path: a ``str`` or a ``pathlib.Path`` (any ``os.PathLike[str]``)."""

TABLES = ("games", "events")
"""The dataset's tables: a folder each under the dataset, one Hive partition per source."""

_EXE_NAMES = ("threefold", "threefold.exe")


class ThreefoldError(RuntimeError):
    """The ``threefold`` command failed.

    Attributes:
        returncode: the command's exit status (1: an input could not be read, see the
            manifest; 2: a usage or output error).
        stderr: what it wrote on standard error.
        args_: the command line that was run.
        manifest: for :func:`ingest`, the dataset's manifest after the run when there is one
            (the inputs that failed have ``status: "failed"`` and their ``error``), else None.

    Example::

        >>> try:
        ...     threefold.ingest(["no-such-file.pgn"], "dataset")
        ... except threefold.ThreefoldError as e:
        ...     print(e.returncode)
        1
    """

    def __init__(
        self,
        args: Sequence[str],
        returncode: int,
        stderr: str,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        self.args_ = list(args)
        self.returncode = returncode
        self.stderr = stderr
        self.manifest = manifest
        detail = stderr.strip() or "(nothing on stderr)"
        super().__init__(f"{' '.join(self.args_)} exited with status {returncode}:\n{detail}")


def executable() -> str:
    """The path of the bundled ``threefold`` executable.

    Looked up, in order: the ``THREEFOLD_EXECUTABLE`` environment variable (e.g. a
    ``target/release/threefold`` under development); the file the installed distribution's
    RECORD lists as its executable; the environment's scripts folder
    (``sysconfig.get_path("scripts")``); ``threefold`` on ``PATH``.

    Raises:
        FileNotFoundError: none of these holds an executable.

    Example::

        >>> threefold.executable()
        '/home/me/venv/bin/threefold'
    """
    override = os.environ.get("THREEFOLD_EXECUTABLE")
    if override:
        return override
    candidates: list[Path] = []
    try:
        files = metadata.distribution("threefold").files or []
    except metadata.PackageNotFoundError:
        files = []
    for file in files:
        if file.name in _EXE_NAMES and file.parent.name in ("bin", "Scripts"):
            candidates.append(Path(str(file.locate())))
    scripts = sysconfig.get_path("scripts")
    if scripts:
        candidates += [Path(scripts) / name for name in _EXE_NAMES]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate.resolve())
    found = shutil.which("threefold")
    if found:
        return found
    raise FileNotFoundError(
        "the threefold executable was not found (reinstall the package: pip install threefold, "
        "or set THREEFOLD_EXECUTABLE)"
    )


def _flags(options: Mapping[str, Any]) -> list[str]:
    """Keyword options as command-line flags: ``min_elo=1800`` → ``--min-elo 1800``, ``True`` →
    the bare flag, ``False``/``None`` → nothing, a list or tuple → the flag once per item."""
    out: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            for item in value:
                out += [flag, os.fspath(item) if isinstance(item, os.PathLike) else str(item)]
        else:
            out += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return out


def _run(args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """Runs the bundled command with ``args``; raises ThreefoldError on a non-zero exit."""
    argv = [executable(), *args]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ThreefoldError(["threefold", *args], done.returncode, done.stderr)
    return done


def _paths(inputs: StrPath | Iterable[StrPath]) -> list[str]:
    if isinstance(inputs, (str, os.PathLike)):
        return [os.fspath(inputs)]
    return [os.fspath(p) for p in inputs]


def _read_manifest(out: StrPath) -> dict[str, Any] | None:
    try:
        with open(Path(out) / "_manifest.json", encoding="utf-8") as f:
            manifest: dict[str, Any] = json.load(f)
        return manifest
    except (OSError, ValueError):
        return None


def ingest(inputs: StrPath | Iterable[StrPath], out: StrPath, **options: Any) -> dict[str, Any]:
    """Runs ``threefold ingest INPUTS... --out OUT`` and returns the dataset's manifest.

    Args:
        inputs: PGN files (plain, .zst, .bz2, .gz), folders (searched recursively) or ``"-"``;
            one path or a list of them.
        out: the dataset folder: new, empty, or an earlier threefold dataset.
        **options: the command's flags, underscores for dashes: ``threads=2`` →
            ``--threads 2``, ``source="x"`` → ``--source x``, ``force=True`` → ``--force``,
            ``verify_sha256="sums.txt"``, ``shard="0/4"``, ``venue="otb"``. ``quiet`` defaults
            to True.

    Returns:
        ``_manifest.json`` as a dict: ``tool_version``, ``rules_version``, … and ``inputs``,
        one entry per input (``source``, ``path``, ``status`` — ``ok``, ``up_to_date`` or
        ``failed`` —, ``games``, ``events``, ``events_by_kind``, ``seconds``, …; see
        docs/format.md).

    Raises:
        ThreefoldError: the command exited with a non-zero status (1: an input could not be
            read, the others were ingested; its ``manifest`` says which; 2: usage or output
            error); it carries ``stderr`` and ``returncode``.

    Example::

        >>> m = threefold.ingest("data-samples", "dataset", threads=2)
        >>> sorted((e["source"], e["games"]) for e in m["inputs"])
        [('karpov_miles_tilburg_1986', 2), ('lichess_db_standard_rated_2013-01-first300', 300), ('tcec-chess960-game35', 1)]
    """
    options.setdefault("quiet", True)
    args = ["ingest", *_paths(inputs), "--out", os.fspath(out), *_flags(options)]
    argv = [executable(), *args]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    manifest = _read_manifest(out)
    if done.returncode != 0:
        raise ThreefoldError(["threefold", *args], done.returncode, done.stderr, manifest)
    if manifest is None:
        raise ThreefoldError(["threefold", *args], done.returncode, f"no readable {out}/_manifest.json")
    return manifest


def report(dir: StrPath, **filters: Any) -> Report:
    """Runs ``threefold report DIR --json`` with ``filters`` as flags and returns its JSON.

    Args:
        dir: a dataset folder written by :func:`ingest`.
        **filters: the command's filters and options, underscores for dashes:
            ``source="lichess*"`` (or a list: one ``--source`` each), ``since="2021-01"``,
            ``until``, ``time_class="blitz"`` (or a list), ``venue="lichess"`` (or a list),
            ``min_elo=1800``, ``max_elo``,
            ``by="source"``, ``collections``, ``min_games``, ``html="report.html"``.

    Returns:
        A :class:`Report`. It reads as the JSON's dict (also ``.data``): ``rows`` (the dataset's
        games), ``matched`` (those the filters keep), ``overall``, ``claims``, …, ``groups`` and
        ``figures`` (docs/report.md, "JSON"); ``.figures()`` gives the figures as a DataFrame,
        and a notebook shows its answers and charts inline.

    Raises:
        ThreefoldError: the command failed (a filter that cannot match, not a dataset, …).

    Example::

        >>> r = threefold.report("dataset", source="lichess*", time_class=["blitz", "bullet"])
        >>> r["filter_text"], r["matched"]
        ('games with source lichess*; time class blitz or bullet', 228)
    """
    with tempfile.TemporaryDirectory(prefix="threefold-report-") as tmp:
        page = Path(filters.get("html") or Path(tmp) / "report.html")
        options = {**filters, "html": page}
        done = _run(["report", os.fspath(dir), *_flags(options), "--json"])
        data: dict[str, Any] = json.loads(done.stdout)
        return Report(data, page.read_text(encoding="utf-8"))


def explain(path: StrPath, game: str | int | None = None, source: str | None = None) -> Explanation:
    """Runs ``threefold explain PATH [--game KEY] [--source NAME]`` and returns its result.

    The :class:`Explanation` is the text timeline (a ``str``); a notebook shows its boards
    page (``explain --html``) inline, and ``.save(path)`` writes that page.

    Args:
        path: a PGN file, or a dataset folder (then ``source`` names the input when the dataset
            holds several).
        game: the game's key as the dataset names it: its ``byte_offset``, or
            ``"frame_offset:byte_offset"`` when ``frame_offset`` is not 0; default: the first game.
        source: the dataset's source the game is in.

    Example::

        >>> print(threefold.explain("data-samples/karpov_miles_tilburg_1986.pgn", game=1021))
    """
    with tempfile.TemporaryDirectory(prefix="threefold-explain-") as tmp:
        page = Path(tmp) / "explain.html"
        done = _run(["explain", os.fspath(path), *_flags({"game": game, "source": source, "html": page})])
        return Explanation(done.stdout, page.read_text(encoding="utf-8"))


def _import_extra(module: str, what: str) -> Any:
    """Imports an optional dependency, or raises an ImportError naming the extra to install."""
    try:
        return __import__(module)
    except ImportError as e:
        raise ImportError(
            f"threefold.{what} needs {module}, which is not installed: pip install 'threefold[{module}]'",
            name=module,
        ) from e


def views_sql(dir: StrPath) -> str:
    """The SQL of ``DIR/views.sql`` for where ``dir`` is now: ``threefold views DIR --print``.

    ``threefold ingest`` writes the views with absolute paths (DuckDB resolves relative ones
    from its working directory), so a dataset moved or copied elsewhere needs them again; this
    gives them without writing to the dataset (which may be read-only), exactly as
    ``threefold views DIR`` would write them.

    Example::

        >>> print(threefold.views_sql("/tmp/moved/dataset"))
        -- DuckDB views over this threefold dataset; in duckdb: .read views.sql (any working directory)
        CREATE OR REPLACE VIEW games AS SELECT * FROM read_parquet('/tmp/moved/dataset/games/source=*/*.parquet', hive_partitioning = true, union_by_name = true);
        CREATE OR REPLACE VIEW events AS SELECT * FROM read_parquet('/tmp/moved/dataset/events/source=*/*.parquet', hive_partitioning = true, union_by_name = true);
        CREATE OR REPLACE VIEW summary AS SELECT * FROM read_parquet('/tmp/moved/dataset/summary/source=*/*.parquet', hive_partitioning = true, union_by_name = true);
        CREATE OR REPLACE VIEW games_unique AS SELECT * FROM read_parquet('/tmp/moved/dataset/games/source=*/*.parquet', hive_partitioning = true, union_by_name = true) QUALIFY fingerprint IS NULL OR row_number() OVER (PARTITION BY fingerprint ORDER BY source, frame_offset, byte_offset) = 1;
    """
    return _run(["views", os.fspath(dir), "--print"]).stdout


def connect(dir: StrPath, con: duckdb.DuckDBPyConnection | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the dataset's ``games`` and ``events`` views.

    The views are those of ``DIR/views.sql``, with their paths pointing to where ``dir`` is now
    (see :func:`views_sql`), so a dataset moved or copied elsewhere needs no
    ``threefold views`` first. Needs ``pip install 'threefold[duckdb]'``.

    Args:
        dir: a dataset folder written by :func:`ingest`.
        con: a connection to create the views in; default: a new in-memory database.

    Example::

        >>> con = threefold.connect("dataset")
        >>> con.sql("SELECT kind, count(*) FROM events GROUP BY kind ORDER BY kind").fetchall()
        [('claim_by_move', 13), ('pseudo_repetition', 4), ('repetition', 57)]
    """
    sql = views_sql(dir)
    if con is None:
        duckdb_module = _import_extra("duckdb", "connect")
        con = duckdb_module.connect()
    con.execute(sql)
    return con


def _scan(dir: StrPath, table: str, what: str) -> polars.LazyFrame:
    pl = _import_extra("polars", what)
    root = Path(dir).resolve()
    if not (root / "_manifest.json").is_file():
        raise FileNotFoundError(f"{root} is not a threefold dataset (no _manifest.json)")
    # source=* only: the folders readers see (not the staging folders of a run in progress);
    # `source` is read as text whatever it looks like (a source "2024" stays "2024").
    frame: polars.LazyFrame = pl.scan_parquet(
        (root / table / "source=*" / "*.parquet").as_posix(),
        hive_partitioning=True,
        hive_schema={"source": pl.String},
    )
    return frame


def games(dir: StrPath) -> polars.LazyFrame:
    """The dataset's ``games`` table (one row per game) as a polars LazyFrame.

    Its columns are the Parquet files' (docs/format.md, "games") and ``source``, the Hive
    partition; a game is keyed by ``(source, frame_offset, byte_offset)``. Needs
    ``pip install 'threefold[polars]'``.

    Example::

        >>> import polars as pl
        >>> (threefold.games("dataset").group_by("source").agg(pl.len(), pl.col("claim_opportunities").gt(0).sum())
        ...     .sort("source").collect())
    """
    return _scan(dir, "games", "games")


def events(dir: StrPath) -> polars.LazyFrame:
    """The dataset's ``events`` table (one row per repetition event) as a polars LazyFrame.

    ``source`` is the Hive partition; events join games on
    ``(source, frame_offset, byte_offset)``. Needs ``pip install 'threefold[polars]'``.

    Example::

        >>> ev, g = threefold.events("dataset"), threefold.games("dataset")
        >>> (ev.filter(pl.col("kind") == "pseudo_repetition")
        ...     .join(g, on=["source", "frame_offset", "byte_offset"])
        ...     .select("source", "White", "Black", "ply", "differs").collect())
    """
    return _scan(dir, "events", "events")


def _main() -> None:
    """``python -m threefold ARGS...``: runs the bundled command with ARGS, its exit status ours."""
    exe = executable()
    args = [exe, *sys.argv[1:]]
    if os.name == "posix":
        sys.stdout.flush()
        os.execv(exe, args)
    sys.exit(subprocess.call(args))
