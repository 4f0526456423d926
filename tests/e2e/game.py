#!/usr/bin/env python3
"""End-to-end mail tests through a real Postfix and procmail on 127.0.0.1.

Run by tests/e2e/run.sh, under mail-stack.sh: a Postfix instance of the test's
own (config in $E2E_POSTFIX, SMTP on 127.0.0.1:$E2E_SMTP_PORT, log in
$E2E_MAILLOG) and the test's own accounts (mcr-referee, mcr-alice, mcr-bob).
Players alice and bob mail the referee over SMTP (smtplib, a real SMTP client)
and read the referee's replies from their own Maildirs, as people would:

* a whole short game of every ruleset, each player only ever pressing
  "reply" (to the Reply-To, referee+<game>-<key>@..., quoting the body) on
  the mail the referee sent them;
* a challenge by mail (`new wari with ...`) starting a game;
* a move forged by the opponent (From: the other player, no key) refused;
* an illegal move, answered to the sender alone with the board unchanged;
* a move while the referee cannot write its store: it exits 75, Postfix keeps
  the mail (status=deferred) and nobody gets a reply; once the store is
  writable again a flush of the queue plays the move exactly once;
* bounces and auto-replies, never answered;
* replies made by real mail clients (mutt, s-nail) from tests/mail/fixtures,
  to sheets@, the referee that keeps no games (the game lives in the mail);
* the mail commands in one game (`preview`, `if ... then`, `takeback`, `offer draw`,
  `accept`), the draw then counted by `mancala ratings`.

Prints a final line `N passed, M failed` and exits non-zero on any failure.
`game.py WORD...` runs only the tests whose name has one of the words.
"""

import email
import email.policy
import json
import mailbox
import os
import pwd
import re
import shutil
import smtplib
import stat
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MANCALA = os.environ["MANCALA_BIN"]
POSTFIX = os.environ["E2E_POSTFIX"]  # the instance's config_directory, for postqueue -c
MAILLOG = os.environ["E2E_MAILLOG"]
SMTP_PORT = int(os.environ.get("E2E_SMTP_PORT", "2525"))
REFEREE = "referee@referee.example"
SHEETS = "sheets@referee.example"
PLAYERS = {"Alice": "alice@players.example", "Bob": "bob@players.example"}
# The accounts behind the addresses (made by mail-stack.sh; E2E_USERS in lib.sh).
ACCOUNT = {"referee": "mcr-referee", "alice": "mcr-alice", "bob": "mcr-bob", "carol": "mcr-carol",
           "bill": "mcr-bill"}
BILL = "bill@players.example"
CAROL = "carol@players.example"
TIMEOUT = 20.0


def home(user):
    return pwd.getpwnam(ACCOUNT[user]).pw_dir


def maildir(user):
    return mailbox.Maildir(os.path.join(home(user), "Maildir"), factory=None, create=False)


def count(user):
    return len(maildir(user))


def clear():
    """Empty mailboxes and a new referee store: each test starts on a fresh day for the
    referee's daily limits (3 invitations an address, 3 answers to a stranger)."""
    subprocess.run(["bash", "-c", f"source {HERE}/lib.sh && clear_maildirs"], check=True)
    for user in ("referee", "bill"):
        shutil.rmtree(os.path.join(home(user), ".local/share/mancala-referee"), ignore_errors=True)


def send(sender, recipients, message_bytes, envelope_sender=None):
    with smtplib.SMTP("127.0.0.1", SMTP_PORT, timeout=TIMEOUT) as smtp:
        smtp.sendmail(envelope_sender if envelope_sender is not None else sender, recipients, message_bytes)


def procmail_log():
    return open(os.path.join(home("referee"), "procmail.log"), errors="replace").read()


def maillog():
    return open(MAILLOG, errors="replace").read()


def logs():
    return f"\n--- procmail.log\n{procmail_log()[-3000:]}\n--- maillog\n{maillog()[-3000:]}"


def wait_until(done, what):
    end = time.time() + TIMEOUT
    while not (result := done()):
        if time.time() > end:
            raise AssertionError(f"{what}, after {TIMEOUT:.0f}s{logs()}")
        time.sleep(0.05)
    return result


def wait_for(user, want):
    wait_until(lambda: count(user) >= want, f"{user} has {count(user)} mails, wanted {want}")


