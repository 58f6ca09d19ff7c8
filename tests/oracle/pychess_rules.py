"""python-chess's own draw and game-end rules, asked at every ply, checked against the records.

The oracle (oracle.py) re-implements the record format's counting, so a misreading of the Laws
shared by it and the Rust side would pass compare.py.  This module asks python-chess's public
rule predicates instead (no counting of ours decides an answer) and checks the Rust records
against them.  README.md "python-chess's own rules" lists the correspondence and the deliberate
differences.

Two halves:
  * Rules -- run by oracle.py (worker processes, cached) while it replays a game on its
    python-chess board: writes down, per ply, what python-chess answers.  One JSON object per
    game ("rules" output, `--rules-out`).  verdict() does the same on a fresh board.
  * check(record, verdict) -- run by compare.py --rules: compares one Rust record with it.

Per ply k (the position after k half-moves, side to move = the claimant):
    claim     board.can_claim_threefold_repetition()
    rep2      board.is_repetition(2)
    rep3      board.is_repetition(3)
    fivefold  board.is_fivefold_repetition()
    clock     board.halfmove_clock (first plies >= 100 / >= 150)
    fifty, seventyfive   first ply of board.is_fifty_moves() / board.is_seventyfive_moves()
At the last ply: is_checkmate, is_stalemate, is_insufficient_material, can_claim_fifty_moves,
is_seventyfive_moves, is_fivefold_repetition, is_repetition(3), can_claim_threefold_repetition.
Per move: is_irreversible (last_irreversible, the ply the last such move reached: the missed /
passed-over claims, expected_missed_claims).

Speed.  can_claim_threefold_repetition() replays the whole window and tries every legal move
(about 20 ms per game if asked at every ply), so it is only asked where it can be true, by
three arguments that hold for python-chess's definitions themselves (no answer of ours is
trusted: a shortcut only ever skips a question whose answer is known from python-chess's own):
  * It is true only if the position or a position one legal move away already occurs 3 / 2 times
    among the positions since the last irreversible move (python-chess Board.is_irreversible),
    i.e. only if some _transposition_key() occurs at least twice among them.  Every irreversible
    move ends that window (in standard chess every zeroing move is one; in crazyhouse only the
    loss of a castling right, in three-check also a check), so if no key occurs twice since the
    last irreversible move, the answer is False without asking.  The same
    bound gives is_repetition(n) = False when the position's key occurs fewer than n times
    since the last zeroing move.
  * is_fivefold_repetition() = is_repetition(5), and is_repetition(n) True means n - 1 earlier
    equal positions were found since the last irreversible move, so it is True for every
    smaller n too; is_repetition(3) True is the first half of can_claim_threefold_repetition()
    (same positions counted), so that is True too.  So is_repetition(3) / (2) and
    can_claim_threefold_repetition() are asked only when the stronger question said False.
  * More history can only raise the counts: if can_claim_threefold_repetition() is True on a
    copy of the board that keeps only the last LONG_WINDOW moves (Board.copy(stack=...)), it is
    True on the whole game.  Used first when the window is longer than LONG_WINDOW plies (each
    question replays the whole window: O(n^2) in a 20,000-ply game); a False there is asked
    again on the full board.
"""

import chess
import chess.variant

LONG_WINDOW = 100

# Deliberate differences (README.md "python-chess's own rules"): skipped by check(), counted.
CLOCK_AT_GAME_END = "clock_reached_at_mate_or_stalemate"
# A variant position whose e.p. right python-chess's has_legal_en_passant() (and so its
# _transposition_key) counts by the standard rules, while the variant's own legal moves have no
# e.p. capture (atomic: the explosion would take the own king): the records follow the legal
# moves, so python-chess's repetition answers in that game are not compared.
VARIANT_EP = "variant_ep_right_by_standard_rules"
FIFTY_BY_ENDING_MOVE = "fifty_move_claim_by_a_mating_or_stalemating_move"


# Recorded endings (the record's `ending`, from the Termination tags) that are a drawn game's
# draw_reason as they are (FORMAT.md draw_reason (b)): nothing python-chess can check.
RECORDED_DRAW_REASONS = {"adjudication", "timeout_vs_insufficient_material", "agreement",
                         "stalemate", "insufficient_material"}

# The variants whose draw reason the records leave null (FORMAT.md "Variants").
LICHESS_VARIANTS = {"crazyhouse", "threeCheck", "atomic", "antichess", "kingOfTheHill", "horde", "racingKings"}


