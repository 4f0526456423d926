#!/usr/bin/env bash
# mail-stack.sh - a private, throwaway mail stack for the e2e tests (Debian 12, root, no systemd).
#
#   tests/e2e/mail-stack.sh PATH_TO_MANCALA [COMMAND [ARGS...]]
#
# Sets up a Postfix instance of its own, four users of its own and the referee, runs
# COMMAND (default: an interactive shell) with them, then takes it all down again, also
# when COMMAND fails or the run is interrupted, and exits with COMMAND's status.
# The machine is left as it was found: its own Postfix (/etc/postfix, /var/spool/postfix,
# a running or stopped system instance, /etc/aliases) is never written, started, stopped or
# reloaded, and nothing is installed outside the temporary directory but the packages.
# Nothing leaves the machine (default_transport = error; SMTP on 127.0.0.1 only).
#
# Everything lives in one temporary directory, DIR=/tmp/mancala-e2e.XXXXXX (mode 755):
#   DIR/postfix/    config_directory: main.cf and master.cf (copies of /etc/postfix's,
#                   changed with postconf -c), virtual_regexp. No aliases (alias_maps empty).
#   DIR/queue/      queue_directory          DIR/data/   data_directory
#   DIR/maillog     maillog_file             DIR/bin/mancala   the referee (mode 755)
#   DIR/home/USER/  the users' homes, each with ~/Maildir/ (home_mailbox = Maildir/)
#   DIR/etc-backups/  /etc/passwd- and the like, as they were (useradd and userdel rewrite them),
#                   and the time of /var/mail (procmail makes /var/mail/mcr-referee, userdel removes it)
# Postfix listens on 127.0.0.1:PORT, PORT = $E2E_SMTP_PORT or 2525 (chroot off), and is
# started and stopped with `postfix -c DIR/postfix start|stop`. As root, postfix, postconf,
# postqueue and postsuper take -c DIR/postfix without alternate_config_directories.
#
# COMMAND gets E2E_DIR=DIR, E2E_POSTFIX=DIR/postfix (also as MAIL_CONFIG, so that a bare
# postqueue/postsuper reaches this instance), E2E_SMTP_PORT, E2E_MAILLOG=DIR/maillog and
# MANCALA_BIN=DIR/bin/mancala. Helpers for it: tests/e2e/lib.sh.
#
# Users (see E2E_USERS in lib.sh), made afresh each run (one left over from a crashed run is
# removed first) and removed at the end with userdel -r; addresses, by a regexp
# virtual_alias_maps (DIR/postfix/virtual_regexp):
#   referee@referee.example, referee+ANY@referee.example -> mcr-referee, mcr-referee+ANY
#   sheets@referee.example                               -> mcr-referee+sheets (no games kept)
#   alice|bob|carol[+ANY]@players.example                -> mcr-alice, mcr-bob, mcr-carol
# (recipient_delimiter = +: the +ANY is kept, in X-Original-To and Delivered-To.)
#
# How mail reaches the referee:
#   ~mcr-referee/.forward is the single line
#       "|/usr/bin/procmail -p -t"
#   (-p keeps the environment Postfix gives: without it procmail clears it, and the referee
#   would not see SENDER, RECIPIENT, EXTENSION, ...; -t: when procmail cannot deliver, it
#   exits 75 and Postfix keeps the mail to try again later instead of bouncing it.) It runs as
#   user mcr-referee, in its home, with umask 077. ~mcr-referee/.procmailrc is the recipe
#   below, but with this run's DIR/bin first in PATH and SMTP to its own Postfix in SEND:
#
#       SHELL=/bin/sh
#       PATH=/usr/local/bin:/usr/bin:/bin
#       # The referee hands its replies to the local Postfix (its sendmail command)
#       SEND=sendmail
#       # The working directory of procmail and of the referee
#       MAILDIR=$HOME
#       DEFAULT=$HOME/Maildir/
#       # The log also gets the referee's stderr
#       LOGFILE=$HOME/procmail.log
#       LOGABSTRACT=all
#       # The referee keeps its games in its default store, ~/.local/share/mancala-referee
#       # (or MANCALA_STORE=...), and locks each game itself: no procmail lockfile.
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
#       # Mail to sheets@ (delivered to mcr-referee+sheets): a referee that keeps no games
#       # (each game lives in its mails).
#       :0 wc
#       * ^Delivered-To: mcr-referee\+sheets@
#       | mancala mail --no-store --send $SEND --from sheets@referee.example
#
#       # Everything else: the referee that keeps the games.
#       # w: wait for the referee and check its exit status; c: when it succeeds, go on
#       # and keep the mail in ~/Maildir/ too (DEFAULT).
#       :0 Ewc
#       | mancala mail --send $SEND --from referee@referee.example
#
#       # A referee failed (75: a reply could not be sent or the store not written; or any
#       # other failure). File the mail nowhere and end procmail at once (HOST set to a
#       # name not this machine's) with exit status 75: Postfix keeps the mail in its
#       # queue (status=deferred) and delivers it again later. (This follows a failure
#       # of the sheets@ recipe too: the E recipe between them is skipped, not run.)
#       :0 e
#       { EXITCODE=75 HOST }
#
# Reset between tests: see clear_maildirs in tests/e2e/lib.sh.
#
# imap-stack.sh runs on top of this stack (as its COMMAND) for the operator with only an IMAP
# account: a Dovecot of its own, referee.example delivered into Dovecot's Maildir instead of
# to procmail, and authenticated SMTP submission ports. Its packages (dovecot-imapd, isync,
# openssl) are installed here with the others.
set -euo pipefail

