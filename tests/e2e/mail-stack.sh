#!/usr/bin/env bash
# mail-stack.sh - a real local mail stack for the e2e tests (Debian 12, root, no systemd).
#
#   tests/e2e/mail-stack.sh [PATH_TO_MANCALA]     (or MANCALA_BIN=...; default: this
#                                                  checkout's target/x86_64-unknown-linux-gnu/release/mancala)
#
# Safe to run again: on a machine where it already ran it only rewrites the config,
# (re)starts Postfix and reinstalls the binary. Nothing leaves the machine
# (default_transport = error; Postfix listens on 127.0.0.1 only).
#
# Addresses (a regexp virtual_alias_maps, /etc/postfix/virtual_regexp):
#   referee@referee.example, referee+ANY@referee.example -> local user referee
#   sheets@referee.example                               -> referee, for the referee that keeps no games
#   alice|bob|carol[+ANY]@players.example                -> local users alice, bob, carol
# Every user gets ~/Maildir/ (home_mailbox = Maildir/). Postfix logs to /var/log/postfix.log.
#
# How mail reaches the referee:
#   ~referee/.forward is the single line
#       "|/usr/bin/procmail -p -t"
#   (-p keeps the environment Postfix gives: without it procmail clears it, and the referee
#   would not see SENDER, RECIPIENT, EXTENSION, ...; -t: if procmail cannot deliver, Postfix
#   keeps the mail and tries again later instead of bouncing it.) It runs as user referee,
#   in /home/referee, with umask 077. ~referee/.procmailrc is:
#
#       SHELL=/bin/sh
#       PATH=/usr/local/bin:/usr/bin:/bin
#       # The working directory of procmail and of the referee
#       MAILDIR=$HOME
#       DEFAULT=$HOME/Maildir/
#       # The log also gets the referee's stderr
#       LOGFILE=$HOME/procmail.log
#       LOGABSTRACT=all
#       # The referee keeps its games in its default store, ~/.local/share/mancala-referee
#
#       # Never answer a loop, a bounce or an automatic message: file it in ~/Maildir/.ignored/
#       :0
#       * 1^0 ^X-Loop: *(referee|sheets)@referee\.example
#       * 1^0 ^From:.*(referee|sheets)(\+[^@]*)?@referee\.example
#       * 1^0 ^Return-Path: *<>
#       * 1^0 ^From:.*MAILER-DAEMON
#       * 1^0 ^Auto-Submitted: *[^n ]
#       * 1^0 ^Precedence: *(bulk|junk|list)
#       Maildir/.ignored/
#
#       # Mail to sheets@: a referee that keeps no games (each game lives in its mails).
#       :0 wc: mancala.lock
#       * ^Delivered-To: referee\+sheets@
#       | /usr/local/bin/mancala mail --no-store --send sendmail --from sheets@referee.example
#
#       # Everything else: the referee reads it on stdin and mails its replies through
#       # sendmail. w: wait and check its exit status; the lock lets one referee run at a time.
#       :0 Ewc: mancala.lock
#       | /usr/local/bin/mancala mail --send sendmail --from referee@referee.example
#
#       # If the referee failed (exit status not 0), also file the mail in ~/Maildir/.failed/
#       :0 ec
#       Maildir/.failed/
#
#       # Then (c above) every mail the referee was given is kept in ~/Maildir/ (DEFAULT).
#
# Reset between tests: see clear_maildirs in tests/e2e/lib.sh.
set -euo pipefail

started=$SECONDS
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${1:-${MANCALA_BIN:-${CARGO_TARGET_DIR:-$repo/target}/x86_64-unknown-linux-gnu/release/mancala}}
users=(referee alice bob carol)
packages=(postfix procmail swaks mutt s-nail tmux)

