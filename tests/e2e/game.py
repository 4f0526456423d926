#!/usr/bin/env python3
"""End-to-end mail tests through a real Postfix and procmail on 127.0.0.1.

Run by tests/e2e/run.sh after mail-stack.sh has set the stack up. Players
alice and bob mail the referee over SMTP (smtplib, a real SMTP client) and
read the referee's replies from their own Maildirs, as people would:

* a whole short game of every ruleset, each player only ever pressing
  "reply" (to the Reply-To, referee+<game>-<key>@..., quoting the body) on
  the mail the referee sent them;
* a challenge by mail (`new wari with ...`) starting a game;
* a move forged by the opponent (From: the other player, no key) refused;
* an illegal move, answered to the sender alone with the board unchanged;
* bounces and auto-replies, never answered;
* replies made by real mail clients (mutt, s-nail) from tests/mail/fixtures,
  to sheets@, the referee that keeps no games (the game lives in the mail).

Prints a final line `N passed, M failed` and exits non-zero on any failure.
"""

import email
import email.policy
import mailbox
import os
import re
import smtplib
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MANCALA = os.environ.get("MANCALA_BIN", "/usr/local/bin/mancala")
REFEREE = "referee@referee.example"
SHEETS = "sheets@referee.example"
PLAYERS = {"Alice": "alice@players.example", "Bob": "bob@players.example"}
USER_OF = {address: address.split("@")[0] for address in PLAYERS.values()}
TIMEOUT = 20.0


def maildir(user):
    return mailbox.Maildir(f"/home/{user}/Maildir", factory=None, create=False)


def count(user):
    return len(maildir(user))


def clear():
    subprocess.run(["bash", "-c", f"source {HERE}/lib.sh && clear_maildirs"], check=True)


def send(sender, recipients, message_bytes, envelope_sender=None):
    with smtplib.SMTP("127.0.0.1", 25, timeout=TIMEOUT) as smtp:
        smtp.sendmail(envelope_sender if envelope_sender is not None else sender, recipients, message_bytes)


def wait_for(user, want):
    end = time.time() + TIMEOUT
    while count(user) < want:
        if time.time() > end:
            log = open("/home/referee/procmail.log", errors="replace").read()[-3000:]
            raise AssertionError(f"{user} has {count(user)} mails, wanted {want}\n--- procmail.log\n{log}")
        time.sleep(0.05)


def wait_idle():
    end = time.time() + TIMEOUT
    while "Mail queue is empty" not in subprocess.run(["postqueue", "-p"], capture_output=True, text=True).stdout:
        if time.time() > end:
            raise AssertionError("the mail queue does not empty")
        time.sleep(0.05)
    # procmail may still be running the referee after Postfix handed over.
    time.sleep(0.3)


def newest(user):
    box = maildir(user)
    keys = sorted(box.keys(), key=lambda k: os.path.getmtime(box._lookup(k) and os.path.join(box._path, box._lookup(k))))
    return email.message_from_bytes(box.get_bytes(keys[-1]), policy=email.policy.default)


def body_of(message):
    return message.get_body(preferencelist=("plain",)).get_content()


