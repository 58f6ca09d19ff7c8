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
  * missed_claims / passed_over_claims: an opportunity at ply k is claimed when the result is
    not 1-0 / 0-1 and the game ended at the position a claim there is about: on the board the
    position at k; by a declared move the one that move makes (k + 1) when it was played next,
    else the claimant's own (k).  A game that stopped with an error other than invalid_fen went
    on (the bad token is "a further move token").  An unclaimed opportunity is missed when the
    replay stopped on an error, the result (FORMAT.md "Result": tag, else last movetext marker)
    is not 1/2-1/2, or an irreversible move was played after k (L > k, L the ply reached by the
    last one: a window-ending move, ends_window(), or a move after which
    clean_castling_rights() differs from before); else it was passed over (the game was drawn
    in the same repetition).  missed_claims_on_board / _by_move count the missed opportunities
    that offered that kind (one may offer both), so a ply whose declared move ended the game
    counts in neither, though its board claim was not made.  first_missed_* are of the first
    missed one.  The empty summary has passed_over_claims 0.
  * ending (every record, skipped and error ones too): from the tags TerminationDetails (when
    it names an ending: neither null nor "other") else Termination, trimmed of ASCII whitespace
    (" \\t\\n\\x0c\\r", Rust's trim_ascii: not \\x0b), lowercased in ASCII only, first matching
    rule of FORMAT.md; then time_forfeit in a game whose result is 1/2-1/2 is
    timeout_vs_insufficient_material.  The result is game_result() also for the games that
    are not replayed (skipped, invalid_fen): the Result tag, else the last movetext marker.
  * fingerprint (whenever a summary is written): xxhash.xxh64_intdigest(seed 0) of FORMAT.md's
    bytes.  Names: tag_value() decoding (so a Latin-1 name is hashed as its UTF-8 bytes).  Move
    codes from python-chess's moves before they are pushed: castling (board.is_castling) has
    the rook's square (standard mode writes O-O as e1g1: the rook is in the h or a corner of
    the king's rank; Chess960 mode writes king-takes-rook), a drop has move.drop.  The empty
    summary (invalid_fen, and an oracle_exception record) has plies 0 and the accumulator's
    start value.
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
  * draw_reason (result 1/2-1/2, no error): no_moves when no move was replayed (in the
    variants too); else the recorded ending (also in the variants): adjudication,
    timeout_vs_insufficient_material, agreement, stalemate, insufficient_material as they
    are, repetition -> fivefold (final FIDE occurrence >= 5, where a fivefold ended games by
    the rules in force) else threefold (whatever the board shows), fifty_moves ->
    seventy_five_moves when the inference gives that, else fifty_moves; else the inference from
    the final position (standard/Chess960 only; fivefold and seventy_five_moves only where in
    force), whose residual is agreement_or_unrecorded.
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
import calendar
import collections
import datetime
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
import xxhash

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
        "passed_over_claims": 0,
        "first_missed_claim_ply": None,
        "claimant_score_after_first_missed": None,
        "plies_after_fivefold": None,
        "plies_after_automatic_fivefold": None,
        "plies_after_automatic_75_moves": None,
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
        "fingerprint": None,  # set by the caller (record_fingerprint): it needs the tags
    }


# --------------------------------------------------------------------------------------------
# The recorded ending (FORMAT.md "Game object", `ending`) and the game's fingerprint (FORMAT.md
# "Summary", `fingerprint`)

_ASCII_WS = " \t\n\x0c\r"  # what Rust's trim_ascii trims (not \x0b)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

# FORMAT.md `ending`: the first rule whose substrings occur in the trimmed, ASCII-lowercased
# value wins ("normal" must be the whole value; nothing matching: "other").
ENDING_RULES = (
    (("timeout vs insufficient material",), "timeout_vs_insufficient_material"),
    (("adjudicat",), "adjudication"),
    (("tcec",), "adjudication"),      # TCEC draw / win rule
    (("syzygy",), "adjudication"),    # tablebase adjudication
    (("agreement",), "agreement"),
    (("repetition",), "repetition"),
    (("stalemate",), "stalemate"),
    (("insufficient material",), "insufficient_material"),
    (("50-move", "50 move", "fifty move", "fifty-move"), "fifty_moves"),
    (("checkmate", " mates"), "checkmate"),
    (("resign",), "resignation"),
    (("time forfeit", "on time"), "time_forfeit"),
    (("abandon", "disconnect", "stall"), "abandoned"),
    (("rules infraction", "illegal move"), "rules_infraction"),
    (("unterminated",), "unterminated"),
)


def ending_of_value(value):
    """The ending one tag value names (FORMAT.md rules 1-17), None for an absent or blank tag."""
    if value is None:
        return None
    text = value.strip(_ASCII_WS).translate(_ASCII_LOWER)
    if not text:
        return None
    for needles, ending in ENDING_RULES:
        if any(needle in text for needle in needles):
            return ending
    return "normal" if text == "normal" else "other"


def game_ending(headers, result):
    """FORMAT.md `ending`: TerminationDetails when it names an ending (neither null nor "other"),
    else Termination; a time forfeit in a drawn game (Lichess "Time forfeit" with 1/2-1/2) is
    timeout_vs_insufficient_material.  `result` is the game's result (game_result)."""
    ending = ending_of_value(headers.get("TerminationDetails"))
    if ending is None or ending == "other":
        ending = ending_of_value(headers.get("Termination"))
    if result == "1/2-1/2" and ending == "time_forfeit":
        ending = "timeout_vs_insufficient_material"
    return ending


MASK64 = (1 << 64) - 1
FP_ACC_START = 0x27D4EB2F165667C5
FP_P1 = 0x9E3779B185EBCA87
FP_P2 = 0xC2B2AE3D27D4EB4F
_ASCII_DIGIT = re.compile("[0-9]")


def fp_step(acc, code):
    """acc = rotl64(acc + code * P2, 31) * P1 (mod 2^64)."""
    x = (acc + code * FP_P2) & MASK64
    x = ((x << 31) | (x >> 33)) & MASK64
    return (x * FP_P1) & MASK64