def variant_legal_ep(board):
    """The e.p. square if an e.p. capture is among the variant board's own legal moves."""
    ep = board.ep_square
    if ep is None:
        return None
    legal = any(board.is_en_passant(m) for m in board.generate_legal_moves(to_mask=chess.BB_SQUARES[ep]))
    return ep if legal else None


def _first(plies):
    return plies[0] if plies else None


def _claim(board, window_len):
    if window_len > LONG_WINDOW and board.copy(stack=LONG_WINDOW).can_claim_threefold_repetition():
        return True
    return board.can_claim_threefold_repetition()


# FORMAT.md draw_reason: which automatic endings the rules in force had (today's Laws: both).
ALL_AUTOMATIC = {"fivefold": True, "seventy_five_moves": True}


def draw_chain(board, rep3, claim, automatic=ALL_AUTOMATIC):
    """FORMAT.md's draw_reason inference from the final position (its step (c)), every step
    decided by a python-chess predicate, fivefold and seventy_five_moves only where `automatic`
    has them; the residual is agreement_or_unrecorded."""
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "insufficient_material"
    if automatic["fivefold"] and board.is_fivefold_repetition():
        return "fivefold"
    if automatic["seventy_five_moves"] and board.is_seventyfive_moves():
        return "seventy_five_moves"
    if rep3:
        return "threefold"
    if claim:
        return "threefold_by_move"
    if board.can_claim_fifty_moves():
        return "fifty_moves"
    return "agreement_or_unrecorded"


class Rules:
    """Collects python-chess's answers while a game is replayed on one python-chess board (the
    oracle's: it only pushes moves and restores what it tries): visit(board) at every ply, from
    ply 0 on; before_push(board, move) before each move; finish(...) at the end."""

    def __init__(self):
        self.claim, self.rep2, self.rep3, self.five = [], [], [], []
        self.clock100 = self.clock150 = self.fifty = self.seventyfive = None
        self.ep_differs = []  # plies where has_legal_en_passant() and the legal moves disagree
        self.seen = {}       # _transposition_key() -> occurrences since the last zeroing move
        self.twice = 0       # keys among them that occur at least twice
        self.window_len = 0  # plies since the last zeroing move (or the start)
        self.last_irreversible = 0  # ply reached by the last move is_irreversible() held for
        self.ply = 0

    def visit(self, board):
        ply = self.ply
        if (type(board) is not chess.Board and board.ep_square is not None
                and board.has_legal_en_passant() != (variant_legal_ep(board) is not None)):
            self.ep_differs.append(ply)
        key = board._transposition_key()
        c = self.seen.get(key, 0) + 1
        self.seen[key] = c
        if c == 2:
            self.twice += 1
        # Asked from the strongest down: each True answers the weaker questions too.
        five = c >= 5 and board.is_fivefold_repetition()
        rep3 = five or (c >= 3 and board.is_repetition(3))
        rep2 = rep3 or (c >= 2 and board.is_repetition(2))
        if five:
            self.five.append(ply)
        if rep3:
            self.rep3.append(ply)
        if rep2:
            self.rep2.append(ply)
        if rep3 or (self.twice and _claim(board, self.window_len)):
            self.claim.append(ply)
        clock = board.halfmove_clock
        # Crazyhouse has no fifty- or 75-move rule (python-chess's _is_halfmoves): the records
        # give no first plies there (FORMAT.md "Variants").
        if clock >= 100 and not isinstance(board, chess.variant.CrazyhouseBoard):
            if self.clock100 is None:
                self.clock100 = ply
            if clock >= 150 and self.clock150 is None:
                self.clock150 = ply
            if self.fifty is None and board.is_fifty_moves():
                self.fifty = ply
            if self.seventyfive is None and board.is_seventyfive_moves():
                self.seventyfive = ply

    def before_push(self, board, move):
        # python-chess's own window ends at its is_irreversible (every zeroing move in standard
        # chess; in crazyhouse only the loss of a castling right, in three-check a check too).
        irreversible = board.is_irreversible(move)
        if irreversible:
            self.seen.clear()
            self.twice = 0
            self.window_len = 0
        self.window_len += 1
        self.ply += 1
        if irreversible:
            self.last_irreversible = self.ply

    def finish(self, index, board, result, error, automatic=ALL_AUTOMATIC):
        """The verdict: result is "1-0", "0-1", "1/2-1/2" or None (FORMAT.md "Result"), error
        whether the replay stopped on an error, automatic the automatic endings in force (the
        oracle's table of the rules in force, from the game's tags)."""
        n = self.ply
        assert len(board.move_stack) >= n
        no_legal_move = not any(board.generate_legal_moves())
        can_fifty = board.can_claim_fifty_moves()
        rep3_now = bool(self.rep3) and self.rep3[-1] == n
        claim_now = bool(self.claim) and self.claim[-1] == n
        end = {
            "checkmate": board.is_checkmate(),
            "stalemate": board.is_stalemate(),
            "insufficient_material": board.is_insufficient_material(),
            "no_legal_move": no_legal_move,
            "can_claim_fifty_moves": can_fifty,
            "is_seventyfive_moves": board.is_seventyfive_moves(),
            "draw_chain": draw_chain(board, rep3_now, claim_now, automatic),
            # Where no claim by a declared move existed (FORMAT.md "Rules in force").
            "draw_chain_board": draw_chain(board, rep3_now, False, automatic),
            # clock 99 and a legal move that is neither a pawn move nor a capture, yet
            # python-chess cannot claim: every such move mates or stalemates (README:
            # deliberate difference).
            "fifty_by_ending_move": (board.halfmove_clock == 99 and not can_fifty
                                     and any(not board.is_zeroing(m) for m in board.generate_legal_moves())),
        }
        return {"index": index, "plies": n, "result": result, "error": error,
                "claim": self.claim, "rep2": self.rep2, "rep3": self.rep3, "fivefold": self.five,
                "clock100": self.clock100, "clock150": self.clock150,
                "fifty": self.fifty, "seventyfive": self.seventyfive, "end": end, "automatic": automatic,
                "ep_differs": self.ep_differs, "last_irreversible": self.last_irreversible}