def show_json(text):
    out = subprocess.run([MANCALA, "show", "-", "--json"], input=text, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    import json
    return json.loads(out.stdout)


def compose(sender, subject, text, in_reply_to=None, cc=None, quoted=None, to=REFEREE):
    lines = [f"From: {sender}", f"To: {to}"]
    if cc:
        lines.append(f"Cc: {cc}")
    lines += [f"Subject: {subject}", f"Message-ID: <{time.time_ns()}@players.example>",
              "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"]
    if in_reply_to:
        lines += [f"In-Reply-To: {in_reply_to}", f"References: {in_reply_to}"]
    body = text
    if quoted is not None:
        body += "\nOn Monday the referee wrote:\n" + "".join(f"> {line}\n" for line in quoted.splitlines())
    return ("\n".join(lines) + "\n\n" + body).encode()


def legal_moves(body):
    match = re.search(r"Legal moves: ([a-h, ]+)\.", body)
    assert match, body
    return [m.strip() for m in match.group(1).split(",")]


def whole_game(ruleset, stones):
    clear()
    start = subprocess.run([MANCALA, "new", ruleset, "--stones", str(stones), "--south", "Alice", "--north", "Bob"],
                           capture_output=True, text=True, check=True).stdout
    first = legal_moves_of_start(ruleset, stones)
    send(PLAYERS["Alice"], [REFEREE, PLAYERS["Bob"]],
         compose(f"Alice <{PLAYERS['Alice']}>", f"{ruleset} game", f"move {first}\n\n{start}", cc=f"Bob <{PLAYERS['Bob']}>"))
    # Bob gets his copy of the challenge too (it was Cc'd); then one mail each per move.
    replies = 0
    for turn in range(400):
        replies += 1
        wait_for("alice", replies)
        wait_for("bob", replies + 1)
        reply_alice, reply_bob = newest("alice"), newest("bob")
        body = body_of(reply_alice)
        assert show_json(body) == show_json(body_of(reply_bob)), "both players get the same board"
        assert reply_alice["Auto-Submitted"] == "auto-replied"
        assert reply_alice["Reply-To"] != reply_bob["Reply-To"], "each player has their own key"
        assert "no move was played" not in body, body
        if "The game is over" in body:
            position = show_json(body)
            assert position["over"] is True and position["winner"] in ("south", "north", "draw"), position
            return replies
        mover = re.search(r"It is (\w+)'s move", body).group(1)
        sender = PLAYERS[mover]
        received = reply_alice if mover == "Alice" else reply_bob
        press_reply(sender, received, f"move {legal_moves(body)[-1]}\n")
    raise AssertionError(f"{ruleset}: no end after {replies} mails")


def press_reply(sender, received, text):
    """What a mail client sends on "reply": to the Reply-To, quoting the body."""
    reply_to = received["Reply-To"].addresses[0].addr_spec
    assert reply_to.startswith("referee+"), reply_to
    send(sender, [reply_to], compose(sender, "Re: " + received["Subject"].removeprefix("Re: "), text,
                                     in_reply_to=received["Message-ID"], quoted=body_of(received), to=reply_to))


def legal_moves_of_start(ruleset, stones):
    out = subprocess.run([MANCALA, "replay", ruleset, "--stones", str(stones), "--json"], capture_output=True, text=True, check=True)
    import json
    return json.loads(out.stdout.splitlines()[0])["legal"][0]


def challenge():
    """Alice challenges Bob by mail; both get the start board with their own keys."""
    clear()
    send(PLAYERS["Alice"], [REFEREE], compose(PLAYERS["Alice"], "a game?", f"new wari with {PLAYERS['Bob']}\n"))
    wait_for("alice", 1)
    wait_for("bob", 1)
    alice, bob = newest("alice"), newest("bob")
    position = show_json(body_of(alice))
    assert position["ruleset"] == "wari" and position["ply"] == 0, position
    game = re.search(r"game (\w{6})", alice["Subject"]).group(1)
    assert game in bob["Subject"] and f"id {game}" in body_of(bob)
    return alice, bob


def illegal_move():
    alice, _ = challenge()
    press_reply(PLAYERS["Alice"], alice, "move z\n")
    wait_for("alice", 2)
    wait_idle()
    assert count("bob") == 1, "a refusal goes to the sender alone"
    body = body_of(newest("alice"))
    assert "no move was played" in body and "'z' is not a pit" in body, body
    assert show_json(body)["ply"] == 0, "the board is unchanged"


def forged_move():
    alice, bob = challenge()
    # Bob writes as Alice, to the referee's plain address, with the board but not her key.
    board = "".join(line + "\n" for line in body_of(bob).splitlines() if "key" not in line and "referee+" not in line)
    send(PLAYERS["Bob"], [REFEREE], compose(PLAYERS["Alice"], "Re: game", "move a\n", quoted=board))
    wait_for("alice", 2)
    body = body_of(newest("alice"))
    assert "no valid game key" in body and "+----" not in body, body
    # Alice's own move, pressing reply, still comes first.
    press_reply(PLAYERS["Alice"], alice, "move b\n")
    wait_for("alice", 3)
    wait_for("bob", 2)
    position = show_json(body_of(newest("bob")))
    assert position["ply"] == 1 and position["south"][1] == 0, position


def never_answered():
    clear()
    sheet = subprocess.run([MANCALA, "new", "wari"], capture_output=True, text=True, check=True).stdout
    bounce = compose("MAILER-DAEMON@players.example", "Undelivered Mail Returned to Sender", "move a\n\n" + sheet)
    send("MAILER-DAEMON@players.example", [REFEREE], bounce, envelope_sender="")
    auto = compose(PLAYERS["Bob"], "Out of office", "move a\n\n" + sheet).replace(b"Subject:", b"Auto-Submitted: auto-replied\nSubject:")
    send(PLAYERS["Bob"], [REFEREE], auto)
    # procmail's recipe files both in ~referee/Maildir/.ignored without running the referee.
    end = time.time() + TIMEOUT
    while len(os.listdir("/home/referee/Maildir/.ignored/new")) < 2:
        assert time.time() < end, "procmail did not file the bounce and the auto-reply"
        time.sleep(0.05)
    wait_idle()
    assert count("alice") == 0 and count("bob") == 0, "no reply to a bounce or an auto-reply"


def client_made_replies():
    for name in ("001-mutt-move-above-quote", "003-snail-move-between-quotes", "002-mutt-flowed-move-below"):
        clear()
        raw = open(os.path.join(REPO, "tests/mail/fixtures", name + ".eml"), "rb").read()
        send(PLAYERS["Bob"], [SHEETS], raw)
        wait_for("bob", 1)
        wait_for("alice", 1)
        body = body_of(newest("alice"))
        assert "Bob played" in body and "no move was played" not in body, body


def main():
    tests = [(f"whole {r} game ({s} stones)", (lambda r=r, s=s: whole_game(r, s)))
             for r, s in (("super-wari", 1), ("wari", 1), ("waurie", 1), ("mankala", 3))]
    tests += [("challenge by mail", challenge), ("forged move", forged_move),
              ("illegal move", illegal_move), ("bounce and auto-reply", never_answered),
              ("replies made by mutt and s-nail", client_made_replies)]
    passed = failed = 0
    for name, test in tests:
        started = time.time()
        try:
            result = test()
            passed += 1
            extra = f", {result} mails each" if isinstance(result, int) else ""
            print(f"ok   {name} ({time.time() - started:.1f}s{extra})", flush=True)
        except Exception:
            failed += 1
            print(f"FAIL {name}", flush=True)
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 and passed > 0 else 1)


if __name__ == "__main__":
    main()
