#!/usr/bin/env bash
# imap-stack.sh - the referee as an operator with only an IMAP account runs it: a Dovecot of
# the test's own serving the referee's mailbox, and an authenticated SMTP submission port on
# the test's Postfix. Run under mail-stack.sh, which makes the Postfix instance, the users and
# the temporary directory, and takes them down again:
#
#   tests/e2e/mail-stack.sh PATH_TO_MANCALA tests/e2e/imap-stack.sh COMMAND [ARGS...]
#
# It adds to mail-stack.sh's stack (all in E2E_DIR, all on 127.0.0.1), runs COMMAND, then
# stops its Dovecot again, also when COMMAND fails or the run is interrupted, and exits with
# COMMAND's status. It writes nothing outside E2E_DIR: Dovecot runs as `dovecot -c
# E2E_DIR/dovecot/dovecot.conf` with its base_dir, state_dir and log in E2E_DIR/dovecot; the
# system's /etc/dovecot, /run/dovecot and /var/lib/dovecot are never read or written, and the
# system's Dovecot (none runs here) is never started, stopped or reloaded.
#
# 1. Dovecot (E2E_DIR/dovecot/): IMAP on 127.0.0.1:$E2E_IMAP_PORT (default 10143, plaintext
#    LOGIN allowed: disable_plaintext_auth = no), IMAPS on 127.0.0.1:$E2E_IMAPS_PORT (10993)
#    with a certificate from a CA of the run's own (E2E_DIR/tls/), and its auth service for
#    Postfix's SASL on 127.0.0.1:$E2E_SASL_PORT (10144). One account, referee@referee.example, with a
#    password made afresh each run, in a passwd-file (E2E_DIR/dovecot/users, SHA512-CRYPT)
#    that is both passdb and userdb. Its mail: maildir:~/Maildir, home E2E_DIR/imap/referee,
#    owned by the fixed user mcr-referee (uid and gid in the passwd-file).
# 2. Delivery: Postfix's virtual(8) delivers referee@referee.example and referee+ANY@ (the
#    game addresses) into that Maildir (virtual_mailbox_domains = referee.example,
#    virtual_mailbox_base = E2E_DIR/imap, a regexp virtual_mailbox_maps, uid and gid of
#    mcr-referee). referee.example leaves virtual_alias_domains: no procmail this time.
#    Dovecot sees new mail as any IMAP server sees its Maildir's new/.
# 3. Submission: smtpd on 127.0.0.1:$E2E_SUBMISSION_PORT (default 10587) that takes mail only
#    from a client authenticated by SASL (smtpd_sasl_type = dovecot, smtpd_sasl_path =
#    inet:127.0.0.1:$E2E_SASL_PORT; smtpd_client_restrictions = permit_sasl_authenticated,
#    reject), and only with the login's own address as envelope sender
#    (reject_sender_login_mismatch). No TLS on it: see README.md's IMAP section for why (the referee's client
#    verifies certificates against the webpki roots only, and no loopback certificate
#    chains to them). The same, with TLS, for the tests that show this:
#    127.0.0.1:$E2E_STARTTLS_PORT (10588: STARTTLS offered, AUTH only after it) and
#    127.0.0.1:$E2E_SMTPS_PORT (10465: implicit TLS), both with that certificate.
#    Replies to the players go from there to their Maildirs as in mail-stack.sh.
#
# COMMAND also gets: E2E_IMAP_PORT, E2E_IMAPS_PORT, E2E_SASL_PORT, E2E_SUBMISSION_PORT,
# E2E_STARTTLS_PORT, E2E_SMTPS_PORT, E2E_IMAP_USER (referee@referee.example),
# E2E_IMAP_PASSWORD, E2E_IMAP_MAILDIR (the Dovecot Maildir), E2E_DOVECOT (its config file),
# E2E_DOVECOT_LOG, E2E_TLS_CA (the CA of the servers' certificate, for mbsync's CertificateFile).
set -euo pipefail

started=$SECONDS
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/e2e/lib.sh
source "$here/lib.sh"