def queue():
    """The instance's queue, one dict a mail (postqueue -j: queue_id, queue_name, ...); None
    when postqueue fails (the wait loops then try again)."""
    out = subprocess.run(["postqueue", "-c", POSTFIX, "-j"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def wait_idle():
    wait_until(lambda: queue() == [], "the mail queue does not empty")
    # procmail may still be running the referee after Postfix handed over.
    time.sleep(0.3)


def wait_log(pattern, what):
    """The first match of PATTERN (a line of the mail log) once Postfix has logged it."""
    return wait_until(lambda: re.search(pattern, maillog(), re.M), f"the mail log shows no {what}")


def newest(user, copy=None):
    """The newest mail in user's inbox; with copy=True the newest the referee wrote (it carries
    its X-Loop header), with copy=False the newest a person wrote."""
    box = maildir(user)
    keys = sorted(box.keys(), key=lambda k: os.path.getmtime(box._lookup(k) and os.path.join(box._path, box._lookup(k))))
    mails = [email.message_from_bytes(box.get_bytes(k), policy=email.policy.default) for k in keys]
    if copy is not None:
        mails = [m for m in mails if ("X-Loop" in m) == copy]
    return mails[-1]


def body_of(message):
    return message.get_body(preferencelist=("plain",)).get_content()


def show_json(text):
    out = subprocess.run([MANCALA, "show", "-", "--json"], input=text, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
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
    # Bob gets his copy of the start (it was Cc'd) and the referee's invitation, with the
    # board after Alice's first move; Alice a word that the invitation went.
    wait_for("alice", 1)
    wait_for("bob", 2)
    invitation = newest("bob")
    body = body_of(invitation)
    assert "invites you" in body and "Your first move accepts" in body, body
    assert "invitation to bob@players.example is sent" in body_of(newest("alice")), body_of(newest("alice"))
    # Bob's first move accepts; then one mail each per move.
    press_reply(PLAYERS["Bob"], invitation, f"move {legal_moves(body)[-1]}\n")
    alice_mails, bob_mails = 1, 2
    for turn in range(400):
        alice_mails += 1
        bob_mails += 1
        wait_for("alice", alice_mails)
        wait_for("bob", bob_mails)
        reply_alice, reply_bob = newest("alice"), newest("bob")
        body = body_of(reply_alice)
        assert show_json(body) == show_json(body_of(reply_bob)), "both players get the same board"
        assert reply_alice["Auto-Submitted"] == "auto-replied"
        assert reply_alice["Reply-To"] != reply_bob["Reply-To"], "each player has their own key"
        assert "no move was played" not in body, body
        if "The game is over" in body:
            position = show_json(body)
            assert position["over"] is True and position["winner"] in ("south", "north", "draw"), position
            return alice_mails
        # Only the mail to the player to move says how to move.
        mover_body = next(b for b in (body, body_of(reply_bob)) if "Legal moves" in b)
        mover = re.search(r"It is (\w+)'s move", mover_body).group(1)
        sender = PLAYERS[mover]
        received = reply_alice if mover == "Alice" else reply_bob
        press_reply(sender, received, f"move {legal_moves(mover_body)[-1]}\n")
    raise AssertionError(f"{ruleset}: no end after {alice_mails} mails")


def press_reply(sender, received, text):
    """What a mail client sends on "reply": to the Reply-To, quoting the body. Returns its Message-ID."""
    reply_to = received["Reply-To"].addresses[0].addr_spec
    assert reply_to.startswith("referee+"), reply_to
    message = compose(sender, "Re: " + received["Subject"].removeprefix("Re: "), text,
                      in_reply_to=received["Message-ID"], quoted=body_of(received), to=reply_to)
    send(sender, [reply_to], message)
    return re.search(rb"^Message-ID: <([^>]+)>$", message, re.M).group(1).decode()


def legal_moves_of_start(ruleset, stones):
    out = subprocess.run([MANCALA, "replay", ruleset, "--stones", str(stones), "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[0])["legal"][0]


def challenge(alice=PLAYERS["Alice"]):
    """Alice invites Bob by mail, Bob accepts by pressing reply; both then get the start
    board with their own keys. ALICE is her From: bare, the referee calls her alice; as
    "Alice <...>", Alice."""
    clear()
    send(PLAYERS["Alice"], [REFEREE], compose(alice, "a game?", f"new wari with Bob <{PLAYERS['Bob']}>\n"))
    wait_for("alice", 1)
    wait_for("bob", 1)
    invitation = newest("bob")
    body = body_of(invitation)
    assert "invites you" in body and "accept" in body and "decline" in body, body
    game = re.search(r"(?:^|\s)([a-km-z2-9]{6}):", invitation["Subject"]).group(1)
    assert f"id {game}" in body, body
    press_reply(PLAYERS["Bob"], invitation, "accept\n")
    wait_for("alice", 2)
    wait_for("bob", 2)
    alice, bob = newest("alice"), newest("bob")
    position = show_json(body_of(alice))
    assert position["ruleset"] == "wari" and position["ply"] == 0, position
    assert game in alice["Subject"] and game in bob["Subject"]
    assert "Bob accepted" in body_of(alice), body_of(alice)
    return alice, bob


def illegal_move():
    alice, _ = challenge()
    press_reply(PLAYERS["Alice"], alice, "move z\n")
    wait_for("alice", 3)
    wait_idle()
    assert count("bob") == 2, "a refusal goes to the sender alone"
    body = body_of(newest("alice"))
    assert "no move was played" in body and "'z' is not a pit" in body, body
    assert show_json(body)["ply"] == 0, "the board is unchanged"


def forged_move():
    alice, bob = challenge()
    # Bob writes as Alice, to the referee's plain address, with the board but not her key:
    # the answer goes to Alice's own address (Bob learns nothing) and moves nothing.
    board = "".join(line + "\n" for line in body_of(bob).splitlines() if "key" not in line and "referee+" not in line)
    send(PLAYERS["Bob"], [REFEREE], compose(PLAYERS["Alice"], "Re: game", "move a\n", quoted=board))
    wait_for("alice", 3)
    wait_idle()
    assert count("bob") == 2, "nothing to the forger"
    body = body_of(newest("alice"))
    assert "carries no game key, so it moved nothing" in body, body
    assert show_json(body)["ply"] == 0, body
    # Alice's own move, pressing reply, still comes first.
    press_reply(PLAYERS["Alice"], alice, "move b\n")
    wait_for("alice", 4)
    wait_for("bob", 3)
    position = show_json(body_of(newest("bob")))
    assert position["ply"] == 1 and position["south"][1] == 0, position


def says(body, text):
    """Does BODY say TEXT, however the referee wrapped its lines? A sentence to its reader
    may open with "You" or, after the headline's dash, "you": either is TEXT's "you"."""
    flat = " ".join(body.split())
    text = " ".join(text.split())
    return text in flat or (text.startswith("you ") and "You" + text[3:] in flat)


def sheet_after(text, *pits):
    """The sheet of TEXT (a mail's body: the game as it stands, not the sheets marked
    'Not the game:') after PITS, a whole turn each, played by `mancala move`, which refuses
    an illegal one."""
    for pit in pits:
        out = subprocess.run([MANCALA, "move", "-", pit], input=text, capture_output=True, text=True)
        assert out.returncode == 0, f"move {pit}: {out.stderr}\n{text}"
        text = out.stdout
    return text


def answered(sender, received, text, to=("alice", "bob")):
    """SENDER ("Alice" or "Bob") presses reply on RECEIVED with TEXT; the referee's answer
    is one mail to each player of TO and nothing to the other. Returns {user: that mail}."""
    players = ("alice", "bob")
    before = {user: count(user) for user in players}
    press_reply(PLAYERS[sender], received, text)
    for user in to:
        wait_for(user, before[user] + 1)
    wait_idle()
    after = {user: count(user) for user in players}
    assert after == {user: n + (user in to) for user, n in before.items()}, \
        f"{sender}'s {text!r}: one mail each to {to}, but {before} -> {after}\n{body_of(newest(to[0]))}"
    return {user: newest(user) for user in to}


def commands_in_one_game():
    """The mail commands after pbmserv in one Wari game, each player only pressing reply on
    the referee's latest mail to them: Alice's preview (to her alone, nothing played); her
    move with a conditional move, kept from Bob and played at once when his reply is the one
    she foresaw; Bob's move taken back with Alice's accept; Bob's move with a draw offer,
    accepted; and the draw in `mancala ratings`."""
    alice, _ = challenge(alice=f"Alice <{PLAYERS['Alice']}>")
    start = body_of(alice)
    # Alice's move, Bob's reply she foresees, and her answer to it (legal, by mancala move).
    pit = show_json(start)["legal"][0]
    reply = show_json(sheet_after(start, pit))["legal"][-1]
    answer = show_json(sheet_after(start, pit, reply))["legal"][-1]

    # 1. preview: to Alice alone; the game is unchanged.
    alice = answered("Alice", alice, f"preview {pit} {reply}\n", to=("alice",))["alice"]
    body = body_of(alice)
    assert says(body, "nothing is played"), body
    assert says(body, f"a preview of {pit} {reply}"), body
    assert re.search(r"^Not the game: a preview, nothing is played\.", body, re.M), body
    assert show_json(body) == show_json(start), f"a reply still reads the start, no moves:\n{body}"

    # 2. A move and a conditional move: kept for Bob's turn, never shown to him; his reply
    # brings Alice's answer at once, and Bob is to move again.
    mails = answered("Alice", alice, f"move {pit}\nif {reply} then {answer}\n")
    body = body_of(mails["alice"])
    assert says(body, f"kept for Bob's next turn (Bob does not see them): if {reply} then {answer}"), body
    body = body_of(mails["bob"])
    assert f"if {reply} then" not in body and "conditional" not in body, f"Bob never sees it:\n{body}"
    mails = answered("Bob", mails["bob"], f"move {reply}\n")
    after_answer = show_json(sheet_after(start, pit, reply, answer))
    assert after_answer["ply"] == 3 and after_answer["to_move"] == "north", after_answer
    for who, mail in mails.items():
        body = body_of(mail)
        whose = "your" if who == "alice" else "Alice's"
        assert says(body, f"By {whose} conditional move (if {reply} then {answer})"), body
        assert show_json(body) == after_answer, f"Alice's answer {answer} is played:\n{body}"

    # 3. takeback: Bob moves, asks to take it back, Alice accepts; Bob is to move again.
    before = body_of(mails["bob"])
    bobs = show_json(before)["legal"][0]
    mails = answered("Bob", mails["bob"], f"move {bobs}\n")
    assert show_json(body_of(mails["bob"]))["ply"] == 4, body_of(mails["bob"])
    mails = answered("Bob", mails["bob"], "takeback\n")
    body = body_of(mails["alice"])
    assert says(body, f"Bob asks to take back their last turn ({bobs})"), body
    mails = answered("Alice", mails["alice"], "accept\n")
    for who, mail in mails.items():
        body = body_of(mail)
        said = {"alice": f"you accepted Bob's takeback: Bob's last turn ({bobs}) is undone",
                "bob": f"Alice accepted your takeback: your last turn ({bobs}) is undone"}[who]
        assert says(body, said), body
        assert show_json(body) == show_json(before), f"the sheet is back to before Bob's {bobs}:\n{body}"

    # 4. offer draw with a move, in one mail; Alice accepts: drawn by agreement.
    draw_pit = show_json(before)["legal"][-1]
    mails = answered("Bob", mails["bob"], f"move {draw_pit}\noffer draw\n")
    body = body_of(mails["alice"])
    assert says(body, "Bob offers a draw"), body
    assert show_json(body) == show_json(sheet_after(before, draw_pit)), f"Bob's {draw_pit} is played:\n{body}"
    mails = answered("Alice", mails["alice"], "accept\n")
    for who, mail in mails.items():
        body = body_of(mail)
        said = {"alice": "you accepted Bob's draw offer: the game is drawn",
                "bob": "Alice accepted your draw offer: the game is drawn"}[who]
        assert says(body, said), body
        assert says(body, "drawn by agreement"), body
        position = show_json(body)
        assert position["over"] and position["winner"] == "draw" and position["reason"] == "agreement", position

    # 5. The referee's ratings count the draw for both.
    store = os.path.join(home("referee"), ".local/share/mancala-referee/referee.db")
    out = subprocess.run([MANCALA, "ratings", "--json", "--store", store], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    ratings = {r["name"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert sorted(ratings) == ["Alice", "Bob"], out.stdout
    assert all(r["draws"] == 1 and r["games"] == 1 for r in ratings.values()), out.stdout


def turns_of(database, game):
    """The turns the referee's store holds for GAME. (Its write-ahead log is read too;
    closing folds it into the file and removes it, so no file of root's is left beside.)"""
    import sqlite3
    db = sqlite3.connect(database)
    try:
        return db.execute("SELECT COUNT(*) FROM turns WHERE game = ?", (game,)).fetchone()[0]
    finally:
        db.close()


def files_in(user):
    """Every file in USER's Maildir and its folders (new, cur and tmp)."""
    return sum(len(files) for _, _, files in os.walk(os.path.join(home(user), "Maildir")))


def deferred_while_store_unwritable():
    """Exit 75 defers: the referee cannot write its store, so it exits 75, procmail exits 75
    and Postfix keeps the move (status=deferred), with no reply to anyone and no copy filed;
    with the store writable again, a flush of the queue plays the move exactly once."""
    alice, _ = challenge()
    game = re.search(r"(?:^|\s)([a-km-z2-9]{6}):", alice["Subject"]).group(1)
    store = os.path.join(home("referee"), ".local/share/mancala-referee")
    database = os.path.join(store, "referee.db")
    assert turns_of(database, game) == 0, os.listdir(store)
    wait_idle()
    players = ("alice", "bob")
    before = {user: count(user) for user in players}
    kept = files_in("referee")
    # Unwritable for the referee: owned by root, mode 555 (the referee's own folder with
    # mode 555 would do too, but its owner could still chmod it).
    owner, file_owner = os.stat(store), os.stat(database)
    os.chown(store, 0, 0)
    os.chmod(store, 0o555)
    os.chown(database, 0, 0)
    os.chmod(database, 0o444)
    try:
        message_id = press_reply(PLAYERS["Alice"], alice, "move b\n")
        queue_id = wait_log(rf"\]: (\w+): message-id=<{re.escape(message_id)}>$", "queue id of the move").group(1)
        to_referee = rf"\]: {queue_id}: to=<{ACCOUNT['referee']}\+[^>]*>,"
        line = wait_log(rf"{to_referee}.*$", "delivery of the move").group(0)
        assert "status=deferred" in line, line
        # It waits in the deferred queue, alone: any reply would have entered the queue
        # before the referee exited.
        wait_until(lambda: [(m["queue_id"], m["queue_name"]) for m in queue() or []] == [(queue_id, "deferred")],
                   f"the queue holds more or less than {queue_id}, deferred: {queue()}")
        assert 'Program failure (75) of "mancala"' in procmail_log(), procmail_log()[-3000:]
        assert {user: count(user) for user in players} == before, "no reply while the move is deferred"
        assert files_in("referee") == kept, "a deferred mail is filed nowhere"
        assert turns_of(database, game) == 0, "nothing is played yet"
    finally:
        os.chown(store, owner.st_uid, owner.st_gid)
        os.chmod(store, stat.S_IMODE(owner.st_mode))
        os.chown(database, file_owner.st_uid, file_owner.st_gid)
        os.chmod(database, stat.S_IMODE(file_owner.st_mode))
    subprocess.run(["postqueue", "-c", POSTFIX, "-f"], check=True)
    wait_log(rf"{to_referee}.*status=sent", "delivery of the move after the flush")
    for user in players:
        wait_for(user, before[user] + 1)
    wait_idle()
    assert {user: count(user) for user in players} == {user: n + 1 for user, n in before.items()}, \
        "exactly one reply each to the move"
    assert turns_of(database, game) == 1  # (which move: the boards below)
    for user in players:
        position = show_json(body_of(newest(user)))
        assert position["ply"] == 1 and position["south"][1] == 0, position


def bills_own_mailbox():
    """The broadcast's way: Alice replies to Bill's own address with the board and her first
    move; Bill's procmail filter (mancala mail --owner ... --filter) referees it, answers her
    through Postfix, and files Bill's copy of the new board in his inbox; Bill moves by
    replying to his copy, to his own address. Mail about no game reaches him unchanged."""
    clear()
    broadcast = open(os.path.join(REPO, "tests/data/seed-000.txt")).read()
    send(PLAYERS["Alice"], [BILL], compose(f"Yourname <{PLAYERS['Alice']}>", "Re: Super-Wari",
                                           "Move: c\n", quoted=broadcast, to=f"Bill Taylor <{BILL}>"))
    # Bill's inbox gets each move mail as it came, and the referee's copy of the new board beside it.
    bill_mails, alice_mails = 2, 1
    move = "Move: c"
    for turn in range(8):
        wait_for("bill", bill_mails)
        wait_for("alice", alice_mails)
        copy, answer = newest("bill", copy=True), newest("alice")
        assert move in body_of(newest("bill", copy=False)), "the mover's own mail reaches Bill whole"
        copy_body, answer_body = body_of(copy), body_of(answer)
        assert "no move was played" not in copy_body + answer_body, copy_body + answer_body
        position = show_json(copy_body)
        assert position == show_json(answer_body), "Bill's copy and Alice's mail show one board"
        assert answer["From"].addresses[0].addr_spec == BILL, answer["From"]
        legal = position["legal"]
        if position["to_move"] == "north":  # Bill presses reply on his copy
            reply_to = copy["Reply-To"].addresses[0].addr_spec
            assert reply_to == BILL, reply_to
            move = f"move {legal[-1]}"
            send(BILL, [reply_to], compose(f"Bill Taylor <{BILL}>", "Re: Super-Wari", move + "\n",
                                           quoted=copy_body, to=reply_to))
        else:
            move = f"move {legal[0]}"
            send(PLAYERS["Alice"], [BILL], compose(PLAYERS["Alice"], "Re: Super-Wari", move + "\n",
                                                   quoted=answer_body, to=BILL))
        bill_mails += 2
        alice_mails += 1
    wait_for("bill", bill_mails)
    wait_for("alice", alice_mails)
    assert show_json(body_of(newest("bill", copy=True)))["ply"] >= 9
    # A mail about no game reaches Bill as it was sent.
    lunch = compose(PLAYERS["Bob"], "Lunch?", "Lunch tomorrow? I could move a chair.\n", to=BILL)
    send(PLAYERS["Bob"], [BILL], lunch)
    wait_for("bill", bill_mails + 1)
    wait_idle()
    got = newest("bill")
    sent_id = re.search(rb"^Message-ID: (<[^>]+>)$", lunch, re.M).group(1).decode()
    assert got["Message-ID"] == sent_id and got["Subject"] == "Lunch?", (got["Message-ID"], sent_id)
    assert body_of(got).strip() == "Lunch tomorrow? I could move a chair.", body_of(got)
    assert count("bob") == 0, "nothing is sent about a mail that is no game"


def broadcast_reply(player, name, sown, whole):
    """The reply the broadcast asks for, made exactly so: its board pasted, the name written
    twice, the first move (c) in place of the `?`, the stones sown or not, no move line;
    the broadcast's whole text around it, or the board and log alone."""
    broadcast = open(os.path.join(REPO, "tests/data/seed-000.txt")).read()
    text = broadcast.replace("Yourname", name).replace("1.    ?", "1.    c")
    if sown:  # c's three stones sown into d, e and f
        row = "|  3 |  3 |  3 |  3 |  3 |  3 |  3 |  3 |   " + name
        assert row in text, text
        text = text.replace(row, "|  3 |  3 |  0 |  4 |  4 |  4 |  3 |  3 |   " + name)
    if not whole:
        start = text.index("   h    g    f")
        text = text[start:text.index("4.", start) + 2] + "\n"
    return compose(f"{name} <{player}>", "Re: Super-Wari", text, to=f"Bill Taylor <{BILL}>")


def bills_mailbox_as_the_broadcast_asks():
    """Issue 43, through Bill's procmail filter: a reply made exactly as the broadcast asks (log
    only; log and board; the whole text) starts a game and both get the board with the move; a
    reply to an older mail is refused as out of date and changes nothing; the start board
    pasted again restarts nothing; Bill's move at the terminal (mancala move --game) reaches
    the player."""
    clear()
    store = os.path.join(home("bill"), ".local/share/mancala-referee/referee.db")
    ways = [("alice", "Alice", False, False), ("bob", "Bob", True, False), ("carol", "Carol", False, True)]
    for user, name, sown, whole in ways:
        player = f"{user}@players.example"
        bill_before, player_before = count("bill"), count(user)
        send(player, [BILL], broadcast_reply(player, name, sown, whole))
        wait_for("bill", bill_before + 2)  # the player's mail, and Bill's board
        wait_for(user, player_before + 1)
        answer, copy = newest(user), newest("bill", copy=True)
        assert "no move was played" not in body_of(answer), body_of(answer)
        position = show_json(body_of(answer))
        assert position == show_json(body_of(copy)), "one board for both"
        assert position["ply"] == 1 and position["to_move"] == "north", position
    games = subprocess.run([MANCALA, "games", "--json", "--store", store], capture_output=True, text=True)
    assert games.returncode == 0 and len(games.stdout.splitlines()) == 3, games.stdout + games.stderr
    # Carol's game: Bill moves at the terminal.
    first = newest("carol")
    game = re.search(r"(?:^|\s)([a-km-z2-9]{6}):", first["Subject"]).group(1)
    before = count("carol")
    bill_move = subprocess.run(
        ["runuser", "-u", ACCOUNT["bill"], "--", MANCALA, "move", "--game", game, "e",
         "--owner", f"Bill Taylor <{BILL}>", "--store", store, "--send", f"smtp://127.0.0.1:{SMTP_PORT}"],
        capture_output=True, text=True)
    assert bill_move.returncode == 0, bill_move.stderr
    assert "you played e" in bill_move.stdout, bill_move.stdout
    wait_for("carol", before + 1)
    assert "Bill played e" in body_of(newest("carol")), body_of(newest("carol"))
    assert turns_of(store, game) == 2
    # Carol answers her first mail, not the latest: out of date, nothing changes.
    before = count("carol")
    send(CAROL, [BILL], compose(f"Carol <{CAROL}>", "Re: Super-Wari", "move d\n", quoted=body_of(first),
                                in_reply_to=first["Message-ID"], to=first["Reply-To"].addresses[0].addr_spec))
    wait_for("carol", before + 1)
    assert "out of date" in body_of(newest("carol")), body_of(newest("carol"))
    assert turns_of(store, game) == 2, "the game did not change"
    # The start board pasted again, for the game under way: it restarts nothing.
    before = count("carol")
    send(CAROL, [BILL], broadcast_reply(CAROL, "Carol", False, False))
    wait_for("carol", before + 1)
    assert "under way" in body_of(newest("carol")), body_of(newest("carol"))
    assert turns_of(store, game) == 2
    games = subprocess.run([MANCALA, "games", "--json", "--store", store], capture_output=True, text=True)
    assert len(games.stdout.splitlines()) == 3, games.stdout

def never_answered():
    clear()
    sheet = subprocess.run([MANCALA, "new", "wari"], capture_output=True, text=True, check=True).stdout
    bounce = compose("MAILER-DAEMON@players.example", "Undelivered Mail Returned to Sender", "move a\n\n" + sheet)
    send("MAILER-DAEMON@players.example", [REFEREE], bounce, envelope_sender="")
    auto = compose(PLAYERS["Bob"], "Out of office", "move a\n\n" + sheet).replace(b"Subject:", b"Auto-Submitted: auto-replied\nSubject:")
    send(PLAYERS["Bob"], [REFEREE], auto)
    # procmail's recipe files both in ~referee/Maildir/.ignored without running the referee.
    end = time.time() + TIMEOUT
    while len(os.listdir(os.path.join(home("referee"), "Maildir/.ignored/new"))) < 2:
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
              ("illegal move", illegal_move),
              ("a move deferred (exit 75) while the store is unwritable", deferred_while_store_unwritable),
              ("bounce and auto-reply", never_answered),
              ("a whole game on Bill's own mailbox, through his procmail filter", bills_own_mailbox),
              ("Bill's mailbox as the broadcast asks: log only, log and board, the whole text; "
               "an old reply, the start board again, Bill at the terminal", bills_mailbox_as_the_broadcast_asks),
              ("replies made by mutt and s-nail", client_made_replies),
              ("mail commands in one game: preview, if-then, takeback, offer draw, ratings",
               commands_in_one_game)]
    # game.py [WORD...]: only the tests whose name has one of the words (for a quick look:
    # tests/e2e/mail-stack.sh BIN python3 tests/e2e/game.py deferred).
    run_tests(tests)


def run_tests(tests):
    """Runs (name, test) pairs, those named by a word on the command line if any; prints a
    line a test and `N passed, M failed`, and exits 0 only when all of at least one passed."""
    if sys.argv[1:]:
        tests = [(name, test) for name, test in tests if any(word in name for word in sys.argv[1:])]
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
