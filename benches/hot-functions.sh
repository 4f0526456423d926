#!/usr/bin/env bash
# Writes .cargo/hot-functions.txt: every function that the two mails of
# benches/mail.rs run (a hosted move by key, a storeless mail), by their
# symbol names. `cargo static` hands the list to the linker
# (--symbol-ordering-file), which lays those functions side by side at the
# start of the code, so that a mail touches a few dozen pages of code
# rather than ones spread over all 4 MB of it: 32 page faults on its code
# become 12.
#
# Run it after changing the code or the toolchain. A stale list costs only
# speed: names it lacks are laid out as the linker would anyway, and names
# no longer in the binary are ignored. `--check` (tests/run.sh) writes
# nothing, and fails when the list lacks more than a tenth of the functions
# the mails run now. Needs valgrind (callgrind names each function run, the
# same on every run).
set -euo pipefail
check=${1:-}
if [[ -n $check && $check != --check ]] || (($# > 1)); then
    echo "usage: benches/hot-functions.sh [--check]" >&2
    exit 2
fi
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get -qq update &&
        DEBIAN_FRONTEND=noninteractive apt-get -qq install -y --no-install-recommends valgrind >/dev/null
fi

# The very build the list is for: symbol names carry a hash of the profile.
cargo static
bin=target/x86_64-unknown-linux-gnu/static/mancala

# The bench's store and mails; its timings of one run each mean nothing
# (nor does its exit status).
kept=$( (MANCALA_BENCH_KEEP=1 MANCALA_BENCH_RUNS=1 MANCALA_BIN=$bin cargo bench --bench mail || true) |
    sed -n 's/^kept: //p')
[[ -d $kept ]] || { echo "hot-functions.sh: the bench kept no store" >&2; exit 1; }
trap 'rm -rf "$kept"' EXIT

profile() { # OUT ARGS...: callgrind's profile of one run, mail on stdin
    local out=$1
    shift
    if ! valgrind --tool=callgrind --demangle=no --callgrind-out-file="$out" "$bin" "$@" \
        >"$out.mbox" 2>"$out.err" || ! grep -q "played" "$out.mbox"; then
        echo "hot-functions.sh: no move played by mancala $*:" >&2
        tail -5 "$out.err" >&2
        exit 1
    fi
}
cp -a "$kept/store" "$kept/fresh"  # the move not yet played
profile "$kept/hosted.cg" mail --from referee@referee.example --store "$kept/fresh" <"$kept/mail.eml"
profile "$kept/storeless.cg" mail --no-store --from referee@referee.example <"$kept/storeless.eml"

# Callgrind names a function once, at its first line `fn=(N) NAME` or
# `cfn=(N) NAME`; `'2` and on mark its recursive calls. Each name once, in
# order of first appearance.
sed -n -E "s/^c?fn=\([0-9]+\) ([^' ]+).*/\1/p" "$kept/hosted.cg" "$kept/storeless.cg" |
    { grep -v '^0x' || true; } | awk '!seen[$0]++' >"$kept/hot-functions.txt"
if [[ ! -s $kept/hot-functions.txt ]]; then
    echo "hot-functions.sh: callgrind named no function (is the static build stripped?)" >&2
    exit 1
fi

if [[ $check == --check ]]; then
    [[ -r .cargo/hot-functions.txt ]] || { echo "hot-functions.sh: no .cargo/hot-functions.txt" >&2; exit 1; }
    run=$(wc -l <"$kept/hot-functions.txt")
    missing=$(grep -cvxFf .cargo/hot-functions.txt "$kept/hot-functions.txt" || true)
    echo "hot-functions.sh: $missing of the $run functions the mails run are not in .cargo/hot-functions.txt"
    if ((10 * missing > run)); then
        echo "hot-functions.sh: the list is stale; run benches/hot-functions.sh and commit it" >&2
        exit 1
    fi
    exit 0
fi
mv "$kept/hot-functions.txt" .cargo/hot-functions.txt
echo "hot-functions.sh: $(wc -l <.cargo/hot-functions.txt) functions in .cargo/hot-functions.txt"

# Cargo does not watch the list: link again with it.
touch src/main.rs
cargo static
