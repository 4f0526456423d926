#!/usr/bin/env python3
"""Strength against an outside anchor: our `strong` opponent against
OpenSpiel's MCTS bot on Wari (OpenSpiel's "oware", 6 houses, 4 seeds).

Method
------

* Referee: THIS engine.  A game is kept as the list of sowings; after every
  ply one call of

      mancala replay wari MOVE... --json

  gives the position, the side to move, our legal moves and, at the end,
  the winner, the score and the reason (its last JSON line is the position
  now).  Moves and sides follow tests/openspiel/compare.py, whose helpers
  are imported: OpenSpiel action k is our pit letter chr(ord('a') + k) for
  either side, OpenSpiel's player 0 (who moves first) is our South.

* Our side: `mancala hint - --opponent strong --json` on the current sheet
  (made by `mancala new wari`, then `mancala move - PIT...` for the moves
  since our last turn), which prints {"move", "eval", "depth", ...}.  Its
  move must be in our legal list.  `strong` is a search of 1,000,000
  positions a move (src/opponent.rs), so its moves are the same under any
  load; MCTS gets the wall time strong took, so that side depends on it.

* OpenSpiel's side: open_spiel.python.algorithms.mcts.MCTSBot with a
  RandomRolloutEvaluator (1 rollout), uct_c = 2 and MCTS-Solver on (the
  defaults of OpenSpiel's own examples/mcts.py), searching an OpenSpiel
  oware state kept in step with our game: every move of either side is
  applied to it, and while neither game is over its board, scores and side
  to move are checked against our engine's after every ply.  Its move is
  the best root child (MCTSBot's own order: visits, then reward) among
  OpenSpiel's legal actions that are also legal for us.  If none is (the
  OpenSpiel state is over while ours is not, see "no feed" below), it plays
  our first legal move; such fallbacks are counted.  With a single allowed
  move it plays it without searching, as `strong` does.

* Equal time per move: the wall time of each `mancala hint` call that
  searched (so process start, ~2 ms, and reading the sheet are included,
  which slightly favours MCTS) is measured with time.perf_counter; MCTS
  gets, per move, the time of `strong`'s latest searched move in the same
  game (the ply before, as a rule), or, before `strong` has moved, the
  median of 5 calibration calls on the start sheet.  `strong` stops early
  once it has found a forced result, so its time per move falls late in a
  game; this budget follows it.  MCTSBot.mcts_search runs a fixed
  `max_simulations`; here the same loop (copied from open-spiel 2.0.2's
  mcts.py, as pinned in tests/openspiel/requirements.txt) runs until the
  budget is spent instead (at least 2 simulations, so that the root has
  children).  The two sides never think at the same time.  The summary
  gives the mean budget and the mean simulations per searched move.

* Games: N (default 200), alternating sides: even games (0, 2, ...)
  `strong` is South and moves first, odd games it is North.  The MCTS
  random state of game i is seeded with (--seed, i).

Known rule differences (see compare.py's docstring) and what they do here:

* grand slam: OpenSpiel allows a move that would capture every opponent
  seed (it captures nothing); we do not.  Such moves are filtered out of
  MCTS's choice; the positions where OpenSpiel offered one, and the moves
  where MCTS's favourite was one, are counted.
* no feed: when the mover cannot feed a starved opponent, OpenSpiel ends
  the game before the move; our engine lets the mover play any house and
  then ends it (same score).  That last move is the counted fallback.
* repetition, majority: both end the game at the same ply; our engine's
  winner and score are taken.

Prints one line per game, a README-ready summary, and last the line

    strong vs OpenSpiel MCTS (oware 6x4), N games: W wins, D draws, L losses (P% wins), ...

Exit status 0 if `strong` won at least 90% of the games, else 1.
"""

import argparse
from importlib import metadata
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "openspiel"))
from compare import RULESETS, SIDES, letter, os_position  # noqa: E402