def fp_board_key(board):
    """The Polyglot key of `board`'s pieces and side to move (no castling, no e.p.): the
    fingerprint folds its change over each move (FORMAT.md `fingerprint`)."""
    return _HASHER.hash_board(board) ^ _HASHER.hash_turn(board)


def fp_name(value):
    """A White/Black tag value for the fingerprint: ASCII letters lowercased, ASCII digits kept,
    other ASCII characters dropped, non-ASCII characters kept (their UTF-8 bytes)."""
    out = bytearray()
    for ch in value or "":
        o = ord(ch)
        if o >= 0x80:
            out += ch.encode("utf-8")
        elif 0x41 <= o <= 0x5A:
            out.append(o + 0x20)
        elif 0x61 <= o <= 0x7A or 0x30 <= o <= 0x39:
            out.append(o)
    return bytes(out)


def fp_date(headers):
    """Date trimmed if it has an ASCII digit, else UTCDate trimmed if it has one, else empty."""
    for name in ("Date", "UTCDate"):
        value = headers.get(name)
        if value is not None and _ASCII_DIGIT.search(value):
            return value.strip(_ASCII_WS)
    return ""


def fp_lichess_id(headers):
    """The Lichess game id of Site (its first 8 characters), or empty (FORMAT.md `fingerprint`)."""
    site = venue_known(headers.get("Site"))
    match = _LICHESS_GAME.match(site) if site is not None else None
    return match.group(1)[:8] if match else ""


def fingerprint(headers, result, variant, plies, acc):
    """FORMAT.md `fingerprint`: xxh64 (seed 0) of W 1f B 1f D 1f R 1f V 1f F 1f L 1f ACC PLIES."""
    sep = b"\x1f"
    fen = headers.get("FEN")
    data = b"".join((
        fp_name(headers.get("White")), sep,
        fp_name(headers.get("Black")), sep,
        fp_date(headers).encode("utf-8"), sep,
        (result or "*").encode("ascii"), sep,
        variant.encode("utf-8"), sep,
        (fen.strip(_ASCII_WS) if fen is not None else "").encode("utf-8"), sep,
        fp_lichess_id(headers).encode("ascii"), sep,
        acc.to_bytes(8, "little"),
        plies.to_bytes(4, "little"),
    ))
    return xxhash.xxh64_intdigest(data, seed=0)


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


