#!/usr/bin/env python3
"""Independent correctness oracle for `threefold dump`, built on python-chess.

Usage:  python3 oracle.py FILE [--limit N] [--jobs J] > out.jsonl
        python3 oracle.py FILE [--limit N] --out out.jsonl [--rules-out rules.jsonl] [--cache]
        python3 oracle.py --self-test
        (--pgn-reader-split is still accepted; that splitting is now always used)

FILE is .pgn or zstd-compressed PGN (detected by the magic bytes 28 b5 2f fd of a zstd
frame, or 50..5f 2a 4d 18 of a skippable frame, which pzstd writes first; any extension).
Writes one JSON object per game, in input order, in the record format of
FORMAT.md (same folder).  Reading follows FORMAT.md "Reading: game boundaries and move
tokens": games are cut where the pgn-reader crate cuts them (PgnReaderLines rewrites the line
structure, chess.pgn.read_game only delimits the game texts); tags are read by split_tags (the
first value of a repeated tag counts), the result by game_result (tag, else last movetext marker),
the mainline move tokens by our own tokenizer (move_tokens), each token is checked against
the SAN grammar (classify) and matched against python-chess's legal moves with shakmaty's
SAN semantics (resolve).  python-chess's own PGN/SAN parsing (regex tokenizer, lenient
parse_san) is not used.  See README.md.

Choices made where FORMAT.md is silent (the Rust side must make the same ones):
  * Text is decoded as UTF-8 with universal newlines (CRLF -> LF).  Invalid bytes are kept
    (errors="surrogateescape") until a string is written: a tag value is then decoded as the
    Rust side decodes it (pgn-reader's RawTag::decode unescaping, then UTF-8, or Latin-1 for
    the whole value when it is not valid UTF-8: tag_value), any other text with
    errors="replace" (each invalid byte sequence becomes U+FFFD, like Rust's
    String::from_utf8_lossy).
  * Result markers: `*` is one too (unknown, as pgn-reader reports it), so a movetext ending
    in `*` leaves the result unknown when the tag is not 1-0/0-1/1/2-1/2; markers after the
    token that stopped the replay still count (the movetext is read to its end).  (FORMAT.md
    itself says the tag counts only when it is exactly 1-0, 0-1 or 1/2-1/2: not trimmed, no
    `½-½`.)
  * Variant tag "" (empty or blank) counts as a missing tag, i.e. standard chess.
  * `variant` of an error game is "standard"/"chess960" as decided from the Variant tag and,
    when the FEN parses, from its castling rights.
  * invalid_fen: FEN tag (with or without SetUp) that python-chess cannot parse (ValueError) or
    whose board.status() is not STATUS_VALID.  Then error = {"kind": "invalid_fen", "ply": 0,
    "token": <FEN tag value as written>}, events = [], and the summary is the "empty" summary:
    plies 0, max_occurrence 0, all counts 0, all first_* / score / fivefold fields null,
    final_status "none", draw_reason null.  No position exists, so nothing else is computed.
  * A FEN is parsed by python-chess's Board.set_fen, which accepts missing trailing fields
    (defaults: "w", "-", "-", 0, 1) and turns full-move number 0 into 1.
  * Window = plies since the last pawn move or capture (python-chess Board.is_zeroing), or
    ply 0.  Castling does not reset it (so pre-castling positions count for pseudo_repetition).
  * claim_by_move ignores moves that are pawn moves or captures (they start a new window, so
    the resulting position occurs once).  `played` is false for every such event at the last
    ply, even when a bad move token follows.
  * missed_claims: a claim is missed when the game went on past the position it is about: on
    the board the position at its ply; by a declared move the one that move makes when it was
    played next, else the claimant's own.  A game that stopped with an error other than
    invalid_fen went on (the bad token is "a further move token"); a result (FORMAT.md
    "Result": tag, else last movetext marker) of 1-0 / 0-1 makes every claim missed.
  * Castling field: standard games "KQkq" subset from the rights on h1/a1/h8/a8; chess960
    games python-chess castling_shredder_fen(): white then black, each rook file descending
    (h-side first), e.g. "HAha", "GA", "fc".
  * Zobrist: Polyglot key (chess.polyglot.POLYGLOT_RANDOM_ARRAY) with the e.p. file hashed
    only when has_legal_en_passant() (python-chess's own zobrist_hash hashes it when a capturing
    pawn merely stands next to the pushed pawn, i.e. pseudo-legally; we do not use that part).
    Castling keys (ZobristHasher.hash_castling): a right is a king-side one when its rook stands
    on the h-side of its king, also in Chess960 (shakmaty does the same; self_test() checks two
    Chess960 keys worked out by hand).
  * draw_reason fifty_moves is not given when the final position is checkmate: the mate ended
    the game (Art. 5.1.1), so no claim follows it (FORMAT.md).
  * A game that raises an unexpected Python exception gets status "error" with
    error kind "oracle_exception" (a warning goes to stderr); such a game is not trustworthy.
  * claimant_score_after_first_missed is a float (1.0, 0.5, 0.0), as the Rust side writes it;
    compare.py compares JSON types strictly.

--rules-out FILE also writes, per game, python-chess's own answers to its draw and game-end
rules at every ply (pychess_rules.py; compare.py --rules checks the Rust records against them).
--out FILE writes the records to FILE instead of stdout; with --cache (needs --out), both
outputs are looked up in / stored to a cache keyed by the sha256 of the oracle's source files,
the python-chess version, the input file's bytes and the arguments (README.md "Cache"), and
one line "cache hit" or "cache miss" is printed on stdout.
"""

import argparse
import collections
import hashlib
import io
import json
import multiprocessing
import os
import re
import sys
import tempfile

import chess
import chess.pgn
import chess.polyglot
import chess.variant

import pychess_rules

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

STANDARD_NAMES = {"standard", "fromposition", "normal", "chess"}
CHESS960_NAMES = {"chess960", "fischerandom", "fischerrandom", "960", "frc"}
# The Lichess variants (FORMAT.md "Variants"): normalized Variant tag -> (canonical name, board).
VARIANTS = {}
for _names, _canonical, _board in (
        (("crazyhouse", "zh"), "crazyhouse", chess.variant.CrazyhouseBoard),
        (("threecheck", "3check"), "threeCheck", chess.variant.ThreeCheckBoard),
        (("atomic", "atomicchess"), "atomic", chess.variant.AtomicBoard),
        (("antichess",), "antichess", chess.variant.AntichessBoard),
        (("kingofthehill", "koth"), "kingOfTheHill", chess.variant.KingOfTheHillBoard),
        (("horde",), "horde", chess.variant.HordeBoard),
        (("racingkings",), "racingKings", chess.variant.RacingKingsBoard)):
    for _name in _names:
        VARIANTS[_name] = (_canonical, _board)
VARIANT_NAMES = {canonical for canonical, _ in VARIANTS.values()}

# FORMAT.md: every earlier_plies list holds at most the earliest 16 plies (occurrence numbers
# count all of them).
EARLIER_PLIES_MAX = 16

KIND_ORDER = {"repetition": 0, "pseudo_repetition": 1, "hidden_repetition": 2, "claim_by_move": 3}

_HASHER = chess.polyglot.ZobristHasher(chess.polyglot.POLYGLOT_RANDOM_ARRAY)

# python-chess reads a clock's hours with int(): no limit on their digits (FORMAT.md bounds the
# value instead).
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)
_RANDOM = chess.polyglot.POLYGLOT_RANDOM_ARRAY


