#!/usr/bin/env python3
"""Compares two JSON-lines files in the FORMAT.md record format, game by game.

Usage:  python3 compare.py rust.jsonl oracle.jsonl [--rules rules.jsonl] [--label NAME]
                           [--max-show 20]
        python3 compare.py --self-test

Games are matched on "index" (both files in ascending index order, as both sides write them;
a repeated or out-of-order index is a disagreement).  A game counts as one disagreement when any
field differs, when white/black/result differ (misaligned games), or when it is present on one
side only.  Values are compared with their JSON types: 1, 1.0 and true are three different
values (an int where a bool or a float is expected fails).  Normalization (FORMAT.md): events
are sorted by (ply, kind order, uci or ""); trailing "+#!?" are stripped from error tokens; for
illegal_move/ambiguous_move/too_long tokens "0-0" and "0-0-0" (any dash kind) become
"O-O"/"O-O-O", "Z0" becomes "--", a leading "P" is removed and a promotion piece after "=" is
uppercased (the Rust side prints the SAN as shakmaty writes it, the oracle the token as
written); null_move tokens "Z0" and "--" are equal.  Nothing else is normalized: `zobrist` is
compared in Chess960 games too, white/black exactly (the oracle decodes tag values as the Rust
side does).  Every field of "summary" is compared (passed_over_claims, fingerprint and any
other), like every top-level field listed in TOP_FIELDS (ending included).

--rules FILE: python-chess's own verdicts (oracle.py --rules-out, pychess_rules.py); each Rust
record is also checked against them (pychess_rules.check), and a game that fails counts as a
disagreement.  Deliberate differences (README.md) are skipped and counted.

Prints each disagreement briefly, up to --max-show, then (with --rules) one line
`python-chess rules: checked G games, P plies, D disagreements; deliberate differences skipped: ...`
and last exactly one line `compared N games, D disagreements`.  Exit status 1 if D > 0.
"""

import argparse
import json
import re
import sys

import pychess_rules

KIND_ORDER = {"repetition": 0, "pseudo_repetition": 1, "hidden_repetition": 2, "claim_by_move": 3}
TOP_FIELDS = ["base_seconds", "increment_seconds", "ending", "venue", "claimant", "status", "variant", "error", "summary",
              "events"]


def records(path):
    """Yields the records of a JSON-lines file."""
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                idx = rec["index"]
            except (ValueError, KeyError, TypeError) as exc:
                sys.exit(f"compare.py: {path}:{lineno}: not a game record: {exc}")
            if type(idx) is not int:
                sys.exit(f"compare.py: {path}:{lineno}: index {idx!r} is not an integer")
            yield rec


class Side:
    """One input file read in index order; records whose index does not ascend are set aside
    (each is a disagreement)."""

    def __init__(self, path, name):
        self.it = records(path)
        self.name = name
        self.last = None
        self.bad = []  # (index, message)
        self.head = self._next()

    def _next(self):
        for rec in self.it:
            idx = rec["index"]
            if self.last is not None and idx <= self.last:
                what = "more than once" if idx == self.last else "out of order"
                self.bad.append((idx, f"index appears {what} on the {self.name} side"))
                continue
            self.last = idx
            return rec
        return None

    def take(self, idx):
        """The record with index idx if it is next, else None."""
        if self.head is not None and self.head["index"] == idx:
            rec, self.head = self.head, self._next()
            return rec
        return None


def canon(v):
    """Canonical JSON text: equal exactly when the values are equal with their JSON types."""
    return json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def same(a, b):
    return canon(a) == canon(b)


def event_key(e):
    return (e.get("ply", -1), KIND_ORDER.get(e.get("kind"), 9), e.get("uci") or "")


# Castling written with zeros, as the PGN readers take it (a dash may be -, en dash or em dash;
# "0-0-" followed by something else is kingside castling with the dash eaten).
ZERO_CASTLING = re.compile("0[-\u2013\u2014]0(?:([-\u2013\u2014]0)|[-\u2013\u2014])?\\Z")
PROMOTION = re.compile("=([pnbrqk])")


