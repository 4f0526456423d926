#!/usr/bin/env bash
# Solves a game's start position as docs/perfect-play.md reports:
# endgame tables to N stones in pits, then the exact solver with a
# transposition table of M megabytes, each step on standard error.
#
#   benches/moonshot.sh [RULESET] [STONES] [TABLE_STONES] [MEMORY_MB] [DIR] [SOLVE_ARG...]
#   benches/moonshot.sh mankala 3 24 8192 /var/tmp/mancala-tables
#   benches/moonshot.sh waurie 3 18 8192 /var/tmp/mancala-tables --proof-numbers
#   benches/moonshot.sh kalah 4 18 4096 /var/tmp/mancala-tables --variant empty-capture
#
# A --variant V first among the SOLVE_ARGs is the game's variant (its own
# tables and start); the rest go to `solve`.
#
# Results and the attempts that did not end: boards/solutions/.
#
# Mankala with 3 stones: tables to 24 stones in pits take 1.25 GB and about
# half an hour to build; the solve then takes about 10 minutes and 9.6 GB.
set -euo pipefail
cd "$(dirname "$0")/.."
ruleset=${1:-mankala}
stones=${2:-3}
table_stones=${3:-24}
memory=${4:-8192}
dir=${5:-/var/tmp/mancala-tables}
shift $(($# < 5 ? $# : 5))
variant=()
if [ "${1:-}" = --variant ]; then
    variant=(--variant "$2")
    shift 2
fi
bin=${MANCALA_BIN:-target/release/mancala}
[ -x "$bin" ] || cargo build --release --locked
"$bin" tables build "$ruleset" "${variant[@]}" --stones-in-pits "$table_stones" --tables "$dir"
# GNU time, where installed, adds the wall time and peak memory.
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -v)
"$bin" new "$ruleset" --stones "$stones" "${variant[@]}" |
    "${timer[@]}" "$bin" solve - --json --verbose --tables "$dir" \
        --nodes 1000000000000 --memory "$memory" "$@"