# --------------------------------------------------------------------------------------------
# Input


def open_text(path):
    f = open(path, "rb")
    head = f.read(4)
    f.seek(0)
    # pzstd (and the Lichess dumps) start with a *skippable* frame: 5? 2a 4d 18
    if head == ZSTD_MAGIC or (len(head) == 4 and head[0] & 0xF0 == 0x50 and head[1:] == b"\x2a\x4d\x18"):
        import zstandard

        # (no io.BufferedReader around it: that combination loses data across frames)
        raw = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
    else:
        raw = f
    return io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline=None)


_SURROGATE = re.compile("[\udc80-\udcff]")


def replace_invalid(text):
    """Text read with errors="surrogateescape" as errors="replace" would have decoded it."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def tag_value(raw):
    """A tag value as the Rust side decodes it: pgn-reader 0.29 RawTag::decode (every backslash
    followed by a backslash or a quote is dropped, each backslash looked at in turn, so
    backslash-backslash-quote loses both backslashes), then UTF-8, or Latin-1 (every byte one
    character) when the value is not valid UTF-8 (src/pgn/tags.rs push_decoded)."""
    data = raw.encode("utf-8", "surrogateescape")
    if b"\\" in data:
        out, head = bytearray(), 0
        for i, byte in enumerate(data):
            if byte == 0x5C and i + 1 < len(data) and data[i + 1] in (0x5C, 0x22):
                out += data[head:i]
                head = i + 1
        data = bytes(out + data[head:])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


class RecordingHandle:
    """Text handle that remembers every line read since the last take()."""

    def __init__(self, handle):
        self.handle = handle
        self.lines = []

    def readline(self):
        line = self.handle.readline()
        if line:
            self.lines.append(line)
        return line

    def take(self):
        text = "".join(self.lines)
        self.lines = []
        return text


_TAG_NAME = re.compile(r'[^ \t"\]\n]*')


class PgnReaderLines:
    """Rewrites the line structure so that read_game splits games where the pgn-reader crate
    (0.29) does (FORMAT.md "Game boundaries"); read_game (with SplitVisitor) only delimits
    the game texts, which process_game then reads itself.

    pgn-reader: whitespace, blank lines and %-lines before and between tags are skipped
    (python-chess allows one blank line between tags and treats an indented "[" line as
    movetext); tags may share a line with each other and with the first moves (python-chess
    drops such a line); a `;` line before or between tags is movetext (python-chess skips
    it); movetext ends at an empty line or at a line starting with "[", outside a {comment}
    (python-chess ends it only at a blank line, and a line of spaces ends it too).  One
    exception to reading tags on across blank lines (FORMAT.md): a tag line after a blank
    line with the same tag name as the first tag of the current tag section starts a new
    game.  A byte-order mark is skipped at the input's first byte only (python-chess strips one
    from every game's first line): elsewhere it is text, so a line starting with one is
    movetext (FORMAT.md "Game boundaries").  We drop/strip/split/insert/indent lines
    accordingly."""

    def __init__(self, handle):
        self.handle = handle
        self.queue = []
        self.state = "start"  # start | tags | movetext
        self.in_brace = False
        self.first_tag = None  # name of the first tag of the current tag section
        self.blank_after_tag = False  # a blank line followed the last tag line
        self.at_input_start = True

    @staticmethod
    def _tag_name(line):
        """Name of the tag on a line starting with `[`: up to a space, tab, `"` or `]`."""
        m = _TAG_NAME.match(line, 1)
        return m.group(0)

    def _new_section(self, line):
        self.first_tag = self._tag_name(line)
        self.blank_after_tag = False

    def _scan(self, line):
        for ch in line:
            if self.in_brace:
                if ch == "}":
                    self.in_brace = False
            elif ch == "{":
                self.in_brace = True
            elif ch == ";":
                break

    def _tag_lines(self, line):
        """Splits `[A "x"] [B "y"] 1. e4` into one line per tag plus a movetext line."""
        out = []
        rest = line.rstrip("\n")
        while rest.startswith("["):
            q = next((i for i, ch in enumerate(rest) if ch in '"]'), None)
            if q is None or rest[q] != '"':
                out.append(rest + "\n")  # malformed: both readers drop it
                return out
            i = q + 1
            while i < len(rest) and rest[i] != '"':
                i += 2 if rest[i] == "\\" else 1
            if i >= len(rest):
                out.append(rest + "\n")
                return out
            out.append(rest[:i + 1] + "]\n")
            j = i + 1
            while j < len(rest) and rest[j] in " \t]":
                j += 1
            rest = rest[j:]
        if rest and not rest.startswith("%"):
            out.append(self._movetext_start(rest + "\n"))
            self.state = "movetext"
            self._scan(rest)
        return out

    @staticmethod
    def _movetext_start(line):
        """A `;` comment line before or between tags starts movetext for pgn-reader (so the
        next `[` line starts a new game), while read_game would skip it and go on reading
        tags: indent it so that read_game takes it as movetext too.  So is a line starting
        with a byte-order mark, which read_game would strip."""
        return " " + line if line.startswith((";", "\ufeff")) else line

    def _emit(self, lines):
        self.queue.extend(lines[1:])
        return lines[0]

    def readline(self):
        if self.queue:
            return self.queue.pop(0)
        while True:
            line = self.handle.readline()
            if not line:
                return line
            if self.at_input_start:
                self.at_input_start = False
                line = line.removeprefix("\ufeff")
            if self.state in ("start", "tags"):
                if line.isspace() or line.startswith("%"):
                    if self.state == "start":
                        return line
                    if line.isspace():
                        self.blank_after_tag = True
                    continue  # pgn-reader skips these between tags
                stripped = line.lstrip()
                if stripped.startswith("["):
                    if self.state == "start":
                        self.state = "tags"
                        self._new_section(stripped)
                        return self._emit(self._tag_lines(stripped))
                    if self.blank_after_tag and self._tag_name(stripped) == self.first_tag:
                        # FORMAT.md: after a blank line, the first tag of the current tag
                        # section again starts a new game (tag-only games stay apart).  Two
                        # blank lines end read_game's tag section and then its game.
                        self._new_section(stripped)
                        return self._emit(["\n", "\n"] + self._tag_lines(stripped))
                    self.blank_after_tag = False
                    return self._emit(self._tag_lines(stripped))
                self.state = "movetext"
                self._scan(line)
                return self._movetext_start(line)
            # movetext
            if self.in_brace:
                self._scan(line)
                return line
            if line == "\n":
                self.state = "start"
                return line
            if line.isspace():
                return "%\n"  # a line of spaces does not end a pgn-reader game
            if line.startswith("["):
                self.state = "tags"
                self._new_section(line)
                return self._emit(["\n"] + self._tag_lines(line))
            if not line.startswith("%"):
                self._scan(line)
            return line


# --------------------------------------------------------------------------------------------
# Game setup (shared by the splitter and the worker so both take the same read_game path)


def norm_variant(name):
    return name.lower().replace(" ", "").replace("-", "").replace("_", "")


def decide_start(headers):
    """Returns (variant, board_or_None, error_or_None, skipped)."""
    vtag = headers.get("Variant")
    is960 = False
    cls, name = chess.Board, "standard"
    if vtag is not None and vtag.strip() != "":
        n = norm_variant(vtag)
        if n in CHESS960_NAMES:
            is960, name = True, "chess960"
        elif n in VARIANTS:
            name, cls = VARIANTS[n]
        elif n not in STANDARD_NAMES:
            return vtag, None, None, True
    fen = headers.get("FEN")
    if fen is None:
        return name, (cls(chess960=is960) if cls is chess.Board else cls()), None, False
    try:
        board = cls(fen, chess960=is960)
        if not is960 and board.has_chess960_castling_rights():
            is960 = True
            if cls is chess.Board:
                name = "chess960"
            board = cls(fen, chess960=True)
    except ValueError:
        return name, None, {"kind": "invalid_fen", "ply": 0, "token": fen}, False
    if board.status() != chess.STATUS_VALID:
        return name, None, {"kind": "invalid_fen", "ply": 0, "token": fen}, False
    return name, board, None, False


class SplitVisitor(chess.pgn.BaseVisitor):
    """Consumes one game exactly like the full visitor, without parsing any move."""

    def begin_game(self):
        self.headers = {}

    def visit_header(self, tagname, tagvalue):
        self.headers.setdefault(tagname, tagvalue)  # first value counts (FORMAT.md)

    def end_headers(self):
        _, board, _, skipped = decide_start(self.headers)
        if skipped or board is None:
            return chess.pgn.SKIP
        return None

    def begin_parse_san(self, board, san):
        return chess.pgn.SKIP

    def begin_variation(self):
        return chess.pgn.SKIP

    def handle_error(self, error):
        pass

    def result(self):
        return True


def split_games(handle, limit=None):
    """Yields (index, game_text): PgnReaderLines rewrites the line structure so that
    chess.pgn.read_game (with a visitor that parses no move) cuts games where pgn-reader does."""
    handle = PgnReaderLines(handle)
    rec = RecordingHandle(handle)
    index = 0
    while limit is None or index < limit:
        try:
            found = chess.pgn.read_game(rec, Visitor=SplitVisitor)
        except Exception as exc:  # never seen; keep going with the next lines
            print(f"oracle.py: warning: splitter raised {exc!r} at game {index}", file=sys.stderr)
            found = True
        text = rec.take()
        if found is None:
            return
        yield index, text
        index += 1


# --------------------------------------------------------------------------------------------
# Analysis


def empty_summary():
    return {
        "plies": 0,
        "max_occurrence": 0,
        "first_ply_occurrence_2": None,
        "first_ply_occurrence_3": None,
        "first_ply_occurrence_5": None,
        "positions_reaching_3": 0,
        "claim_opportunities": 0,
        "first_claim_ply": None,
        "first_claim_color": None,
        "claim_opportunities_on_board": 0,
        "claim_opportunities_by_move": 0,
        "missed_claims": 0,
        "missed_claims_on_board": 0,
        "missed_claims_by_move": 0,
        "first_missed_claim_ply": None,
        "claimant_score_after_first_missed": None,
        "plies_after_fivefold": None,
        "pseudo_repetitions": 0,
        "hidden_repetitions": 0,
        "first_ply_halfmove_100": None,
        "first_ply_halfmove_150": None,
        "final_status": "none",
        "draw_reason": None,
        "first_threefold_span": None,
        "first_threefold_perpetual": None,
        "has_clocks": False,
        "has_evals": False,
        "first_claim_clock_ms": None,
        "first_claim_eval_cp": None,
        "first_claim_eval_mate": None,
        "first_missed_claim_clock_ms": None,
        "first_missed_claim_eval_cp": None,
        "first_missed_claim_eval_mate": None,
    }


def legal_ep(board):
    if board.ep_square is None:
        return None
    if type(board) is not chess.Board:
        # A variant's own move rules decide (FORMAT.md "Variants"): an e.p. capture among the
        # board's legal moves. python-chess's has_legal_en_passant() asks the standard rules, so
        # in atomic it also counts a capture whose explosion would take the own king.
        return pychess_rules.variant_legal_ep(board)
    if board.has_legal_en_passant():
        return board.ep_square
    return None


def variant_parts(board):
    """What a variant board adds to the identity (python-chess's _transposition_key of
    CrazyhouseBoard and ThreeCheckBoard): pockets and promoted pieces, the checks left."""
    if isinstance(board, chess.variant.CrazyhouseBoard):
        return (board.promoted, str(board.pockets[chess.WHITE]), str(board.pockets[chess.BLACK]))
    if isinstance(board, chess.variant.ThreeCheckBoard):
        return (board.remaining_checks[chess.WHITE], board.remaining_checks[chess.BLACK])
    return ()


def variant_state(board):
    """FORMAT.md variant_state: crazyhouse "[QPn]~e8" (pockets, white's upper-case first, each
    from the queen down, then the squares of promoted pieces), three-check "3+2"."""
    if isinstance(board, chess.variant.CrazyhouseBoard):
        promoted = "".join("~" + chess.square_name(sq) for sq in chess.SquareSet(board.promoted & board.occupied))
        return f"[{str(board.pockets[chess.WHITE]).upper()}{board.pockets[chess.BLACK]}]{promoted}"
    if isinstance(board, chess.variant.ThreeCheckBoard):
        return f"{board.remaining_checks[chess.WHITE]}+{board.remaining_checks[chess.BLACK]}"
    return None


def ends_window(board, move):
    """No earlier position can recur after `move` (FORMAT.md "Variants"): a pawn move or capture,
    in three-check a check too; in crazyhouse never (pieces come back by drops)."""
    if isinstance(board, chess.variant.CrazyhouseBoard):
        return False
    if isinstance(board, chess.variant.ThreeCheckBoard) and board.gives_check(move):
        return True
    return board.is_zeroing(move)


def fide_key(board):
    """(board part..., castling rights, legal e.p.): the board part is pieces, side to move and
    the variant's own parts (variant_parts)."""
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
            board.turn) + variant_parts(board) + (board.castling_rights, legal_ep(board))