# Recorded endings that are a drawn game's draw_reason as they are (FORMAT.md draw_reason (b)).
RECORDED_DRAW_REASONS = {"adjudication", "timeout_vs_insufficient_material", "agreement",
                         "stalemate", "insufficient_material"}


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
        self.consecutive5 = None  # first ply of a fivefold after five consecutive alternate moves
        self.claims_at = {}  # ply -> number of claim_by_move events
        self.claim_played = set()  # plies whose next move was one of their claim_by_move moves
        self.pseudo = 0
        self.hidden = 0
        self.acc = FP_ACC_START  # the fingerprint's accumulator over the replayed moves
        # The ply of the position reached by the last irreversible move (a window-ending move,
        # or one that changes the castling rights), 0 if none: FORMAT.md missed_claims.
        self.last_irreversible = 0
        self._irreversible = False  # the move being pushed ends the window
        self._rights_before = None  # castling rights before it
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
        # FORMAT.md "Rules in force": the 2014 fivefold, five occurrences four plies apart (the
        # four before this one among the earliest EARLIER_PLIES_MAX, as earlier_plies lists them).
        earlier = plies[:-1][:EARLIER_PLIES_MAX]
        if (self.consecutive5 is None and len(earlier) >= 4
                and earlier[-4:] == [self.ply - 16 + 4 * j for j in range(4)]):
            self.consecutive5 = self.ply

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
        self._fp_before = fp_board_key(self.board)
        self.clock = 0 if self.board.is_zeroing(move) else self.clock + 1
        self._irreversible = ends_window(self.board, move)
        # (rights are never gained: with none before there are none after)
        self._rights_before = self.board.clean_castling_rights() if self.board.castling_rights else 0
        if self._irreversible:
            self.fide.clear()
            self.bmap.clear()
            self.fenmap.clear()
            self.twice = [0, 0]

    def after_push(self):
        self.acc = fp_step(self.acc, self._fp_before ^ fp_board_key(self.board))
        self.ply += 1
        if self._irreversible or (self._rights_before
                                  and self.board.clean_castling_rights() != self._rights_before):
            self.last_irreversible = self.ply
        self._record()

    def inferred_draw_reason(self, automatic):
        """FORMAT.md draw_reason (c): the reason the final position itself gives (FIDE standard
        and Chess960 only; None in the variants); fivefold and seventy_five_moves only where
        `automatic` (automatic_endings) has them."""
        if not self.fide_variant:
            return None
        b = self.board
        occ = self.occ[-1]
        clock = b.halfmove_clock
        if b.is_stalemate():
            return "stalemate"
        if b.is_insufficient_material():
            return "insufficient_material"
        if occ >= 5 and automatic["fivefold"]:
            return "fivefold"
        # 9.6.2: a mating last move prevails
        if clock >= 150 and automatic["seventy_five_moves"] and not b.is_checkmate():
            return "seventy_five_moves"
        if occ >= 3:
            return "threefold"
        if self.claims_at.get(self.ply, 0) > 0:
            return "threefold_by_move"
        if not b.is_checkmate() and (   # a mate ended the game: no claim after it (5.1.1)
                clock >= 100 or (clock == 99 and any(not b.is_zeroing(m) for m in b.legal_moves))):
            return "fifty_moves"
        return "agreement_or_unrecorded"

    def finish(self, result, error, ending, laws):
        self._claims(None)
        b = self.board
        plies = self.ply
        s = empty_summary()
        s["plies"] = plies
        s["max_occurrence"] = max(self.occ)
        for t in (2, 3, 5):
            s[f"first_ply_occurrence_{t}"] = next((k for k, n in enumerate(self.occ) if n >= t), None)
        s["positions_reaching_3"] = len(self.reached3)
        # FORMAT.md "Rules in force": without a claim by a declared move, only the board's claims.
        if laws["claimant"] != "side_to_move":
            self.claims_at = {}
            self.claim_played = set()
            self.claim_plies = {k for k in self.claim_plies if self.occ[k] >= 3}
        opps = sorted(self.claim_plies)
        s["claim_opportunities"] = len(opps)
        if opps:
            s["first_claim_ply"] = opps[0]
            s["first_claim_color"] = "white" if self.turns[opps[0]] else "black"
        # FORMAT.md "missed_claims": an opportunity is claimed when the game was not decisive
        # and it ended at the position a claim is about: on the board the position at k, by a
        # declared move the position that move makes (k + 1) when it was the move played, else
        # the claimant's own (k).  An unclaimed one is missed when the draw it offered was gone
        # by the end: the replay stopped on an error, the game was not drawn, or an
        # irreversible move came after k (the position at k can no longer recur); else the
        # players passed it over and drew anyway (passed_over_claims).
        stopped = error is not None  # a bad move token follows the last replayed ply
        decisive = result in ("1-0", "0-1")
        drawn = result == "1/2-1/2"

        def went_on_after(j):
            return j < plies or stopped

        on_board = [k for k in opps if self.occ[k] >= 3]
        by_move = [k for k in opps if self.claims_at.get(k, 0) > 0]
        missed, passed_over = [], []
        for k in opps:
            board_k = self.occ[k] >= 3
            move_k = self.claims_at.get(k, 0) > 0
            played = k in self.claim_played
            claimed = not decisive and ((board_k and not went_on_after(k))
                                        or (move_k and not went_on_after(k + 1 if played else k)))
            if claimed:
                continue
            left = stopped or not drawn or self.last_irreversible > k
            (missed if left else passed_over).append(k)
        s["claim_opportunities_on_board"] = len(on_board)
        s["claim_opportunities_by_move"] = len(by_move)
        s["missed_claims"] = len(missed)
        s["missed_claims_on_board"] = sum(1 for k in missed if self.occ[k] >= 3)
        s["missed_claims_by_move"] = sum(1 for k in missed if self.claims_at.get(k, 0) > 0)
        s["passed_over_claims"] = len(passed_over)
        if missed:
            k = missed[0]
            s["first_missed_claim_ply"] = k
            white = self.turns[k]
        if missed and laws["claimant"] == "side_to_move":
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
        automatic5 = {"any": s["first_ply_occurrence_5"], "consecutive": self.consecutive5,
                      "never": None}[laws["fivefold"]]
        if automatic5 is not None:
            s["plies_after_automatic_fivefold"] = plies - automatic5
        if laws["seventy_five_moves"] and s["first_ply_halfmove_150"] is not None:
            s["plies_after_automatic_75_moves"] = plies - s["first_ply_halfmove_150"]
        if b.is_checkmate():
            s["final_status"] = "checkmate"
        elif b.is_stalemate():
            s["final_status"] = "stalemate"
        elif b.is_insufficient_material():
            s["final_status"] = "insufficient_material"
        else:
            s["final_status"] = "none"
        if result == "1/2-1/2" and error is None:
            # FORMAT.md draw_reason: the automatic endings in force in the final position (the
            # 2014 consecutive fivefold: one occurred in the game).
            automatic = {"fivefold": {"any": True, "consecutive": self.consecutive5 is not None,
                                      "never": False}[laws["fivefold"]],
                         "seventy_five_moves": laws["seventy_five_moves"]}
            s["draw_reason"] = self.draw_reason(ending, automatic)
        return s

    def draw_reason(self, ending, automatic):
        """FORMAT.md draw_reason of a drawn game that stopped on no error: (a) no move, (b) the
        recorded ending (also in the variants), (c) the final position (inferred_draw_reason)."""
        if self.ply == 0:
            return "no_moves"
        if ending in RECORDED_DRAW_REASONS:
            return ending
        if ending == "repetition":
            return "fivefold" if self.occ[-1] >= 5 and automatic["fivefold"] else "threefold"
        inferred = self.inferred_draw_reason(automatic)
        if ending == "fifty_moves":
            return "seventy_five_moves" if inferred == "seventy_five_moves" else "fifty_moves"
        return inferred


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
        "venue": game_venue(headers),
        "claimant": rules_in_force(headers)["claimant"],
    }


# FORMAT.md "Rules in force": the days the rules changed, and what each rulebook allowed.
FIDE_2014, FIDE_2017, LICHESS_FIVEFOLD, CHESS_COM_THREEFOLD = (
    datetime.date(2014, 7, 1), datetime.date(2017, 7, 1), datetime.date(2020, 1, 14), datetime.date(2019, 6, 1))
FIVEFOLD_ORDER = ["never", "consecutive", "any"]


def date_period(headers):
    """The first and last day the game's Date (else UTCDate) may mean, or None."""
    text = None
    for name in ("Date", "UTCDate"):
        v = headers.get(name)
        if v is not None and any(c.isdigit() for c in v):
            text = v.strip()
            break
    if text is None:
        return None
    parts = text.replace("-", ".").replace("/", ".").split(".")
    if len(parts[0]) != 4 or not parts[0].isdigit():
        return None
    year = int(parts[0])
    month = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() and 1 <= int(parts[1]) <= 12 else None
    if month is None:
        return datetime.date(year, 1, 1), datetime.date(year, 12, 31)
    last = calendar.monthrange(year, month)[1]
    if len(parts) == 3 and parts[2].isdigit() and 1 <= int(parts[2]) <= last:
        day = datetime.date(year, month, int(parts[2]))
        return day, day
    return datetime.date(year, month, 1), datetime.date(year, month, last)