say() { printf 'mail-stack: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
trap 'say "error: line $LINENO: $BASH_COMMAND failed"' ERR

[[ $EUID -eq 0 ]] || die "run as root"
[[ -f $bin && -x $bin ]] || die "no referee binary at '$bin' (build it: cargo build --release, or pass its path)"

# 1. Packages. Postfix is preseeded so that it asks nothing.
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    debconf-set-selections <<'SEL'
postfix postfix/main_mailer_type select Local only
postfix postfix/mailname string localhost
SEL
    export DEBIAN_FRONTEND=noninteractive
    aptlog=$(mktemp)
    if ! { apt-get -qq update && apt-get -qq install -y --no-install-recommends \
        -o Dpkg::Use-Pty=0 "${missing[@]}"; } >"$aptlog" 2>&1; then
        cat "$aptlog" >&2
        die "could not install ${missing[*]}"
    fi
    rm -f "$aptlog"
fi

# 2. Postfix.
cat >/etc/postfix/virtual_regexp <<'MAP'
# written by tests/e2e/mail-stack.sh
/^referee(\+[^@]*)?@referee\.example$/              referee${1}@localhost
/^sheets@referee\.example$/                         referee+sheets@localhost
/^(alice|bob|carol)(\+[^@]*)?@players\.example$/    ${1}${2}@localhost
MAP
settings=(
    myhostname=localhost
    myorigin=localhost
    mydomain=localhost
    mydestination=localhost
    'virtual_alias_domains=referee.example players.example'
    virtual_alias_maps=regexp:/etc/postfix/virtual_regexp
    mynetworks=127.0.0.0/8
    inet_interfaces=loopback-only
    inet_protocols=ipv4
    relayhost=
    'default_transport=error:nothing leaves this test machine'
    'relay_transport=error:nothing leaves this test machine'
    home_mailbox=Maildir/
    mailbox_command=
    recipient_delimiter=+
    append_dot_mydomain=no
    biff=no
    smtpd_tls_security_level=none
    smtp_tls_security_level=none
    smtpd_tls_cert_file=
    smtpd_tls_key_file=
    maillog_file=/var/log/postfix.log
)
# Write only what differs: Postfix waits ~2 s before reading a main.cf changed just now.
mapfile -t current < <(postconf -h "${settings[@]%%=*}")
changes=()
for i in "${!settings[@]}"; do
    [[ ${current[i]} == "${settings[i]#*=}" ]] || changes+=("${settings[i]}")
done
if ((${#changes[@]})); then postconf -e "${changes[@]}"; fi
# (postconf -F reorders master.cf each time it writes it: only write when needed)
if postconf -F '*/*/chroot' | grep -qv ' = n$'; then postconf -F '*/*/chroot = n'; fi
newaliases

# 3. Users with empty Maildirs.
for u in "${users[@]}"; do
    id -u "$u" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$u"
    h=$(getent passwd "$u" | cut -d: -f6)
    install -d -o "$u" -g "$u" -m 700 "$h/Maildir" "$h"/Maildir/{cur,new,tmp}
done

# 4. The referee binary, where mail users can run it.
if [[ $(realpath "$bin") != /usr/local/bin/mancala ]]; then
    install -m 755 "$bin" /usr/local/bin/mancala
fi

# 5. The referee's .forward and .procmailrc (see the comment at the top).
rh=$(getent passwd referee | cut -d: -f6)
for f in .ignored .failed; do
    install -d -o referee -g referee -m 700 "$rh/Maildir/$f" "$rh/Maildir/$f"/{cur,new,tmp}
done
printf '%s\n' '"|/usr/bin/procmail -p -t"' >"$rh/.forward"
# The recipe is the part of the comment above from SHELL= to the last recipe.
{
    echo "# written by tests/e2e/mail-stack.sh"
    sed -n '/^#       SHELL=/,/^#       Maildir\/\.failed\//s/^# \{0,7\}//p' "${BASH_SOURCE[0]}"
} >"$rh/.procmailrc"
grep -q '^| /usr/local/bin/mancala mail' "$rh/.procmailrc" || die "could not extract the procmail recipe"
chown referee:referee "$rh/.forward" "$rh/.procmailrc"
chmod 644 "$rh/.forward" "$rh/.procmailrc"

# Start Postfix, or make a running one read the new configuration.
postfix check
action=start
if postfix status >/dev/null 2>&1; then action=reload; fi
out=$(postfix "$action" 2>&1) || { printf '%s\n' "$out" >&2; die "postfix $action failed"; }

# Wait until port 25 on 127.0.0.1 answers with a 220 greeting.
smtp_greets() {
    ( exec 3<>/dev/tcp/127.0.0.1/25 && read -r -t 5 line <&3 && printf 'QUIT\r\n' >&3 \
        && [[ $line == 220* ]] ) 2>/dev/null
}
for _ in $(seq 100); do smtp_greets && break; sleep 0.1; done
smtp_greets || { tail -n 20 /var/log/postfix.log >&2 || true; die "nothing answers on 127.0.0.1:25"; }

say "ready in $((SECONDS - started)) s: SMTP on 127.0.0.1:25, referee at /usr/local/bin/mancala"