class Analyzer:
    def __init__(self, board, is960, fifty_rules=True):
        self.board = board
        self.is960 = is960
        self.fifty_rules = fifty_rules  # the fifty- and 75-move counts apply (not crazyhouse)
        # The halfmove clock, counted here: python-chess's push does not reset it on a pawn drop,
        # shakmaty (and so the records) does, as python-chess's own is_zeroing has it.
        self.clock = board.halfmove_clock
        self.fide_variant = type(board) is chess.Board  # draw_reason is inferred (FIDE only)
        self.events = []
        self.ply = 0
        self.fide = {}       # fide key -> plies in window
        self.bmap = {}       # board key -> [(ply, castling_rights, legal_ep)]
        self.fenmap = {}     # fen key -> count
        self.twice = [0, 0]  # per turn (index int(turn)): fide keys with >= 2 plies in window
        self.occ = []        # per ply: fide occurrence
        self.turns = []      # per ply: turn (bool)
        self.clocks = []     # per ply: halfmove clock
        self.checks = []     # per ply: the side to move is in check (the move there gave check)
        self.first_threefold = None  # (span, perpetual) of the first position to occur thrice
        self.reached3 = set()
        self.claim_plies = set()
        self.claims_at = {}  # ply -> number of claim_by_move events
        self.claim_played = set()  # plies whose next move was one of their claim_by_move moves
        self.pseudo = 0
        self.hidden = 0
        self._record()

    # -- strings
    def castling_str(self, b):
        if self.is960:
            return b.castling_shredder_fen()
        cr = b.castling_rights
        s = "".join(ch for ch, bb in (("K", chess.BB_H1), ("Q", chess.BB_A1),
                                      ("k", chess.BB_H8), ("q", chess.BB_A8)) if cr & bb)
        return s or "-"

    def pos_fields(self, b, ep_sq):
        placement = b.board_fen(promoted=False)
        turn = "w" if b.turn else "b"
        castling = self.castling_str(b)
        ep = chess.square_name(ep_sq) if ep_sq is not None else None
        z = _HASHER.hash_board(b) ^ _HASHER.hash_castling(b) ^ _HASHER.hash_turn(b)
        if ep_sq is not None:
            z ^= _RANDOM[772 + chess.square_file(ep_sq)]
        return {
            "placement": placement,
            "castling": castling,
            "ep": ep,
            "fen": f"{placement} {turn} {castling} {ep or '-'}",
            "zobrist": f"{z:016x}",
            "variant_state": variant_state(b),
        }

    def common(self, b, ep_sq):
        d = {
            "ply": self.ply,
            "fullmove": b.fullmove_number,
            "turn": "w" if b.turn else "b",
            "halfmove_clock": self.clock,
        }
        d.update(self.pos_fields(b, ep_sq))
        return d

    # -- per position
    def _record(self):
        b = self.board
        key = fide_key(b)
        ep_sq, castling = key[-1], key[-2]
        bkey = key[:-2]
        fkey = (key[:-1], b.ep_square)
        plies = self.fide.setdefault(key, [])
        plies.append(self.ply)
        n = len(plies)
        if n == 2:
            self.twice[int(b.turn)] += 1
        blist = self.bmap.setdefault(bkey, [])
        blist.append((self.ply, castling, ep_sq))
        board_occ = len(blist)
        fen_occ = self.fenmap.get(fkey, 0) + 1
        self.fenmap[fkey] = fen_occ
        self.occ.append(n)
        self.turns.append(b.turn)
        self.clocks.append(self.clock)
        self.checks.append(b.is_check())
        if n == 3 and self.first_threefold is None:
            self.first_threefold = (self.ply - plies[0], self.perpetual(plies[0], self.ply))
        if n >= 3:
            self.reached3.add(key)
            self.claim_plies.add(self.ply)

        common = None
        if n >= 2:
            common = self.common(b, ep_sq)
            ev = {"kind": "repetition"}
            ev.update(common)
            ev.update({"occurrence": n, "earlier_plies": plies[:min(n - 1, EARLIER_PLIES_MAX)],
                       "claimable": n >= 3, "automatic": n >= 5,
                       "cycle_plies": self.ply - plies[-2], "perpetual": self.perpetual(plies[-2], self.ply)})
            self.events.append(ev)
        if board_occ >= 2 and board_occ > n:
            if common is None:
                common = self.common(b, ep_sq)
            cast = epd = False
            for (_, cr, e) in blist[:-1]:
                if cr != castling or e != ep_sq:
                    if cr != castling:
                        cast = True
                    if e != ep_sq:
                        epd = True
            differs = "both" if (cast and epd) else ("castling" if cast else "en_passant")
            ev = {"kind": "pseudo_repetition"}
            ev.update(common)
            ev.update({"board_occurrence": board_occ, "fide_occurrence": n,
                       "earlier_plies": [p for (p, _, _) in blist[:min(board_occ - 1, EARLIER_PLIES_MAX)]],
                       "differs": differs})
            self.events.append(ev)
            self.pseudo += 1
        if n >= 2 and fen_occ < n:
            ev = {"kind": "hidden_repetition"}
            ev.update(common)
            ev.update({"fen_occurrence": fen_occ, "fide_occurrence": n,
                       "earlier_plies": plies[:min(n - 1, EARLIER_PLIES_MAX)]})
            self.events.append(ev)
            self.hidden += 1

    def perpetual(self, first, last):
        """Who gave check with every move from ply `first` to ply `last` (the moves reaching plies
        first+1 .. last; the mover of the move reaching ply j is the side to move at ply j - 1):
        "white", "black", "both" or None."""
        gave = {chess.WHITE: True, chess.BLACK: True}
        for j in range(first + 1, last + 1):
            if not self.checks[j]:
                gave[self.turns[j - 1]] = False
        if gave[chess.WHITE] and gave[chess.BLACK]:
            return "both"
        if gave[chess.WHITE]:
            return "white"
        if gave[chess.BLACK]:
            return "black"
        return None

    def _claims(self, played):
        b = self.board
        if not self.twice[int(not b.turn)]:
            return
        hits = []
        for m in b.legal_moves:
            if ends_window(b, m):
                continue
            b.push(m)
            lst = self.fide.get(fide_key(b))
            b.pop()
            if lst is not None and len(lst) >= 2:
                hits.append((m, lst))
        if not hits:
            return
        base = {
            "ply": self.ply,
            "fullmove": b.fullmove_number,
            "turn": "w" if b.turn else "b",
            "halfmove_clock": self.clock,
        }
        for m, lst in hits:
            san = b.san(m)
            uci = b.uci(m, chess960=self.is960)
            b.push(m)
            ev = {"kind": "claim_by_move"}
            ev.update(base)
            ev.update(self.pos_fields(b, legal_ep(b)))
            b.pop()
            ev.update({"san": san, "uci": uci, "occurrence": len(lst) + 1,
                       "earlier_plies": lst[:EARLIER_PLIES_MAX], "played": played is not None and m == played})
            self.events.append(ev)
        self.claim_plies.add(self.ply)
        self.claims_at[self.ply] = len(hits)
        if any(m == played for m, _ in hits):
            self.claim_played.add(self.ply)

    def before_push(self, move):
        """Called with the board at the current ply, before `move` is pushed onto it."""
        self._claims(move)
        self.clock = 0 if self.board.is_zeroing(move) else self.clock + 1
        if ends_window(self.board, move):
            self.fide.clear()
            self.bmap.clear()
            self.fenmap.clear()
            self.twice = [0, 0]

    def after_push(self):
        self.ply += 1
        self._record()

    def finish(self, result, error):
        self._claims(None)
        b = self.board
        plies = self.ply
        s = empty_summary()
        s["plies"] = plies
        s["max_occurrence"] = max(self.occ)
        for t in (2, 3, 5):
            s[f"first_ply_occurrence_{t}"] = next((k for k, n in enumerate(self.occ) if n >= t), None)
        s["positions_reaching_3"] = len(self.reached3)
        opps = sorted(self.claim_plies)
        s["claim_opportunities"] = len(opps)
        if opps:
            s["first_claim_ply"] = opps[0]
            s["first_claim_color"] = "white" if self.turns[opps[0]] else "black"
        # A claim is missed when the game went on past the position it is about, or when the
        # game was decisive (FORMAT.md "missed_claims").  On the board: the position at k.  By a
        # declared move: the position that move makes (k + 1) when it was the move played, else
        # the position at k (another move followed, or none did).
        goes_on = error is not None  # a bad move token follows the last replayed ply
        decisive = result in ("1-0", "0-1")

        def went_past(k):
            return decisive or k < plies or goes_on

        on_board = [k for k in opps if self.occ[k] >= 3]
        by_move = [k for k in opps if self.claims_at.get(k, 0) > 0]
        board_missed = {k for k in on_board if went_past(k)}
        move_missed = {k for k in by_move if went_past(k + 1 if k in self.claim_played else k)}
        # An opportunity is missed when no claim it offered ended the game.
        missed = [k for k in opps
                  if (k not in on_board or k in board_missed) and (k not in by_move or k in move_missed)]
        s["claim_opportunities_on_board"] = len(on_board)
        s["claim_opportunities_by_move"] = len(by_move)
        s["missed_claims"] = len(missed)
        s["missed_claims_on_board"] = len(board_missed)
        s["missed_claims_by_move"] = len(move_missed)
        if missed:
            k = missed[0]
            s["first_missed_claim_ply"] = k
            white = self.turns[k]
            if result == "1-0":
                s["claimant_score_after_first_missed"] = 1.0 if white else 0.0
            elif result == "0-1":
                s["claimant_score_after_first_missed"] = 0.0 if white else 1.0
            elif result == "1/2-1/2":
                s["claimant_score_after_first_missed"] = 0.5
        if s["first_ply_occurrence_5"] is not None:
            s["plies_after_fivefold"] = plies - s["first_ply_occurrence_5"]
        s["pseudo_repetitions"] = self.pseudo
        s["hidden_repetitions"] = self.hidden
        if self.first_threefold is not None:
            s["first_threefold_span"], s["first_threefold_perpetual"] = self.first_threefold
        if self.fifty_rules:
            s["first_ply_halfmove_100"] = next((k for k, c in enumerate(self.clocks) if c >= 100), None)
            s["first_ply_halfmove_150"] = next((k for k, c in enumerate(self.clocks) if c >= 150), None)
        if b.is_checkmate():
            s["final_status"] = "checkmate"
        elif b.is_stalemate():
            s["final_status"] = "stalemate"
        elif b.is_insufficient_material():
            s["final_status"] = "insufficient_material"
        else:
            s["final_status"] = "none"
        if result == "1/2-1/2" and error is None and self.fide_variant:
            occ = self.occ[-1]
            clock = b.halfmove_clock
            if b.is_stalemate():
                reason = "stalemate"
            elif b.is_insufficient_material():
                reason = "insufficient_material"
            elif occ >= 5:
                reason = "fivefold"
            elif clock >= 150 and not b.is_checkmate():  # 9.6.2: a mating last move prevails
                reason = "seventy_five_moves"
            elif occ >= 3:
                reason = "threefold"
            elif self.claims_at.get(plies, 0) > 0:
                reason = "threefold_by_move"
            elif not b.is_checkmate() and (   # a mate ended the game: no claim after it (5.1.1)
                    clock >= 100 or (clock == 99 and any(not b.is_zeroing(m) for m in b.legal_moves))):
                reason = "fifty_moves"
            else:
                reason = "agreement"
            s["draw_reason"] = reason
        return s


