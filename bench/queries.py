"""Runs every query of queries/ in DuckDB over a dataset, for bench/run.sh: the same figures
`threefold report` computes, by the engine researchers would use instead.

Usage: python bench/queries.py DATASET_DIR QUERIES_DIR
"""
import glob
import os
import sys

import duckdb

dataset, queries = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute(open(os.path.join(dataset, "views.sql")).read())
rows = 0
for path in sorted(glob.glob(os.path.join(queries, "*.sql"))):
    rows += len(con.execute(open(path).read()).fetchall())
print(rows)