def error_token(kind, token):
    """Trailing "+#!?" stripped; for illegal/ambiguous moves and too_long (which the Rust side prints as
    shakmaty writes the parsed SAN, the oracle as written) also "0-0"/"0-0-0" -> "O-O"/"O-O-O",
    "Z0" -> "--", a leading "P" (pawn letter) removed and a promotion piece after "=" uppercased;
    for null moves "Z0" -> "--" (shakmaty prints every null move as "--")."""
    token = token.rstrip("+#!?")
    if kind in ("illegal_move", "ambiguous_move", "too_long"):
        m = ZERO_CASTLING.match(token)
        if m:
            token = "O-O-O" if m.group(1) else "O-O"
        if token == "Z0":
            token = "--"
        if token.startswith("P"):
            token = token[1:]
        token = PROMOTION.sub(lambda p: "=" + p.group(1).upper(), token)
    elif kind == "null_move" and token == "Z0":
        token = "--"
    return token


def normalize(rec):
    rec = dict(rec)
    err = rec.get("error")
    if isinstance(err, dict) and isinstance(err.get("token"), str):
        err = dict(err)
        err["token"] = error_token(err.get("kind"), err["token"])
        rec["error"] = err
    events = rec.get("events")
    if isinstance(events, list):
        out = list(events)
        try:
            out.sort(key=event_key)
        except TypeError:
            pass
        rec["events"] = out
    return rec


def short(v, n=160):
    s = json.dumps(v, ensure_ascii=False, sort_keys=True)
    return s if len(s) <= n else s[:n] + "..."


MISSING = object()


def dict_diff(a, b, prefix):
    """First differing key of two dicts as (path, va, vb), or None."""
    for k in list(a.keys()) + [k for k in b.keys() if k not in a]:
        va, vb = a.get(k, MISSING), b.get(k, MISSING)
        if (va is MISSING) != (vb is MISSING) or (va is not MISSING and not same(va, vb)):
            return (f"{prefix}.{k}", "<missing>" if va is MISSING else va,
                    "<missing>" if vb is MISSING else vb)
    return None


def first_diff(r, o):
    for field in ("white", "black", "result"):
        vr, vo = r.get(field, MISSING), o.get(field, MISSING)
        if (vr is MISSING) != (vo is MISSING) or not same(vr, vo):
            return (f"{field} (misaligned?)", r.get(field, "<missing>"), o.get(field, "<missing>"))
    for field in TOP_FIELDS:
        vr, vo = r.get(field, MISSING), o.get(field, MISSING)
        if (vr is MISSING) == (vo is MISSING) and (vr is MISSING or same(vr, vo)):
            continue
        if field == "events" and isinstance(vr, list) and isinstance(vo, list):
            for i, (er, eo) in enumerate(zip(vr, vo)):
                if not same(er, eo):
                    where = f"events[{i}](ply {eo.get('ply') if isinstance(eo, dict) else '?'} " \
                            f"{eo.get('kind') if isinstance(eo, dict) else '?'})"
                    if isinstance(er, dict) and isinstance(eo, dict):
                        d = dict_diff(er, eo, where)
                        if d:
                            return d
                    return (where, er, eo)
            if len(vr) != len(vo):
                longer, side = (vr, "rust") if len(vr) > len(vo) else (vo, "oracle")
                extra = longer[min(len(vr), len(vo))]
                return (f"events count {len(vr)} vs {len(vo)} (first extra on {side} side)",
                        extra if side == "rust" else "-", extra if side == "oracle" else "-")
        if isinstance(vr, dict) and isinstance(vo, dict):
            d = dict_diff(vr, vo, field)
            if d:
                return d
        return (field, "<missing>" if vr is MISSING else vr, "<missing>" if vo is MISSING else vo)
    return None


