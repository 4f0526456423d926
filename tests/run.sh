#!/usr/bin/env bash
# The whole test suite, as CI runs it. Needs root for the end-to-end mail
# tests (they install Postfix, procmail, swaks, mutt, s-nail, tmux, Dovecot,
# isync, strace, valgrind and Chromium with apt-get where missing) and Python 3 with
# pip for the OpenSpiel cross-checks (Wari against its oware, Kalah against
# its mancala).
set -euo pipefail
cd "$(dirname "$0")/.."

# strace kills the referee at each system call in tests/crash.rs.
if ! command -v strace >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get -qq update &&
        DEBIAN_FRONTEND=noninteractive apt-get -qq install -y --no-install-recommends strace >/dev/null
fi

# The binary the scripts below run: MANCALA_BIN, else the ordinary release
# build (`cargo static` makes the faster static one; see .cargo/config.toml).
bin=${MANCALA_BIN:-target/release/mancala}

echo "== cargo test (unit, integration, property, fixture corpus, crash at every system call)"
cargo build --release --locked
# Tests make their folders under TMPDIR and remove them; one folder for the
# whole run, removed after, catches any a failing test leaves behind.
test_tmp=$(mktemp -d)
chmod 755 "$test_tmp"
trap 'rm -rf "$test_tmp"' EXIT
TMPDIR=$test_tmp cargo test --release --locked

echo "== the library alone: engine and sheet without mail or command line"
cargo check --lib --no-default-features --locked

echo "== OpenSpiel cross-check of the Wari rules"
python3 -c 'import pyspiel' 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check -r tests/openspiel/requirements.txt
MANCALA_BIN=$bin python3 tests/openspiel/compare.py

echo "== OpenSpiel cross-check of the Kalah rules (its \"mancala\" game)"
MANCALA_BIN=$bin python3 tests/openspiel/kalah.py

echo "== end to end through Postfix and procmail"
tests/e2e/run.sh "$bin"

echo "== the HTML board in headless Chromium"
tests/html/layout.sh "$bin"

echo "== play at a terminal, under tmux"
tests/e2e/play-tmux.sh "$bin"

echo "== the static build: a mail played by it, and its list of the functions a mail runs still current"
benches/hot-functions.sh --check
