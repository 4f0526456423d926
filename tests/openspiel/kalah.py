#!/usr/bin/env python3
"""Cross-check the mancala engine's Kalah against OpenSpiel's "mancala" game.

Plays seeded random games in OpenSpiel's "mancala" (standard Kalah: 2x6
pits, 4 seeds, captures of the last stone and the opposite pit into the
capturer's store, a row emptied ends the game), replays each game with ONE
call of

    mancala replay kalah MOVE... --json

and compares every ply: both rows, both stores, side to move, legal moves,
game over, and at the end the winner, the final score and the reason.

Orientation (checked in OpenSpiel's games/mancala/mancala.cc): the board is
14 cells; cell 0 is player 1's store, cells 1..6 player 0's pits in sowing
order, cell 7 player 0's store, cells 8..13 player 1's pits in sowing
order.  Player 0 moves first and is our South.  An action is the index of
the cell sown, so player 0's action k is our pit chr(ord('a') + k - 1) and
player 1's action k our pit chr(ord('a') + k - 8).  The observation tensor
is the 14 cells, then the player to move, then the move number.  At the end
OpenSpiel scores each player's pits plus store (Returns), with the board
left as it is: as our engine does, so the final board must match too.

OpenSpiel also ends a game after 1000 moves (a draw); random games end long
before, and a game that reaches MAX_PLIES is compared up to there only.

The last line is "N passed, M failed"; exit status 0 only when M == 0 and
N > 0.
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

from compare import replay_letters  # the same `mancala replay --json` runner

import pyspiel

PITS = 6
MAX_PLIES = 900  # below OpenSpiel's 1000-move cap
SIDES = ("south", "north")
REPO = Path(__file__).resolve().parents[2]


def letter(player, action):
    return chr(ord("a") + action - (1 if player == 0 else 8))


def expected(state):
    """One ply as our engine should print it, from an OpenSpiel state."""
    cells = [int(x) for x in state.observation_tensor(0)[:14]]
    over = state.is_terminal()
    ply = {
        "ruleset": "kalah",
        "stones": 4,
        "south": cells[1:7],
        "north": cells[8:14],
        "south_store": cells[7],
        "north_store": cells[0],
        "over": over,
        "to_move": None if over else SIDES[state.current_player()],
        "legal": [] if over else sorted(letter(state.current_player(), a) for a in state.legal_actions()),
    }
    if over:
        returns = state.returns()
        ply["winner"] = "draw" if returns[0] == 0 else ("south" if returns[0] > 0 else "north")
        ply["score"] = [sum(cells[1:8]), sum(cells[8:14]) + cells[0]]
        ply["reason"] = "row-empty"
    return ply


def make_game(seed):
    """A random game in OpenSpiel: (our pit letters, expected plies, category)."""
    rng = random.Random(seed)
    state = pyspiel.load_game("mancala").new_initial_state()
    moves, plies = [], [expected(state)]
    captures = bonuses = 0
    while not state.is_terminal():
        if len(moves) >= MAX_PLIES:
            return moves, plies, "ply cap reached", captures, bonuses
        player = state.current_player()
        action = rng.choice(state.legal_actions())
        before = plies[-1]
        state.apply_action(action)
        moves.append(letter(player, action))
        after = expected(state)
        # Sowing never takes from the opponent's pits: only a capture does.
        opponent = SIDES[1 - player]
        if sum(after[opponent]) < sum(before[opponent]):
            captures += 1
        if not state.is_terminal() and after["to_move"] == SIDES[player]:
            bonuses += 1
        plies.append(after)
    returns = state.returns()
    category = "draw" if returns[0] == 0 else ("south won" if returns[0] > 0 else "north won")
    return moves, plies, category, captures, bonuses


def replay(binary, moves):
    return replay_letters(binary, "kalah", moves)


def check_game(task):
    index, seed, binary = task
    moves, plies, category, captures, bonuses = make_game(f"{seed}/kalah/{index}")
    lines, problem = replay(binary, moves)
    if not problem and len(lines) != len(plies):
        problem = f"{len(lines)} JSON lines for {len(moves)} moves (expected {len(plies)})"
    bad = None
    for ply, (got, want) in enumerate(zip(lines, plies)):
        differs = [k for k, v in want.items() if got.get(k) != v]
        if got.get("ply") != ply or differs:
            bad = ply
            problem = problem or f"ply {ply} differs in {differs or ['ply']}"
            break
    if problem and bad is None:
        bad = min(len(lines), len(plies) - 1)
    return index, moves, plies, lines, category, captures, bonuses, problem, bad


def report_failure(result):
    index, moves, plies, lines, category, _, _, problem, ply = result
    print(f"FAIL kalah game {index}: {problem}")
    print(f"  moves: {' '.join(moves)}")
    print(f"  (at ply {ply}, after: {' '.join(moves[:ply]) or '(start)'})")
    if ply < len(plies):
        print(f"  expected: {json.dumps(plies[ply])}")
    print(f"  ours:     {json.dumps(lines[ply]) if ply < len(lines) else '(no line)'}")
    print(f"  (OpenSpiel game ended as: {category})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3000, help="random games (default 3000)")
    parser.add_argument("--seed", default="1", help="RNG seed (default 1)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--show", type=int, default=3, help="failures to print in full (default 3)")
    args = parser.parse_args()

    binary = os.environ.get("MANCALA_BIN") or str(REPO / "target" / "release" / "mancala")
    if not os.access(binary, os.X_OK):
        print(f"no mancala binary at {binary}: run `cargo build --release` or set MANCALA_BIN")
        print("0 passed, 0 failed")
        return 2
    print(f"engine: {binary}")

    start = time.monotonic()
    tasks = [(i, args.seed, binary) for i in range(args.games)]
    categories, failures = Counter(), []
    plies = captures = bonuses = 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for result in pool.map(check_game, tasks, chunksize=50):
            _, moves, _, _, category, game_captures, game_bonuses, problem, _ = result
            plies += len(moves)
            captures += game_captures
            bonuses += game_bonuses
            if problem:
                failures.append(result)
            else:
                categories[category] += 1

    for result in failures[:args.show]:
        report_failure(result)
    if len(failures) > args.show:
        print(f"... and {len(failures) - args.show} more failures")
    print(f"kalah: {plies} plies compared ({captures} captures, {bonuses} bonus sowings)")
    for category, count in sorted(categories.items()):
        print(f"  {count:6d}  {category}")
    if failures:
        print(f"  {len(failures):6d}  FAILED (unexpected difference)")
    print(f"time: {time.monotonic() - start:.1f}s")
    passed = sum(categories.values())
    print(f"{passed} passed, {len(failures)} failed")
    return 0 if passed > 0 and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