started=$SECONDS
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/e2e/lib.sh
source "$here/lib.sh"
# (dovecot-imapd, isync and openssl: for imap-stack.sh, the IMAP operator's set-up.)
packages=(postfix procmail swaks mutt s-nail tmux dovecot-imapd isync openssl)
port=${E2E_SMTP_PORT:-2525}
prefix=/tmp/mancala-e2e.

say() { printf 'mail-stack: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
trap 'say "error: line $LINENO: $BASH_COMMAND failed"' ERR

(($# >= 1)) || die "usage: mail-stack.sh PATH_TO_MANCALA [COMMAND [ARGS...]]"
bin=$1
shift
[[ $EUID -eq 0 ]] || die "run as root"
[[ -f $bin && -x $bin ]] || die "no referee binary at '$bin' (build it: cargo build --release, or pass its path)"
[[ $port =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) || die "E2E_SMTP_PORT='$port' is not a port"

# One run at a time (the users and the port are shared): hold a lock on this script. The
# lock is passed neither to Postfix nor to COMMAND (9<&- below): what a run killed with
# SIGKILL leaves running cannot keep the next run from cleaning up after it.
exec 9<"${BASH_SOURCE[0]}"
flock -n 9 || die "another mail-stack.sh is running"

# 1. Packages, where missing (tests/install.sh: one apt-get install, Postfix preseeded,
# neither the system's Postfix nor its Dovecot started).
"$here/../install.sh" "${packages[@]}" || die "could not install ${packages[*]}"

# Processes whose working directory is DIR or below it (Postfix's daemons work in
# DIR/queue, procmail and the referee in DIR/home/mcr-referee).
procs_in() {
    local p cwd
    for p in /proc/[0-9]*; do
        cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
        if [[ $cwd == "$1" || $cwd == "$1"/* ]]; then printf '%s\n' "${p#/proc/}"; fi
    done
}

# Tell the Postfix instance of DIR to stop, if it runs (without waiting: see stop_instance).
stop_postfix() {
    if [[ -f $1/postfix/main.cf ]] && postfix -c "$1/postfix" status >/dev/null 2>&1; then
        postfix -c "$1/postfix" stop >/dev/null 2>&1 || say "warning: postfix -c $1/postfix stop failed"
    fi
}

# Stop the instance of DIR (if it runs) and wait until its processes are gone.
stop_instance() {
    local d=$1 pid=
    [[ -f $d/postfix/main.cf ]] || return 0
    if [[ -r $d/queue/pid/master.pid ]]; then read -r pid <"$d/queue/pid/master.pid" || true; fi
    if postfix -c "$d/postfix" status >/dev/null 2>&1; then
        postfix -c "$d/postfix" stop >/dev/null 2>&1 || say "warning: postfix -c $d/postfix stop failed"
    fi
    for _ in $(seq 100); do
        if [[ -z $(procs_in "$d") ]] && { [[ ! $pid =~ ^[0-9]+$ ]] || [[ ! -e /proc/$pid ]]; }; then
            return 0
        fi
        sleep 0.1
    done
    say "warning: processes of $d still running: $(procs_in "$d" | tr '\n' ' ')"
}

remove_user() {
    local u=$1
    if id -u "$u" >/dev/null 2>&1; then
        for _ in $(seq 100); do
            pgrep -u "$u" >/dev/null || break
            sleep 0.1
        done
        # (-r: its home and mail spool; there is no spool, and a crashed run's home may be gone)
        userdel -r "$u" >/dev/null 2>&1 || true
        if id -u "$u" >/dev/null 2>&1; then userdel -r -f "$u" >/dev/null 2>&1 || true; fi
        if id -u "$u" >/dev/null 2>&1; then say "warning: could not remove user $u"; fi
    fi
    if getent group "$u" >/dev/null; then groupdel "$u" >/dev/null 2>&1 || say "warning: could not remove group $u"; fi
}

# The backups that useradd and userdel rewrite (see 5.).
etc_backups=(/etc/passwd- /etc/group- /etc/shadow- /etc/gshadow- /etc/subuid- /etc/subgid-)
restore_etc_backups() {  # [DIR]: from DIR/etc-backups (default: this run's)
    local f b=${1:-$dir}/etc-backups
    [[ -d $b ]] || return 0
    for f in "${etc_backups[@]}"; do
        if [[ -e $b/${f##*/} ]]; then
            cp -p "$b/${f##*/}" "$f" || say "warning: could not put back $f"
        elif [[ -e $f ]]; then
            rm -f "$f"
        fi
    done
    # procmail makes the referee's system mailbox (/var/mail/mcr-referee, empty) when it
    # starts, and userdel -r removes it again: put back the mail spool's time as well.
    if [[ -s $b/mail-spool.mtime ]] && ! compgen -G "/var/mail/mcr-*" >/dev/null; then
        touch -m -d "$(cat "$b/mail-spool.mtime")" /var/mail || say "warning: could not put back the time of /var/mail"
    fi
}

dir= child=
teardown() {
    local status=$?
    trap - ERR EXIT INT TERM HUP
    set +e
    if [[ -n $child ]] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null
        wait "$child" 2>/dev/null
    fi
    if [[ -n $dir ]]; then
        if ((status != 0)); then
            echo "--- tail $dir/maillog" >&2
            tail -n 30 "$dir/maillog" >&2 2>/dev/null
            echo "--- tail ~${E2E_USERS[0]}/procmail.log" >&2
            tail -n 30 "$dir/home/${E2E_USERS[0]}/procmail.log" >&2 2>/dev/null
        fi
        stop_postfix "$dir"
        stop_dovecot "$dir"  # (lib.sh; imap-stack.sh stops it itself, unless it was killed)
        stop_instance "$dir"
    fi
    for u in "${E2E_USERS[@]}"; do remove_user "$u"; done
    if [[ -n $dir ]]; then
        restore_etc_backups
        rm -rf "$dir"
    fi
    exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# 2. What a crashed run left: its instances (Postfix, and imap-stack.sh's Dovecot), its
# users, the backups of /etc it would have put back, its directory.
leftovers=()
# (ls -dt: newest first, so that the oldest run's backups, the machine as it was, go back last)
# shellcheck disable=SC2012
for d in $(ls -dt "$prefix"* 2>/dev/null); do
    [[ -d $d && -e $d/.mancala-e2e ]] || continue
    say "removing $d, left by an earlier run"
    stop_postfix "$d"
    stop_dovecot "$d"
    stop_instance "$d"
    leftovers+=("$d")
done
for u in "${E2E_USERS[@]}"; do
    if id -u "$u" >/dev/null 2>&1 || getent group "$u" >/dev/null; then
        say "removing user $u, left by an earlier run"
        remove_user "$u"
    fi
done
for d in "${leftovers[@]}"; do
    restore_etc_backups "$d"
    rm -rf "$d"
done

smtp_greets() {
    ( exec 3<>"/dev/tcp/127.0.0.1/$port" && read -r -t 5 line <&3 && printf 'QUIT\r\n' >&3 \
        && [[ $line == 220* ]] ) 2>/dev/null
}
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    die "something already listens on 127.0.0.1:$port (set E2E_SMTP_PORT to another port)"
fi

# 3. The directory, the referee binary.
dir=$(mktemp -d "$prefix"XXXXXX)
chmod 755 "$dir"  # Postfix's daemons (user postfix) and the users must get through it
: >"$dir/.mancala-e2e"
conf=$dir/postfix
install -d -m 755 "$conf" "$dir/queue" "$dir/home" "$dir/bin"
install -m 755 "$bin" "$dir/bin/mancala"

# 4. Postfix: copies of the system's main.cf and master.cf, changed with postconf -c.
cp /etc/postfix/main.cf /etc/postfix/master.cf "$conf/"
cat >"$conf/virtual_regexp" <<'MAP'
# written by tests/e2e/mail-stack.sh
/^referee(\+[^@]*)?@referee\.example$/              mcr-referee${1}@localhost
/^sheets@referee\.example$/                         mcr-referee+sheets@localhost
/^(alice|bob|carol|bill)(\+[^@]*)?@players\.example$/    mcr-${1}${2}@localhost
MAP
postconf -c "$conf" -e \
    "queue_directory=$dir/queue" \
    "data_directory=$dir/data" \
    "maillog_file=$dir/maillog" \
    "maillog_file_prefixes=$dir" \
    myhostname=localhost \
    myorigin=localhost \
    mydomain=localhost \
    mydestination=localhost \
    'virtual_alias_domains=referee.example players.example' \
    "virtual_alias_maps=regexp:$conf/virtual_regexp" \
    alias_maps= \
    alias_database= \
    mynetworks=127.0.0.0/8 \
    inet_interfaces=127.0.0.1 \
    inet_protocols=ipv4 \
    relayhost= \
    'default_transport=error:nothing leaves this test machine' \
    'relay_transport=error:nothing leaves this test machine' \
    home_mailbox=Maildir/ \
    mailbox_command= \
    recipient_delimiter=+ \
    append_dot_mydomain=no \
    biff=no \
    smtpd_tls_security_level=none \
    smtp_tls_security_level=none \
    smtpd_tls_cert_file= \
    smtpd_tls_key_file= \
    smtp_tls_session_cache_database=
# SMTP on 127.0.0.1:PORT instead of port 25; no chroot (Debian's needs its init script).
postconf -c "$conf" -MX smtp/inet
postconf -c "$conf" -M "127.0.0.1:$port/inet=127.0.0.1:$port inet n - n - - smtpd"
postconf -c "$conf" -F '*/*/chroot = n'

# 5. Users with empty Maildirs: system accounts (no subordinate ids in /etc/subuid, no
# password aging), no login shell. useradd and userdel also rewrite the backups
# /etc/passwd- and the like: keep them, to put them back at the end.
install -d -m 700 "$dir/etc-backups"
for f in "${etc_backups[@]}"; do
    if [[ -e $f ]]; then cp -p "$f" "$dir/etc-backups/"; fi
done
if [[ -d /var/mail ]]; then stat -c %y /var/mail >"$dir/etc-backups/mail-spool.mtime"; fi
for u in "${E2E_USERS[@]}"; do
    useradd --system --home-dir "$dir/home/$u" --create-home --user-group --shell /usr/sbin/nologin \
        --comment "mancala e2e test (tests/e2e/mail-stack.sh)" "$u"
    install -d -o "$u" -g "$u" -m 700 "$dir/home/$u/Maildir" "$dir/home/$u"/Maildir/{cur,new,tmp}
done

# 6. The referee's .forward and .procmailrc (see the comment at the top).
ru=${E2E_USERS[0]}
rh=$dir/home/$ru
install -d -o "$ru" -g "$ru" -m 700 "$rh/Maildir/.ignored" "$rh/Maildir/.ignored"/{cur,new,tmp}
printf '%s\n' '"|/usr/bin/procmail -p -t"' >"$rh/.forward"
# The recipe is the part of the comment above from SHELL= to the last recipe, with this
# run's binary first in PATH and its Postfix's port in SEND.
{
    echo "# written by tests/e2e/mail-stack.sh"
    sed -n '/^#       SHELL=/,/^#       { EXITCODE=75 HOST }/s/^# \{0,7\}//p' "${BASH_SOURCE[0]}" |
        sed -e "s|^PATH=/usr/local/bin:|PATH=$dir/bin:|" -e "s|^SEND=sendmail\$|SEND=smtp://127.0.0.1:$port|"
} >"$rh/.procmailrc"
for want in "^PATH=$dir/bin:" "^SEND=smtp://127\.0\.0\.1:$port\$" '^| mancala mail --send \$SEND' '^{ EXITCODE=75 HOST }$'; do
    grep -q "$want" "$rh/.procmailrc" || die "could not extract the procmail recipe (no '$want')"
done
chown "$ru:$ru" "$rh/.forward" "$rh/.procmailrc"
chmod 644 "$rh/.forward" "$rh/.procmailrc"

# 6b. Bill's own mailbox, refereed by a procmail filter (docs/operating.md: "Your own mailbox").
bu=mcr-bill
bh=$dir/home/$bu
printf '%s\n' '"|/usr/bin/procmail -p -t"' >"$bh/.forward"
cat >"$bh/.procmailrc" <<RC
# written by tests/e2e/mail-stack.sh
SHELL=/bin/sh
PATH=$dir/bin:/usr/bin:/bin
MAILDIR=\$HOME
DEFAULT=\$HOME/Maildir/
LOGFILE=\$HOME/procmail.log

# The referee's own mail (a loop) and automatic mail pass through untouched.
:0 fw
* !^X-Loop: *bill@players\.example
| mancala mail --owner 'Bill Taylor <bill@players.example>' --filter --send smtp://127.0.0.1:$port

# If the filter failed (exit 75: a reply could not be sent), keep the mail queued.
:0 e
{ EXITCODE=75 HOST }
RC
chown "$bu:$bu" "$bh/.forward" "$bh/.procmailrc"
chmod 644 "$bh/.forward" "$bh/.procmailrc"

# 7. Start the instance and wait for its 220 greeting.
out=$(postfix -c "$conf" check 2>&1) || { printf '%s\n' "$out" >&2; die "postfix -c $conf check failed"; }
if [[ -n $out ]]; then printf '%s\n' "$out" >&2; fi
out=$(postfix -c "$conf" start 2>&1 9<&-) || { printf '%s\n' "$out" >&2; die "postfix -c $conf start failed"; }
for _ in $(seq 100); do smtp_greets && break; sleep 0.1; done
smtp_greets || { tail -n 20 "$dir/maillog" >&2 || true; die "nothing answers on 127.0.0.1:$port"; }
say "ready in $((SECONDS - started)) s: SMTP on 127.0.0.1:$port, Postfix -c $conf, referee at $dir/bin/mancala"

# 8. The command, with the stack up.
export E2E_DIR=$dir E2E_POSTFIX=$conf MAIL_CONFIG=$conf E2E_SMTP_PORT=$port \
    E2E_MAILLOG=$dir/maillog MANCALA_BIN=$dir/bin/mancala
if (($# == 0)); then
    say "the stack stays up until this shell exits"
    set -- bash -i
fi
# (In the background, so that a signal to this script takes the stack down at once; <&0
# keeps its standard input.)
"$@" <&0 9<&- &
child=$!
status=0
wait "$child" || status=$?
child=
exit "$status"