say() { printf 'imap-stack: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
trap 'say "error: line $LINENO: $BASH_COMMAND failed"' ERR

(($# >= 1)) || die "usage: mail-stack.sh BIN imap-stack.sh COMMAND [ARGS...]"
dir=${E2E_DIR:?run under tests/e2e/mail-stack.sh}
conf=${E2E_POSTFIX:?run under tests/e2e/mail-stack.sh}
[[ -e $dir/.mancala-e2e ]] || die "E2E_DIR=$dir is not mail-stack.sh's directory"
for p in dovecot doveadm openssl mbsync; do
    command -v "$p" >/dev/null || die "no $p (mail-stack.sh installs dovecot-imapd, isync and openssl)"
done

imap_port=${E2E_IMAP_PORT:-10143}
imaps_port=${E2E_IMAPS_PORT:-10993}
sasl_port=${E2E_SASL_PORT:-10144}
sub_port=${E2E_SUBMISSION_PORT:-10587}
starttls_port=${E2E_STARTTLS_PORT:-10588}
smtps_port=${E2E_SMTPS_PORT:-10465}
for port in "$imap_port" "$imaps_port" "$sasl_port" "$sub_port" "$starttls_port" "$smtps_port"; do
    [[ $port =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) || die "'$port' is not a port"
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        die "something already listens on 127.0.0.1:$port (see the E2E_*_PORT variables in imap-stack.sh)"
    fi
done

owner=${E2E_USERS[0]}  # mcr-referee: owns the Dovecot Maildir
uid=$(id -u "$owner")
gid=$(id -g "$owner")
dc=$dir/dovecot
imap_home=$dir/imap/referee
user=referee@referee.example

child=
teardown() {
    local status=$?
    trap - ERR EXIT INT TERM HUP
    set +e
    if [[ -n $child ]] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null
        wait "$child" 2>/dev/null
    fi
    if ((status != 0)) && [[ -f $dc/log ]]; then
        echo "--- tail $dc/log" >&2
        tail -n 30 "$dc/log" >&2
    fi
    # Postfix first: its smtpd processes keep a connection to Dovecot's auth service, which
    # keeps Dovecot's auth, log and anvil processes up after the master has gone. (The
    # instance is this run's own; mail-stack.sh, whose it is, stops it right after anyway.)
    if postfix -c "$conf" status >/dev/null 2>&1; then postfix -c "$conf" stop >/dev/null 2>&1; fi
    stop_dovecot "$dir"  # (lib.sh)
    exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# The certificate of 127.0.0.1 (for IMAPS and the two TLS submission ports), from a CA of
# this run's own: a server certificate as a private mail server would have (CA:FALSE,
# serverAuth), that only a client told to trust E2E_DIR/tls/ca.pem can verify.
install -d -m 755 "$dir/tls"
(
    cd "$dir/tls"
    ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${ec[@]}" -days 2 -subj "/CN=mancala e2e test CA" -keyout ca-key.pem -out ca.pem
    openssl req "${ec[@]}" -subj "/CN=127.0.0.1" -keyout key.pem -out server.csr
    printf '%s\n' basicConstraints=CA:FALSE keyUsage=digitalSignature,keyEncipherment \
        extendedKeyUsage=serverAuth subjectAltName=IP:127.0.0.1,DNS:localhost >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 2 \
        -extfile server.ext -out cert.pem
    chmod 600 ca-key.pem key.pem
) 2>/dev/null || die "openssl could not make the test certificates"

# 1. Dovecot.
install -d -m 755 "$dc" "$dc/run" "$dc/state" "$dir/imap"
install -d -o "$owner" -g "$owner" -m 700 "$imap_home" "$imap_home/Maildir" "$imap_home"/Maildir/{cur,new,tmp}
password=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
cat >"$dc/dovecot.conf" <<CONF
# written by tests/e2e/imap-stack.sh: a Dovecot instance of the test's own
protocols = imap
listen = 127.0.0.1
base_dir = $dc/run
state_dir = $dc/state
instance_name = mancala-e2e
log_path = $dc/log
info_log_path = $dc/log
auth_verbose = yes
# A wrong password is answered at once (the default waits 2 s, and Postfix's smtpd longer).
auth_failure_delay = 0
# Loopback only: LOGIN and AUTH PLAIN without TLS are allowed (Dovecot counts 127.0.0.1 as
# secured anyway).
disable_plaintext_auth = no
auth_mechanisms = plain login
ssl = yes
ssl_cert = <$dir/tls/cert.pem
ssl_key = <$dir/tls/key.pem
mail_location = maildir:~/Maildir
# The mailbox's owner is a system account (uid < 500).
first_valid_uid = $uid
last_valid_uid = $uid
passdb {
  driver = passwd-file
  args = username_format=%u $dc/users
}
userdb {
  driver = passwd-file
  args = username_format=%u $dc/users
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $imap_port
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = $imaps_port
    ssl = yes
  }
}
# Postfix's smtpd asks this about the submission port's logins (smtpd_sasl_type = dovecot).
service auth {
  inet_listener sasl {
    address = 127.0.0.1
    port = $sasl_port
  }
}
CONF
hash=$(doveadm -c "$dc/dovecot.conf" pw -s SHA512-CRYPT -p "$password")
printf '%s:%s:%s:%s::%s::\n' "$user" "$hash" "$uid" "$gid" "$imap_home" >"$dc/users"
chown root:dovecot "$dc/users"
chmod 640 "$dc/users"
# (Its master keeps the standard error it was started with: a file, not a pipe of ours.)
dovecot -c "$dc/dovecot.conf" </dev/null >"$dc/start.log" 2>&1 9<&- ||
    { cat "$dc/start.log" >&2; die "dovecot -c $dc/dovecot.conf did not start"; }

# 2. and 3. Postfix: the referee's mailbox by virtual(8), and the submission ports.
cat >"$conf/virtual_regexp" <<'MAP'
# written by tests/e2e/imap-stack.sh (referee.example is a virtual mailbox domain)
/^(alice|bob|carol)(\+[^@]*)?@players\.example$/    mcr-${1}${2}@localhost
MAP
cat >"$conf/virtual_mailbox_regexp" <<'MAP'
# written by tests/e2e/imap-stack.sh: relative to virtual_mailbox_base; / at the end: Maildir
/^referee(\+[^@]*)?@referee\.example$/              referee/Maildir/
MAP
cat >"$conf/sender_login_regexp" <<'MAP'
# written by tests/e2e/imap-stack.sh: who may send as whom on the submission ports
/^referee(\+[^@]*)?@referee\.example$/              referee@referee.example
MAP
postconf -c "$conf" -e \
    'virtual_alias_domains=players.example' \
    virtual_mailbox_domains=referee.example \
    "virtual_mailbox_base=$dir/imap" \
    "virtual_mailbox_maps=regexp:$conf/virtual_mailbox_regexp" \
    "virtual_uid_maps=static:$uid" \
    "virtual_gid_maps=static:$gid" \
    "virtual_minimum_uid=$uid" \
    smtpd_sasl_type=dovecot \
    "smtpd_sasl_path=inet:127.0.0.1:$sasl_port" \
    "smtpd_sender_login_maps=regexp:$conf/sender_login_regexp"
submission() {  # PORT [-o settings...]: an smtpd that takes mail from SASL logins only
    local port=$1 s
    shift
    postconf -c "$conf" -M "127.0.0.1:$port/inet=127.0.0.1:$port inet n - n - - smtpd"
    for s in syslog_name=postfix/submission-$port smtpd_sasl_auth_enable=yes \
        smtpd_client_restrictions=permit_sasl_authenticated,reject \
        smtpd_relay_restrictions=permit_sasl_authenticated,reject \
        smtpd_sender_restrictions=reject_sender_login_mismatch "$@"; do
        postconf -c "$conf" -P "127.0.0.1:$port/inet/$s"
    done
}
submission "$sub_port" smtpd_tls_security_level=none smtpd_tls_auth_only=no
submission "$starttls_port" smtpd_tls_security_level=encrypt smtpd_tls_auth_only=yes \
    "smtpd_tls_cert_file=$dir/tls/cert.pem" "smtpd_tls_key_file=$dir/tls/key.pem"
submission "$smtps_port" smtpd_tls_wrappermode=yes smtpd_tls_security_level=encrypt \
    "smtpd_tls_cert_file=$dir/tls/cert.pem" "smtpd_tls_key_file=$dir/tls/key.pem"
out=$(postfix -c "$conf" check 2>&1) || { printf '%s\n' "$out" >&2; die "postfix -c $conf check failed"; }
if [[ -n $out ]]; then printf '%s\n' "$out" >&2; fi
postfix -c "$conf" reload >/dev/null 2>&1 9<&-

# Ready: every port answers (Postfix's new listeners after the reload, Dovecot's).
greets() {  # PORT WANT: the first line from 127.0.0.1:PORT starts with WANT
    ( exec 3<>"/dev/tcp/127.0.0.1/$1" && read -r -t 5 line <&3 && [[ $line == "$2"* ]] ) 2>/dev/null
}
listens() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 100); do
    greets "$sub_port" 220 && greets "$starttls_port" 220 && greets "$imap_port" '* OK' &&
        listens "$imaps_port" && listens "$smtps_port" && listens "$sasl_port" && break
    sleep 0.1
done
greets "$sub_port" 220 || die "nothing answers on the submission port 127.0.0.1:$sub_port"
greets "$imap_port" '* OK' || die "Dovecot does not answer on 127.0.0.1:$imap_port"
listens "$imaps_port" && listens "$smtps_port" && listens "$sasl_port" ||
    die "one of 127.0.0.1:$imaps_port, :$smtps_port, :$sasl_port does not answer"
say "ready in $((SECONDS - started)) s: IMAP 127.0.0.1:$imap_port (IMAPS :$imaps_port) for $user," \
    "submission 127.0.0.1:$sub_port (STARTTLS :$starttls_port, SMTPS :$smtps_port), Dovecot -c $dc/dovecot.conf"

export E2E_IMAP_PORT=$imap_port E2E_IMAPS_PORT=$imaps_port E2E_SASL_PORT=$sasl_port \
    E2E_SUBMISSION_PORT=$sub_port E2E_STARTTLS_PORT=$starttls_port E2E_SMTPS_PORT=$smtps_port \
    E2E_IMAP_USER=$user E2E_IMAP_PASSWORD=$password E2E_IMAP_MAILDIR=$imap_home/Maildir \
    E2E_DOVECOT=$dc/dovecot.conf E2E_DOVECOT_LOG=$dc/log E2E_TLS_CA=$dir/tls/ca.pem
"$@" <&0 9<&- &
child=$!
status=0
wait "$child" || status=$?
child=
exit "$status"
