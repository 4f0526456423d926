#!/usr/bin/env python3
"""Cross-check the mancala engine's Wari games against OpenSpiel's Oware.

Plays seeded random games of super-wari (2x8, 3 seeds) and wari (2x6, 4
seeds) in OpenSpiel's "oware" game, replays each game with ONE call of

    mancala replay RULESET MOVE... --json

and compares every ply: both rows, captured totals, side to move, legal
moves, game over and winner (and the final `score` and `reason`, when the
engine prints them).

Orientation (checked in OpenSpiel's oware.cc / oware_board.h): player 0
moves first and is South; seeds[0..n) are player 0's houses and seeds[n..2n)
player 1's, both in sowing (anti-clockwise) order, and an action is the index
of a house in the mover's own row.  So OpenSpiel action k is our pit letter
chr(ord('a') + k) for either side, and seeds[:n] / seeds[n:] are our "south"
/ "north" lists as they are.

The rules agree except for these known differences, which the script allows
and counts (a game that reaches one is stopped there, after checking what
our engine does):

* grand slam: a move that would capture every opponent seed is legal in
  OpenSpiel (it captures nothing) but illegal for us.  Such moves are left
  out of the expected legal set and never played.  When they are the only
  moves (or no move can avoid starving the opponent) our engine lets the
  mover play any house and then gives them every seed left: OpenSpiel plays
  on, so the game is stopped after that forced move.
* no feed: when a player cannot feed a starved opponent, OpenSpiel ends the
  game before that player moves and gives each player the seeds on their
  own side (all of them are the mover's); we expect our engine to offer
  every non-empty house instead, and after one of them to end the game with
  the same score.
* repetition: both end the game on a repeated position (board + side to
  move, tracked since the last capture) with each player taking the seeds on
  their own side.  OpenSpiel moves those seeds into the scores; our engine
  may instead leave the board as it is, its final `score` counting them.
  Either is accepted.
* more than half captured ends both games at once.  OpenSpiel then also
  sweeps each side's seeds into its owner's score; our engine may leave the
  board as it is and score the captures alone.  Either is accepted (the
  winner is the same).

The final line is "N passed, M failed"; exit status 0 only when M == 0 and
N > 0.  `--engine python` replays with the small pure-Python model of our
rules below instead of the binary: for debugging this script only.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pyspiel

RULESETS = {"super-wari": (8, 3), "wari": (6, 4)}  # name -> (houses, seeds)
MAX_PLIES = 600  # OpenSpiel aborts a game past 1000 moves; random games end by ~500
SIDES = ("south", "north")
REPO = Path(__file__).resolve().parents[2]


def letter(action):
    return chr(ord("a") + action)


# --- OUR rules, as far as the comparison needs them -------------------------
# A board is a list of 2n counts: South's a.. then North's a.. (sowing order).


def sow(board, n, mover, house):
    """Sow `house` (0-based in the mover's row) with our capture rule.

    Returns (new board, seeds captured).  A grand slam (a capture of every
    opponent seed) is done like any capture: see `starves` for its legality."""
    board = list(board)
    origin = mover * n + house
    seeds, board[origin] = board[origin], 0
    cell = origin
    while seeds:
        cell = (cell + 1) % (2 * n)
        if cell != origin:
            board[cell] += 1
            seeds -= 1
    captured = 0
    if cell // n != mover:  # last seed in the opponent's row
        low = cell // n * n
        while cell >= low and board[cell] in (2, 3):
            captured += board[cell]
            board[cell] = 0
            cell -= 1
    return board, captured


def starves(board, n, mover, house):
    """Would this move leave the opponent with no seeds (our rule)?"""
    after, _ = sow(board, n, mover, house)
    return sum(after[(1 - mover) * n:(2 - mover) * n]) == 0


def nonempty(board, n, mover):
    return [h for h in range(n) if board[mover * n + h]]


# --- OpenSpiel side ----------------------------------------------------------


def os_position(state):
    """(mover, [score0, score1], seeds) of an OpenSpiel oware state.

    The observation string is "player | score0 score1 | seeds...";
    `player` is the side to move (meaningless once terminal)."""
    mover, scores, seeds = state.observation_string(0).split(" | ")
    return int(mover), [int(x) for x in scores.split()], [int(x) for x in seeds.split()]


def expect(ruleset, n, mover, stores, board, legal, over=False, winner=None, score=None, reason=None):
    """One ply as our engine should print it (the keys we check; `score`, the
    final [south, north] score, and `reason` only if it prints them)."""
    return {
        "ruleset": ruleset,
        "to_move": None if over else SIDES[mover],
        "south": list(board[:n]),
        "north": list(board[n:]),
        "south_store": stores[0],
        "north_store": stores[1],
        "legal": sorted(letter(h) for h in legal),
        "over": over,
        "winner": winner,
        "score": score,
        "reason": reason,
    }


OPTIONAL = {"score", "reason"}


def matches(got, want):
    return all(got.get(k) == v for k, v in want.items() if k in got or k not in OPTIONAL)


def winner_of(scores):
    if scores[0] == scores[1]:
        return "draw"
    return SIDES[0] if scores[0] > scores[1] else SIDES[1]


def our_legal(board, n, mover, os_legal):
    """Our legal moves, derived from OpenSpiel's: drop the grand slams; when
    nothing is left, any non-empty house (the forced, game-ending move)."""
    legal = [h for h in os_legal if not starves(board, n, mover, h)]
    return (legal, False) if legal else (nonempty(board, n, mover), True)


def make_game(ruleset, seed):
    """Play one random game in OpenSpiel.

    Returns (moves, expected plies, category, grand-slam positions seen).
    Each expected ply is a list of acceptable variants."""
    n, seeds = RULESETS[ruleset]
    total = 2 * n * seeds
    rng = random.Random(seed)
    game = pyspiel.load_game("oware", {"num_houses_per_player": n, "num_seeds_per_house": seeds})
    state = game.new_initial_state()
    mover, stores, board = os_position(state)
    seen = {(mover, tuple(board))}  # positions since the last capture
    legal, forced = our_legal(board, n, mover, state.legal_actions())
    plies = [[expect(ruleset, n, mover, stores, board, legal)]]
    moves, slams = [], 0
    while True:
        if forced:
            # Only grand slams (or no feeding move) here: OpenSpiel still
            # plays, our engine ends after any move, the mover taking all.
            assert not state.is_terminal()
            moves.append(rng.choice(legal))
            final = list(stores)
            final[mover] += sum(board)
            win = winner_of(final)
            plies.append([expect(ruleset, n, 0, final, [0] * 2 * n, [], True, win, final, "starvation")])
            return moves, plies, "known: only grand slams, our forced move ends the game", slams
        if len(moves) >= MAX_PLIES:
            return moves, plies, "ply cap reached", slams
        os_legal = state.legal_actions()
        if len(legal) != len(os_legal):
            slams += 1
        move = rng.choice(legal)
        moves.append(move)
        state.apply_action(move)
        board, captured = sow(board, n, mover, move)
        stores[mover] += captured
        mover = 1 - mover
        if captured:
            seen.clear()
        repeated = (mover, tuple(board)) in seen
        seen.add((mover, tuple(board)))

        os_mover, os_scores, os_board = os_position(state)
        if not state.is_terminal():
            # Harness self-check: our model must track OpenSpiel exactly.
            assert (os_mover, os_scores, os_board) == (mover, stores, board), (moves, os_board, board)
            legal, forced = our_legal(board, n, mover, state.legal_actions())
            plies.append([expect(ruleset, n, mover, stores, board, legal)])
            continue

        # OpenSpiel has swept each side's seeds into its owner's score.
        swept = [stores[0] + sum(board[:n]), stores[1] + sum(board[n:])]
        assert os_board == [0] * 2 * n and os_scores == swept, (moves, os_scores, os_board)
        win = winner_of(os_scores)
        if max(stores) > total // 2:
            # More than half captured: ours scores the captures alone.
            plies.append([
                expect(ruleset, n, mover, stores, board, [], True, win, stores, "majority"),  # board as it is
                expect(ruleset, n, mover, os_scores, os_board, [], True, win, os_scores, "majority"),  # swept
            ])
            return moves, plies, "majority captured", slams
        if repeated:
            plies.append([
                expect(ruleset, n, mover, os_scores, os_board, [], True, win, os_scores, "repetition"),  # swept
                expect(ruleset, n, mover, stores, board, [], True, win, os_scores, "repetition"),  # board as it is
            ])
            return moves, plies, "repetition", slams
        # The player to move cannot feed the starved opponent: OpenSpiel has
        # ended the game; ours must offer every house, then end it.
        assert sum(board[(1 - mover) * n:(2 - mover) * n]) == 0
        houses = nonempty(board, n, mover)
        plies.append([expect(ruleset, n, mover, stores, board, houses)])
        moves.append(rng.choice(houses))
        plies.append([expect(ruleset, n, mover, os_scores, os_board, [], True, win, os_scores, "starvation")])
        return moves, plies, "known: cannot feed, OpenSpiel ends before our forced move", slams


# --- our engine ---------------------------------------------------------------


def replay_binary(binary, ruleset, moves):
    """Returns (JSON lines, error text or None)."""
    return replay_letters(binary, ruleset, [letter(m) for m in moves])


def replay_letters(binary, ruleset, pits):
    """`mancala replay RULESET PITS... --json`: (JSON lines, error text or None)."""
    cmd = [binary, "replay", ruleset, *pits, "--json"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as error:
        return [], f"cannot run {binary}: {error}"
    lines = []
    for raw in proc.stdout.splitlines():
        try:
            lines.append(json.loads(raw))
        except json.JSONDecodeError:
            return lines, f"not JSON: {raw!r}"
    if proc.returncode != 0:
        return lines, f"exit {proc.returncode}: {proc.stderr.strip()}"
    return lines, None


def replay_python(ruleset, moves):
    """Our rules in plain Python (debugging this script only)."""
    n, seeds = RULESETS[ruleset]
    board, stores, mover = [seeds] * 2 * n, [0, 0], 0
    end = None  # (final score, reason) once over
    seen = {(mover, tuple(board))}
    out = []

    def line(ply):
        legal = [] if end else [h for h in nonempty(board, n, mover) if not starves(board, n, mover, h)] \
            or nonempty(board, n, mover)
        score, reason = end or (None, None)
        winner = winner_of(score) if end else None
        out.append(dict(expect(ruleset, n, mover, stores, board, legal, bool(end), winner, score, reason), ply=ply))

    line(0)
    for ply, move in enumerate(moves, 1):
        if letter(move) not in out[-1]["legal"]:
            return out, "exit 65: illegal move"
        forced = starves(board, n, mover, move)
        board, captured = sow(board, n, mover, move)
        stores[mover] += captured
        if forced:
            stores[mover] += sum(board)
            board = [0] * 2 * n
            end = list(stores), "starvation"
        elif max(stores) > n * seeds:
            end = list(stores), "majority"
        mover = 1 - mover
        if captured:
            seen.clear()
        if not end and (mover, tuple(board)) in seen:
            end = [stores[0] + sum(board[:n]), stores[1] + sum(board[n:])], "repetition"
        seen.add((mover, tuple(board)))
        line(ply)
    return out, None


# --- comparison ---------------------------------------------------------------


def check_game(task):
    ruleset, index, seed, binary = task
    moves, plies, category, slams = make_game(ruleset, f"{seed}/{ruleset}/{index}")
    if binary:
        lines, error = replay_binary(binary, ruleset, moves)
    else:
        lines, error = replay_python(ruleset, moves)
    problem = error
    if not problem and len(lines) != len(plies):
        problem = f"{len(lines)} JSON lines for {len(moves)} moves (expected {len(plies)})"
    bad_ply = None
    for ply, (got, variants) in enumerate(zip(lines, plies)):
        if got.get("ply") != ply or not any(matches(got, want) for want in variants):
            bad_ply = ply
            problem = problem or f"ply {ply} differs"
            break
    if problem and bad_ply is None:
        bad_ply = min(len(lines), len(plies) - 1)
    return ruleset, index, moves, plies, lines, category, slams, problem, bad_ply


def report_failure(result):
    ruleset, index, moves, plies, lines, category, _, problem, ply = result
    print(f"FAIL {ruleset} game {index}: {problem}")
    print(f"  moves: {' '.join(letter(m) for m in moves)}")
    print(f"  (at ply {ply}, after: {' '.join(letter(m) for m in moves[:ply]) or '(start)'})")
    for i, want in enumerate(plies[ply] if ply < len(plies) else []):
        print(f"  expected{' (or)' if i else ''}: {json.dumps(want)}")
    print(f"  ours:     {json.dumps(lines[ply]) if ply < len(lines) else '(no line)'}")
    if ply > 0 and ply - 1 < len(lines):
        print(f"  ours before: {json.dumps(lines[ply - 1])}")
    print(f"  (OpenSpiel game ended as: {category})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="random games per ruleset (default 2000)")
    parser.add_argument("--seed", default="1", help="RNG seed (default 1)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--engine", choices=["binary", "python"], default="binary",
                        help="'python' replays with this script's own model (debugging only)")
    parser.add_argument("--show", type=int, default=3, help="failures to print in full (default 3)")
    args = parser.parse_args()

    if args.engine == "binary":
        binary = os.environ.get("MANCALA_BIN") or str(REPO / "target" / "release" / "mancala")
        if not os.access(binary, os.X_OK):
            print(f"no mancala binary at {binary}: run `cargo build --release` or set MANCALA_BIN")
            print("0 passed, 0 failed")
            return 2
        print(f"engine: {binary}")
    else:
        print("engine: this script's Python model (NOT the mancala binary)")
        binary = None

    start = time.monotonic()
    tasks = [(r, i, args.seed, binary) for r in RULESETS for i in range(args.games)]
    categories, failures, slams, plies = Counter(), [], Counter(), Counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for result in pool.map(check_game, tasks, chunksize=50):
            ruleset, _, moves, _, _, category, slam_count, problem, _ = result
            plies[ruleset] += len(moves)
            slams[ruleset] += slam_count
            if problem:
                failures.append(result)
            else:
                categories[(ruleset, category)] += 1

    for result in failures[:args.show]:
        report_failure(result)
    if len(failures) > args.show:
        print(f"... and {len(failures) - args.show} more failures")
    for ruleset in RULESETS:
        print(f"{ruleset}: {plies[ruleset]} plies compared; positions where OpenSpiel also allowed "
              f"a grand slam (left out): {slams[ruleset]}")
        for (r, category), count in sorted(categories.items()):
            if r == ruleset:
                print(f"  {count:6d}  {category}")
        failed = sum(1 for f in failures if f[0] == ruleset)
        if failed:
            print(f"  {failed:6d}  FAILED (unexpected difference)")
    print(f"time: {time.monotonic() - start:.1f}s")
    passed = sum(categories.values())
    print(f"{passed} passed, {len(failures)} failed")
    return 0 if passed > 0 and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
