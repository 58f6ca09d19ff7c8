"""Are two threefold datasets the same rows? For the shard tests: a sharded run against an
unsharded one (tests/harness/shard/sequential.sh, tests/harness/slurm/run.sh).

Usage: python tests/harness/shard/compare.py A B   (the Python of .venv, which has DuckDB)

For each table (games, events): the column names and types must agree, both must have the same
nonzero number of rows, and `A EXCEPT ALL B` and `B EXCEPT ALL A` must both be empty (as
multisets: a row twice in one and once in the other is a difference). The tables are read as
the dataset's views.sql reads them (committed `source=*` partitions only, not staged parts).
Prints one line per table and direction; exit status 1 on any difference, 2 on a usage error.
"""

import os
import sys

import duckdb

TABLES = ("games", "events")


def relation(directory, table):
    glob = os.path.join(os.path.abspath(directory), table, "source=*", "*.parquet")
    quoted = glob.replace("'", "''")
    return f"read_parquet('{quoted}', hive_partitioning = true, union_by_name = true)"


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    a, b = sys.argv[1], sys.argv[2]
    for d in (a, b):
        if not os.path.isdir(d):
            print(f"compare: {d} is not a folder", file=sys.stderr)
            return 2
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")  # nothing but the result on stdout

    def rows(sql):
        return con.execute(sql).fetchall()

    failed = []
    for table in TABLES:
        con.execute(f"CREATE VIEW a_{table} AS SELECT * FROM {relation(a, table)}")
        con.execute(f"CREATE VIEW b_{table} AS SELECT * FROM {relation(b, table)}")
        schema_a = rows(f"DESCRIBE a_{table}")
        schema_b = rows(f"DESCRIBE b_{table}")
        cols_a = [(r[0], r[1]) for r in schema_a]
        cols_b = [(r[0], r[1]) for r in schema_b]
        if cols_a != cols_b:
            only_a = [c for c in cols_a if c not in cols_b]
            only_b = [c for c in cols_b if c not in cols_a]
            print(f"{table}: the columns differ (order or type): only in A {only_a}, only in B {only_b}")
            failed.append(f"{table} columns")
            continue
        n_a = rows(f"SELECT count(*) FROM a_{table}")[0][0]
        n_b = rows(f"SELECT count(*) FROM b_{table}")[0][0]
        a_not_b = rows(f"SELECT count(*) FROM (SELECT * FROM a_{table} EXCEPT ALL SELECT * FROM b_{table})")[0][0]
        b_not_a = rows(f"SELECT count(*) FROM (SELECT * FROM b_{table} EXCEPT ALL SELECT * FROM a_{table})")[0][0]
        print(f"{table}: A {n_a} rows, B {n_b} rows; A EXCEPT ALL B: {a_not_b} rows, B EXCEPT ALL A: {b_not_a} rows")
        if n_a == 0 or n_b == 0:
            failed.append(f"{table} empty")
        if n_a != n_b:
            failed.append(f"{table} row counts")
        if a_not_b or b_not_a:
            failed.append(f"{table} rows")
            example = rows(f"SELECT * FROM a_{table} EXCEPT ALL SELECT * FROM b_{table} LIMIT 1")
            if example:
                print(f"  first row of A not in B: {example[0]}")
            example = rows(f"SELECT * FROM b_{table} EXCEPT ALL SELECT * FROM a_{table} LIMIT 1")
            if example:
                print(f"  first row of B not in A: {example[0]}")
    if failed:
        print(f"compare: {a} and {b} differ: {', '.join(failed)}")
        return 1
    print(f"compare: {a} and {b} hold the same rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
