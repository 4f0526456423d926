#!/usr/bin/env bash
# The whole test suite, as CI runs it (as root): `cargo test --release --features postgres`
# (the store's tests on SQLite and on a private PostgreSQL server), the hosted
# referee's tests again on PostgreSQL, then the
# stages that need the real thing: Postfix, procmail and Dovecot (tests/e2e/),
# Chromium (tests/html/), OpenSpiel (tests/openspiel/, Wari against its oware,
# Kalah against its mancala), tmux, and the quick solutions of boards/solutions/. tests/install.sh installs what they need
# (one apt-get install, and a pip install of OpenSpiel's wheel) while cargo builds.
# Each stage prints its own time; the last line says whether all passed.
#
#   tests/run.sh
#
# The stages after the build run side by side, their output kept and shown as each
# group ends: they share nothing (their own temporary folders, users, ports and
# sockets), and most of their time is spent waiting on mail, fsync and strace.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tests/stage.sh
source tests/stage.sh
started=$SECONDS

# The binary the scripts below run: MANCALA_BIN, else the ordinary release
# build (`cargo static` makes the faster static one; see .cargo/config.toml).
bin=${MANCALA_BIN:-target/release/mancala}

logs=$(mktemp -d)
STAGE_FAILURES=$logs/failed
# Tests make their folders under TMPDIR and remove them; one folder for the
# whole run, removed after, catches any a failing test leaves behind.
test_tmp=$(mktemp -d)
chmod 755 "$test_tmp"
pids=() names=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait
    rm -rf "$logs" "$test_tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# in_background NAME COMMAND...: start it, its output kept for shown_when_done.
in_background() {
    local name=$1
    shift
    "$@" >"$logs/$name" 2>&1 &
    pids+=($!) names+=("$name")
}
# shown_when_done: wait for each background group in the order started, showing its output.
shown_when_done() {
    local i
    for i in "${!pids[@]}"; do
        wait "${pids[i]}" || true  # (its stages have recorded any failure)
        cat "$logs/${names[i]}"
    done
    pids=() names=()
}

# Network and disk while cargo uses the processors.
in_background install stage "install what the stages need (tests/install.sh)" tests/install.sh

stage "the library alone: engine and sheet without mail or command line" \
    cargo check --lib --no-default-features --locked
# `cargo build` and `cargo test` of one profile share every artifact: the
# binary the scripts run is the one the tests ran.
stage "build (release): the binary, and the tests' binaries" \
    bash -c 'cargo build --release --locked --features postgres && cargo test --release --locked --features postgres --no-run'
shown_when_done

# The groups below run side by side; the stages of a group one after the other.
cargo_tests() {
    stage "cargo test (unit, integration, property, fixture corpus, crash at every system call; the store on SQLite and PostgreSQL)" \
        env TMPDIR="$test_tmp" cargo test --release --locked --features postgres
    stage "the hosted referee's tests on PostgreSQL" \
        env TMPDIR="$test_tmp" MANCALA_TEST_STORE=postgres \
        cargo test --release --locked --features postgres --test hosted
}
in_background cargo-test cargo_tests
openspiel() {
    stage "OpenSpiel cross-check of the Wari rules" env MANCALA_BIN="$bin" python3 tests/openspiel/compare.py
    stage "OpenSpiel cross-check of the Kalah rules (its \"mancala\" game)" \
        env MANCALA_BIN="$bin" python3 tests/openspiel/kalah.py
}
in_background openspiel openspiel
terminal_and_mail() {
    stage "play at a terminal, under tmux" tests/e2e/play-tmux.sh "$bin"
    stage "end to end through Postfix and procmail, and an IMAP account" tests/e2e/run.sh "$bin"
}
in_background mail terminal_and_mail
in_background html stage "the HTML board in headless Chromium" tests/html/layout.sh "$bin"
in_background solutions stage "the quick solutions of boards/solutions/ reproduced" \
    env MANCALA_BIN="$bin" TABLES="$test_tmp/tables" boards/solutions/reproduce.sh quick
shown_when_done

if stages_passed; then
    echo "== tests/run.sh: all passed ($((SECONDS - started))s)"
else
    echo "== tests/run.sh: FAILED ($((SECONDS - started))s)"
    exit 1
fi
