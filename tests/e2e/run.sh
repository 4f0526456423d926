#!/usr/bin/env bash
# End-to-end, in two stacks one after the other, each set up and taken down again by
# mail-stack.sh (as root): a Postfix instance of the test's own on 127.0.0.1 (port
# $E2E_SMTP_PORT, default 2525), the test's own users and the referee in a temporary directory.
#   1. game.py: procmail hands each mail to `mancala mail`; players mail the referee with
#      SMTP and read its replies from their Maildirs.
#   2. imap.py, with imap-stack.sh on top: the operator who has only an IMAP account. A
#      Dovecot of the test's own holds the referee's mailbox, mbsync fetches it, `mancala
#      maildir` referees it and sends by authenticated SMTP submission (see docs/operating.md, "From an IMAP account").
# The last line adds up both: `N passed, M failed` (a stack that printed no count of its own
# counts as one failure).
#
#   tests/e2e/run.sh PATH_TO_MANCALA
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-${MANCALA_BIN:-}}
if [[ -z $bin ]]; then  # `cargo static`'s binary, else `cargo build --release`'s
    bin=$here/../../target/x86_64-unknown-linux-gnu/static/mancala
    [[ -x $bin ]] || bin=$here/../../target/release/mancala
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

passed=0 failed=0 status=0
suite() {  # NAME TITLE COMMAND...: run it, keep its output, add up its last `N passed, M failed`
    local name=$1 title=$2 line started=$SECONDS
    shift 2
    echo "== $title"
    "$@" | tee "$out/$name" || status=1
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out/$name" | tail -n 1) || true
    if [[ -n $line ]]; then
        read -r p _ f _ <<<"$line"
        passed=$((passed + p)) failed=$((failed + f))
    else
        echo "run.sh: $name printed no 'N passed, M failed' line" >&2
        failed=$((failed + 1)) status=1
    fi
    echo "== $title: ${line:-no count} ($((SECONDS - started))s)"
}
suite game "through Postfix and procmail (mancala mail)" \
    "$here/mail-stack.sh" "$bin" python3 "$here/game.py"
suite imap "the operator with only an IMAP account: Dovecot, mbsync, mancala maildir, SMTP submission" \
    "$here/mail-stack.sh" "$bin" "$here/imap-stack.sh" python3 "$here/imap.py"
echo "$passed passed, $failed failed"
((status == 0 && failed == 0))
