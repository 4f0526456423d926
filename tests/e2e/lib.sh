# lib.sh - helpers for the e2e tests, for a command run by tests/e2e/mail-stack.sh (as root),
# which exports E2E_DIR, E2E_POSTFIX, E2E_SMTP_PORT, E2E_MAILLOG. USER is an account below.
#
#   send_mail FROM TO FILE_OR_BODY [swaks args...]   SMTP to 127.0.0.1:$E2E_SMTP_PORT (FROM '<>' = a bounce)
#   wait_for_mail USER COUNT [TIMEOUT=10]            until ~USER/Maildir/{new,cur} holds >= COUNT
#   latest_mail USER                                 path of USER's newest message
#   mail_count USER                                  messages in ~USER/Maildir/{new,cur}
#   wait_for_idle [TIMEOUT=10]                       until the instance's queue is empty
#   clear_maildirs                                   empty every Maildir, the queue and the logs
#   stop_dovecot DIR                                 stop the Dovecot of imap-stack.sh in DIR, if it runs

# The test's own accounts (mail-stack.sh makes and removes them; the referee first).
# Their addresses: referee@referee.example, alice@players.example, ... (see mail-stack.sh).
E2E_USERS=(mcr-referee mcr-alice mcr-bob mcr-carol mcr-bill)

_home() { getent passwd "$1" | cut -d: -f6; }
_maildir() { printf '%s/Maildir' "$(_home "$1")"; }
_postfix() { printf '%s' "${E2E_POSTFIX:?run under tests/e2e/mail-stack.sh}"; }

_dump_logs() {
    echo "--- tail ${E2E_MAILLOG:-maillog}" >&2
    tail -n 30 "${E2E_MAILLOG:-/dev/null}" >&2 2>/dev/null
    echo "--- tail ~${E2E_USERS[0]}/procmail.log" >&2
    tail -n 30 "$(_home "${E2E_USERS[0]}")/procmail.log" >&2 2>/dev/null
    echo "--- mail queue" >&2
    postqueue -c "$(_postfix)" -p >&2 2>/dev/null
}

# A FILE_OR_BODY that names a file is sent as the whole message (headers and body);
# anything else becomes the body of a message swaks writes.
send_mail() {
    local from=$1 to=$2 what=$3
    shift 3
    local data=(--body "$what")
    [[ -f $what ]] && data=(--data "$what")
    swaks --silent 1 --server "127.0.0.1:${E2E_SMTP_PORT:-2525}" --from "$from" --to "$to" "${data[@]}" "$@"
}

mail_count() {
    local d
    d=$(_maildir "$1")
    find "$d/new" "$d/cur" -maxdepth 1 -type f | wc -l
}

wait_for_mail() {
    local user=$1 want=$2 timeout=${3:-10} end
    end=$((SECONDS + timeout))
    while (($(mail_count "$user") < want)); do
        if ((SECONDS >= end)); then
            echo "wait_for_mail: $user has $(mail_count "$user") message(s) after ${timeout}s, wanted $want" >&2
            _dump_logs
            return 1
        fi
        sleep 0.1
    done
}

latest_mail() {
    local d
    d=$(_maildir "$1")
    # shellcheck disable=SC2012  # Maildir file names have no newlines
    ls -1t "$d"/new/* "$d"/cur/* 2>/dev/null | head -n 1
}

# For "nothing happens" checks: once the queue is empty, every mail sent so far has been
# delivered (a reply enters the queue before the mail that caused it leaves).
wait_for_idle() {
    local end=$((SECONDS + ${1:-10}))
    until postqueue -c "$(_postfix)" -p 2>/dev/null | grep -q '^Mail queue is empty'; do
        if ((SECONDS >= end)); then
            echo "wait_for_idle: the mail queue is not empty" >&2
            _dump_logs
            return 1
        fi
        sleep 0.1
    done
}

clear_maildirs() {
    local u log
    postsuper -c "$(_postfix)" -d ALL >/dev/null 2>&1
    for u in "${E2E_USERS[@]}"; do
        find "$(_maildir "$u")" -type f \( -path '*/new/*' -o -path '*/cur/*' -o -path '*/tmp/*' \) -delete
    done
    log="$(_home "${E2E_USERS[0]}")/procmail.log"
    if [[ -f $log ]]; then : >"$log"; fi  # truncate; procmail (as the referee) must still own it
}

# stop_dovecot DIR: stop the Dovecot instance that imap-stack.sh started in DIR (its config is
# DIR/dovecot/dovecot.conf), if one runs, and wait until its processes are gone: TERM to its
# master, then TERM and at last KILL to any of its processes still there. Its processes are
# those working in DIR/dovecot (the master and its services, in base_dir) or DIR/imap (a
# user's imap process, in its home). Stop the Postfix instance first: its smtpd processes
# hold connections to Dovecot's auth service, which keeps auth, log and anvil up.
_dovecot_procs() {
    local p cwd
    for p in /proc/[0-9]*; do
        cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
        case $cwd in "$1"/dovecot | "$1"/dovecot/* | "$1"/imap | "$1"/imap/*) printf '%s\n' "${p#/proc/}" ;; esac
    done
}
stop_dovecot() {
    local d=$1 pid= p
    [[ -f $d/dovecot/dovecot.conf ]] || return 0
    if [[ -r $d/dovecot/run/master.pid ]]; then read -r pid <"$d/dovecot/run/master.pid" || true; fi
    if [[ $pid =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-c $d/dovecot/dovecot.conf"; then
        kill -TERM "$pid" 2>/dev/null
    fi
    for _ in $(seq 50); do
        [[ -z $(_dovecot_procs "$d") ]] && return 0
        sleep 0.1
    done
    for p in $(_dovecot_procs "$d"); do kill -TERM "$p" 2>/dev/null; done
    sleep 1
    if [[ -n $(_dovecot_procs "$d") ]]; then
        echo "stop_dovecot: killing what is left of Dovecot in $d: $(_dovecot_procs "$d" | tr '\n' ' ')" >&2
        for p in $(_dovecot_procs "$d"); do kill -KILL "$p" 2>/dev/null; done
    fi
    return 0
}
