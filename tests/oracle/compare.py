#!/usr/bin/env python3
"""Compares two JSON-lines files in the FORMAT.md record format, game by game.

Usage:  python3 compare.py rust.jsonl oracle.jsonl [--max-show 20]

Games are matched on "index".  A game counts as one disagreement when any field differs,
when white/black/result differ (misaligned games), or when it is present on one side only.
Normalization (FORMAT.md): events are sorted by (ply, kind order, uci or ""); trailing
"+#!?" are stripped from error tokens; for illegal_move/ambiguous_move/too_long tokens "0-0" and
"0-0-0" (any dash kind) become "O-O"/"O-O-O", "Z0" becomes "--", a leading "P" is removed and
a promotion piece after "=" is uppercased (the Rust side prints the SAN as shakmaty writes it,
the oracle the token as written); null_move tokens "Z0" and "--" are equal; `zobrist` is
ignored in chess960 games (either side says chess960).  white/black are compared with non-ASCII characters and
backslashes removed (decoders differ on Latin-1 bytes and tag escapes; these fields only
detect misalignment).
Prints each disagreement briefly, up to --max-show, then exactly one line
`compared N games, D disagreements`.  Exit status 1 if D > 0.
"""

import argparse
import json
import re
import sys

KIND_ORDER = {"repetition": 0, "pseudo_repetition": 1, "hidden_repetition": 2, "claim_by_move": 3}
TOP_FIELDS = ["status", "variant", "error", "summary", "events"]


def load(path):
    games = {}
    dups = set()
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                idx = rec["index"]
            except (ValueError, KeyError, TypeError) as exc:
                sys.exit(f"compare.py: {path}:{lineno}: not a game record: {exc}")
            if idx in games:
                dups.add(idx)
            games[idx] = rec
    return games, dups


def name(v):
    if v is None:
        return None
    return "".join(ch for ch in v if ord(ch) < 128 and ch != "\\").strip()


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


def normalize(rec, is960):
    rec = dict(rec)
    err = rec.get("error")
    if isinstance(err, dict) and isinstance(err.get("token"), str):
        err = dict(err)
        err["token"] = error_token(err.get("kind"), err["token"])
        rec["error"] = err
    events = rec.get("events")
    if isinstance(events, list):
        out = []
        for e in events:
            if isinstance(e, dict):
                e = dict(e)
                if is960:
                    e.pop("zobrist", None)
            out.append(e)
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
        if va != vb or (va is MISSING) != (vb is MISSING):
            return (f"{prefix}.{k}", "<missing>" if va is MISSING else va,
                    "<missing>" if vb is MISSING else vb)
    return None


def first_diff(r, o):
    for field in ("white", "black", "result"):
        vr, vo = r.get(field), o.get(field)
        if field != "result":
            vr, vo = name(vr), name(vo)
        if vr != vo:
            return (f"{field} (misaligned?)", r.get(field), o.get(field))
    for field in TOP_FIELDS:
        vr, vo = r.get(field, MISSING), o.get(field, MISSING)
        if vr == vo and (vr is MISSING) == (vo is MISSING):
            continue
        if field == "events" and isinstance(vr, list) and isinstance(vo, list):
            for i, (er, eo) in enumerate(zip(vr, vo)):
                if er != eo:
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


def main(argv=None):
    ap = argparse.ArgumentParser(description="compare threefold dump output with oracle.py output")
    ap.add_argument("rust")
    ap.add_argument("oracle")
    ap.add_argument("--max-show", type=int, default=20)
    args = ap.parse_args(argv)

    rust, rdups = load(args.rust)
    oracle, odups = load(args.oracle)
    indices = sorted(set(rust) | set(oracle))
    shown = 0
    disagreements = 0

    def show(idx, rec, msg):
        nonlocal shown
        if shown < args.max_show:
            who = f"{rec.get('white')} - {rec.get('black')}" if rec else "?"
            print(f"game {idx} [{who}]: {msg}")
        shown += 1

    for idx in indices:
        r, o = rust.get(idx), oracle.get(idx)
        if idx in rdups or idx in odups:
            disagreements += 1
            show(idx, o or r, "index appears more than once on the "
                 + ("rust" if idx in rdups else "oracle") + " side")
            continue
        if r is None or o is None:
            disagreements += 1
            show(idx, o or r, f"only in {'oracle' if r is None else 'rust'} output")
            continue
        is960 = r.get("variant") == "chess960" or o.get("variant") == "chess960"
        d = first_diff(normalize(r, is960), normalize(o, is960))
        if d:
            disagreements += 1
            path, vr, vo = d
            show(idx, o, f"{path}: rust={short(vr)} oracle={short(vo)}")
    if shown > args.max_show:
        print(f"... {shown - args.max_show} more not shown")
    print(f"compared {len(indices)} games, {disagreements} disagreements")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
