#!/usr/bin/env bash
# End-to-end: a Postfix instance of the test's own and procmail on 127.0.0.1 (port
# $E2E_SMTP_PORT, default 2525), the test's own users and the referee in a temporary
# directory, all set up and taken down again by mail-stack.sh (as root); players mail the
# referee with SMTP and read its replies from their Maildirs (game.py).
#
#   tests/e2e/run.sh PATH_TO_MANCALA
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-${MANCALA_BIN:-$here/../../target/x86_64-unknown-linux-gnu/release/mancala}}
"$here/mail-stack.sh" "$bin" python3 "$here/game.py"