# --------------------------------------------------------------------------------------------
# Reading one game text (FORMAT.md "Reading: game boundaries and move tokens").  Only the game
# boundaries come from the splitter above; tags, movetext tokens and SAN are our own code.

TAG_REGEX = re.compile(r"^\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+\"([^\r]*)\"\]\s*$")


def split_tags(text):
    """(headers, movetext) of one game text, with read_game's tag-section rules: leading blank,
    `%` and `;` lines skipped; tag lines are the following lines starting with `[` (`%`/`;`
    lines and at most one blank line between them skipped; a `[` line that is not a well-formed
    tag is dropped whole); the first other line starts the movetext, which runs to the end of
    the text (the splitter cut the text at the game's end).  Duplicate tags: the first value
    counts (FORMAT.md "Tags")."""
    lines = text.split("\n")  # not splitlines(): \x0c, \x85, \u2028... are no line breaks
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    headers = {}
    i, n = 0, len(lines)
    while i < n and (lines[i].isspace() or lines[i].startswith("%") or lines[i].startswith(";")):
        i += 1
    empty = 0
    while i < n:
        line = lines[i]
        if line.startswith("%") or line.startswith(";"):
            i += 1
            continue
        if empty < 1 and line.isspace():
            empty += 1
            i += 1
            continue
        if not line.startswith("["):
            break
        empty = 0
        m = TAG_REGEX.match(line)
        if m:
            headers.setdefault(m.group(1), tag_value(m.group(2)))
        i += 1
    return headers, "".join(lines[i:])


