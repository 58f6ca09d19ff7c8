"""The README quick start's figures from the dataset's Parquet files, by queries of their own (not
views.sql, not the summary columns the quick start reads): per source the games, the games with a
claim opportunity, with a missed claim (the rule in docs/events.md's game summary: a claim on the board at
ply p is not made when the game has a ply after p, a declared move at p when another move was played
or the game has a ply after p+1, any claim in a decisive game; one not made is missed when play left the repetition: the game was
not drawn, or a pawn move, a capture or a change of castling rights followed p, which python-chess
finds replaying the sample files), with a pseudo-repetition; the events by kind; and Karpov-Miles's
claim line. Prints them in tests/quickstart.expected's form.
Usage: python tests/quickstart_check.py DATASET [QUICKSTART_OUTPUT] (run from the repository root)"""
import pathlib
import sys

import chess
import chess.pgn
import duckdb

con = duckdb.connect()
con.execute("SET enable_progress_bar = false")  # nothing but the result on stdout
d = sys.argv[1]
con.execute(f"CREATE VIEW g AS SELECT * FROM read_parquet('{d}/games/**/*.parquet', hive_partitioning = true)")
con.execute(f"CREATE VIEW e AS SELECT * FROM read_parquet('{d}/events/**/*.parquet', hive_partitioning = true)")

# The last ply whose move left the repetition's stretch (pawn move, capture, castling rights
# changed), per game of each sample file in file order: the dataset's games of a source in the
# order of their keys are the same games.
last_left = []
for path in sorted(pathlib.Path("data-samples").glob("*.pgn")):
    with open(path, encoding="utf-8") as f:
        nth = 0
        while (game := chess.pgn.read_game(f)) is not None:
            board, last = game.board(), 0
            for ply, move in enumerate(game.mainline_moves(), start=1):
                rights = board.castling_rights
                irreversible = board.is_capture(move) or board.piece_type_at(move.from_square) == chess.PAWN
                board.push(move)
                if irreversible or board.castling_rights != rights:
                    last = ply
            last_left.append((path.stem, nth, last))
            nth += 1
con.execute("CREATE TABLE left_at (source VARCHAR, nth INTEGER, last_left INTEGER)")
con.executemany("INSERT INTO left_at VALUES (?, ?, ?)", last_left)
con.execute("""CREATE VIEW g_left AS
  SELECT g.*, l.last_left FROM
    (SELECT *, row_number() OVER (PARTITION BY source ORDER BY frame_offset, byte_offset) - 1 AS nth FROM g) g
  JOIN left_at l USING (source, nth)""")
assert con.sql("SELECT count(*) FROM g").fetchall() == con.sql("SELECT count(*) FROM g_left").fetchall(), \
    "the sample files' games are not the dataset's"

con.execute("""CREATE TABLE per_game AS
WITH ply AS (  -- one row per claim opportunity: a game's ply with a claim on the board or by a move
               -- (by a move only where the side to move claimed: claimant side_to_move)
  SELECT source, frame_offset, byte_offset, ply,
         bool_or(kind = 'repetition' AND occurrence >= 3) AS board,
         bool_or(kind = 'claim_by_move') AS by_move,
         bool_or(kind = 'claim_by_move' AND played) AS declared_played
  FROM e JOIN (SELECT source, frame_offset, byte_offset, claimant FROM g) USING (source, frame_offset, byte_offset)
  WHERE (kind = 'repetition' AND occurrence >= 3) OR (kind = 'claim_by_move' AND claimant = 'side_to_move')
  GROUP BY ALL),
opp AS (
  SELECT ply.*, g.plies, g.Result,
         -- not claimed (a decisive game's claims were not made) ...
         (NOT ((board AND g.plies = ply.ply)
               OR (by_move AND (g.plies = ply.ply OR (declared_played AND g.plies = ply.ply + 1))))
          OR g.Result IN ('1-0', '0-1'))
         -- ... and play left the repetition (or the replay stopped at an error)
         AND (g.Result IS DISTINCT FROM '1/2-1/2' OR g.last_left > ply.ply OR g.status = 'error') AS missed
  FROM ply JOIN g_left g USING (source, frame_offset, byte_offset))
SELECT g.source, g.Round, g.plies, count(opp.ply) AS could, count(opp.ply) FILTER (WHERE opp.missed) AS missed,
       (SELECT count(*) FROM e WHERE e.kind = 'pseudo_repetition' AND e.source = g.source
          AND e.frame_offset = g.frame_offset AND e.byte_offset = g.byte_offset) AS pseudo
FROM g LEFT JOIN opp USING (source, frame_offset, byte_offset)
GROUP BY g.source, g.frame_offset, g.byte_offset, g.Round, g.plies""")
rows = con.sql("""
SELECT source, count(*), count(*) FILTER (WHERE could > 0), count(*) FILTER (WHERE missed > 0),
       count(*) FILTER (WHERE pseudo > 0)
FROM per_game GROUP BY source ORDER BY source""").fetchall()
for r in rows:
    print("games", *r)
for kind, n in con.sql("SELECT kind, count(*) FROM e GROUP BY kind ORDER BY kind").fetchall():
    print("events", kind, n)
k = con.sql("""SELECT plies, could, missed FROM per_game
               WHERE source = 'karpov_miles_tilburg_1986' AND Round = '13'""").fetchall()
print("karpov-miles", *k[0])

# With the quick start's output as the second argument: the same figures must be the ones printed.
if len(sys.argv) > 2:
    import re

    text = open(sys.argv[2], encoding="utf-8").read()
    printed = []
    for line in text.splitlines():
        cells = [c.strip() for c in re.split(r"[│┆]", line)[1:-1]]
        if len(cells) == 5 and cells[1].isdigit():
            printed.append("games " + " ".join(cells))
        elif len(cells) == 2 and cells[1].isdigit():
            printed.append(f"events {cells[0]} {cells[1]}")
    m = re.search(r"; (\d+) plies replayed;.*\nClaim opportunities: (\d+), missed: (\d+)", text, re.S)
    if m:
        printed.append("karpov-miles " + " ".join(m.groups()))
    mine = [" ".join(map(str, r)) for r in rows]
    mine = [f"games {r}" for r in mine]
    mine += [f"events {kind} {n}" for kind, n in con.sql("SELECT kind, count(*) FROM e GROUP BY kind ORDER BY kind").fetchall()]
    mine.append("karpov-miles " + " ".join(map(str, k[0])))
    if printed != mine:
        print("the quick start printed:", *printed, "the dataset's own queries give:", *mine, sep="\n  ")
        sys.exit(1)
