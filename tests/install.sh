#!/usr/bin/env bash
# What the root stages of tests/run.sh need, installed where missing (as root,
# Debian 12): the Debian packages with one `apt-get update` and one `apt-get
# install`, then OpenSpiel with pip (a wheel; never a build from source, which
# takes longer than the whole suite).
#
#   tests/install.sh              everything tests/run.sh needs
#   tests/install.sh PACKAGE...   these Debian packages only (mail-stack.sh and
#                                 layout.sh ask for theirs when run alone)
#
# One run at a time: a second waits for the first, then finds nothing missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# strace: tests/crash.rs. postgresql: the store's tests on a private server of
# their own (tests/common/pg.rs; the package's own cluster is never started). tmux: play-tmux.sh. The mail stack (tests/e2e/): Postfix,
# procmail, swaks, and mutt and s-nail for the client-made replies; dovecot-imapd,
# isync and openssl for imap-stack.sh. Chromium and the two fonts: tests/html/.
everything=(strace tmux postgresql postfix procmail swaks mutt s-nail dovecot-imapd isync openssl
    chromium fonts-dejavu-core fonts-liberation2)
packages=("${@:-${everything[@]}}")

say() { printf 'install: %s\n' "$*" >&2; }
[[ $EUID -eq 0 ]] || { say "run as root (apt-get install ${packages[*]})"; exit 1; }
exec 9<"$0"
flock 9

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    say "apt-get install ${missing[*]}"
    # Postfix is preseeded so that it asks nothing.
    debconf-set-selections <<'SEL'
postfix postfix/main_mailer_type select Local only
postfix postfix/mailname string localhost
SEL
    export DEBIAN_FRONTEND=noninteractive
    # The packages' scripts must not start the system's Postfix or Dovecot (invoke-rc.d would,
    # on a machine without systemd): where no policy-rc.d says no already, one that does is
    # there for the install only.
    policy=/usr/sbin/policy-rc.d
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\n# tests/install.sh, for one apt-get install only\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        trap 'rm -f "$policy"' EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
    fi
    # apt's output only when it fails: a passing run's log stays short.
    aptlog=$(mktemp)
    if ! { apt-get -qq -o DPkg::Lock::Timeout=120 update &&
        apt-get -qq install -y --no-install-recommends \
            -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=120 "${missing[@]}"; } >"$aptlog" 2>&1; then
        cat "$aptlog" >&2
        rm -f "$aptlog"
        say "could not install ${missing[*]}"
        exit 1
    fi
    rm -f "$aptlog"
fi

if (($# == 0)) && ! python3 -c 'import pyspiel' 2>/dev/null; then
    say "pip install -r tests/openspiel/requirements.txt"
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
        --only-binary=:all: -r "$here/openspiel/requirements.txt"
fi
