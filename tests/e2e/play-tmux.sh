#!/usr/bin/env bash
# `mancala play` as a person sees it: in a real terminal (tmux), keys typed
# with send-keys, the screen read with capture-pane. Prints `N passed, M failed`.
set -uo pipefail
bin=${1:-${MANCALA_BIN:-$(dirname "$0")/../../target/release/mancala}}
bin=$(realpath "$bin")
command -v tmux >/dev/null || { echo "tmux is missing (apt-get install tmux)" >&2; exit 1; }
dir=$(mktemp -d)
socket="$dir/tmux.sock"
passed=0 failed=0
screen() { tmux -S "$socket" capture-pane -p -t play; }
check() { # check NAME PATTERN: the screen shows PATTERN
    if screen | grep -q -- "$2"; then
        passed=$((passed + 1)); echo "ok   $1"
    else
        failed=$((failed + 1)); echo "FAIL $1: no '$2' on the screen:"; screen
    fi
}
wait_for() { # wait_for PATTERN: until the screen shows it, 5 s at most
    for _ in $(seq 50); do
        screen | grep -q -- "$1" && return 0
        sleep 0.1
    done
}
tmux -S "$socket" new-session -d -s play -x 90 -y 60 \
    "$bin play mankala --opponent first --save $dir/game.txt; echo SESSION-ENDED; sleep 30"
wait_for "Your move (South"
check "the board and the prompt" "Your move (South; legal: a, b, c, d, e, f) >"
tmux -S "$socket" send-keys -t play "d" Enter
wait_for "1.    d-?"
check "a free turn keeps the move" "1.    d-?"
tmux -S "$socket" send-keys -t play "a" Enter
wait_for "North plays"
check "the computer says what it did" "North plays a: "
tmux -S "$socket" send-keys -t play "z" Enter
wait_for "not a pit"
check "a bad move is answered with the game's pits" "'z' is not a pit: pits are letters a to f (or digits 1 to 6)"
tmux -S "$socket" send-keys -t play "quit" Enter
wait_for "SESSION-ENDED"
check "quit ends the game and saves it" "The sheet is saved in"
tmux -S "$socket" kill-server 2>/dev/null
# At a terminal the rules are plain text: headings underlined, no Markdown marks.
socket="$dir/rules.sock"
tmux -S "$socket" new-session -d -s play -x 90 -y 60 \
    "$bin rules waurie; echo RULES-ENDED; sleep 30"
wait_for "RULES-ENDED"
check "the rules' heading is underlined" "^---------------$"
check "the rules' clarifications read plain" "^- Clarification: a bonus sowing"
if ! screen | grep -q RULES-ENDED || screen | grep -q -e '\*\*' -e '^## ' -e '`'; then
    failed=$((failed + 1)); echo "FAIL Markdown marks at the terminal:"; screen
else
    passed=$((passed + 1)); echo "ok   no Markdown marks at the terminal"
fi
tmux -S "$socket" kill-server 2>/dev/null
if "$bin" show "$dir/game.txt" >/dev/null; then
    passed=$((passed + 1)); echo "ok   the saved sheet reads back"
else
    failed=$((failed + 1)); echo "FAIL the saved sheet does not read back"
fi
rm -rf "$dir"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