def self_test():
    assert not same(1, 1.0) and not same(1, True) and not same(0, False) and not same(0.5, "0.5")
    assert same({"a": [1, 0.5, None, True]}, {"a": [1, 0.5, None, True]})
    assert not same({"a": [1]}, {"a": [1.0]}) and not same({"a": 1}, {"a": 1, "b": None})
    r = {"index": 0, "white": "Gr\u00fcnfeld", "black": None, "result": "1-0", "status": "ok",
         "variant": "chess960", "ending": "time_forfeit", "venue": "otb", "claimant": "side_to_move", "error": None,
         "events": [{"ply": 4, "kind": "repetition",
         "zobrist": "bced8ef86f33e687", "claimable": False, "cycle_plies": 4, "perpetual": "white"}],
         "summary": {"claimant_score_after_first_missed": 1.0, "first_threefold_span": 8,
                     "first_threefold_perpetual": "white", "passed_over_claims": 1,
                     "fingerprint": 18221726219596476451}}
    o = json.loads(json.dumps(r))
    assert first_diff(normalize(r), normalize(o)) is None
    for path, value in ((("summary", "claimant_score_after_first_missed"), 1),
                        (("events", 0, "claimable"), 0),
                        (("events", 0, "zobrist"), "bced8ef86f33e688"),
                        (("events", 0, "perpetual"), None),
                        (("events", 0, "cycle_plies"), 8),
                        (("summary", "first_threefold_perpetual"), "black"),
                        (("summary", "first_threefold_span"), None),
                        (("summary", "passed_over_claims"), 0),
                        (("summary", "fingerprint"), 18221726219596476450),
                        (("summary", "fingerprint"), 18221726219596476451.0),
                        (("summary", "fingerprint"), "18221726219596476451"),
                        (("ending",), None),
                        (("ending",), "timeout_vs_insufficient_material"),
                        (("white",), "Grnfeld")):
        o = json.loads(json.dumps(r))
        target = o
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = value
        assert first_diff(normalize(r), normalize(o)) is not None, path
    for path in (("ending",), ("summary", "fingerprint"), ("summary", "passed_over_claims")):
        o = json.loads(json.dumps(r))
        target = o
        for k in path[:-1]:
            target = target[k]
        del target[path[-1]]
        assert first_diff(normalize(r), normalize(o)) is not None, ("missing", path)
    rules_self_test()


def rules_self_test():
    """pychess_rules.check on 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 1/2-1/2, whose record (as
    `threefold dump` writes it, fields the check does not read left out) has a claim by the
    move Ng8 at ply 7; moved one ply, or left out, it must fail."""
    import chess

    board = chess.Board()
    moves = [board.push_san(san) for san in "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1".split()]
    v = pychess_rules.verdict(0, chess.Board(), moves, "1/2-1/2", False)
    v = json.loads(json.dumps(v))
    rep = lambda ply: {"kind": "repetition", "ply": ply, "occurrence": 2, "claimable": False,
                       "automatic": False}
    rec = {"index": 0, "status": "ok",
           "events": [rep(4), rep(5), rep(6), rep(7), {"kind": "claim_by_move", "ply": 7, "san": "Ng8"}],
           "summary": {"plies": 7, "claim_opportunities": 1, "claim_opportunities_on_board": 0,
                       "first_claim_ply": 7,
                       "first_ply_occurrence_2": 4, "first_ply_occurrence_3": None,
                       "first_ply_occurrence_5": None, "plies_after_fivefold": None,
                       "first_ply_halfmove_100": None, "first_ply_halfmove_150": None,
                       "final_status": "none", "draw_reason": "threefold_by_move",
                       "missed_claims": 0, "passed_over_claims": 0, "missed_claims_on_board": 0,
                       "first_missed_claim_ply": None}}
    assert pychess_rules.check(rec, v) == ([], []), pychess_rules.check(rec, v)
    moved = json.loads(json.dumps(rec))
    moved["events"][-1]["ply"] = 6
    moved["summary"]["first_claim_ply"] = 6
    problems, _ = pychess_rules.check(moved, v)
    assert problems and problems[0][0] == 6, problems
    gone = json.loads(json.dumps(rec))
    del gone["events"][-1]
    gone["summary"].update({"claim_opportunities": 0, "first_claim_ply": None,
                            "draw_reason": "agreement_or_unrecorded"})
    problems, _ = pychess_rules.check(gone, v)
    assert problems and problems[0][0] == 7, problems
    board_claim = json.loads(json.dumps(rec))
    board_claim["summary"]["claim_opportunities_on_board"] = 1
    problems, _ = pychess_rules.check(board_claim, v)
    assert problems and "claim_opportunities_on_board" in problems[0][1], problems
    draw_reason_rules_self_test(rec, v)