# One regex alternative per kind of movetext item; tried at the current position (re.M so that
# `^` means "at the start of a line").  Token-end characters: whitespace { } ( ) ! ? $ ; . *
# A dash in results and in castling with zeros may be `-`, `–` (U+2013) or `—` (U+2014).
_ITEM = re.compile(r"""
     (?P<ws>[ \t\r\n]+)
    |(?P<pct>^%[^\n]*)                  # % line (escape mechanism)
    |(?P<brace>\{[^}]*\}?)              # comment, not nested; still open: to the end of the game
    |(?P<semi>;[^\n]*)                  # comment to the end of the line
    |(?P<open>\()                       # variation: skipped with nesting
    |(?P<skip>[).!?]+)                  # stray ), dots, !? runs
    |(?P<star>\*)                       # result marker "*" (unknown)
    |(?P<nag>\$[^ \t\r\n{}()!?$;.*]*)   # NAG: `$` and the rest of its token (like pgn-reader)
    # Tokens starting with a digit or ½ are read by their prefix (as pgn-reader does); whatever
    # follows the prefix starts a new token.
    |(?P<null0>0000(?=[ \t\r\n{}()!?$;.*]|\Z))      # the token 0000: a null move
    |(?P<white>1[-\u2013\u2014]0)
    |(?P<black>0[-\u2013\u2014]1)
    |(?P<draw>1/2[-\u2013\u2014]1/2|\u00bd[-\u2013\u2014]\u00bd)
    |(?P<castle>0[-\u2013\u2014]0(?:(?P<long>[-\u2013\u2014]0)|[-\u2013\u2014])?[+\#]?)
                                        # 0-0, 0-0-0, optional +/#  ("0-0-x": the dash is eaten)
    |(?P<num>1/2[-\u2013\u2014]?[0-9]*[.\ ]*   # incomplete 1/2-1/2: consumed and ignored
            |1[-\u2013\u2014]                  # "1-" not followed by 0
            |0[-\u2013\u2014]?                 # "0", "0-" not followed by 0 or 1
            |[1-9][0-9]*[.\ ]*                 # move number: digits, then dots and spaces
            |\u00bd[-\u2013\u2014]?)           # incomplete ½-½
    |(?P<ep>e\.p\.)                     # "e.p." annotation
    |(?P<brk>\}[^ \t\r\n{}()!?$;.*]*)   # stray }: one token with the rest ("}Bb5"); lone "}" ignored
    |(?P<tok>[^ \t\r\n{}()!?$;.*]+)     # anything else is one token
""", re.M | re.X)

# Inside a variation only these matter: ( ) and what hides them ({...}, ;..., % lines).
_VAR = re.compile(r"[(){;]|^%", re.M)

# shakmaty's SAN grammar (FORMAT.md), whole token, optional one + or # suffix (not checked).
_SAN = re.compile(r"([PNBRQK])?([a-h])?([1-8])?(x)?([a-h][1-8])(?:=([PNBRQKpnbrqk]))?[+#]?\Z")
_DROP = re.compile(r"([PNBRQK])?@([a-h][1-8])[+#]?\Z")
_CASTLE = re.compile(r"O-O(-O)?[+#]?\Z")
_NULL = re.compile(r"(?:--|Z0)[+#]?\Z")
_ROLES = {"P": chess.PAWN, "N": chess.KNIGHT, "B": chess.BISHOP, "R": chess.ROOK,
          "Q": chess.QUEEN, "K": chess.KING}