def verdict(index, root, moves, result, error):
    """python-chess's answers for one game replayed from root (a Board, chess960 flag set)."""
    board = root.copy(stack=False)
    rules = Rules()
    rules.visit(board)
    for move in moves:
        rules.before_push(board, move)
        board.push(move)
        rules.visit(board)
    return rules.finish(index, board, result, error)


def not_replayed(index, why):
    """Verdict of a game that has no position (skipped variant, invalid FEN, oracle exception)."""
    return {"index": index, "skip": why}


# --------------------------------------------------------------------------------------------
# Checking a Rust record against a verdict


def _plies(events, pred):
    return sorted({e["ply"] for e in events if pred(e)})


def _first_difference(ours, theirs):
    a, b = set(ours), set(theirs)
    diff = sorted(a ^ b)
    return diff[0] if diff else None


def check(rec, v):
    """Returns (problems, deliberate): problems = list of (ply or None, message) where the record
    disagrees with python-chess; deliberate = list of deliberate-difference names skipped."""
    problems, deliberate = [], []
    if "skip" in v:
        return problems, deliberate
    s = rec.get("summary")
    events = rec.get("events")
    if not isinstance(s, dict) or not isinstance(events, list):
        return [(None, f"record has no summary/events (status {rec.get('status')!r}) but python-chess replayed {v['plies']} plies")], deliberate
    n = v["plies"]
    if s.get("plies") != n:
        return [(None, f"summary.plies {s.get('plies')!r} but python-chess replayed {n} plies")], deliberate
    bad = [e for e in events if not isinstance(e, dict) or not isinstance(e.get("ply"), int) or not 0 <= e["ply"] <= n]
    if bad:
        return [(None, f"event outside plies 0..{n}: {bad[0]!r}"[:200])], deliberate

    # python-chess's repetition answers count an e.p. right its own legal moves lack: not compared.
    skip_repetitions = bool(v.get("ep_differs"))
    if skip_repetitions:
        deliberate.append(VARIANT_EP)
    rep = [e for e in events if e.get("kind") == "repetition"]
    occ = lambda e: e.get("occurrence") if isinstance(e.get("occurrence"), int) else 0
    ours = {
        # can_claim_threefold_repetition() at ply k  <=>  a repetition with occurrence >= 3 at k
        # (the position on the board, 9.2.2) or a claim_by_move event at k (recorded at the
        # claimant's ply, before the move, 9.2.1)
        "claim": _plies(events, lambda e: (e.get("kind") == "repetition" and occ(e) >= 3)
                        or e.get("kind") == "claim_by_move"),
        "rep2": _plies(rep, lambda e: True),
        "rep3": _plies(rep, lambda e: occ(e) >= 3),
        "rep3 (claimable flag)": _plies(rep, lambda e: e.get("claimable") is True),
        "fivefold": _plies(rep, lambda e: occ(e) >= 5),
        "fivefold (automatic flag)": _plies(rep, lambda e: e.get("automatic") is True),
    }
    api = {"claim": "can_claim_threefold_repetition()", "rep2": "is_repetition(2)",
           "rep3": "is_repetition(3)", "fivefold": "is_fivefold_repetition()"}
    what = {"claim": "repetition event with occurrence >= 3 or claim_by_move event",
            "rep2": "repetition event", "rep3": "repetition event with occurrence >= 3",
            "rep3 (claimable flag)": "repetition event with claimable true",
            "fivefold": "repetition event with occurrence >= 5",
            "fivefold (automatic flag)": "repetition event with automatic true"}
    for name, plies in ({} if skip_repetitions else ours).items():
        base = name.split(" ")[0]
        k = _first_difference(plies, v[base])
        if k is not None:
            py = k in v[base]
            problems.append((k, f"python-chess {api[base]} is {py}, but the records have "
                                f"{'no' if py else 'a'} {what[name]} at this ply"))

    # Summary fields that follow from the same answers. Lichess and engine play had no claim by
    # a declared move (FORMAT.md "Rules in force"): their opportunities are the board's.
    declared = declared_move(rec)
    claims = v["claim"] if declared else v["rep3"]
    expect = {
        "claim_opportunities": len(claims),
        "claim_opportunities_on_board": len(v["rep3"]),
        "first_claim_ply": _first(claims),
        "first_ply_occurrence_2": _first(v["rep2"]),
        "first_ply_occurrence_3": _first(v["rep3"]),
        "first_ply_occurrence_5": _first(v["fivefold"]),
        "plies_after_fivefold": None if not v["fivefold"] else n - v["fivefold"][0],
        "first_ply_halfmove_100": v["clock100"],
        "first_ply_halfmove_150": v["clock150"],
    }
    for field, want in expect.items():
        if skip_repetitions and not field.startswith("first_ply_halfmove"):
            continue
        if s.get(field) != want or type(s.get(field)) is not type(want):
            problems.append((None, f"summary.{field} = {s.get(field)!r}, python-chess gives {want!r}"))

    # first_ply_halfmove_100/150 (FORMAT.md: the clock alone) against is_fifty_moves() /
    # is_seventyfive_moves(), which are also false where no legal move exists.
    end = v["end"]
    for field, first_api, name in (("clock100", "fifty", "is_fifty_moves()"),
                                   ("clock150", "seventyfive", "is_seventyfive_moves()")):
        if v[field] != v[first_api]:
            if v[first_api] is None and v[field] == n and end["no_legal_move"]:
                deliberate.append(CLOCK_AT_GAME_END)
            else:
                problems.append((v[field], f"first ply with python-chess {name} is {v[first_api]!r}, "
                                           f"first_ply_halfmove_{field[5:]} is {v[field]!r}"))

    if not skip_repetitions:
        for field, want in expected_missed_claims(v, claims, declared).items():
            if s.get(field) != want or type(s.get(field)) is not type(want):
                problems.append((None, f"summary.{field} = {s.get(field)!r}, python-chess gives {want!r} "
                                       f"(claims at {claims[:8]}, last is_irreversible() move "
                                       f"reaches ply {v['last_irreversible']}, result {v['result']!r}, "
                                       f"error {v['error']})"))

    status = ("checkmate" if end["checkmate"] else "stalemate" if end["stalemate"]
              else "insufficient_material" if end["insufficient_material"] else "none")
    if s.get("final_status") != status:
        problems.append((n, f"summary.final_status {s.get('final_status')!r}, python-chess "
                            f"is_checkmate/is_stalemate/is_insufficient_material give {status!r}"))

    reason = s.get("draw_reason")
    want, why = expected_draw_reason(rec, v, skip_repetitions)
    if reason != want:
        if (reason == "fifty_moves" and want == "agreement_or_unrecorded" and why == "inferred"
                and end["fifty_by_ending_move"]):
            deliberate.append(FIFTY_BY_ENDING_MOVE)
        elif why == "repetition (variant e.p.)" and reason in ("threefold", "fivefold"):
            pass  # VARIANT_EP, counted above: python-chess's fivefold answer is not compared
        else:
            problems.append((n, f"summary.draw_reason {reason!r}, python-chess gives {want!r} "
                                f"({why}; ending {rec.get('ending')!r}, "
                                f"is_fivefold_repetition {n in v['fivefold']}, "
                                f"can_claim_fifty_moves {end['can_claim_fifty_moves']}, "
                                f"is_seventyfive_moves {end['is_seventyfive_moves']})"))
    return problems, deliberate