def rulebook(headers):
    """FORMAT.md "Rules in force": whose rules: the venue's, but chess.com's own for an `online`
    game whose Site names chess.com (at its start, or after a character not a letter or digit)."""
    venue = game_venue(headers)
    if venue in ("lichess", "engine"):
        return venue
    site = ascii_lower(venue_known(headers.get("Site")) or "")
    if venue == "online" and re.search(r"(^|[^0-9a-z])chess\.com", site):
        return "chess.com"
    return "fide"


def rules_on(book, day):
    if book == "lichess":
        five = "any" if day is not None and day >= LICHESS_FIVEFOLD else "never"
        return {"claimant": "either", "fivefold": five, "seventy_five_moves": True}
    if book == "engine":
        return {"claimant": "program", "fivefold": "any", "seventy_five_moves": True}
    five = ("never" if day is None or day < FIDE_2014 else "consecutive" if day < FIDE_2017 else "any")
    claimant = "side_to_move"
    if book == "chess.com":
        claimant = "program" if day is not None and day >= CHESS_COM_THREEFOLD else "either"
    return {"claimant": claimant, "fivefold": five, "seventy_five_moves": day is not None and day >= FIDE_2014}


def rules_in_force(headers):
    """FORMAT.md "Rules in force": an automatic ending counts where it held on every day the
    game's date may mean; the claimant is the first day's."""
    book, period = rulebook(headers), date_period(headers)
    if period is None:
        return rules_on(book, None)
    a, b = rules_on(book, period[0]), rules_on(book, period[1])
    a["fivefold"] = min(a["fivefold"], b["fivefold"], key=FIVEFOLD_ORDER.index)
    a["seventy_five_moves"] = a["seventy_five_moves"] and b["seventy_five_moves"]
    return a


# FORMAT.md "venue": the words and names it looks for (lowercase).
# Not "ccc": the Marshall CCC (Chess Club Championship) is OTB; chess.com's engine CCC is found
# by its players.
VENUE_ENGINE_WORDS = {"tcec", "ccrl", "cccc", "wccc", "cegt"}
VENUE_SERVERS = ["chess.com", "chessclub.com", "internet chess club", "freechess.org", "pychess.org",
                 "playchess", "chess24", "chesstempo", "lichess.org", "chessbase.com"]
VENUE_LOCAL_SITES = ["localhost", "127.0.0.1", "local site"]
VENUE_ENGINES = [
    "stockfish", "lc0", "leela", "komodo", "dragon", "houdini", "rybka", "fritz", "shredder", "ethereal",
    "berserk", "koivisto", "rofchade", "stoofvlees", "allie", "fire", "xiphos", "laser", "chiron", "booot",
    "andscacs", "arasan", "nemorino", "scorpio", "seer", "torch", "revenge", "obsidian", "caissa", "viridithas",
    "clover", "minic", "igel", "critter", "gull", "sf ", "asmfish", "crystal", "deep fritz", "alphazero"]
_LICHESS_GAME = re.compile(r"^(?:https?://)?lichess\.org/([A-Za-z0-9]{8}|[A-Za-z0-9]{12})(?:[/?#].*)?$")


def ascii_lower(text):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def venue_known(value):
    value = value.strip() if value is not None else None
    return value if value and value not in ("?", "-") else None


def game_venue(headers):
    """FORMAT.md `venue`, from the first Event, Site, White and Black tags."""
    event, site = venue_known(headers.get("Event")), venue_known(headers.get("Site"))
    if site is not None and _LICHESS_GAME.match(site.strip()):
        return "lichess"
    event_l, site_l = ascii_lower(event or ""), ascii_lower(site or "")

    def words(text):
        return any(w in VENUE_ENGINE_WORDS for w in re.split(r"[^0-9A-Za-z]", text))

    def engine(player):
        name = ascii_lower((player or "").strip())
        return bool(name) and any(name.startswith(e) for e in VENUE_ENGINES)

    engine_event = ((words(event_l) or words(site_l) or "computer chess championship" in event_l)
                    and "man-machine" not in event_l)
    if engine_event or (engine(headers.get("White")) and engine(headers.get("Black"))):
        return "engine"
    server = any(w in site_l for w in VENUE_SERVERS) or site_l in ("icc", "fics", "internet")
    if server or "internet" in event_l:
        return "online"
    if event is not None and site is not None and not any(w in site_l for w in VENUE_LOCAL_SITES):
        return "otb"
    return "unknown"


def last_marker(movetext):
    """The last result marker of the mainline (FORMAT.md "Result"), or None: for the games
    that are not replayed (skipped, invalid_fen), whose `ending` still needs the result."""
    marker = None
    for item, tok in move_tokens(movetext):
        if item == "result":
            marker = tok
    return marker


def record_fingerprint(summary, headers, result, variant, acc=FP_ACC_START):
    """Sets summary["fingerprint"] (FORMAT.md): the empty summary's with plies 0 and the
    accumulator's start value."""
    summary["fingerprint"] = fingerprint(headers, result, variant, summary["plies"], acc)