_RESULT_GROUPS = {"white": "1-0", "black": "0-1", "draw": "1/2-1/2", "star": "*"}
_DECISIVE_OR_DRAW = ("1-0", "0-1", "1/2-1/2")


def skip_variation(text, pos):
    """pos is just after a `(`; returns the position after the matching `)` (or the end)."""
    depth = 1
    while True:
        m = _VAR.search(text, pos)
        if m is None:
            return len(text)
        ch = m.group(0)
        pos = m.end()
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return pos
        elif ch == "{":
            close = text.find("}", pos)
            pos = len(text) if close < 0 else close + 1
        else:  # ";" or "%": to the end of the line
            nl = text.find("\n", pos)
            pos = len(text) if nl < 0 else nl


def move_tokens(movetext):
    """Yields the mainline items that matter, in order, as (kind, text):
    ("token", t)      a token in move position, as written (to be classified);
    ("castle", t)     castling written with zeros (0-0, 0-0-0, optional +/#), t as written;
    ("null", "0000")  the token 0000;
    ("result", r)     a result marker: "1-0", "0-1", "1/2-1/2" (also ½-½ / en-, em-dashes), "*";
    ("comment", c)    a {comment}'s text, braces left out (one still open runs to the end).
    `;` comments, NAGs, annotations, move numbers, incomplete result prefixes and variations are
    skipped."""
    pos, n = 0, len(movetext)
    match = _ITEM.match
    while pos < n:
        m = match(movetext, pos)
        # (every character starts some alternative, so m is never None)
        pos = m.end()
        kind = m.lastgroup
        if kind == "tok":
            yield "token", m.group(0)
        elif kind == "brace":
            text = m.group(0)[1:]
            yield "comment", text[:-1] if text.endswith("}") else text
        elif kind == "open":
            pos = skip_variation(movetext, pos)
        elif kind in _RESULT_GROUPS:
            yield "result", _RESULT_GROUPS[kind]
        elif kind == "castle" or kind == "long":
            yield "castle", m.group("castle")
        elif kind == "null0":
            yield "null", "0000"
        elif kind == "brk":
            tok = m.group(0)
            if tok != "}":
                yield "token", tok


def classify(kind, tok):
    """('move', parsed) | ('castle', kingside) | ('drop', None) | ('null_move', None) |
    ('invalid_move', None) for an item of move_tokens."""
    if kind == "castle":
        return "castle", _ITEM.match(tok).group("long") is None
    if kind == "null":
        return "null_move", None
    m = _SAN.match(tok)
    if m:
        return "move", m.groups()
    m = _CASTLE.match(tok)
    if m:
        return "castle", m.group(1) is None
    m = _DROP.match(tok)
    if m:
        return "drop", (_ROLES[m.group(1) or "P"], m.group(2))
    if _NULL.match(tok) or tok == "@@@@":
        return "null_move", None
    return "invalid_move", None


def resolve(board, kind, parsed):
    """Matches a parsed SAN against the legal moves (shakmaty semantics, FORMAT.md):
    returns (move, None) or (None, "illegal_move" | "ambiguous_move")."""
    if kind == "drop":  # only crazyhouse has drops
        if not isinstance(board, chess.variant.CrazyhouseBoard):
            return None, "illegal_move"
        role, dest = parsed
        to_mask = chess.BB_SQUARES[chess.parse_square(dest)]
        found = [mv for mv in board.generate_legal_drops(to_mask) if mv.drop == role]
        return (found[0], None) if found else (None, "illegal_move")
    us = board.occupied_co[board.turn]
    if kind == "castle":
        kingside = parsed
        found = [mv for mv in board.generate_legal_moves(board.kings & us)
                 if board.is_castling(mv) and board.is_kingside_castling(mv) == kingside]
    else:
        piece, ffile, frank, capture, dest, promo = parsed
        role = _ROLES[piece] if piece else chess.PAWN
        from_mask = board.pieces_mask(role, board.turn)
        if ffile:
            from_mask &= chess.BB_FILES[ord(ffile) - 97]
        if frank:
            from_mask &= chess.BB_RANKS[ord(frank) - 49]
        to_mask = chess.BB_SQUARES[chess.parse_square(dest)]
        # =P / =K are grammatical; no legal move promotes to them -> illegal_move
        promotion = _ROLES[promo.upper()] if promo else None
        want_capture = capture is not None
        found = [mv for mv in board.generate_legal_moves(from_mask, to_mask)
                 if mv.promotion == promotion and not mv.drop and not board.is_castling(mv)
                 and board.is_capture(mv) == want_capture]
    if len(found) == 1:
        return found[0], None
    return None, ("illegal_move" if not found else "ambiguous_move")


def is_non_move(item, kind):
    """A mainline token that is not a move by the SAN grammar (invalid_move, or the null-move
    tokens `0000`/`@@@@` that shakmaty does not parse), except `@@@@`: after a result marker
    (FORMAT.md) such a token is ignored.  `--`/`Z0` are SAN (moves) and still stop the replay."""
    if kind == "invalid_move":
        return True
    return kind == "null_move" and item == "null"  # 0000 (the null0 prefix item)


def game_result(tag, marker):
    """FORMAT.md "Result": the Result tag when it is 1-0, 0-1 or 1/2-1/2, else the last result
    marker of the movetext ("*" = unknown), else unknown (None)."""
    if tag in _DECISIVE_OR_DRAW:
        return tag
    if marker in _DECISIVE_OR_DRAW:
        return marker
    return None


# --------------------------------------------------------------------------------------------
# Clocks and evaluations (docs/format.md "Clocks and evaluations"): python-chess's own readers,
# GameNode.clock() and GameNode.eval(), on each mainline comment.

_TIME_CONTROL = re.compile(r"([0-9]{1,9})\+([0-9]{1,9})")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_COMMENT_NODE = chess.pgn.Game()
CLOCK_BOUND_SECONDS = 1e9
MATE_BOUND = 2**31 - 1


def time_control(headers):
    """(base, increment) seconds of a TimeControl tag written exactly base+increment."""
    m = _TIME_CONTROL.fullmatch(headers.get("TimeControl") or "")
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def comment_commands(text):
    """(clock in ms or None, (cp, mate) from White's side or None) of one comment, as
    python-chess reads them; its first match of a kind counts, out of bounds it gives None.
    python-chess's \\d and \\s also take non-ASCII digits and spaces, threefold only ASCII:
    non-ASCII characters are made plain ones first."""
    node = _COMMENT_NODE
    node.comment = _NON_ASCII.sub("?", text)
    try:
        seconds = node.clock()
    except OverflowError:  # hours too many for a float
        seconds = float("inf")
    clock = None
    if seconds is not None and seconds < CLOCK_BOUND_SECONDS:
        clock = round(seconds * 1000)
    score = node.eval()  # the root node: White to move, so white() is the comment's value as written
    ev = None
    if score is not None:
        w = score.white()
        if w.is_mate():
            if abs(w.mate()) <= MATE_BOUND:
                ev = (None, w.mate())
        else:
            ev = (w.score(), None)
    return clock, ev


