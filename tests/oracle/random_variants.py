"""Random games of the Lichess variants, full of back-and-forth moves, written as PGN for the
differential test (FORMAT.md "Variants"; differential.sh makes them under target/).

    random_variants.py OUT_DIR [--games N] [--seed S]

One file per variant, N games each (default 2000), the same for the same seed. A game plays
up to 30-140 plies: most moves take back the side's previous move (a piece stepping back where
it came from), so positions recur; the rest are random legal moves (captures, pawn moves and
checks end the window; in crazyhouse drops put captured pieces back). The Variant tag is
written in the spellings Lichess and other tools use, the result is drawn at random.
"""

import argparse
import os
import random

import chess
import chess.variant

# variant: (board class, Variant tag spellings)
VARIANTS = {
    "crazyhouse": (chess.variant.CrazyhouseBoard, ["Crazyhouse", "crazyhouse", "Crazy House", "ZH"]),
    "threeCheck": (chess.variant.ThreeCheckBoard, ["Three-check", "threeCheck", "3check", "Three check"]),
    "atomic": (chess.variant.AtomicBoard, ["Atomic", "atomic"]),
    "antichess": (chess.variant.AntichessBoard, ["Antichess", "antichess"]),
    "kingOfTheHill": (chess.variant.KingOfTheHillBoard, ["King of the Hill", "kingOfTheHill", "KOTH"]),
    "horde": (chess.variant.HordeBoard, ["Horde", "horde"]),
    "racingKings": (chess.variant.RacingKingsBoard, ["Racing Kings", "racingKings", "racing_kings"]),
}


def pick(rng, board, history):
    moves = list(board.legal_moves)
    if not moves:
        return None
    r = rng.random()
    # Take back this side's previous move: the piece steps back where it came from.
    if r < 0.55 and len(history) >= 2:
        last = history[-2]
        if last.drop is None:
            back = chess.Move(last.to_square, last.from_square)
            if back in moves:
                return back
    # Play this side's move of four plies ago again (a shuffle between two squares).
    if r < 0.7 and len(history) >= 4:
        again = history[-4]
        if again in moves:
            return again
    drops = [m for m in moves if m.drop]
    if drops and r < 0.8:
        return rng.choice(drops)
    captures = [m for m in moves if board.is_capture(m)]
    if captures and r < 0.86:
        return rng.choice(captures)
    quiet = [m for m in moves if not board.is_zeroing(m) and not m.drop]
    if quiet and r < 0.9:
        return rng.choice(quiet)
    return rng.choice(moves)


def game(rng, cls, tag, number):
    board = cls()
    history = []
    plies = rng.randint(30, 140)
    while len(history) < plies and not board.is_game_over():
        move = pick(rng, board, history)
        if move is None:
            break
        history.append(move)
        board.push(move)
    san = cls().variation_san(history)
    result = rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
    return (f'[Event "random back-and-forth {number}"]\n[Variant "{tag}"]\n[Result "{result}"]\n\n'
            f"{san} {result}\n\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=26)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for i, (name, (cls, tags)) in enumerate(VARIANTS.items()):
        rng = random.Random(args.seed * 1000 + i)
        path = os.path.join(args.out, f"random-{name}.pgn")
        with open(path + ".tmp", "w") as f:
            for n in range(args.games):
                f.write(game(rng, cls, tags[n % len(tags)], n))
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