RULESET = "wari"
HOUSES, SEEDS = RULESETS[RULESET]
MAX_PLIES = 2000  # a safety net only: both rule sets end games long before
BAR = 0.90


class TimedMCTSBot(mcts.MCTSBot):
    """MCTSBot whose search runs until a wall-clock deadline instead of for
    max_simulations.  The loop body is open-spiel 2.0.2's mcts_search."""

    def timed_search(self, state, seconds):
        deadline = time.perf_counter() + seconds
        root = mcts.SearchNode(None, state.current_player(), 1)
        sims = 0
        while sims < 2 or time.perf_counter() < deadline:
            sims += 1
            visit_path, working_state = self._apply_tree_policy(root, state)
            if working_state.is_terminal():
                returns = working_state.returns()
                visit_path[-1].outcome = returns
                solved = self.solve
            else:
                returns = self.evaluator.evaluate(working_state)
                solved = False
            while visit_path:
                decision_node_idx = -1
                while visit_path[decision_node_idx].player == pyspiel.PlayerId.CHANCE:
                    decision_node_idx -= 1
                target_return = returns[visit_path[decision_node_idx].player]
                node = visit_path.pop()
                node.total_reward += target_return
                node.explore_count += 1
                if solved and node.children:
                    player = node.children[0].player
                    # (oware has no chance nodes: that branch of the original is left out)
                    best = None
                    all_solved = True
                    for child in node.children:
                        if child.outcome is None:
                            all_solved = False
                        elif best is None or child.outcome[player] > best.outcome[player]:
                            best = child
                    if best is not None and (all_solved or best.outcome[player] == self.max_utility):
                        node.outcome = best.outcome
                    else:
                        solved = False
            if root.outcome is not None:
                break
        return root, sims


# --- our engine -----------------------------------------------------------------


class Engine:
    def __init__(self, binary, opponent):
        self.binary = binary
        self.opponent = opponent

    def run(self, args, stdin=None):
        proc = subprocess.run([self.binary, *args], input=stdin, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"mancala {' '.join(args)}: exit {proc.returncode}: {proc.stderr.strip()}")
        return proc.stdout

    def new_sheet(self):
        return self.run(["new", RULESET])

    def move(self, sheet, moves):
        return self.run(["move", "-", *map(letter, moves)], sheet) if moves else sheet

    def position(self, moves):
        """Our engine's last JSON line after these moves."""
        out = self.run(["replay", RULESET, *map(letter, moves), "--json"])
        return json.loads(out.splitlines()[-1])

    def hint(self, sheet, opponent=None):
        """(answer, wall seconds) of `mancala hint - --opponent X --json`."""
        start = time.perf_counter()
        out = self.run(["hint", "-", "--opponent", opponent or self.opponent, "--json"], sheet)
        return json.loads(out), time.perf_counter() - start


# --- one game -------------------------------------------------------------------