def draw_reason_rules_self_test(rec, v):
    """draw_reason against python-chess (FORMAT.md order: no move, the recorded ending, the
    inference): each (ending, draw_reason) pair on the game above must pass or fail as said."""
    import chess

    def problems(ending, reason, verdict=v, record=rec):
        r = json.loads(json.dumps(record))
        r["ending"] = ending
        r["summary"]["draw_reason"] = reason
        return [p for p in pychess_rules.check(r, verdict)[0] if "draw_reason" in p[1]]

    # Ply 7: no position on the board three times, a claim by declaring Ng8, not fivefold.
    for ending, reason in ((None, "threefold_by_move"), ("normal", "threefold_by_move"),
                           ("other", "threefold_by_move"), ("checkmate", "threefold_by_move"),
                           ("adjudication", "adjudication"), ("agreement", "agreement"),
                           ("timeout_vs_insufficient_material", "timeout_vs_insufficient_material"),
                           ("stalemate", "stalemate"), ("insufficient_material", "insufficient_material"),
                           ("repetition", "threefold"), ("fifty_moves", "fifty_moves")):
        assert problems(ending, reason) == [], (ending, reason, problems(ending, reason))
    for ending, reason in ((None, "threefold"), (None, "agreement_or_unrecorded"), (None, "agreement"),
                           (None, "adjudication"), ("adjudication", "threefold_by_move"),
                           ("agreement", "agreement_or_unrecorded"), ("repetition", "fivefold"),
                           ("repetition", "threefold_by_move"), ("fifty_moves", "seventy_five_moves"),
                           ("fifty_moves", "threefold_by_move"), ("normal", None)):
        assert problems(ending, reason), (ending, reason)
    # A recorded repetition is fivefold exactly when python-chess's is_fivefold_repetition()
    # holds at the last ply (16 plies of knight shuffling: the start a fifth time).
    board = chess.Board()
    moves = [board.push_san(san) for san in "Nf3 Nf6 Ng1 Ng8".split() * 4]
    five = json.loads(json.dumps(pychess_rules.verdict(0, chess.Board(), moves, "1/2-1/2", False)))
    r5 = json.loads(json.dumps(rec))
    r5["summary"].update({"plies": 16, "claim_opportunities": len(five["claim"]),
                          "first_claim_ply": five["claim"][0]})
    r5["events"] = ([{"kind": "repetition", "ply": k, "occurrence": 3 + (k >= 12) + (k >= 16),
                      "claimable": True, "automatic": k >= 16} for k in five["rep3"]]
                    + [{"kind": "repetition", "ply": k, "occurrence": 2, "claimable": False,
                        "automatic": False} for k in five["rep2"] if k not in five["rep3"]]
                    + [{"kind": "claim_by_move", "ply": k} for k in five["claim"]])
    r5["summary"].update({"first_ply_occurrence_2": five["rep2"][0],
                          "first_ply_occurrence_3": five["rep3"][0],
                          "first_ply_occurrence_5": 16, "plies_after_fivefold": 0,
                          "claim_opportunities_on_board": len(five["rep3"])})
    r5["summary"].update(pychess_rules.expected_missed_claims(five))
    # Without a claim by a declared move (Lichess), the board's claims alone (plies 8 to 16): the
    # last ply's claimed, the others passed over (a drawn game, no irreversible move); with it,
    # the declared move at 15 claims too.
    board_only = pychess_rules.expected_missed_claims(five, five["rep3"], False)
    assert five["rep3"] == list(range(8, 17)) and board_only["passed_over_claims"] == 8, (five["rep3"], board_only)
    assert pychess_rules.expected_missed_claims(five)["passed_over_claims"] == len(five["claim"]) - 2
    occurrence = {k: e["occurrence"] for e in r5["events"] if e["kind"] == "repetition" for k in [e["ply"]]}
    assert occurrence[16] == 5 and five["fivefold"] == [16], (occurrence, five["fivefold"])
    assert problems("repetition", "fivefold", five, r5) == [], problems("repetition", "fivefold", five, r5)
    assert problems(None, "fivefold", five, r5) == []
    assert problems("repetition", "threefold", five, r5)
    assert problems("agreement", "agreement", five, r5) == []
    # No move: no_moves, whatever the ending; a decisive game: none.
    none = json.loads(json.dumps(pychess_rules.verdict(0, chess.Board(), [], "1/2-1/2", False)))
    r0 = {"index": 0, "status": "ok", "variant": "standard", "events": [],
          "summary": {"plies": 0, "claim_opportunities": 0, "claim_opportunities_on_board": 0,
                      "first_claim_ply": None, "first_ply_occurrence_2": None,
                      "first_ply_occurrence_3": None, "first_ply_occurrence_5": None,
                      "plies_after_fivefold": None, "first_ply_halfmove_100": None,
                      "first_ply_halfmove_150": None, "final_status": "none",
                      "missed_claims": 0, "passed_over_claims": 0, "missed_claims_on_board": 0,
                      "first_missed_claim_ply": None}}
    assert problems("adjudication", "no_moves", none, r0) == []
    assert problems(None, "agreement_or_unrecorded", none, r0)
    won = dict(v, result="1-0")
    assert problems("adjudication", None, won) == [] and problems("adjudication", "adjudication", won)
    # The Lichess variants: no inference, the recorded ending still counts.
    rzh = dict(rec, variant="crazyhouse")
    assert problems(None, None, v, rzh) == [] and problems("normal", "threefold_by_move", v, rzh)
    assert problems("agreement", "agreement", v, rzh) == []
    assert problems("repetition", "threefold", v, rzh) == []
    # Deliberate difference 2 (README.md): 79... Ka8 brings the clock to 99, and White's only
    # move that is neither a pawn move nor a capture, Kc7, stalemates: fifty_moves by 9.3.1,
    # python-chess's can_claim_fifty_moves() says no.  (rules/x_fifty_claim_by_ending_move.pgn
    # game 0, the same position with no move played, is no_moves now.)
    import oracle

    text = '[FEN "8/k2P4/1PKP4/1PPP4/8/8/8/8 b - - 98 79"]\n[Result "1/2-1/2"]\n\n79... Ka8 1/2-1/2\n'
    r99, v99 = (json.loads(json.dumps(x)) for x in oracle.process_game(0, text, rules=True))
    assert r99["summary"]["draw_reason"] == "fifty_moves" and v99["end"]["fifty_by_ending_move"]
    assert pychess_rules.check(r99, v99) == ([], [pychess_rules.FIFTY_BY_ENDING_MOVE])
    assert problems("fifty_moves", "fifty_moves", v99, r99) == []  # recorded: no difference
    assert problems(None, "agreement_or_unrecorded", v99, r99) == []  # python-chess's own answer
    assert problems(None, "fivefold", v99, r99) and problems("agreement", "fifty_moves", v99, r99)
    no_claim = dict(v99, end=dict(v99["end"], fifty_by_ending_move=False))
    assert pychess_rules.check(r99, no_claim)[0]
    missed_claims_rules_self_test(oracle)