def process_game(index, text, rules=False):
    """The record of one game text, and (with rules) python-chess's verdict on it
    (pychess_rules.Rules), else None."""
    headers, movetext = split_tags(text)
    rec = base_record(index, headers)
    variant, board, error, skipped = decide_start(headers)
    rec["variant"] = variant
    if skipped or board is None:
        # Not replayed; `ending` depends on the tags and the result only (FORMAT.md).
        result = game_result(rec["result"], last_marker(movetext))
        rec["ending"] = game_ending(headers, result)
    if skipped:
        rec.update({"status": "skipped", "error": None, "summary": None, "events": []})
        return rec, (pychess_rules.not_replayed(index, "skipped") if rules else None)
    if board is None:  # invalid_fen
        summary = empty_summary()
        record_fingerprint(summary, headers, result, variant)
        rec.update({"status": "error", "error": error, "summary": summary, "events": []})
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
    rec["ending"] = game_ending(headers, result)
    laws = rules_in_force(headers)
    summary = a.finish(result, error, rec["ending"], laws)
    record_fingerprint(summary, headers, result, variant, a.acc)
    notes.annotate(summary, a.events, a.turns, time_control(headers)[0])
    events = sorted(a.events, key=lambda e: (e["ply"], KIND_ORDER[e["kind"]], e.get("uci") or ""))
    rec.update({"status": "error" if error else "ok", "error": error,
                "summary": summary, "events": events})
    # python-chess's draw chain skips the automatic endings not in force (FORMAT.md draw_reason);
    # the 2014 consecutive fivefold by the oracle's own reading of the occurrences.
    automatic = {"fivefold": laws["fivefold"] == "any"
                 or (laws["fivefold"] == "consecutive" and a.consecutive5 is not None),
                 "seventy_five_moves": laws["seventy_five_moves"]}
    return rec, (r.finish(index, board, result, error is not None, automatic) if r else None)


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
        headers = headers_of(text)
        rec = base_record(index, headers)
        summary = empty_summary()
        try:  # best effort: such a record disagrees with the Rust side anyway
            result = game_result(rec["result"], last_marker(split_tags(text)[1]))
            rec["ending"] = game_ending(headers, result)
            record_fingerprint(summary, headers, result, "standard")
        except Exception:
            rec["ending"] = None
        rec.update({"status": "error", "variant": "standard",
                    "error": {"kind": "oracle_exception", "ply": 0, "token": repr(exc)[:200]},
                    "summary": summary, "events": []})
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
    ending_self_test()
    fingerprint_self_test()
    venue_self_test()
    missed_claims_self_test()
    draw_reason_self_test()


def record_of(pgn):
    """The record of one PGN game text."""
    return process_game(0, pgn)[0]


def pgn(moves, **tags):
    return "".join(f'[{k} "{v}"]\n' for k, v in tags.items()) + "\n" + moves + "\n"


# (tags, result, ending): the wordings of the corpus (FORMAT.md `ending`).
ENDING_EXAMPLES = [
    # chess.com
    ({"Termination": "Game drawn by repetition"}, "1/2-1/2", "repetition"),
    ({"Termination": "MagnusCarlsen won on time"}, "1-0", "time_forfeit"),
    ({"Termination": "Game drawn by timeout vs insufficient material"}, "1/2-1/2",
     "timeout_vs_insufficient_material"),
    ({"Termination": "Game drawn by agreement"}, "1/2-1/2", "agreement"),
    ({"Termination": "Game drawn by insufficient material"}, "1/2-1/2", "insufficient_material"),
    ({"Termination": "Game drawn by stalemate"}, "1/2-1/2", "stalemate"),
    ({"Termination": "hikaru won by checkmate"}, "0-1", "checkmate"),
    ({"Termination": "hikaru won by resignation"}, "0-1", "resignation"),
    ({"Termination": "hikaru won - game abandoned"}, "0-1", "abandoned"),
    # Lichess
    ({"Termination": "Normal"}, "1-0", "normal"),
    ({"Termination": "Normal"}, "1/2-1/2", "normal"),
    ({"Termination": "Time forfeit"}, "1/2-1/2", "timeout_vs_insufficient_material"),
    ({"Termination": "Time forfeit"}, "1-0", "time_forfeit"),
    ({"Termination": "Time forfeit"}, None, "time_forfeit"),
    ({"Termination": "Abandoned"}, "0-1", "abandoned"),
    ({"Termination": "Rules infraction"}, "0-1", "rules_infraction"),
    ({"Termination": "Unterminated"}, None, "unterminated"),
    # TCEC: Termination, refined by TerminationDetails when that names an ending
    ({"Termination": "adjudication", "TerminationDetails": "SyzygyTB"}, "1/2-1/2", "adjudication"),
    ({"Termination": "Normal", "TerminationDetails": "3-Fold repetition"}, "1/2-1/2", "repetition"),
    ({"Termination": "adjudication", "TerminationDetails": "TCEC draw rule"}, "1/2-1/2", "adjudication"),
    ({"Termination": "TCEC Draw Rule"}, "1/2-1/2", "adjudication"),
    ({"Termination": "adjudication", "TerminationDetails": "TCEC win rule"}, "1-0", "adjudication"),
    ({"Termination": "Normal", "TerminationDetails": "White mates"}, "1-0", "checkmate"),
    ({"Termination": "Normal", "TerminationDetails": "Fifty moves rule"}, "1/2-1/2", "fifty_moves"),
    ({"Termination": "abandoned", "TerminationDetails": "Black's connection stalls"}, "1-0", "abandoned"),
    ({"Termination": "time forfeit", "TerminationDetails": "Black loses on time"}, "1/2-1/2",
     "timeout_vs_insufficient_material"),
    # TerminationDetails that maps to null / other: Termination decides
    ({"Termination": "Normal", "TerminationDetails": " \t"}, "1-0", "normal"),
    ({"Termination": "adjudication", "TerminationDetails": "engine crashed"}, "1-0", "adjudication"),
    ({"Termination": "whatever", "TerminationDetails": "engine crashed"}, "1-0", "other"),
    ({"TerminationDetails": "3-fold repetition"}, "1/2-1/2", "repetition"),
    # absent / blank; "normal" only as the whole value (trimmed, ASCII case folded)
    ({}, "1/2-1/2", None),
    ({"Termination": " \r\n"}, "1/2-1/2", None),
    ({"Termination": "  NORMAL "}, "1-0", "normal"),
    ({"Termination": "normal end"}, "1-0", "other"),
    # the order of the rules: the first that matches wins
    ({"Termination": "Draw by agreement after repetition"}, "1/2-1/2", "agreement"),
    ({"Termination": "Adjudication: 50 move rule"}, "1/2-1/2", "adjudication"),
    ({"Termination": "50-move rule"}, "1/2-1/2", "fifty_moves"),
    ({"Termination": "Fifty-move rule"}, "1/2-1/2", "fifty_moves"),
    ({"Termination": "fifty move rule"}, "1/2-1/2", "fifty_moves"),
    ({"Termination": "Illegal move"}, "1-0", "rules_infraction"),
    # ASCII lowercasing only: a non-ASCII capital is not folded
    ({"Termination": "RESIGN\u0130"}, "1-0", "resignation"),
    ({"Termination": "Stalemat\u0130"}, "1/2-1/2", "other"),
]