def play_game(index, engine, game, args, stats, clock):
    """Play game `index`; returns a dict describing it."""
    ours = index % 2  # our side: 0 = South (first), 1 = North
    rng = np.random.RandomState([args.seed, index])
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = TimedMCTSBot(game, uct_c=2, max_simulations=0, evaluator=evaluator, solve=True, random_state=rng)
    state = game.new_initial_state()  # OpenSpiel's oware, kept in step
    sheet, pending = engine.new_sheet(), []  # our sheet, and moves not yet on it
    moves = []
    in_step = True
    os_over_first = False
    last_strong = None  # wall time of strong's latest searched move in this game
    while True:
        pos = engine.position(moves)
        if pos["over"]:
            break
        if len(moves) >= MAX_PLIES:
            stats["ply cap"] += 1
            break
        if in_step and state.is_terminal() and not os_over_first:
            os_over_first = True  # the no-feed ending: OpenSpiel stops before the move
            stats["games OpenSpiel ended a ply early (no feed), our engine one move later"] += 1
        mover = SIDES.index(pos["to_move"])
        legal = [ord(m) - ord("a") for m in pos["legal"]]
        if in_step and not state.is_terminal():
            os_mover, os_scores, os_board = os_position(state)
            want = (mover, [pos["south_store"], pos["north_store"]], pos["south"] + pos["north"])
            if (os_mover, os_scores, os_board) != want:
                stats["out of step with OpenSpiel"] += 1
                in_step = False
            elif sorted(state.legal_actions()) != sorted(legal):
                stats["positions where OpenSpiel also offered a grand slam"] += 1
        if mover == ours:
            sheet, pending = engine.move(sheet, pending), []
            answer, seconds = engine.hint(sheet)
            if answer["side"] != SIDES[ours]:
                raise RuntimeError(f"hint played for {answer['side']}, expected {SIDES[ours]}")
            move = ord(answer["move"]) - ord("a")
            if move not in legal:
                raise RuntimeError(f"hint's move {answer['move']} is not legal: {pos['legal']}")
            if answer["depth"]:
                clock["strong"].append(seconds)
                last_strong = seconds
                stats["our searched moves"] += 1
            else:
                stats["our moves without a search (single move, or a non-search opponent)"] += 1
        else:
            allowed = ([a for a in state.legal_actions() if a in legal]
                       if in_step and not state.is_terminal() else [])
            if not allowed:
                move = legal[0]
                stats["MCTS fallbacks to our first legal move" +
                      (" (OpenSpiel over: no feed)" if state.is_terminal() else "")] += 1
            elif len(allowed) == 1:
                move = allowed[0]
                stats["MCTS single moves"] += 1
            else:
                budget = last_strong if last_strong is not None else clock["calibration"]
                start = time.perf_counter()
                root, sims = bot.timed_search(state, budget)
                clock["mcts"].append(time.perf_counter() - start)
                clock["budget"].append(budget)
                clock["sims"].append(sims)
                favourite = root.best_child().action
                move = max((c for c in root.children if c.action in allowed), key=mcts.SearchNode.sort_key).action
                if move != favourite:
                    stats["MCTS favourite was a grand slam (took its best legal move)"] += 1
        moves.append(move)
        pending.append(move)
        if in_step and not state.is_terminal():
            state.apply_action(move)
    if state.is_terminal() is False and pos["over"] and pos["reason"] == "starvation":
        stats["games ended by our starvation rule while OpenSpiel played on (grand slam)"] += 1
    score = pos.get("score") or [pos["south_store"], pos["north_store"]]
    winner = pos.get("winner")
    result = "draw" if winner in (None, "draw") else ("win" if winner == SIDES[ours] else "loss")
    return {
        "result": result,
        "side": SIDES[ours],
        "score": score,
        "reason": pos.get("reason") or ("ply cap" if len(moves) >= MAX_PLIES else "?"),
        "plies": len(moves),
        "moves": "".join(map(letter, moves)),
    }