def missed_claims_rules_self_test(oracle):
    """missed / passed-over claims against python-chess (pychess_rules.expected_missed_claims):
    the oracle's records of small games pass, the same records with a claim moved from one
    count to the other fail."""
    shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8"
    fen = "rn2k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1"
    knights = "1. Nc3 Nc6 2. Nb1 Nb8 3. Nc3 Nc6 4. Nb1 Nb8"
    games = [  # (tags, movetext, missed, passed over)
        ({"Result": "1-0"}, shuffle + " 5. e4 e5 1-0", 2, 0),            # passed over, then a win
        ({"Result": "1/2-1/2"}, shuffle + " 5. e4 e5 1/2-1/2", 2, 0),    # a pawn move, then drawn
        ({"Result": "1/2-1/2"}, shuffle + " 5. Nf3 Nf6 6. Nc3 Nc6 1/2-1/2", 0, 4),  # drawn after
        ({"Result": "1/2-1/2"}, shuffle + " 5. Nf3 1/2-1/2", 0, 1),      # declared move ended it
        ({"Result": "1/2-1/2"}, shuffle + " 5. Nf3 Nxx9 1/2-1/2", 3, 0),  # stopped on an error
        ({"Result": "1/2-1/2", "FEN": fen}, knights + " 5. Rg1 Rg8 6. Rh1 Rh8 1/2-1/2", 2, 0),
        ({"Result": "1/2-1/2", "FEN": fen}, knights + " 5. Nc3 Nc6 6. Nd5 Nd4 1/2-1/2", 0, 4),
    ]
    for tags, moves, missed, passed in games:
        text = "".join(f'[{k} "{val}"]\n' for k, val in tags.items()) + "\n" + moves + "\n"
        rec, v = (json.loads(json.dumps(x)) for x in oracle.process_game(0, text, rules=True))
        s = rec["summary"]
        assert (s["missed_claims"], s["passed_over_claims"]) == (missed, passed), (moves, s)
        assert pychess_rules.check(rec, v) == ([], []), (moves, pychess_rules.check(rec, v))
        swapped = json.loads(json.dumps(rec))
        if missed:
            swapped["summary"].update(missed_claims=missed - 1, passed_over_claims=passed + 1)
        else:
            swapped["summary"].update(missed_claims=1, passed_over_claims=passed - 1)
        problems = pychess_rules.check(swapped, v)[0]
        assert any("missed_claims" in msg for _, msg in problems), (moves, problems)


