#!/usr/bin/env bash
# End-to-end: a real Postfix + procmail on 127.0.0.1 (installed and set up by
# mail-stack.sh, as root), the referee installed as /usr/local/bin/mancala,
# players mailing it with SMTP and reading replies from their Maildirs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-${MANCALA_BIN:-$here/../../target/x86_64-unknown-linux-gnu/release/mancala}}
"$here/mail-stack.sh" "$bin"
MANCALA_BIN=/usr/local/bin/mancala python3 "$here/game.py"
