"""The share of games that went on after a threefold claim, under the missed-claim rule before and
after a game drawn by the repetition itself stopped counting as a miss (docs/report.md,
"Missed claims: before and after the rule was mended").

    python3 scripts/missed-claims-figures.py FILE_OR_DIR...   (uses target/release/threefold)

Per game it reads `threefold dump`: the rule now is the summary's (`missed_claims`,
`missed_claims_on_board`, `missed_claims_by_move`); the rule before is worked out from the same
records: an opportunity was missed when any move token followed it (`ply < plies`, or a bad token
stopped the replay) or the game was decisive. The last column counts the games with a miss that
were still drawn by a repetition at their end (a claim passed over first, a later one taken).
Games are split into Lichess sources (a file
named `lichess…`) and the rest. Prints a Markdown table.
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "threefold")


def inputs(args):
    for a in args:
        if os.path.isdir(a):
            for dirpath, _, names in sorted(os.walk(a)):
                for n in sorted(names):
                    if not n.endswith(".md"):
                        yield os.path.join(dirpath, n)
        else:
            yield a


def opportunities(game):
    """ply -> [on the board, by a declared move]"""
    opp = {}
    for e in game["events"]:
        if e["kind"] == "repetition" and e["claimable"]:
            opp.setdefault(e["ply"], [False, False])[0] = True
        elif e["kind"] == "claim_by_move":
            opp.setdefault(e["ply"], [False, False])[1] = True
    return opp


def main():
    # [games with a claim, missed]: overall, on the board, by a declared move; before and after
    keys = ["any", "board", "move"]
    tally = {g: {k: {"with": 0, "before": 0, "after": 0, "later": 0} for k in keys} for g in ("Lichess", "other")}
    for path in inputs(sys.argv[1:]):
        group = "Lichess" if os.path.basename(path).lower().startswith("lichess") else "other"
        out = subprocess.run([BIN, "dump", path], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            g = json.loads(line)
            s = g["summary"]
            if g["status"] == "skipped" or not s or not s["claim_opportunities"]:
                continue
            opp = opportunities(g)
            assert len(opp) == s["claim_opportunities"], (path, g["index"])
            plies, stopped = s["plies"], g["error"] is not None
            decisive = g["result"] in ("1-0", "0-1")
            old = {k for k in opp if k < plies or stopped or decisive}
            t = tally[group]
            for kind, i, now in (("any", None, s["missed_claims"]), ("board", 0, s["missed_claims_on_board"]),
                                 ("move", 1, s["missed_claims_by_move"])):
                mine = opp if i is None else {k for k, v in opp.items() if v[i]}
                if not mine:
                    continue
                t[kind]["with"] += 1
                t[kind]["before"] += bool(mine & old if i is not None else old)
                t[kind]["after"] += now > 0
                # missed, and yet the game was drawn by a later repetition (a claim passed over first)
                t[kind]["later"] += now > 0 and s["draw_reason"] in ("threefold", "threefold_by_move", "fivefold")
    names = {"any": "any claim", "board": "on the board (9.2.1.2)", "move": "by a declared move (9.2.1.1)"}
    print("| sources | claim | games with one | went on: rule before | went on: rule now | of those, drawn by a later repetition |")
    print("|---|---|---:|---:|---:|---:|")
    for group, t in tally.items():
        for k in keys:
            w = t[k]["with"]
            if not w:
                continue
            pct = lambda n: f"{n:,} ({100 * n / w:.1f}%)"
            print(f"| {group} | {names[k]} | {w:,} | {pct(t[k]['before'])} | {pct(t[k]['after'])} | {t[k]['later']:,} |")


if __name__ == "__main__":
    main()