def main(argv=None):
    ap = argparse.ArgumentParser(description="compare threefold dump output with oracle.py output")
    ap.add_argument("rust", nargs="?")
    ap.add_argument("oracle", nargs="?")
    ap.add_argument("--rules", help="python-chess verdicts (oracle.py --rules-out) to check the "
                                    "rust records against")
    ap.add_argument("--label", default="", help="name printed before each disagreement (the file)")
    ap.add_argument("--max-show", type=int, default=20)
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args(argv)
    if args.self_test:
        self_test()
        print("compare self-test: ok")
        return 0
    if args.oracle is None:
        ap.error("RUST and ORACLE are required")

    rust, oracle = Side(args.rust, "rust"), Side(args.oracle, "oracle")
    rules = Side(args.rules, "rules") if args.rules else None
    label = f"{args.label} " if args.label else ""
    shown = 0
    disagreements = 0
    compared = 0
    checked = plies = rule_games = 0
    deliberate = {pychess_rules.CLOCK_AT_GAME_END: 0, pychess_rules.FIFTY_BY_ENDING_MOVE: 0,
                  pychess_rules.VARIANT_EP: 0}

    def show(idx, rec, msg):
        nonlocal shown
        if shown < args.max_show:
            who = f"{rec.get('white')} - {rec.get('black')}" if rec else "?"
            print(f"{label}game {idx} [{who}]: {msg}")
        shown += 1

    while True:
        heads = [side.head["index"] for side in (rust, oracle) if side.head is not None]
        if not heads:
            break
        idx = min(heads)
        r, o = rust.take(idx), oracle.take(idx)
        v = None
        if rules:
            while rules.head is not None and rules.head["index"] < idx:
                disagreements += 1
                show(rules.head["index"], None, "python-chess verdict for a game no side has")
                rules.take(rules.head["index"])
            v = rules.take(idx)
        compared += 1
        if r is None or o is None:
            disagreements += 1
            show(idx, o or r, f"only in {'oracle' if r is None else 'rust'} output")
            continue
        bad = False
        d = first_diff(normalize(r), normalize(o))
        if d:
            bad = True
            path, vr, vo = d
            show(idx, o, f"{path}: rust={short(vr)} oracle={short(vo)}")
        if rules:
            if v is None:
                bad = True
                show(idx, o, "no python-chess verdict for this game")
            elif "skip" not in v:
                checked += 1
                plies += v["plies"] + 1
                problems, skipped = pychess_rules.check(r, v)
                for name in skipped:
                    deliberate[name] += 1
                if problems:
                    bad = True
                    rule_games += 1
                    for ply, msg in problems[:3]:
                        at = f"ply {ply}: " if ply is not None else ""
                        show(idx, r, f"python-chess rules: {at}{msg}")
        if bad:
            disagreements += 1
    for side in (rust, oracle):
        for idx, msg in side.bad:
            disagreements += 1
            show(idx, None, msg)
    if rules:
        for idx, msg in rules.bad:
            disagreements += 1
            show(idx, None, msg)
        if rules.head is not None:
            disagreements += 1
            show(rules.head["index"], None, "python-chess verdict for a game no side has")
    if shown > args.max_show:
        print(f"... {shown - args.max_show} more not shown")
    if rules:
        skipped = " ".join(f"{k}={n}" for k, n in deliberate.items())
        print(f"python-chess rules: checked {checked} games, {plies} plies, {rule_games} disagreements; "
              f"deliberate differences skipped: {skipped}")
    print(f"compared {compared} games, {disagreements} disagreements")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