class Notes:
    """The first clock and the first evaluation of each move's comments, by ply."""

    def __init__(self):
        self.clocks = {}
        self.evals = {}

    def comment(self, ply, text):
        if "[%" not in text:
            return
        clock, ev = comment_commands(text)
        if clock is not None:
            self.clocks.setdefault(ply, clock)
        if ev is not None:
            self.evals.setdefault(ply, ev)

    def annotate(self, summary, events, turns, base_seconds):
        """Fills the events' clocks and evaluations and the summary's fields."""
        base = None if base_seconds is None else base_seconds * 1000

        def clock_after(move):  # the clock written after move `move`; before any: the base
            return base if move == 0 else self.clocks.get(move)

        def at(ply):
            cp, mate = self.evals.get(ply, (None, None))
            # the side to move at ply p made move p - 1
            return {"clock_ms": clock_after(max(ply - 1, 0)), "opponent_clock_ms": clock_after(ply),
                    "eval_cp": cp, "eval_mate": mate}

        for ev in events:
            ev.update(at(ev["ply"]))
        plies = summary["plies"]
        summary["has_clocks"] = plies > 0 and all(k in self.clocks for k in range(1, plies + 1))
        summary["has_evals"] = any(1 <= k <= plies for k in self.evals)
        for name, ply in (("first_claim", summary["first_claim_ply"]),
                          ("first_missed_claim", summary["first_missed_claim_ply"])):
            if ply is None:
                continue
            fields = at(ply)
            sign = 1 if turns[ply] else -1  # the claimant is the side to move
            summary[f"{name}_clock_ms"] = fields["clock_ms"]
            summary[f"{name}_eval_cp"] = None if fields["eval_cp"] is None else sign * fields["eval_cp"]
            summary[f"{name}_eval_mate"] = None if fields["eval_mate"] is None else sign * fields["eval_mate"]


# FORMAT.md: a game is replayed for at most this many plies; the next token in move position
# stops it with too_long.
MAX_PLIES = 20000


def base_record(index, headers):
    base, increment = time_control(headers)
    return {
        "index": index,
        "base_seconds": base,
        "increment_seconds": increment,
        "white": headers.get("White"),
        "black": headers.get("Black"),
        "result": headers.get("Result"),
    }


def process_game(index, text, rules=False):
    """The record of one game text, and (with rules) python-chess's verdict on it
    (pychess_rules.Rules), else None."""
    headers, movetext = split_tags(text)
    rec = base_record(index, headers)
    variant, board, error, skipped = decide_start(headers)
    rec["variant"] = variant
    if skipped:
        rec.update({"status": "skipped", "error": None, "summary": None, "events": []})
        return rec, (pychess_rules.not_replayed(index, "skipped") if rules else None)
    if board is None:  # invalid_fen
        rec.update({"status": "error", "error": error, "summary": empty_summary(), "events": []})
        return rec, (pychess_rules.not_replayed(index, "invalid_fen") if rules else None)
    a = Analyzer(board, board.chess960, not isinstance(board, chess.variant.CrazyhouseBoard))
    r = pychess_rules.Rules() if rules else None
    if r:
        r.visit(board)
    marker = None
    notes = Notes()
    for item, tok in move_tokens(movetext):
        if item == "comment":
            if error is None and a.ply > 0:
                notes.comment(a.ply, tok)
            continue
        if item == "result":
            marker = tok  # the last one counts; read on after an error too
            continue
        if error is not None:
            continue
        kind, parsed = classify(item, tok)
        if marker is not None and is_non_move(item, kind):
            continue  # FORMAT.md: after a result marker a non-move token but @@@@ is ignored
        if a.ply >= MAX_PLIES:
            error = {"kind": "too_long", "ply": a.ply, "token": tok}
            continue
        if kind in ("move", "castle", "drop"):
            move, kind = resolve(board, kind, parsed)
        if kind is not None:
            error = {"kind": kind, "ply": a.ply,
                     "token": tok.rstrip("+#") if kind in ("illegal_move", "ambiguous_move") else tok}
            continue
        a.before_push(move)
        if r:
            r.before_push(board, move)
        board.push(move)
        a.after_push()
        if r:
            r.visit(board)
    result = game_result(rec["result"], marker)
    summary = a.finish(result, error)
    notes.annotate(summary, a.events, a.turns, time_control(headers)[0])
    events = sorted(a.events, key=lambda e: (e["ply"], KIND_ORDER[e["kind"]], e.get("uci") or ""))
    rec.update({"status": "error" if error else "ok", "error": error,
                "summary": summary, "events": events})
    return rec, (r.finish(index, board, result, error is not None) if r else None)


def headers_of(text):
    """Best-effort tags of a game chunk, for a record of a game that crashed."""
    try:
        return split_tags(text)[0]
    except Exception:
        return {}


def to_json(value):
    # Invalid bytes of the input (kept as surrogates while reading) are written as U+FFFD.
    return replace_invalid(json.dumps(value, ensure_ascii=False))


def safe_process(item, rules=False):
    """(record line, verdict line or None) of one (index, game text)."""
    index, text = item
    try:
        rec, verdict = process_game(index, text, rules)
    except Exception as exc:
        print(f"oracle.py: warning: game {index} raised {exc!r}; recorded as oracle_exception",
              file=sys.stderr)
        rec = base_record(index, headers_of(text))
        rec.update({"status": "error", "variant": "standard",
                    "error": {"kind": "oracle_exception", "ply": 0, "token": repr(exc)[:200]},
                    "summary": empty_summary(), "events": []})
        verdict = pychess_rules.not_replayed(index, "oracle_exception") if rules else None
    return to_json(rec), (to_json(verdict) if rules else None)


def process_batch(job):
    rules, batch = job
    return [safe_process(item, rules) for item in batch]


def batches(games, size):
    """Batches of 1, 2, 4, ... games up to `size`: a file of a few long games (too_long.pgn)
    still keeps every worker busy."""
    batch, limit = [], 1
    for item in games:
        batch.append(item)
        if len(batch) >= limit:
            yield batch
            batch, limit = [], min(2 * limit, size)
    if batch:
        yield batch


def default_jobs():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def run(path, limit, jobs, batch_size, out, rules_out):
    """Writes the records (and verdicts) of the games of `path` to the text handles."""
    with open_text(path) as handle:
        games = split_games(handle, limit)
        rules = rules_out is not None

        def write(lines):
            for line, vline in lines:
                out.write(line + "\n")
                if rules:
                    rules_out.write(vline + "\n")

        if jobs <= 1:
            for item in games:
                write([safe_process(item, rules)])
            return
        # At most a few batches in flight: the main process splits games only as fast as the
        # workers analyse them (Pool.imap would split the whole input ahead, holding it in
        # memory and taking a core of its own while the workers run).
        with multiprocessing.Pool(jobs) as pool:
            pending = collections.deque()
            for batch in batches(games, batch_size):
                pending.append(pool.apply_async(process_batch, ((rules, batch),)))
                while len(pending) > 2 * jobs:
                    write(pending.popleft().get())
            while pending:
                write(pending.popleft().get())


# --------------------------------------------------------------------------------------------
# Cache (README.md "Cache")

CACHE_SOURCES = ("oracle.py", "pychess_rules.py")


def cache_dir():
    d = os.environ.get("THREEFOLD_ORACLE_CACHE")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "threefold-oracle")
    return d


