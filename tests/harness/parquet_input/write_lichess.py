"""Writes PGN games as the Lichess database on Hugging Face lays them out
(`Lichess/standard-chess-games`: `DATASET/data/year=YYYY/month=MM/train-NNNNN-of-MMMMM.parquet`,
one row per game, the tags as columns with the published types, `movetext` the movetext), for
the tests of Parquet input (tests/cli/parquet_input.rs).

Usage: python write_lichess.py PGN OUT_ROOT DATASET YEAR MONTH FILES ROWS_PER_GROUP [published]

The published columns come first, in the published order and types (Elo and rating changes
int16, UTCDate date32, UTCTime time32[s]); the PGN's other tags (Date, Round, Variant, ...) follow
as string columns, in the order they first appear. Tag values are unescaped as a PGN reader
reads them; a tag a game lacks, an Elo of "?" or a date with "??" is a null. With `published`,
only the published columns are written: the PGN's other tags (Date and Round too) are lost, as
in the files Lichess publishes. Compression is
pyarrow's default (Snappy), as in the published files.
"""

import datetime
import os
import re
import sys

import pyarrow as pa
import pyarrow.parquet as pq

PUBLISHED = [
    ("Event", pa.string()), ("Site", pa.string()), ("White", pa.string()), ("Black", pa.string()),
    ("Result", pa.string()), ("WhiteTitle", pa.string()), ("BlackTitle", pa.string()),
    ("WhiteElo", pa.int16()), ("BlackElo", pa.int16()),
    ("WhiteRatingDiff", pa.int16()), ("BlackRatingDiff", pa.int16()),
    ("UTCDate", pa.date32()), ("UTCTime", pa.time32("s")),
    ("ECO", pa.string()), ("Opening", pa.string()), ("Termination", pa.string()), ("TimeControl", pa.string()),
]
TAG = re.compile(r'^\[([A-Za-z0-9_+#=:-]+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')


def games(text):
    """(tags as a list of (name, value), movetext) per game."""
    lines = text.split("\n")
    i, n = 0, len(lines)
    while i < n:
        while i < n and not lines[i].strip():
            i += 1
        if i >= n:
            break
        tags = []
        while i < n and TAG.match(lines[i]):
            m = TAG.match(lines[i])
            tags.append((m.group(1), re.sub(r"\\(.)", r"\1", m.group(2))))
            i += 1
        while i < n and not lines[i].strip():
            i += 1
        moves = []
        while i < n and not (lines[i].startswith("[") and TAG.match(lines[i])):
            moves.append(lines[i].rstrip("\r"))
            i += 1
        yield tags, "\n".join(moves).strip()


def typed(name, kind, value):
    if value is None:
        return None
    try:
        if kind == pa.int16():
            return int(value)
        if kind == pa.date32():
            return datetime.date(*map(int, value.split(".")))
        if kind == pa.time32("s"):
            return datetime.time(*map(int, value.split(":")))
    except ValueError:
        return None
    return value


def main():
    pgn, root, dataset, year, month, files, per_group = sys.argv[1:8]
    published_only = sys.argv[8:] == ["published"]
    files, per_group = int(files), int(per_group)
    with open(pgn, encoding="utf-8") as f:
        text = f.read().replace("\r\n", "\n")
    rows = list(games(text))
    published = dict(PUBLISHED)
    extra = []
    for tags, _ in rows:
        for name, _ in tags:
            if name not in published and name not in extra and not published_only:
                extra.append(name)
    fields = PUBLISHED + [(name, pa.string()) for name in extra] + [("movetext", pa.string())]
    schema = pa.schema(fields)
    columns = {name: [] for name, _ in fields}
    for tags, moves in rows:
        first = {}
        for name, value in tags:
            first.setdefault(name, value)
        for name, kind in fields[:-1]:
            columns[name].append(typed(name, kind, first.get(name)))
        columns["movetext"].append(moves)
    table = pa.table({name: pa.array(columns[name], type=kind) for name, kind in fields}, schema=schema)
    folder = os.path.join(root, dataset, "data", f"year={year}", f"month={month}")
    os.makedirs(folder, exist_ok=True)
    per_file = -(-table.num_rows // files)
    for k in range(files):
        part = table.slice(k * per_file, per_file)
        pq.write_table(part, os.path.join(folder, f"train-{k:05d}-of-{files:05d}.parquet"), row_group_size=per_group)
    print(f"{pgn}: {table.num_rows} games, {len(extra)} extra tag columns, {files} files in {folder}")


if __name__ == "__main__":
    main()