def declared_move(rec):
    """Whether the game had a claim by a declared move (FORMAT.md "Rules in force"): only where
    the side to move claimed."""
    return rec.get("claimant", "side_to_move") == "side_to_move"


def expected_missed_claims(v, claims=None, declared=True):
    """FORMAT.md missed_claims / passed_over_claims from python-chess's answers alone: the
    opportunities are the plies k where can_claim_threefold_repetition() holds (claim).  One is
    claimed when the result is not 1-0/0-1, the replay did not stop on an error, and k is the
    last ply n, or k = n - 1 and is_repetition(3) holds at n (the move played from k reached a
    third occurrence: it was one of k's declared claim moves; no other claim at n - 1 ended the
    game there).  An unclaimed one is missed when the replay stopped, the result is not
    1/2-1/2, or a move after k was irreversible by python-chess's Board.is_irreversible() (the
    ply it reached, last_irreversible, is > k), else passed over.  python-chess's
    is_irreversible() also counts a move that cedes a legal e.p. capture, FORMAT.md does not;
    both agree on "an irreversible move after k" at every claim ply k: a position with a legal
    e.p. capture follows a double push, which starts the window afresh, so it is no opportunity
    and every later e.p. right follows a pawn move after k (crazyhouse, whose window a pawn
    move does not end, has python-chess count castling rights alone, as FORMAT.md does).
    missed_claims_by_move is not checked: at a ply with is_repetition(3), python-chess does
    not tell whether a declared move would claim too.  Without a claim by a declared move,
    `claims` are the rep3 plies, and only the last ply's can be claimed."""
    n, rep3 = v["plies"], set(v["rep3"])
    claims = v["claim"] if claims is None else claims
    stopped = bool(v["error"])
    decisive = v["result"] in ("1-0", "0-1")
    drawn = v["result"] == "1/2-1/2"
    missed, passed_over = [], []
    for k in claims:
        if not decisive and not stopped and (k == n or (declared and k == n - 1 and n in rep3)):
            continue  # claimed
        (missed if stopped or not drawn or v["last_irreversible"] > k else passed_over).append(k)
    return {"missed_claims": len(missed), "passed_over_claims": len(passed_over),
            "missed_claims_on_board": sum(1 for k in missed if k in rep3),
            "first_missed_claim_ply": missed[0] if missed else None}


