"""Do two threefold datasets hold the same games and events, but for where each game is? For
the tests of Parquet input: a dataset ingested from Lichess's Parquet files against one from
the same games' PGN.

Usage: python tests/harness/parquet_input/compare.py A B [COLUMN,...]   (the Python of .venv, which has DuckDB)

Every column is compared but the key (`source`, `frame_offset`, `byte_offset`), which names
the game's place in its input. Each event is compared with its game's tags (Site, White,
Black, Event, UTCDate, UTCTime, Date) in place of the key, so that an event must belong to the
same game in both. `A EXCEPT ALL B` and `B EXCEPT ALL A` must both be empty, and each table
nonempty. Columns named after B are left out of the comparison too (`Date,Round`: Lichess's
Parquet files have no such columns, where its PGN has the tags). Exit status 1 on any difference.
"""

import os
import sys

import duckdb

KEY = ("source", "frame_offset", "byte_offset")
GAME = ("Site", "White", "Black", "Event", "UTCDate", "UTCTime", "Date")


def main():
    a, b = sys.argv[1], sys.argv[2]
    ignored = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else set()
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    for name, d in (("a", a), ("b", b)):
        for table in ("games", "events"):
            glob = os.path.join(os.path.abspath(d), table, "source=*", "*.parquet").replace("'", "''")
            con.execute(f"CREATE VIEW {name}_{table}_raw AS SELECT * FROM read_parquet('{glob}', hive_partitioning = true)")
        games_cols = [r[0] for r in con.execute(f"DESCRIBE {name}_games_raw").fetchall() if r[0] not in KEY and r[0] not in ignored]
        event_cols = [r[0] for r in con.execute(f"DESCRIBE {name}_events_raw").fetchall() if r[0] not in KEY]
        con.execute(f"CREATE VIEW {name}_games AS SELECT {', '.join(games_cols)} FROM {name}_games_raw")
        on = " AND ".join(f"e.{k} = g.{k}" for k in KEY)
        cols = ", ".join([f"e.{c}" for c in event_cols] + [f"g.{c} AS game_{c}" for c in GAME if c not in ignored])
        con.execute(f"CREATE VIEW {name}_events AS SELECT {cols} FROM {name}_events_raw e JOIN {name}_games_raw g ON {on}")
    failed = []
    for table in ("games", "events"):
        n_a = con.execute(f"SELECT count(*) FROM a_{table}").fetchone()[0]
        n_b = con.execute(f"SELECT count(*) FROM b_{table}").fetchone()[0]
        ab = con.execute(f"SELECT count(*) FROM (FROM a_{table} EXCEPT ALL FROM b_{table})").fetchone()[0]
        ba = con.execute(f"SELECT count(*) FROM (FROM b_{table} EXCEPT ALL FROM a_{table})").fetchone()[0]
        print(f"{table}: A {n_a} rows, B {n_b} rows; A EXCEPT ALL B: {ab} rows, B EXCEPT ALL A: {ba} rows")
        if n_a == 0 or ab or ba:
            failed.append(table)
            for x, y in (("a", "b"), ("b", "a")):
                row = con.execute(f"FROM {x}_{table} EXCEPT ALL FROM {y}_{table} LIMIT 1").fetchone()
                if row:
                    print(f"  first row of {x.upper()} not in {y.upper()}: {row}")
    if failed:
        print(f"compare: {a} and {b} differ in {', '.join(failed)}")
        return 1
    print(f"compare: {a} and {b} hold the same games and events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