# --- the match ------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="MCTS seed (default 1)")
    parser.add_argument("--opponent", default="strong",
                        help="our opponent setting for `mancala hint` (default strong)")
    args = parser.parse_args()

    binary = os.environ.get("MANCALA_BIN") or str(REPO / "target" / "release" / "mancala")
    if not os.access(binary, os.X_OK):
        print(f"no mancala binary at {binary}: run `cargo build --release` or set MANCALA_BIN")
        return 2
    engine = Engine(binary, args.opponent)
    game = pyspiel.load_game("oware", {"num_houses_per_player": HOUSES, "num_seeds_per_house": SEEDS})

    # Calibration: strong's time on the start sheet, and what a hint costs
    # without a search (process start + reading the sheet), for the record.
    start_sheet = engine.new_sheet()
    calibration = [engine.hint(start_sheet)[1] for _ in range(5)]
    clock = {"calibration": statistics.median(calibration), "strong": [], "mcts": [], "budget": [], "sims": []}
    overhead = statistics.median(engine.hint(start_sheet, "first")[1] for _ in range(5))
    print(f"engine: {binary} ({engine.run(['--version']).strip()}); open-spiel {metadata.version('open_spiel')}")
    print(f"calibration: `hint --opponent {args.opponent}` {1000 * clock['calibration']:.1f} ms "
          f"(median of 5), a hint without search {1000 * overhead:.1f} ms")
    sys.stdout.flush()

    began = time.monotonic()
    stats, results, reasons = Counter(), Counter(), Counter()
    by_side = {side: Counter() for side in SIDES}
    for index in range(args.games):
        g = play_game(index, engine, game, args, stats, clock)
        results[g["result"]] += 1
        by_side[g["side"]][g["result"]] += 1
        reasons[g["reason"]] += 1
        first = "first" if g["side"] == "south" else "second"
        print(f"game {index + 1}/{args.games}: strong {g['side']} ({first}): {g['result']} "
              f"{g['score'][0]}-{g['score'][1]} ({g['reason']}, {g['plies']} plies) "
              f"[W{results['win']} D{results['draw']} L{results['loss']}] {g['moves']}")
        sys.stdout.flush()
    elapsed = time.monotonic() - began

    n = args.games
    wins, draws, losses = results["win"], results["draw"], results["loss"]
    pct = 100.0 * wins / n if n else 0.0
    budget_ms = 1000 * statistics.fmean(clock["budget"]) if clock["budget"] else 0.0
    used_ms = 1000 * statistics.fmean(clock["mcts"]) if clock["mcts"] else 0.0
    sims = statistics.fmean(clock["sims"]) if clock["sims"] else 0.0
    sims_range = f"{min(clock['sims'])}-{max(clock['sims'])}" if clock["sims"] else "-"
    strong_ms = 1000 * statistics.fmean(clock["strong"]) if clock["strong"] else 0.0

    print()
    print("## Summary (README-ready)")
    print()
    print(f"Against OpenSpiel's MCTS bot (open-spiel Python `MCTSBot`, random-rollout evaluator, "
          f"uct_c 2, MCTS-Solver) on Wari (OpenSpiel's oware 6x4), refereed by this engine, "
          f"`{args.opponent}` played {n} games, alternating sides: "
          f"**{wins} wins, {draws} draws, {losses} losses ({pct:.1f}% wins)**.")
    print()
    print("| strong as | games | wins | draws | losses |")
    print("|---|---|---|---|---|")
    for side, label in zip(SIDES, ("South (first)", "North (second)")):
        c = by_side[side]
        print(f"| {label} | {sum(c.values())} | {c['win']} | {c['draw']} | {c['loss']} |")
    print()
    print(f"Time per move: `{args.opponent}` took {strong_ms:.1f} ms of wall time per searched move "
          f"(whole `mancala hint` call; a hint without search costs {1000 * overhead:.1f} ms); MCTS was given, "
          f"per move, the time `{args.opponent}` took on its latest searched move of the game (the median of 5 "
          f"calls on the start sheet, {1000 * clock['calibration']:.1f} ms, before it had one), "
          f"{budget_ms:.1f} ms on average (it used {used_ms:.1f} ms), "
          f"{sims:.0f} simulations per searched move on average (range {sims_range}). "
          f"Games ended by: {', '.join(f'{k} {v}' for k, v in reasons.most_common())}. "
          f"Run time {elapsed / 60:.1f} min.")
    print()
    print("Counts: " + ("; ".join(f"{k}: {v}" for k, v in sorted(stats.items())) or "none"))
    print()
    print(f"{args.opponent} vs OpenSpiel MCTS (oware 6x4), {n} games: {wins} wins, {draws} draws, {losses} losses "
          f"({pct:.1f}% wins), MCTS time per move {budget_ms:.0f} ms ({sims:.0f} simulations)")
    return 0 if n and wins >= BAR * n else 1


if __name__ == "__main__":
    sys.exit(main())