def ending_self_test():
    for tags, result, want in ENDING_EXAMPLES:
        got = game_ending(tags, result)
        assert got == want, (tags, result, got, want)
    # On records: replayed, skipped (result from the movetext marker) and invalid_fen games.
    rec = record_of(pgn("1. e4 e5 1/2-1/2", Termination="Time forfeit"))
    assert rec["ending"] == "timeout_vs_insufficient_material" and rec["status"] == "ok", rec["ending"]
    rec = record_of(pgn("1. e4 e5 1/2-1/2", Variant="Seirawan", Termination="Time forfeit"))
    assert rec["status"] == "skipped" and rec["ending"] == "timeout_vs_insufficient_material", rec
    assert rec["summary"] is None
    rec = record_of(pgn("1. e4 0-1", FEN="8/8/8/8/8/8/8/8 w - - 0 1", Termination="Time forfeit"))
    assert rec["error"]["kind"] == "invalid_fen" and rec["ending"] == "time_forfeit", rec
    assert rec["summary"]["passed_over_claims"] == 0


# 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O: each move's change of the pieces-and-side Polyglot key
# worked out by hand: the keys (POLYGLOT_RANDOM_ARRAY[64 * kind + square], kind = 2 * (piece type
# - 1) + 1 for White, a1 = 0 .. h8 = 63) of the squares left and reached, and the side key (780).
FP_MOVES = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O"
FP_SQUARES = [(64 * 1 + 12, 64 * 1 + 28), (52, 36), (64 * 3 + 6, 64 * 3 + 21), (64 * 2 + 57, 64 * 2 + 42),
              (64 * 5 + 5, 64 * 5 + 26), (64 * 2 + 62, 64 * 2 + 45),
              (64 * 11 + 4, 64 * 11 + 6, 64 * 7 + 7, 64 * 7 + 5)]


def fp_delta(indexes):
    out = _RANDOM[780]
    for i in indexes:
        out ^= _RANDOM[i]
    return out


def venue_self_test():
    cases = [
        ({"Event": "Rated Blitz game", "Site": "https://lichess.org/abcdEFGH"}, "lichess"),
        ({"Event": "FWWRC", "Site": "48 Wall Street, New York City, United States"}, "otb"),
        ({"Event": "TCEC Cup 1", "Site": "https://tcec-chess.com"}, "engine"),
        ({"Event": "Live Chess", "Site": "Chess.com"}, "online"),
        ({"Event": "Internet sim1", "Site": "Internet"}, "online"),
        ({"Event": "Match", "Site": "?", "White": "Stockfish 16", "Black": "Komodo Dragon 3"}, "engine"),
        ({"Event": "WCCC Man-Machine exh", "Site": "Paderborn", "White": "Comp Fritz 5.32"}, "otb"),
        ({"Event": "Riccione op", "Site": "Riccione"}, "otb"),
        ({"Event": "Casual", "Site": "localhost.localdomain"}, "unknown"),
        ({}, "unknown"),
    ]
    for headers, want in cases:
        assert game_venue(headers) == want, (headers, game_venue(headers), want)
    # chess.com's own rules: a button, then the server itself from 2019-06-01; not Kasparovchess.com.
    claimants = [
        ({"Event": "Live Chess", "Site": "Chess.com", "Date": "2019.05.31"}, "either"),
        ({"Event": "Live Chess", "Site": "Chess.com", "Date": "2019.06.01"}, "program"),
        ({"Event": "Live Chess", "Site": "https://www.chess.com/game/live/1", "Date": "2024.01.01"}, "program"),
        ({"Event": "Speed", "Site": "Chess.com INT", "Date": "2019.??.??"}, "either"),
        ({"Event": "Blitz", "Site": "Kasparovchess.com INT", "Date": "2020.01.01"}, "side_to_move"),
        ({"Event": "Live Chess", "Site": "Chess.com", "Date": "2020.01.01", "White": "Stockfish",
          "Black": "Lc0"}, "program"),
        ({"Event": "Rated Blitz game", "Site": "https://lichess.org/abcdEFGH"}, "either"),
        ({"Event": "Riccione op", "Site": "Riccione", "Date": "2020.01.01"}, "side_to_move"),
    ]
    for headers, want in claimants:
        assert rules_in_force(headers)["claimant"] == want, (headers, rules_in_force(headers), want)


