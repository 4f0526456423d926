#!/usr/bin/env python3
"""End-to-end: the referee run by an operator who has only an IMAP account.

Run by tests/e2e/run.sh, under mail-stack.sh and imap-stack.sh (see them): the
test's own Postfix and Dovecot on 127.0.0.1. Mail to referee@referee.example and
referee+<game>-<key>@referee.example goes through Postfix (virtual(8)) into the
Dovecot Maildir of the referee's IMAP account; the operator (the user
mcr-referee, in its own home) fetches that account with mbsync (IMAPS, the
run's own CA as CertificateFile) into a local Maildir and runs

    mancala maildir LOCAL --send smtp://127.0.0.1:SUBMISSION --from referee@... --store STORE

with MANCALA_SMTP_USER/MANCALA_SMTP_PASSWORD: its replies go by authenticated
SMTP submission (SASL by Dovecot) to the players' Maildirs. A "run" is that
fetch, then that maildir, as the operator's cron line does (docs/operating.md's IMAP section).

* a game: Alice's challenge, Bob's accept to the game's address, four moves, each
  followed by a run; every mail arrives once, every reply went by the submission
  port logged in as the referee, the six mails end in the local cur/ (seen, and
  seen on the server after the next run), and a run with nothing new fetches and
  sends nothing;
* a server certificate the referee cannot verify (STARTTLS and implicit TLS with
  the run's own CA): exit 75, the mail waits in new/, and a later run sends the
  replies once;
* docs/operating.md's IMAP recipe as written (.mbsyncrc, the run script, the crontab line);
* the submission port: no mail without AUTH, none with a wrong password, none as
  another sender; AUTH on the TLS ports only inside TLS.

Prints a final line `N passed, M failed` and exits non-zero on any failure.
`imap.py WORD...` runs only the tests whose name has one of the words.
"""

import email
import email.policy
import imaplib
import json
import os
import pwd
import re
import shutil
import smtplib
import ssl
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the work tree
import game as g  # noqa: E402  (its helpers: compose, press_reply, newest, body_of, show_json, ...)

MANCALA = os.environ["MANCALA_BIN"]
MAILLOG = os.environ["E2E_MAILLOG"]
IMAP_PORT = int(os.environ["E2E_IMAP_PORT"])
IMAPS_PORT = int(os.environ["E2E_IMAPS_PORT"])
SUBMISSION_PORT = int(os.environ["E2E_SUBMISSION_PORT"])
STARTTLS_PORT = int(os.environ["E2E_STARTTLS_PORT"])
SMTPS_PORT = int(os.environ["E2E_SMTPS_PORT"])
IMAP_USER = os.environ["E2E_IMAP_USER"]
IMAP_PASSWORD = os.environ["E2E_IMAP_PASSWORD"]
SERVER_MAILDIR = os.environ["E2E_IMAP_MAILDIR"]  # Dovecot's side: for waiting only
DOVECOT_LOG = os.environ["E2E_DOVECOT_LOG"]
CA = os.environ["E2E_TLS_CA"]
REFEREE = g.REFEREE
PLAYERS = g.PLAYERS
SUBMISSION = f"smtp://127.0.0.1:{SUBMISSION_PORT}"
TIMEOUT = 20.0

# The operator: an account with a home, nothing else (no MTA, no procmail).
OPERATOR = pwd.getpwnam(g.ACCOUNT["referee"])
OP_HOME = OPERATOR.pw_dir
LOCAL = os.path.join(OP_HOME, "mail/referee")  # the Maildir mbsync fills, mancala reads
STORE = os.path.join(OP_HOME, "games")
MBSYNCRC = os.path.join(OP_HOME, ".mbsyncrc")
PASSWORD_FILE = os.path.join(OP_HOME, ".config/mancala/imap-password")

MBSYNC_CONFIG = f"""\
# ~/.mbsyncrc of the referee's operator (written by tests/e2e/imap.py; see docs/operating.md)
IMAPAccount referee
Host 127.0.0.1
Port {IMAPS_PORT}
SSLType IMAPS
# The test's servers have a certificate from the run's own CA (a real provider's
# is checked against the system's CAs, and needs neither line)
CertificateFile {CA}
SystemCertificates no
User {IMAP_USER}
PassCmd "cat {PASSWORD_FILE}"

IMAPStore referee-remote
Account referee

MaildirStore referee-local
Inbox {LOCAL}/

Channel referee
Far :referee-remote:
Near :referee-local:
Create Near
# Fetch new mail; tell the server which mails the referee has handled (seen)
Sync PullNew PushFlags
Expunge None
SyncState *
"""


