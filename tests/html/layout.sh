#!/usr/bin/env bash
# The HTML board of the referee's mails, laid out by headless Chromium: every count
# under its pit's letter, in proportional fonts, for every ruleset (layout.py says
# what is checked). Installs Debian's chromium and the fonts first if they are
# missing (as root). Prints `N passed, M failed`.
#
#   tests/html/layout.sh PATH_TO_MANCALA [--screenshots DIR]
#
# `--screenshots boards` remakes boards/<ruleset>.png, the board of each ruleset in
# mid-game.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-${MANCALA_BIN:-$here/../../target/release/mancala}}
shift || true

have_font() { command -v fc-list >/dev/null && fc-list "$1" family | grep -q .; }
missing=()
command -v chromium >/dev/null || [ -x /usr/lib/chromium/chromium ] || missing+=(chromium)
have_font "DejaVu Serif" || missing+=(fonts-dejavu-core)
# Liberation Sans has Arial's metrics: fontconfig gives it for the board's Arial
have_font "Liberation Sans" || missing+=(fonts-liberation2)
if [ ${#missing[@]} -gt 0 ]; then
    "$here/../install.sh" "${missing[@]}"
fi

exec python3 "$here/layout.py" "$bin" "$@"