def fingerprint_self_test():
    acc = FP_ACC_START
    for squares in FP_SQUARES:
        acc = fp_step(acc, fp_delta(squares))
    data = (b"carlsenmagnus\x1fnepomniachtchiian\x1f2021.11.26\x1f1/2-1/2\x1fstandard\x1f\x1f\x1f"
            + acc.to_bytes(8, "little") + (7).to_bytes(4, "little"))
    by_hand = xxhash.xxh64_intdigest(data, seed=0)
    base = record_of(pgn(FP_MOVES + " 1/2-1/2", Event="WCh", White="Carlsen, Magnus",
                         Black="Nepomniachtchi, Ian", Date="2021.11.26", Result="1/2-1/2"))
    fp = base["summary"]["fingerprint"]
    assert fp == by_hand, (fp, by_hand)
    # The same game written otherwise: other tags, comments, clocks, move numbers, NAGs and
    # annotation glyphs, a variation, name punctuation and case, Date padded with spaces.
    same = record_of(pgn("{Opening} 1.e4! e5 $1 {[%clk 0:03:00]} 2.Nf3 2...Nc6?! (2...d6 3.d4) "
                         "3.Bc4 Nf6!? 4.O-O+ {end} 1/2-1/2",
                         Event="Other", Site="?", White="carlsen,magnus.", Black="NEPOMNIACHTCHI Ian",
                         Date=" 2021.11.26 ", Result="1/2-1/2", Round="6"))
    assert same["summary"]["fingerprint"] == fp
    # Another move order to the same position, another result, date, name, variant: others.
    others = [
        record_of(pgn("1. Nf3 Nc6 2. e4 e5 3. Bc4 Nf6 4. O-O 1/2-1/2", White="Carlsen, Magnus",
                      Black="Nepomniachtchi, Ian", Date="2021.11.26", Result="1/2-1/2")),
        record_of(pgn(FP_MOVES + " 1-0", White="Carlsen, Magnus", Black="Nepomniachtchi, Ian",
                      Date="2021.11.26", Result="1-0")),
        record_of(pgn(FP_MOVES + " 1/2-1/2", White="Carlsen, Magnus", Black="Nepomniachtchi, Ian",
                      Date="2021.11.27", Result="1/2-1/2")),
        record_of(pgn(FP_MOVES + " 1/2-1/2", White="Carlsen, Magnus", Black="Nepomniachtchi, Ia",
                      Date="2021.11.26", Result="1/2-1/2")),
        record_of(pgn(FP_MOVES + " 1/2-1/2", White="Carlsen, Magnus", Black="Nepomniachtchi, Ian",
                      Date="2021.11.26", Result="1/2-1/2", Variant="Chess960")),
        record_of(pgn(FP_MOVES + " Nxe4 1/2-1/2", White="Carlsen, Magnus",
                      Black="Nepomniachtchi, Ian", Date="2021.11.26", Result="1/2-1/2")),
    ]
    fps = [r["summary"]["fingerprint"] for r in others]
    assert len(set(fps + [fp])) == len(fps) + 1, fps
    # A replay that stopped on an error: the replayed moves only (Nxe5 is illegal here).
    stopped = record_of(pgn(FP_MOVES + " Qxe5 1/2-1/2", White="Carlsen, Magnus",
                            Black="Nepomniachtchi, Ian", Date="2021.11.26", Result="1/2-1/2"))
    assert stopped["error"]["kind"] == "illegal_move" and stopped["summary"]["fingerprint"] == fp
    # Names: ASCII letters lowercased, digits kept, other ASCII dropped, non-ASCII kept as UTF-8.
    assert fp_name("Gr\u00fcnfeld, E. (2)") == b"gr\xc3\xbcnfelde2"
    assert fp_name(None) == b"" and fp_name("?") == b""
    # Date: Date if it has an ASCII digit, else UTCDate, else empty; trimmed.
    assert fp_date({"Date": "????.??.??", "UTCDate": " 2013.01.01\t"}) == "2013.01.01"
    assert fp_date({"Date": "1999.??.??", "UTCDate": "2013.01.01"}) == "1999.??.??"
    assert fp_date({"Date": "????.??.??"}) == "" and fp_date({}) == ""
    # invalid FEN: plies 0, the accumulator's start value, the FEN as written (trimmed).
    bad = record_of(pgn("1. e4 *", White="A", FEN=" 8/8/8/8/8/8/8/8 w - - 0 1 "))
    data = (b"a\x1f\x1f\x1f*\x1fstandard\x1f8/8/8/8/8/8/8/8 w - - 0 1\x1f\x1f"
            + FP_ACC_START.to_bytes(8, "little") + bytes(4))
    assert bad["summary"]["fingerprint"] == xxhash.xxh64_intdigest(data, seed=0)
    # A drop changes the key by the dropped piece (and the side), a promotion by the pawn
    # leaving and the piece arriving.
    zh = chess.variant.CrazyhouseBoard("rnbqkbnr/ppp1pppp/8/8/8/8/PPPP1PPP/RNBQKBNR[Pp] w KQkq - 0 3")
    before = fp_board_key(zh)
    zh.push(chess.Move.from_uci("P@e4"))
    assert before ^ fp_board_key(zh) == fp_delta([64 * 1 + 28])
    board = chess.Board("7k/P7/8/8/8/8/8/4K3 w - - 0 1")
    before = fp_board_key(board)
    board.push(chess.Move.from_uci("a7a8n"))
    assert before ^ fp_board_key(board) == fp_delta([64 * 1 + 48, 64 * 3 + 56])


def summary_of(moves, **tags):
    return record_of(pgn(moves, **tags))["summary"]


SHUFFLE = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8"   # ply 8: the start a third time


def missed_claims_self_test():
    def counts(s):
        return (s["claim_opportunities"], s["missed_claims"], s["missed_claims_on_board"],
                s["missed_claims_by_move"], s["passed_over_claims"], s["first_missed_claim_ply"])

    # Ply 7 (Black could claim by declaring Ng8) and ply 8 (on the board, and by declaring Nf3).
    # (a) passed over, then a pawn move and a win: missed (the threefold draw was gone).
    s = summary_of(SHUFFLE + " 5. e4 e5 1-0", Result="1-0")
    assert counts(s) == (2, 2, 1, 2, 0, 7), counts(s)
    assert s["claimant_score_after_first_missed"] == 0.0  # Black could have claimed at ply 7
    # ... the same then drawn: the pawn move after the claims made them missed all the same.
    s = summary_of(SHUFFLE + " 5. e4 e5 1/2-1/2", Result="1/2-1/2")
    assert counts(s) == (2, 2, 1, 2, 0, 7), counts(s)
    assert s["claimant_score_after_first_missed"] == 0.5
    # (b) passed over, more shuffling, then drawn: passed over, none missed.
    s = summary_of(SHUFFLE + " 5. Nf3 Nf6 6. Nc3 Nc6 1/2-1/2", Result="1/2-1/2")
    assert counts(s) == (4, 0, 0, 0, 4, None), counts(s)  # plies 7 to 10
    assert s["claimant_score_after_first_missed"] is None and s["first_missed_claim_clock_ms"] is None
    # ... with an unknown result (no draw on the score sheet) they count as missed.
    s = summary_of(SHUFFLE + " 5. Nf3 Nf6 6. Nc3 Nc6 *")
    assert counts(s) == (4, 4, 3, 4, 0, 7), counts(s)
    # ... a replay that stopped on an error: missed (also the claims at the last replayed ply).
    s = summary_of(SHUFFLE + " 5. Nf3 Nxx9 1/2-1/2", Result="1/2-1/2")
    assert counts(s) == (3, 3, 2, 3, 0, 7), counts(s)
    # (c) at ply 8 both kinds (on the board, and by declaring Nf3), Nf3 is played and the game
    # ends there drawn: the declared move ended the game, neither kind is missed at ply 8 (nor
    # at ply 9, on the board at the last ply); ply 7 (declaring Ng8, played) was passed over.
    s = summary_of(SHUFFLE + " 5. Nf3 1/2-1/2", Result="1/2-1/2")
    assert counts(s) == (3, 0, 0, 0, 1, None), counts(s)
    # ... the same decisive: every opportunity missed, by its kinds.
    s = summary_of(SHUFFLE + " 5. Nf3 0-1", Result="0-1")
    assert counts(s) == (3, 3, 2, 3, 0, 7), counts(s)
    # A move that changes the castling rights is irreversible too: after it the earlier
    # positions cannot recur, so a claim passed over before it is missed, though the game
    # was drawn with no pawn move or capture.
    fen = "rn2k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1"
    knights = "1. Nc3 Nc6 2. Nb1 Nb8 3. Nc3 Nc6 4. Nb1 Nb8"
    s = summary_of(knights + " 5. Rg1 Rg8 6. Rh1 Rh8 1/2-1/2", FEN=fen, Result="1/2-1/2")
    assert counts(s) == (2, 2, 1, 2, 0, 7), counts(s)
    s = summary_of(knights + " 5. Nc3 Nc6 6. Nd5 Nd4 1/2-1/2", FEN=fen, Result="1/2-1/2")
    assert counts(s) == (4, 0, 0, 0, 4, None), counts(s)