def expected_draw_reason(rec, v, skip_repetitions=False):
    """(draw_reason, how it was decided) for a record, FORMAT.md draw_reason: only for a drawn
    game that stopped on no error; (a) no move: "no_moves"; (b) by the record's `ending` (the
    Termination tags, which compare.py checks against the oracle; python-chess cannot check
    them): an ending in RECORDED_DRAW_REASONS is the reason as it is, "repetition" is fivefold
    when python-chess's is_fivefold_repetition() holds at the last ply and a fivefold ended games
    (the verdict's `automatic`), else threefold (the
    players agreed on a repetition the board need not show), "fifty_moves" is
    seventy_five_moves when python-chess's inference (c) says so, else fifty_moves; (c) else
    python-chess's inference from the final position (draw_chain; the Lichess variants: none)."""
    if v["result"] != "1/2-1/2" or v["error"]:
        return None, "not a drawn game that stopped on no error"
    if v["plies"] == 0:
        return "no_moves", "no move"
    ending = rec.get("ending")
    fide = rec.get("variant") not in LICHESS_VARIANTS
    inferred = v["end"]["draw_chain" if declared_move(rec) else "draw_chain_board"] if fide else None
    if ending in RECORDED_DRAW_REASONS:
        return ending, "recorded ending"
    if ending == "repetition":
        if skip_repetitions:
            return None, "repetition (variant e.p.)"
        five = v["plies"] in v["fivefold"] and v.get("automatic", ALL_AUTOMATIC)["fivefold"]
        return ("fivefold" if five else "threefold"), "recorded repetition"
    if ending == "fifty_moves":
        return ("seventy_five_moves" if inferred == "seventy_five_moves" else "fifty_moves"), \
            "recorded fifty-move ending"
    return inferred, "inferred"