def cache_key(path, limit, rules):
    """sha256 of the oracle's source files, the python-chess version, the arguments that change
    the output, and the input file's bytes."""
    h = hashlib.sha256(b"threefold-oracle-cache 1\0")
    here = os.path.dirname(os.path.abspath(__file__))
    for name in CACHE_SOURCES:
        with open(os.path.join(here, name), "rb") as f:
            data = f.read()
        h.update(f"{name} {len(data)}\0".encode())
        h.update(data)
    h.update(f"python-chess {chess.__version__}\0".encode())
    h.update(json.dumps({"limit": limit, "rules": rules}, sort_keys=True).encode() + b"\0")
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _cache_get(entry, dest):
    import zstandard

    with open(entry, "rb") as src, open(dest, "wb") as dst:
        zstandard.ZstdDecompressor().copy_stream(src, dst)


def _cache_put(src_path, entry):
    """Stores src_path compressed at entry, atomically (temp file in the same folder, rename)."""
    import zstandard

    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(entry), prefix=".tmp-")
    try:
        with open(src_path, "rb") as src, os.fdopen(fd, "wb") as dst:
            zstandard.ZstdCompressor(level=3).copy_stream(src, dst)
        os.replace(tmp, entry)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def cached_run(args):
    """--cache: outputs from the cache when the key is there, else computed and stored.
    Returns "hit" or "miss"."""
    rules = args.rules_out is not None
    key = cache_key(args.file, args.limit, rules)
    d = cache_dir()
    entries = [(os.path.join(d, f"{key}.records.jsonl.zst"), args.out)]
    if rules:
        entries.append((os.path.join(d, f"{key}.rules.jsonl.zst"), args.rules_out))
    if all(os.path.exists(entry) for entry, _ in entries):
        try:
            for entry, dest in entries:
                _cache_get(entry, dest)
            return "hit"
        except Exception as exc:  # a damaged entry: compute again
            print(f"oracle.py: warning: cache entry {key} unreadable ({exc!r}); recomputing",
                  file=sys.stderr)
    compute(args)
    try:
        os.makedirs(d, exist_ok=True)
        # the records last: an entry counts only when both files are there
        for entry, src in reversed(entries):
            _cache_put(src, entry)
    except OSError as exc:
        print(f"oracle.py: warning: cannot write the cache at {d}: {exc}", file=sys.stderr)
    return "miss"


def compute(args):
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    rules_out = open(args.rules_out, "w", encoding="utf-8") if args.rules_out else None
    try:
        run(args.file, args.limit, args.jobs, args.batch, out, rules_out)
    finally:
        if rules_out is not None:
            rules_out.close()
        if args.out:
            out.close()
        else:
            out.flush()


# --------------------------------------------------------------------------------------------
# Unit checks (--self-test; differential.sh runs them first)

# Polyglot Zobrist keys of Chess960 positions, worked out by hand from the Polyglot indices
# (piece kind = 2 * (piece type - 1) + 1 for white: black rook 6, white rook 7, black king 10,
# white king 11, black pawn 0, white pawn 1; piece index = 64 * kind + 8 * rank + file; castling
# 768 white king side, 769 white queen side, 770 black king side, 771 black queen side, where a
# right is on the king side when its rook stands on the h-side of its king, whatever the files;
# e.p. 772 + file; white to move 780).  The hex values are what shakmaty 0.30.1 gives,
# `Chess::zobrist_hash::<Zobrist64>(EnPassantMode::Legal)` on the position read with
# CastlingMode::Chess960 (checked once with a scratch program), i.e. the Rust side's key.
ZOBRIST_960_EXAMPLES = [
    # Rooks on b and g, kings on f: white may castle with the g1 rook (king side, 768) only,
    # black with the b8 rook (queen side, 771) only.
    ("1r3kr1/8/8/8/8/8/8/1R3KR1 w Gb - 0 1", "Gb",
     [7 * 64 + 1, 11 * 64 + 5, 7 * 64 + 6,                  # Rb1 Kf1 Rg1
      6 * 64 + 56 + 1, 10 * 64 + 56 + 5, 6 * 64 + 56 + 6,   # rb8 kf8 rg8
      768, 771, 780],
     "bced8ef86f33e687"),
    # Kings on b, rooks on a and c; black to move, e.p. on e3 legal (d4xe3).
    ("rkr5/8/8/8/3pP3/8/8/RKR5 b CAc e3 0 1", "CAc",
     [7 * 64 + 0, 11 * 64 + 1, 7 * 64 + 2,                  # Ra1 Kb1 Rc1
      6 * 64 + 56 + 0, 10 * 64 + 56 + 1, 6 * 64 + 56 + 2,   # ra8 kb8 rc8
      0 * 64 + 24 + 3, 1 * 64 + 24 + 4,                      # pd4 Pe4
      768, 769, 770, 772 + 4],
     "5da1065ae38a50ea"),
]


def self_test():
    for fen, castling, indices, shakmaty_hex in ZOBRIST_960_EXAMPLES:
        by_hand = 0
        for i in indices:
            by_hand ^= _RANDOM[i]
        assert f"{by_hand:016x}" == shakmaty_hex, (fen, f"{by_hand:016x}")
        board = chess.Board(fen, chess960=True)
        fields = Analyzer(board, True).pos_fields(board, legal_ep(board))
        assert fields["zobrist"] == shakmaty_hex, (fen, fields["zobrist"], shakmaty_hex)
        assert fields["castling"] == castling, (fen, fields["castling"])
    # Tag values as the Rust side decodes them.
    raw = lambda b: b.decode("utf-8", "surrogateescape")
    assert tag_value(raw(b"Gr\xfcnfeld")) == "Gr\u00fcnfeld"                 # Latin-1 byte
    assert tag_value(raw("Grünfeld".encode())) == "Grünfeld"                  # UTF-8
    assert tag_value(raw(b"Gr\xc3\xbc \xfc")) == "Gr\u00c3\u00bc \u00fc"      # invalid: all Latin-1
    assert tag_value(raw(b'a \\"b\\" c\\\\d\\e')) == 'a "b" c\\d\\e'
    assert tag_value(raw(b'x\\\\"')) == 'x"'                                # both backslashes go
    assert replace_invalid(raw(b"\xe2\x82A\xff")) == "\ufffdA\ufffd"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", nargs="?")
    ap.add_argument("--limit", type=int, default=None, help="only the first N games")
    ap.add_argument("--jobs", type=int, default=default_jobs(),
                    help="worker processes (default: the CPUs available; 1 = in-process)")
    ap.add_argument("--batch", type=int, default=100, help="games per work unit")
    ap.add_argument("--out", help="write the records here instead of stdout")
    ap.add_argument("--rules-out", help="also write python-chess's verdicts (pychess_rules.py) here")
    ap.add_argument("--cache", action="store_true",
                    help="look the outputs up in / store them to the cache (needs --out); "
                         "prints 'cache hit' or 'cache miss'")
    ap.add_argument("--self-test", action="store_true", help="run the oracle's unit checks and exit")
    ap.add_argument("--pgn-reader-split", action="store_true",
                    help="accepted for compatibility: games are always split where the "
                         "pgn-reader crate splits them (see PgnReaderLines)")
    args = ap.parse_args(argv)
    if args.self_test:
        self_test()
        print("oracle self-test: ok")
        return
    if args.file is None:
        ap.error("FILE is required")
    if args.cache:
        if not args.out:
            ap.error("--cache needs --out")
        print(f"cache {cached_run(args)}")
    else:
        compute(args)


if __name__ == "__main__":
    main()