def operator_env(**extra):
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": OP_HOME, "LANG": "C.UTF-8",
           "USER": OPERATOR.pw_name, "LOGNAME": OPERATOR.pw_name}
    env.update(extra)
    return env


def as_operator(args, **extra_env):
    return subprocess.run(args, user=OPERATOR.pw_uid, group=OPERATOR.pw_gid, extra_groups=[], cwd=OP_HOME,
                          env=operator_env(**extra_env), capture_output=True, text=True, timeout=60)


def imap():
    box = imaplib.IMAP4("127.0.0.1", IMAP_PORT, timeout=TIMEOUT)  # plaintext login: loopback
    box.login(IMAP_USER, IMAP_PASSWORD)
    box.select("INBOX")
    return box


def server_messages():
    """The referee's IMAP inbox: {Message-ID: flags} (FETCH of every message)."""
    box = imap()
    try:
        result = {}
        typ, data = box.fetch("1:*", "(FLAGS BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
        assert typ == "OK", data
        for item in data:
            if isinstance(item, tuple):
                flags = re.search(rb"FLAGS \(([^)]*)\)", item[0]).group(1).decode().split()
                mid = email.message_from_bytes(item[1])["Message-ID"].strip()
                assert mid not in result, f"{mid} is twice in the IMAP inbox"
                result[mid] = flags
        return result
    finally:
        box.logout()


def empty_server():
    box = imap()
    try:
        typ, data = box.search(None, "ALL")
        if data[0]:
            box.store("1:*", "+FLAGS.SILENT", r"(\Deleted)")
            box.expunge()
    finally:
        box.logout()


def setup():
    """A fresh start: empty Maildirs (players', the IMAP inbox), and an operator with a new
    local Maildir, mbsync state and store (a fresh day for the referee's daily limits)."""
    subprocess.run(["bash", "-c", f"source {HERE}/lib.sh && clear_maildirs"], check=True)
    empty_server()
    for path in (LOCAL, STORE, os.path.dirname(PASSWORD_FILE), os.path.join(OP_HOME, ".local/share/mancala-referee"),
                 os.path.join(OP_HOME, ".cache")):
        shutil.rmtree(path, ignore_errors=True)
    for path in (os.path.dirname(LOCAL), os.path.dirname(PASSWORD_FILE)):
        os.makedirs(path, exist_ok=True)
        os.chown(path, OPERATOR.pw_uid, OPERATOR.pw_gid)
        os.chmod(path, 0o700)
    for path, text in ((MBSYNCRC, MBSYNC_CONFIG), (PASSWORD_FILE, IMAP_PASSWORD + "\n")):
        with open(path, "w") as f:
            f.write(text)
        os.chown(path, OPERATOR.pw_uid, OPERATOR.pw_gid)
        os.chmod(path, 0o600)


def maillog():
    return open(MAILLOG, errors="replace").read()


def logs():
    return (f"\n--- maillog\n{maillog()[-3000:]}"
            f"\n--- dovecot log\n{open(DOVECOT_LOG, errors='replace').read()[-2000:]}")


def wait_until(done, what):
    end = time.time() + TIMEOUT
    while not (result := done()):
        if time.time() > end:
            raise AssertionError(f"{what}, after {TIMEOUT:.0f}s{logs()}")
        time.sleep(0.05)
    return result


def wait_idle():
    """Until the Postfix queue is empty: every mail sent so far is delivered."""
    wait_until(lambda: g.queue() == [], "the mail queue does not empty")


def files(maildir, sub):
    path = os.path.join(maildir, sub)
    return sorted(os.listdir(path)) if os.path.isdir(path) else []


def server_count():
    return len(files(SERVER_MAILDIR, "new")) + len(files(SERVER_MAILDIR, "cur"))


def wait_server(want):
    """Until the referee's IMAP inbox holds WANT mails (Postfix delivered them)."""
    wait_idle()
    wait_until(lambda: server_count() >= want, f"the IMAP inbox has {server_count()} mails, wanted {want}")


def fetch():
    out = as_operator(["mbsync", "-c", MBSYNCRC, "referee"])
    assert out.returncode == 0, f"mbsync: exit {out.returncode}\n{out.stdout}{out.stderr}{logs()}"
    return out


def referee(send=SUBMISSION, want=0, **env):
    credentials = {"MANCALA_SMTP_USER": IMAP_USER, "MANCALA_SMTP_PASSWORD": IMAP_PASSWORD}
    credentials.update(env)
    out = as_operator([MANCALA, "maildir", LOCAL, "--send", send, "--from", REFEREE, "--store", STORE], **credentials)
    assert out.returncode == want, f"mancala maildir: exit {out.returncode}, wanted {want}\n{out.stderr}{logs()}"
    return out.stderr


def run():
    """What the operator's cron line does: fetch, then referee; then wait for the replies."""
    fetch()
    log = referee()
    wait_idle()
    return log


def message_ids(user):
    box = g.maildir(user)
    return [email.message_from_bytes(box.get_bytes(k), policy=email.policy.default)["Message-ID"] for k in box.keys()]


def exactly(alice, bob):
    """Alice and Bob have exactly these many mails, each once (Message-IDs all different)."""
    wait_idle()
    counts = {"alice": g.count("alice"), "bob": g.count("bob")}
    assert counts == {"alice": alice, "bob": bob}, f"{counts}, wanted alice {alice}, bob {bob}{logs()}"
    for user in ("alice", "bob"):
        ids = message_ids(user)
        assert len(set(ids)) == len(ids), f"{user} has a mail twice: {ids}"


def local_state():
    return {sub: files(LOCAL, sub) for sub in ("new", "cur", "tmp")}


def submission_logins():
    return re.findall(rf"postfix/submission-{SUBMISSION_PORT}/smtpd\[\d+\]: \w+: client=\S+, "
                      rf"sasl_method=PLAIN, sasl_username={re.escape(IMAP_USER)}$", maillog(), re.M)


def game_by_imap():
    """The whole path: Alice's challenge, Bob's accept to the game address, four moves, each
    through Postfix into the IMAP inbox, mbsync, mancala maildir and SMTP submission."""
    setup()
    g.send(PLAYERS["Alice"], [REFEREE], g.compose(PLAYERS["Alice"], "a game?", f"new wari with Bob <{PLAYERS['Bob']}>\n"))
    wait_server(1)
    log = run()
    assert "invitation sent by alice@players.example" in log, log
    exactly(1, 1)
    invitation = g.newest("bob")
    body = g.body_of(invitation)
    assert "invites you" in body and "accept" in body, body
    reply_to = invitation["Reply-To"].addresses[0].addr_spec
    game = re.fullmatch(r"referee\+(\w+)-\w+@referee\.example", reply_to).group(1)
    assert game in invitation["Subject"] and f"id {game}" in body, (game, invitation["Subject"], body)
    assert "invitation to bob@players.example is sent" in g.body_of(g.newest("alice"))

    # Bob presses reply: his accept goes to referee+<game>-<key>@, into the same IMAP inbox.
    g.press_reply(PLAYERS["Bob"], invitation, "accept\n")
    wait_server(2)
    run()
    exactly(2, 2)
    alice, bob = g.newest("alice"), g.newest("bob")
    assert "Bob accepted" in g.body_of(alice), g.body_of(alice)
    assert g.show_json(g.body_of(alice)) == g.show_json(g.body_of(bob))
    assert g.show_json(g.body_of(alice))["ply"] == 0
    latest = {"Alice": alice, "Bob": bob}

    # Four moves, two each, every one by pressing reply on the latest mail, then a run.
    for ply in range(1, 5):
        # (Only the mail to the player to move says how to move.)
        body = next(g.body_of(m) for m in latest.values() if "Legal moves" in g.body_of(m))
        mover = re.search(r"It is (\w+)'s move", body).group(1).capitalize()  # (Alice wrote with no name: "alice")
        move = g.legal_moves(body)[0]
        expected = subprocess.run([MANCALA, "move", "-", move], input=body, capture_output=True, text=True, check=True).stdout
        g.press_reply(PLAYERS[mover], latest[mover], f"move {move}\n")
        wait_server(2 + ply)
        run()
        exactly(2 + ply, 2 + ply)
        latest = {"Alice": g.newest("alice"), "Bob": g.newest("bob")}
        position = g.show_json(g.body_of(latest["Alice"]))
        assert position == g.show_json(g.body_of(latest["Bob"])), "both get the same board"
        assert position == g.show_json(expected), (ply, mover, move, position)
        assert position["ply"] == ply, (ply, position)
    assert g.turns_of(STORE, game) == 4

    # Every reply went by the submission port, logged in as the referee: one login a mail,
    # and Postfix marked each as authenticated (ESMTPA) in its Received line.
    replies = [m for user in ("alice", "bob")
               for m in (email.message_from_bytes(g.maildir(user).get_bytes(k)) for k in g.maildir(user).keys())]
    assert len(replies) == 12
    for m in replies:
        received = " ".join(m.get_all("Received"))
        assert "with ESMTPA" in received, received
    assert len(submission_logins()) == 12, submission_logins()

    # The six mails to the referee: each fetched once, each handled (cur/, seen), none left.
    state = local_state()
    assert state["new"] == [] and len(state["cur"]) == 6, state
    assert all(re.search(r":2,[A-Z]*S", name) for name in state["cur"]), state
    local_ids = [email.message_from_bytes(open(os.path.join(LOCAL, "cur", n), "rb").read())["Message-ID"].strip()
                 for n in state["cur"]]
    server = server_messages()
    assert sorted(local_ids) == sorted(server), (local_ids, server)

    # Nothing new: a run fetches nothing, sends nothing.
    logins = len(submission_logins())
    before = maillog()
    log = run()
    assert local_state() == state, (local_state(), state)
    assert log == "", log
    exactly(6, 6)
    assert len(submission_logins()) == logins
    assert "submission" not in maillog()[len(before):], maillog()[len(before):]
    # ... nor does mbsync fetch anything twice later on.
    fetch()
    assert local_state() == state
    # mbsync told the server which mails are seen (PushFlags: at the start of the run after
    # the one that handled them), so a webmail shows the handled mails read.
    server = server_messages()
    assert sorted(local_ids) == sorted(server), (local_ids, server)
    assert all("\\Seen" in flags for flags in server.values()), server
    return 6


def unverifiable_certificate():
    """The referee's client (lettre, rustls, the webpki roots only) refuses a server whose
    certificate it cannot verify, on STARTTLS (smtp://, offered and taken) as on implicit TLS
    (smtps://): no AUTH, no reply, and the mail waits in new/ for the next run (exit 75); told
    to trust the run's CA (MANCALA_SMTP_CA), it then sends the replies over TLS, once."""
    setup()
    g.send(PLAYERS["Alice"], [REFEREE], g.compose(PLAYERS["Alice"], "a game?", f"new wari with Bob <{PLAYERS['Bob']}>\n"))
    wait_server(1)
    fetch()
    for send in (f"smtp://127.0.0.1:{STARTTLS_PORT}", f"smtps://127.0.0.1:{SMTPS_PORT}", f"smtps://localhost:{SMTPS_PORT}"):
        log = referee(send, want=75)
        host = send.split("//")[1]
        assert f"a reply could not be sent (smtp {host}: network error: invalid peer certificate: UnknownIssuer)" in log, log
        assert "kept in new/ for the next run" in log, log
        state = local_state()
        assert len(state["new"]) == 1 and state["cur"] == [], state
        exactly(0, 0)
    # Postfix saw the TLS handshake fail: no AUTH, no mail.
    assert re.search(rf"submission-{STARTTLS_PORT}/smtpd\[\d+\]: SSL_accept error", maillog()), logs()
    assert re.search(rf"submission-{SMTPS_PORT}/smtpd\[\d+\]: SSL_accept error", maillog()), logs()
    assert not re.search(rf"submission-({STARTTLS_PORT}|{SMTPS_PORT})/smtpd\[\d+\]: \w+: client=", maillog())
    # Told to trust the run's CA (MANCALA_SMTP_CA), the referee sends over implicit TLS,
    # AUTH inside it, once.
    log = referee(f"smtps://127.0.0.1:{SMTPS_PORT}", MANCALA_SMTP_CA=CA)
    wait_idle()
    assert "started by this mail before; sending what did not go" in log, log
    exactly(1, 1)
    assert re.search(rf"submission-{SMTPS_PORT}/smtpd\[\d+\]: \w+: client=.*sasl_method=", maillog()), logs()
    state = local_state()
    assert state["new"] == [] and len(state["cur"]) == 1, state


def submission_needs_login():
    """The submission port takes mail only after AUTH, with the referee's own password, and only
    from its own address; the STARTTLS port offers AUTH only inside TLS, which works for a
    client that trusts the run's CA (Python's ssl here) — what lettre lacks is only that trust."""
    setup()
    def message():  # a new Message-ID each
        return g.compose(REFEREE, "test", "hello\n", to=PLAYERS["Bob"])

    with smtplib.SMTP("127.0.0.1", SUBMISSION_PORT, timeout=TIMEOUT) as smtp:
        try:
            smtp.sendmail(REFEREE, [PLAYERS["Bob"]], message())
            raise AssertionError("mail without AUTH was taken")
        except smtplib.SMTPRecipientsRefused as e:
            code, text = e.recipients[PLAYERS["Bob"]]
            assert code == 554 and b"Access denied" in text, e.recipients
    with smtplib.SMTP("127.0.0.1", SUBMISSION_PORT, timeout=TIMEOUT) as smtp:
        smtp.login(IMAP_USER, IMAP_PASSWORD)
        forged = g.compose(PLAYERS["Alice"], "test", "hello\n", to=PLAYERS["Bob"])
        try:
            smtp.sendmail(PLAYERS["Alice"], [PLAYERS["Bob"]], forged)
            raise AssertionError("the referee's login sent as alice@")
        except smtplib.SMTPRecipientsRefused as e:
            code, text = e.recipients[PLAYERS["Bob"]]
            assert code == 553 and b"not owned by user" in text, e.recipients
        smtp.sendmail(REFEREE, [PLAYERS["Bob"]], message())
    with smtplib.SMTP("127.0.0.1", STARTTLS_PORT, timeout=TIMEOUT) as smtp:
        smtp.ehlo()
        assert smtp.has_extn("starttls") and not smtp.has_extn("auth"), smtp.esmtp_features
        smtp.starttls(context=ssl.create_default_context(cafile=CA))
        smtp.ehlo()
        assert smtp.has_extn("auth"), smtp.esmtp_features
        smtp.login(IMAP_USER, IMAP_PASSWORD)
        smtp.sendmail(REFEREE, [PLAYERS["Bob"]], message())
    with smtplib.SMTP_SSL("127.0.0.1", SMTPS_PORT, timeout=TIMEOUT, context=ssl.create_default_context(cafile=CA)) as smtp:
        smtp.login(IMAP_USER, IMAP_PASSWORD)
        smtp.sendmail(REFEREE, [PLAYERS["Bob"]], message())
    # A wrong password, last: Dovecot's auth penalty then slows every login from 127.0.0.1
    # for a while (2 s, 4 s, ...), the referee's included.
    with smtplib.SMTP("127.0.0.1", SUBMISSION_PORT, timeout=TIMEOUT) as smtp:
        try:
            smtp.ehlo()
            smtp.auth("PLAIN", lambda challenge=None: f"\0{IMAP_USER}\0not the password", initial_response_ok=True)
            raise AssertionError("a wrong password was taken")
        except smtplib.SMTPAuthenticationError as e:
            assert e.smtp_code == 535, e
    exactly(0, 3)


def recipe_blocks():
    """The operator's files from docs/operating.md's IMAP section, found by what they hold:
    ~/.mbsyncrc, the run script, the crontab line."""
    manual = open(os.path.join(HERE, "..", "..", "docs", "operating.md")).read()
    section = manual.split("## From an IMAP account, with mbsync and cron", 1)[1]
    section = re.split(r"^##", section, maxsplit=1, flags=re.M)[0]
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", section, re.S | re.M)
    rc = [b for b in blocks if b.startswith("IMAPAccount ")]
    script = [b for b in blocks if b.startswith("#!/bin/sh\n")]
    cron = [b for b in blocks if re.match(r"(\S+ ){5}flock ", b)]
    assert len(rc) == len(script) == len(cron) == 1, blocks
    return rc[0], script[0], cron[0].strip()


def recipe_as_written():
    """docs/operating.md's IMAP recipe as a newcomer copies it (~/.mbsyncrc, ~/bin/referee-run, the crontab
    line run by sh as cron would, with cron's short PATH), with this test's servers put in for
    the provider's: host, ports, the run's CA, the account, and the plain submission port."""
    setup()
    rc, script, cron = recipe_blocks()
    subs = [(rc, "Host imap.example.org", "Host 127.0.0.1"), (rc, "Port 993", f"Port {IMAPS_PORT}"),
            (rc, "SSLType IMAPS\n", f"SSLType IMAPS\nCertificateFile {CA}\nSystemCertificates no\n"),
            (script, "send=smtps://smtp.example.org:465", f"send={SUBMISSION}"),
            (script, "PATH=/usr/local/bin:", f"PATH={os.path.dirname(MANCALA)}:")]
    for text, old, _ in subs:
        assert old in text, (old, text)
    for old, new in [(old, new) for text, old, new in subs if text is rc]:
        rc = rc.replace(old, new)
    for old, new in [(old, new) for text, old, new in subs if text is script]:
        script = script.replace(old, new)
    rc, script = (text.replace("referee@example.org", IMAP_USER) for text in (rc, script))
    for d in ("bin", ".cache", "mail"):
        os.makedirs(os.path.join(OP_HOME, d), exist_ok=True)
        os.chown(os.path.join(OP_HOME, d), OPERATOR.pw_uid, OPERATOR.pw_gid)
    run_script = os.path.join(OP_HOME, "bin/referee-run")
    for path, text, mode in ((MBSYNCRC, rc, 0o600), (run_script, script, 0o755)):
        with open(path, "w") as f:
            f.write(text)
        os.chown(path, OPERATOR.pw_uid, OPERATOR.pw_gid)
        os.chmod(path, mode)
    first = as_operator(["mbsync", "-V", "referee"])  # step 4: the first run by hand
    assert first.returncode == 0, first.stdout + first.stderr
    line = cron.split(None, 5)[5]
    cron_env = {"HOME": OP_HOME, "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh", "LOGNAME": OPERATOR.pw_name}

    def cron_run():
        out = subprocess.run(["sh", "-c", line], user=OPERATOR.pw_uid, group=OPERATOR.pw_gid, extra_groups=[],
                             cwd=OP_HOME, env=cron_env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, f"{line}: exit {out.returncode}\n{out.stdout}{out.stderr}{logs()}"
        wait_idle()
        return open(os.path.join(OP_HOME, ".cache/referee-run.log")).read()

    g.send(PLAYERS["Alice"], [REFEREE], g.compose(PLAYERS["Alice"], "a game?", f"new wari with Bob <{PLAYERS['Bob']}>\n"))
    wait_server(1)
    log = cron_run()
    assert "invitation sent by alice@players.example" in log, log
    exactly(1, 1)
    local = os.path.join(OP_HOME, "mail/referee")
    assert files(local, "new") == [] and len(files(local, "cur")) == 1, (files(local, "new"), files(local, "cur"))
    assert os.path.isfile(os.path.join(OP_HOME, ".local/share/mancala-referee/referee.db"))
    g.press_reply(PLAYERS["Bob"], g.newest("bob"), "accept\n")
    wait_server(2)
    cron_run()
    exactly(2, 2)
    assert "Bob accepted" in g.body_of(g.newest("alice"))
    assert len(files(local, "cur")) == 2 and files(local, "new") == []


def main():
    tests = [("a game by IMAP: mbsync, mancala maildir, SMTP submission with AUTH", game_by_imap),
             ("a server certificate the referee cannot verify: the mail waits in new/", unverifiable_certificate),
             ("docs/operating.md's IMAP recipe as written: .mbsyncrc, referee-run, the crontab line", recipe_as_written),
             ("the submission port takes only the referee's login", submission_needs_login)]
    g.run_tests(tests)


if __name__ == "__main__":
    main()