def draw_reason_self_test():
    def reason(moves, **tags):
        return summary_of(moves, **tags)["draw_reason"]

    # (a) no move: whatever the ending
    assert reason("1/2-1/2", Termination="Game drawn by repetition") == "no_moves"
    assert reason("1/2-1/2", Result="1/2-1/2", Variant="crazyhouse") == "no_moves"
    # (b) the recorded ending, whatever the final position shows
    assert reason("1. e4 e5 1/2-1/2", Termination="adjudication",
                  TerminationDetails="SyzygyTB") == "adjudication"
    assert reason("1. e4 e5 1/2-1/2", Termination="Time forfeit") == "timeout_vs_insufficient_material"
    assert reason("1. e4 e5 1/2-1/2", Termination="Game drawn by agreement") == "agreement"
    assert reason("1. e4 e5 1/2-1/2", Termination="Game drawn by stalemate") == "stalemate"
    assert reason(SHUFFLE + " 1/2-1/2", Termination="Game drawn by agreement") == "agreement"
    # repetition: threefold (also where no claim is on the board), fivefold from occurrence 5
    assert reason("1. e4 e5 1/2-1/2", Termination="Game drawn by repetition") == "threefold"
    five = SHUFFLE + " 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8"
    assert reason(five + " 1/2-1/2", TerminationDetails="3-Fold repetition", Date="2018.03.01") == "fivefold"
    assert reason(five + " 1/2-1/2", Date="2018.03.01") == "fivefold"
    # where no fivefold ended games (before 1 July 2014, or undated), the position's claim drew it
    assert reason(five + " 1/2-1/2", TerminationDetails="3-Fold repetition", Date="1990.03.01") == "threefold"
    assert reason(five + " 1/2-1/2", Date="1990.03.01") == "threefold"
    assert reason(five + " 1/2-1/2") == "threefold"
    # 2014-2017: a fivefold ended games after five consecutive alternate moves, as here
    assert reason(five + " 1/2-1/2", Date="2015.03.01") == "fivefold"
    assert reason(five + " 1/2-1/2", Variant="atomic", Termination="Normal", Date="2021.03.01") is None
    assert reason(five + " 1/2-1/2", Variant="atomic", Date="2021.03.01",
                  Termination="Game drawn by repetition") == "fivefold"
    assert reason(SHUFFLE + " 1/2-1/2", Variant="crazyhouse",
                  Termination="Game drawn by repetition") == "threefold"
    # fifty_moves: seventy_five_moves where the final position itself gives it
    at149 = "7k/8/8/8/8/8/8/K5R1 w - - 149 100"
    at99 = "7k/8/8/8/8/8/8/K5R1 w - - 99 100"
    assert reason("1. Rg2 1/2-1/2", FEN=at149, TerminationDetails="Fifty moves rule",
                  Date="2020.03.01") == "seventy_five_moves"
    assert reason("1. Rg2 1/2-1/2", FEN=at149, Date="2020.03.01") == "seventy_five_moves"
    # before the 75-move rule (or undated), the fifty-move claim drew it
    assert reason("1. Rg2 1/2-1/2", FEN=at149, Date="2010.03.01") == "fifty_moves"
    assert reason("1. Rg2 1/2-1/2", FEN=at149, TerminationDetails="Fifty moves rule") == "fifty_moves"
    assert reason("1. Rg2 1/2-1/2", FEN=at99, TerminationDetails="Fifty moves rule") == "fifty_moves"
    assert reason("1. Rg2 1/2-1/2", FEN=at99) == "fifty_moves"
    assert reason("1. e4 e5 1/2-1/2", Termination="50-move rule") == "fifty_moves"
    # (c) otherwise inferred: the residual is agreement_or_unrecorded
    assert reason("1. e4 e5 1/2-1/2") == "agreement_or_unrecorded"
    assert reason("1. e4 e5 1/2-1/2", Termination="Normal") == "agreement_or_unrecorded"
    assert reason(SHUFFLE + " 1/2-1/2", Termination="Normal") == "threefold"
    assert reason("1. e4 e5 1/2-1/2", Variant="crazyhouse") is None
    # only a drawn game that stopped on no error has one
    assert reason("1. e4 e5 1-0", Termination="adjudication") is None
    assert reason("1. e4 Nxx9 1/2-1/2", Termination="adjudication") is None


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
