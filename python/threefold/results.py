"""What :func:`threefold.explain` and :func:`threefold.report` return: the command's result, and
how a notebook shows it (``_repr_html_``: the same page the command writes with ``--html``, in a
frame of its own so that its styles stay inside)."""

from __future__ import annotations

import html
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:  # the optional extra, for the type checker only
    import polars

StrPath = Union[str, "os.PathLike[str]"]

# The frame grows to its page's height once loaded (where the notebook runs scripts); until then,
# and where it does not, it scrolls.
_FRAME = (
    '<iframe srcdoc="{doc}" title="{title}" style="width: 100%; height: {height}px; border: 0" '
    "onload=\"this.style.height = (this.contentWindow.document.documentElement.scrollHeight + 20) + 'px'\">"
    "</iframe>"
)


def _frame(page: str, title: str, height: int) -> str:
    return _FRAME.format(doc=html.escape(page, quote=True), title=html.escape(title), height=height)


def _save(page: str, path: StrPath) -> Path:
    """Writes ``page`` to ``path`` through a temporary file renamed into place."""
    target = Path(path)
    temp = target.with_name(f".{target.name}.tmp")
    temp.write_text(page, encoding="utf-8")
    os.replace(temp, target)
    return target


class Explanation(str):
    """One game's repetitions, as ``threefold explain`` gives them.

    The object is the text timeline (a ``str``: print it, search it); in Jupyter it shows the
    boards page of ``explain --html`` inline, and :meth:`save` writes that page.

    Attributes:
        html: the boards page, a self-contained HTML document.
    """

    html: str

    def __new__(cls, text: str, page: str) -> Explanation:
        self = super().__new__(cls, text)
        self.html = page
        return self

    def _repr_html_(self) -> str:
        return _frame(self.html, "threefold explain", 720)

    def save(self, path: StrPath) -> Path:
        """Writes the boards page to ``path`` (HTML; any browser opens it) and returns the path."""
        return _save(self.html, path)


class Report(Mapping[str, Any]):
    """A report, as ``threefold report --json`` gives it.

    It reads as the JSON's dict (``r["matched"]``, ``r.data``); :meth:`figures` gives every
    figure as a table, and in Jupyter it shows the answers and charts of ``report --html`` inline.

    Attributes:
        data: the report's JSON (docs/report.md, "JSON").
        html: the report's page, a self-contained HTML document.
    """

    def __init__(self, data: dict[str, Any], page: str) -> None:
        self.data = data
        self.html = page

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"<threefold.Report: {self.data.get('filter_text', '')}, {self.data.get('matched', 0)} games>"

    def _repr_html_(self) -> str:
        return _frame(self.html, "threefold report", 900)

    def save(self, path: StrPath) -> Path:
        """Writes the report's page to ``path`` (HTML) and returns the path."""
        return _save(self.html, path)

    def figure_rows(self) -> list[dict[str, Any]]:
        """Every figure's rows as dicts: one per figure, label and group (see :meth:`figures`)."""
        rows = []
        for figure in self.data.get("figures", []):
            for row in figure["rows"]:
                rows.append(
                    {
                        "figure": figure["id"],
                        "title": figure["title"],
                        "label": row["label"],
                        "group": row["series"],
                        "value": row["magnitude"],
                        "low": row["low"],
                        "high": row["high"],
                        "shown": row["value"],
                        "interval": row["interval"],
                        "count": row["count"],
                        "games": row["games"],
                        "unit": row["unit"],
                        "few_games": row["small"],
                    }
                )
        return rows

    def figures(self, library: str = "polars") -> polars.DataFrame | Any:
        """The report's figures as a DataFrame: one row per figure (``figure``, its id, and
        ``title``), label and group (``group``: the ``--by`` group or the chart's part, null for
        all games), with the value (``value``: a percentage, a count or an average score, as
        ``unit`` says; ``shown`` as the report prints it), its 95% Wilson interval (``low``,
        ``high``), the count it is of (``count``) and the number of games (``games``).

        Args:
            library: ``"polars"`` (``pip install 'threefold[polars]'``) or ``"pandas"``.
        """
        if library not in ("polars", "pandas"):
            raise ValueError(f"library {library!r}: expected 'polars' or 'pandas'")
        try:
            module = __import__(library)
        except ImportError as e:
            extra = "pip install 'threefold[polars]'" if library == "polars" else "pip install pandas"
            raise ImportError(f"Report.figures needs {library}, which is not installed: {extra}", name=library) from e
        if library == "polars":
            return module.DataFrame(self.figure_rows(), infer_schema_length=None)
        return module.DataFrame(self.figure_rows())
