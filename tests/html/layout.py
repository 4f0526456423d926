#!/usr/bin/env python3
"""The HTML board of the referee's mails, laid out by headless Chromium.

Run by tests/html/layout.sh (which installs Chromium and the fonts if missing):

    python3 tests/html/layout.py PATH_TO_MANCALA [--screenshots DIR]

It plays a short game of every ruleset through `mancala mail --send stdout`
(an invitation, an acceptance, then six moves), takes the text/html part of
every mail the referee sends on the way (and in one more game of Super-Wari,
whose South has the longest name the referee keeps), and has Chromium lay each
one out:

* as sent: the board's own font stack (Arial, Helvetica, sans-serif; Arial is
  Liberation Sans here, Arial's metrics), in a 800 px window and a 360 px one
  (a phone);
* with every font-family stripped (a client that imposes its own font), the
  browser's default font set to DejaVu Serif, in both windows.

Both fonts are proportional, and the test checks that they are: a run of "i"
is far narrower than a run of "M". From getBoundingClientRect it then checks
that every count sits under (or over) its pit's letter, the north row above
the south row, the letters outside the rows, the stores (Waurie, Mankala) at
the two ends spanning both rows, no two cells overlapping, every count inside
its cell, nothing wider than the window (the 360 px one too: no element cut
at its edge or spilling out of its own box, no sideways scroll), the counts
those of the text/plain board, the shaded pit the one that the "Last move"
note names (none before the first move), and in the mail to the player to
move the instruction ([data-next]) under the board, above the log, bold and
larger than any other text below the board (no other mail has one).

Then it breaks the HTML on purpose (a count moved to the end of its row, a
letter row shifted by a cell, the rows swapped, a store moved in between the
pits, a letter pushed onto a count, a count pushed off its centre, a count
changed, the instruction made small or put below the log, the board's table
made too wide for a phone, paragraphs that will not wrap) and checks that
each is caught. `--screenshots DIR` also saves the
board of each ruleset in mid-game as DIR/<ruleset>.png.

Prints a final line `N passed, M failed` and exits non-zero on any failure.
"""

import email
import email.policy
import mailbox
import os
import re
import signal
import subprocess
import sys
import tempfile
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

REFEREE = "referee@referee.example"
ALICE = "Alice <alice@players.example>"
# the longest name the referee keeps (30 characters), with characters to escape
LONG = '"Zo\u00eb & <Max> von Hohenzollern-Sigmaringen" <zoe@players.example>'
BOB = "Bob <bob@players.example>"
RULESETS = {  # ruleset: (pits a row, stores)
    "super-wari": (8, False),
    "wari": (6, False),
    "waurie": (6, True),
    "mankala": (6, True),
    "kalah": (6, True),
}
PLIES = 6
CENTRE = 3.0  # px: a count's centre and its letter's, at most this far apart
EDGE = 1.0  # px: slack for collapsed borders and sub-pixel rounding
DEFAULT_FONT = "DejaVu Serif"
LIMIT = 100  # s, for the whole run once Chromium is installed

passed = 0
failed = 0


def result(name, problems):
    global passed, failed
    if problems:
        failed += 1
        print(f"FAIL {name}")
        for p in problems[:12]:
            print(f"     {p}")
        if len(problems) > 12:
            print(f"     ... and {len(problems) - 12} more")
    else:
        passed += 1
        print(f"ok   {name}")


# --- the referee's mails -----------------------------------------------------

def referee(binary, store, sender, to, body, message_id):
    mail = (f"From: {sender}\nTo: {to}\nSubject: game\nMessage-ID: <{message_id}@players.example>\n"
            f"\n{body}\n")
    run = subprocess.run([binary, "mail", "--from", REFEREE, "--store", os.path.join(store, "referee.db"),
                          "--send", "stdout"],
                         input=mail.encode(), capture_output=True, timeout=30)
    if run.returncode != 0:
        raise RuntimeError(f"mancala mail exited {run.returncode}: {run.stderr.decode()}")
    fd, path = tempfile.mkstemp(dir=store, suffix=".mbox")
    with os.fdopen(fd, "wb") as f:
        f.write(run.stdout)
    box = mailbox.mbox(path, create=False)
    mails = [email.message_from_bytes(m.as_bytes(), policy=email.policy.default) for m in box]
    box.close()
    os.unlink(path)
    if not mails:
        raise RuntimeError(f"mancala mail sent nothing for {body!r}: {run.stderr.decode()}")
    return mails


def to(mails, player):
    address = player.rsplit("<", 1)[1].rstrip(">")
    return next(m for m in mails if address in m["To"])


def play(binary, ruleset, work, south=ALICE):
    """Every mail the referee sends in an invitation, an acceptance and PLIES moves,
    as (label, text/plain part, text/html part)."""
    store = tempfile.mkdtemp(dir=work, prefix=f"store-{ruleset}-")
    out = []

    def keep(label, mails):
        for m in mails:
            who = "North" if "bob@" in m["To"] else "South"
            html = m.get_body(("html",))
            plain = m.get_body(("plain",))
            out.append((f"{label}, to {who}", plain and plain.get_content(),
                        html and html.get_content()))

    mails = referee(binary, store, south, REFEREE, f"new {ruleset} with {BOB}", "new")
    keep("invitation", mails)
    mails = referee(binary, store, BOB, to(mails, BOB)["Reply-To"], "accept", "accept")
    keep("start", mails)
    for ply in range(1, PLIES + 1):
        # Only the mail to the player to move says how to move.
        texts = [mail.get_body(("plain",)).get_content() for mail in mails]
        text = next((t for t in texts if "Legal moves" in t), texts[0])
        # The referee wraps its prose at 72 columns: read the sentence with its line breaks as spaces.
        flat = " ".join(text.split())
        m = re.search(r"It is (.+?)'s move \((North|South)\)\. Legal moves: ([a-h](?:, [a-h])*)\.", flat)
        if not m:
            raise RuntimeError(f"{ruleset}: no move to play after ply {ply - 1}:\n{text}")
        player = south if m.group(2) == "South" else BOB
        legal = m.group(3).split(", ")
        pit = legal[(ply * 3) % len(legal)]
        mover = m.group(2)
        mails = referee(binary, store, player, to(mails, player)["Reply-To"], f"move {pit}",
                        f"move{ply}")
        keep(f"ply {ply} ({mover} moves {pit})", mails)
    return out


def text_board(plain, stores):
    """The counts of the text/plain board: {"south-c": "4", ...} and stores as "store-north"."""
    lines = plain.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("+--"))
    north_letters = lines[top - 1].split()
    grid = []
    i = top
    while i < len(lines) and lines[i][:1] in ("+", "|"):
        grid.append(lines[i])
        i += 1
    south_letters = lines[i].split()
    rows = [line for line in grid if line.startswith("|") and "+" not in line]
    cells = [re.findall(r"\|([^|+]*)(?=\|)", row) for row in rows]
    counts = {}
    if stores:
        cells = [c[1:-1] for c in cells]
        middle = next(line for line in grid if re.match(r"^\|\s*\d+\s*\+", line))
        north_store, south_store = re.match(r"^\|\s*(\d+)\s*\+.*\+\s*(\d+)\s*\|", middle).groups()
        counts["store-north"], counts["store-south"] = north_store, south_store
    north, south = cells
    for letter, value in zip(north_letters, north):
        counts[f"north-{letter}"] = value.strip()
    for letter, value in zip(south_letters, south):
        counts[f"south-{letter}"] = value.strip()
    return counts


# --- the page ------------------------------------------------------------------

MEASURE = r"""
(async () => {
  await document.fonts.ready;
  const box = r => ({l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width, h: r.height});
  const textBox = el => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return range.getClientRects().length ? box(range.getBoundingClientRect()) : null;
  };
  const seen = {};
  const grab = attr => {
    const out = {};
    for (const el of document.querySelectorAll('[' + attr + ']')) {
      const key = el.getAttribute(attr);
      seen[attr + '=' + key] = (seen[attr + '=' + key] || 0) + 1;
      const bg = getComputedStyle(el).backgroundColor;
      out[key] = {cell: box(el.getBoundingClientRect()), text: textBox(el),
                  value: el.textContent.trim(),
                  shaded: bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent'};
    }
    return out;
  };
  const pits = grab('data-pit'), letters = grab('data-letter'), stores = grab('data-store');
  const widths = {};
  const canvas = document.createElement('canvas').getContext('2d');
  for (const [name, sel] of [['pit', '[data-pit]'], ['letter', '[data-letter]']]) {
    const el = document.querySelector(sel);
    if (!el) continue;
    const style = getComputedStyle(el);
    canvas.font = style.fontSize + ' ' + style.fontFamily;
    widths[name] = {family: style.fontFamily, i: canvas.measureText('iiiiiiiiii').width,
                    M: canvas.measureText('MMMMMMMMMM').width};
  }
  const first = document.querySelector('[data-pit]');
  const table = first && first.closest('table');
  let shot = null;
  if (table) {
    // the board and the line under it (stores, captures, the marked pit), cropped
    // to the text: the paragraph's own box is as wide as the window
    let r = table.getBoundingClientRect();
    let right = r.right, bottom = r.bottom;
    const after = table.nextElementSibling;
    if (after && after.tagName === 'P') {
      const range = document.createRange();
      range.selectNodeContents(after);
      const t = range.getBoundingClientRect();
      right = Math.max(right, t.right);
      bottom = Math.max(bottom, t.bottom);
    }
    shot = {x: Math.max(0, r.left - 8), y: Math.max(0, r.top - 8),
            width: right - r.left + 16, height: bottom - r.top + 14};
  }
  // the instruction to move: its size and weight against every other text
  // below the board, and where it stands against the log's table
  const next = document.querySelector('[data-next]');
  let instruction = null;
  if (next && table) {
    const size = e => parseFloat(getComputedStyle(e).fontSize);
    const below = [...document.body.querySelectorAll('*')].filter(e => {
      const at = table.compareDocumentPosition(e);
      return (at & Node.DOCUMENT_POSITION_FOLLOWING) && !(at & Node.DOCUMENT_POSITION_CONTAINED_BY)
        && !next.contains(e) && [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    });
    instruction = {size: size(next), weight: parseInt(getComputedStyle(next).fontWeight),
                   top: next.getBoundingClientRect().top,
                   biggest: Math.max(0, ...below.map(size)),
                   log: Math.min(...[...document.querySelectorAll('table')].filter(t => t !== table)
                                 .map(t => t.getBoundingClientRect().top))};
  }
  return {pits, letters, stores, widths, shot, instruction,
          dups: Object.entries(seen).filter(([k, n]) => n > 1).map(([k]) => k),
          table: table ? box(table.getBoundingClientRect()) : null,
          viewport: window.innerWidth, scroll: document.documentElement.scrollWidth,
          // what is cut at the window's edge or spills out of its own box
          // (and so scrolls sideways, or is hidden, in a mail client)
          overflowing: (wide => wide.filter(e => !wide.some(d => d !== e && e.contains(d))))(
            [...document.body.querySelectorAll('*')]
              .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 ||
                           (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)))
            .map(e => ({tag: e.tagName.toLowerCase(), right: e.getBoundingClientRect().right,
                        text: e.textContent.trim().replace(/\s+/g, ' ').slice(0, 40)}))};
})()
"""


def centre(b):
    return (b["l"] + b["r"]) / 2


def overlap(a, b):
    return (min(a["r"], b["r"]) - max(a["l"], b["l"]) > EDGE and
            min(a["b"], b["b"]) - max(a["t"], b["t"]) > EDGE)


def check_layout(m, ruleset, counts=None):
    """What is wrong with the measured board `m` of `ruleset`, as sentences."""
    pits_a_row, has_stores = RULESETS[ruleset]
    problems = []
    letters_ = "abcdefgh"[:pits_a_row]
    keys = [f"{side}-{p}" for side in ("north", "south") for p in letters_]
    for key in keys:
        if key not in m["pits"]:
            problems.append(f"no count cell data-pit={key}")
        if key not in m["letters"]:
            problems.append(f"no letter cell data-letter={key}")
    extra = (set(m["pits"]) | set(m["letters"])) - set(keys)
    if extra:
        problems.append(f"cells of pits this ruleset has not: {sorted(extra)}")
    if m["dups"]:
        problems.append(f"attributes on more than one cell: {m['dups']}")
    if has_stores != bool(m["stores"]) or (has_stores and set(m["stores"]) != {"north", "south"}):
        problems.append(f"stores: expected {'north and south' if has_stores else 'none'}, "
                        f"found {sorted(m['stores'])}")
    if problems:
        return problems

    pits, letters = m["pits"], m["letters"]
    for key in keys:
        side, pit = key.split("-")
        count, letter = pits[key], letters[key]
        if letter["value"] != pit:
            problems.append(f"the letter cell of {key} says {letter['value']!r}")
        if not re.fullmatch(r"\d+", count["value"]):
            problems.append(f"the count of {key} is {count['value']!r}, not a number")
        off = centre(count["cell"]) - centre(letter["cell"])
        if abs(off) > CENTRE:
            problems.append(f"{key}: the count's cell is {off:+.1f} px off its letter's")
        if count["text"] and letter["text"]:
            off = centre(count["text"]) - centre(letter["text"])
            if abs(off) > CENTRE:
                problems.append(f"{key}: the count {count['value']} is {off:+.1f} px off "
                                f"its letter {letter['value']}")
            t, c = count["text"], count["cell"]
            if t["l"] < c["l"] - EDGE or t["r"] > c["r"] + EDGE or t["t"] < c["t"] - EDGE \
                    or t["b"] > c["b"] + EDGE:
                problems.append(f"{key}: the count {count['value']} spills out of its cell")
        else:
            problems.append(f"{key}: no text drawn for the count or the letter")
        if side == "north" and letter["cell"]["b"] > count["cell"]["t"] + EDGE:
            problems.append(f"{key}: the north letter is not above its count")
        if side == "south" and letter["cell"]["t"] < count["cell"]["b"] - EDGE:
            problems.append(f"{key}: the south letter is not below its count")

    north = [pits[f"north-{p}"]["cell"] for p in letters_]
    south = [pits[f"south-{p}"]["cell"] for p in letters_]
    if max(c["b"] for c in north) > min(c["t"] for c in south) + EDGE:
        problems.append("the north row is not above the south row")
    for name, row in (("north", north), ("south", south)):
        if max(c["t"] for c in row) - min(c["t"] for c in row) > EDGE:
            problems.append(f"the {name} row's cells are not level")
    # each player's own left: South's a at the left, North's a at the right
    south_x = [centre(c) for c in south]
    north_x = [centre(c) for c in north]
    if south_x != sorted(south_x):
        problems.append("South's pits do not run a, b, c, ... from the left")
    if north_x != sorted(north_x, reverse=True):
        problems.append("North's pits do not run a, b, c, ... from the right")

    cells = [(f"count {k}", v["cell"]) for k, v in pits.items()] + \
            [(f"letter {k}", v["cell"]) for k, v in letters.items()]
    if has_stores:
        everything = north + south
        left = min(c["l"] for c in everything)
        right = max(c["r"] for c in everything)
        top = min(c["t"] for c in everything)
        bottom = max(c["b"] for c in everything)
        ns, ss = m["stores"]["north"], m["stores"]["south"]
        if ns["cell"]["r"] > left + EDGE:
            problems.append("North's store is not at the left end, before every pit")
        if ss["cell"]["l"] < right - EDGE:
            problems.append("South's store is not at the right end, after every pit")
        for name, s in (("North", ns), ("South", ss)):
            if abs(s["cell"]["t"] - top) > 2 * EDGE or abs(s["cell"]["b"] - bottom) > 2 * EDGE:
                problems.append(f"{name}'s store does not span both rows")
            if not re.fullmatch(r"\d+", s["value"]):
                problems.append(f"{name}'s store says {s['value']!r}, not a number")
        cells += [(f"store {k}", v["cell"]) for k, v in m["stores"].items()]
    for i, (a, ra) in enumerate(cells):
        for b, rb in cells[i + 1:]:
            if overlap(ra, rb):
                problems.append(f"the {a} cell overlaps the {b} cell")

    if counts is not None:
        shown = {k: v["value"] for k, v in pits.items()}
        shown.update({f"store-{k}": v["value"] for k, v in m["stores"].items()})
        if shown != counts:
            diff = sorted(k for k in set(shown) | set(counts) if shown.get(k) != counts.get(k))
            problems.append("the HTML board is not the text board: " + ", ".join(
                f"{k} {shown.get(k)} in HTML, {counts.get(k)} in text" for k in diff))
    return problems


def check_mark(m, html, label):
    """After a move exactly one pit is shaded, the one the note names; none before."""
    shaded = sorted(k for k, v in m["pits"].items() if v["shaded"])
    # As a browser reads it: a line break in the markup is a space.
    note = re.search(r"Last move: (.+?) sowed ([a-h]) \(marked\)", re.sub(r"\s+", " ", html))
    if label.startswith(("invitation", "start")):
        return [f"pits {shaded} are marked before any move"] if shaded or note else []
    if not note:
        return ["no 'Last move: ... (marked)' note after a move"]
    side = "north" if note.group(1) == "Bob" else "south"
    if shaded != [f"{side}-{note.group(2)}"]:
        return [f"the note says {note.group(1)}'s {note.group(2)} is marked, the board shades {shaded}"]
    return []


def check_instruction(m, plain):
    """The mail to the player to move says how in its most visible text after the board,
    above the log; no other mail has that text."""
    told = plain is not None and "Legal moves" in plain
    i = m["instruction"]
    if not told:
        return ["an instruction to move in a mail to a player not to move"] if i else []
    if not i:
        return ["no instruction to move ([data-next]) under the board"]
    problems = []
    if i["size"] <= i["biggest"] or i["weight"] < 700:
        problems.append(f"the instruction ({i['size']:.0f} px, weight {i['weight']}) is not the most "
                        f"visible text after the board (the biggest other is {i['biggest']:.0f} px)")
    if i["top"] > i["log"]:
        problems.append("the instruction is below the log")
    return problems


def too_wide(m):
    """The page wider than its window, and the innermost elements that make it so."""
    if m["scroll"] <= m["viewport"] + EDGE and not m["overflowing"]:
        return []
    return [f"the page is {m['scroll']} px wide in a {m['viewport']} px window: " + "; ".join(
        f"<{o['tag']}> {o['text']!r} ends at {o['right']:.0f} px" for o in m["overflowing"][:3])]


def strip_fonts(html):
    return re.sub(r"font-family:[^;\"]*;?", "", html)


def render(browser, html, width, scale=1):
    browser.load(html, width, scale=scale)
    return browser.evaluate(MEASURE)


def proportional(m):
    return [f"the {what} font ({w['family']}) looks monospaced: 10 i are {w['i']:.0f} px, "
            f"10 M {w['M']:.0f} px" for what, w in m["widths"].items() if w["M"] < 1.5 * w["i"]]


# --- breaking it on purpose --------------------------------------------------

def cell_re(attr, key):
    return re.compile(rf'<td[^>]*{attr}="{key}"[^>]*>[^<]*</td>')


def move_count_to_row_end(html):
    cell = cell_re("data-pit", "south-c").search(html)
    html = html[:cell.start()] + html[cell.end():]
    end = html.index("</tr>", cell.start())
    return html[:end] + cell.group(0) + html[end:]


def shift_south_letters(html):
    if '<tr><td></td><td data-letter="south-a"' in html:
        return html.replace('<tr><td></td><td data-letter="south-a"', '<tr><td data-letter="south-a"')
    return html.replace('<tr><td data-letter="south-a"', '<tr><td></td><td data-letter="south-a"')


def swap_rows(html):
    rows = re.findall(r"<tr>(?:(?!</tr>).)*data-pit=\"(?:north|south)-a\"(?:(?!</tr>).)*</tr>", html, re.S)
    north, south = rows
    return html.replace(north, "\0").replace(south, north).replace("\0", south)


def store_between_pits(html):
    store = re.search(r'<td rowspan="2" data-store="north"[^>]*>[^<]*</td>', html)
    html = html[:store.start()] + html[store.end():]
    anchor = cell_re("data-pit", "north-c").search(html)
    return html[:anchor.end()] + store.group(0) + html[anchor.end():]


def style_cell(attr, key, extra):
    def edit(html):
        return cell_re(attr, key).sub(
            lambda m: re.sub(r'style="([^"]*)"', rf'style="\1;{extra}"', m.group(0), count=1),
            html, count=1)
    return edit


def change_count(html):
    return cell_re("data-pit", "north-b").sub(
        lambda m: re.sub(r">\d+</td>$", ">99</td>", m.group(0)), html, count=1)


def shade_another_pit(html):
    marked = re.search(r'<td data-pit="([a-z]+-[a-h])"[^>]*background-color:[^>]*>', html)
    other = "south-a" if marked.group(1) != "south-a" else "south-b"
    unshaded = re.sub(r';?background-color:[^;"]*', "", marked.group(0))
    unshaded = re.sub(r' bgcolor="[^"]*"', "", unshaded)
    html = html.replace(marked.group(0), unshaded)
    return style_cell("data-pit", other, "background-color:#ffe08a")(html)


def instruction_below_log(html):
    found = re.search(r'<p data-next="move".*?</p>\n', html, re.S)
    if not found:
        return html
    html = html.replace(found.group(0), "")
    instruction = found.group(0)
    end = html.index("</table>", html.index('cellpadding="2"'))
    return html[:end + len("</table>\n")] + instruction + html[end + len("</table>\n"):]


BREAKAGES = [  # name, rulesets, edit, a word the report must have
    ("a count moved to the end of its row", ["super-wari", "mankala"], move_count_to_row_end,
     "south-c: the count's cell"),
    ("the south letter row shifted by a cell", ["wari", "waurie"], shift_south_letters,
     "off its letter"),
    ("the north and south rows swapped", ["super-wari", "wari"], swap_rows,
     "the north row is not above the south row"),
    ("North's store moved in between the pits", ["waurie", "mankala"], store_between_pits,
     "North's store is not at the left end"),
    ("a letter pushed down onto its count", ["wari", "mankala"],
     style_cell("data-letter", "north-c", "position:relative;top:14px"), "overlaps"),
    ("a count pushed 8 px off its cell's centre", ["super-wari", "waurie"],
     style_cell("data-pit", "south-d", "padding-left:16px"), "south-d: the count"),
    ("a count that is not the text board's", ["wari", "waurie"], change_count,
     "north-b 99 in HTML"),
    ("the shading on another pit than the note's", ["wari", "mankala"], shade_another_pit,
     "the board shades"),
    ("the instruction made small and grey", ["wari", "kalah"],
     lambda html: re.sub(r'(<p data-next="move" style="[^"]*)"',
                         r'\1;font-size:11px;font-weight:normal;color:#444"', html),
     "not the most visible"),
    ("the instruction put below the log", ["super-wari", "waurie"], instruction_below_log,
     "below the log"),
]


WIDTH_BREAKAGES = [  # name, rulesets, edit: each must make the 360 px page too wide
    ("the board's table made 420 px wide", ["wari", "kalah"],
     lambda html: html.replace('<table role="presentation"', '<table width="420" role="presentation"',
                               1)),
    ("paragraphs that will not wrap", ["super-wari", "waurie"],
     lambda html: html.replace('<p style="', '<p style="white-space:nowrap;')),
]


# --- the run -------------------------------------------------------------------

def main():
    global failed
    args = sys.argv[1:]
    shots = None
    if "--screenshots" in args:
        i = args.index("--screenshots")
        shots = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    binary = os.path.abspath(args[0])

    def too_long(signum, frame):
        raise TimeoutError(f"still running after {LIMIT} s")
    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(LIMIT)
    with tempfile.TemporaryDirectory(prefix="mancala-html-") as work:
        log = os.path.join(work, "chromium.log")
        browser = None
        try:
            games = {(r, ""): play(binary, r, work) for r in RULESETS}
            games[("super-wari", ", South with a long name")] = play(binary, "super-wari", work, LONG)
            browser = Browser(log)
            browser.page("Page.setFontFamilies", {"fontFamilies": {
                "standard": DEFAULT_FONT, "serif": DEFAULT_FONT}})
            print(f"# {browser.version}; default font {DEFAULT_FONT}")
            run(browser, games, shots)
        except Exception:
            traceback.print_exc()
            if os.path.exists(log):
                with open(log, errors="replace") as f:
                    sys.stderr.write("chromium's log, last lines:\n" + "".join(f.readlines()[-20:]))
            failed += 1
            print("FAIL the run itself (see above)")
        finally:
            if browser:
                browser.close()
            signal.alarm(0)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def run(browser, games, shots):
    fonts = {}
    for (ruleset, game), mails in games.items():
        for label, plain, html in mails:
            name = f"{ruleset}{game}, {label}"
            if not html or not plain:
                result(name, ["no text/html part" if not html else "no text/plain part"])
                continue
            problems = []
            if re.search(r"<(script|style|link|img|iframe)\b|\bsrc=|url\(|https?://", html, re.I):
                problems.append("the HTML has a script, style sheet, image or remote address")
            try:
                counts = text_board(plain, RULESETS[ruleset][1])
            except (StopIteration, ValueError, AttributeError, IndexError) as e:
                counts = None
                problems.append(f"cannot read the text/plain board: {e!r}")
            for variant, page, width in (("as sent", html, 800), ("as sent, 360 px", html, 360),
                                         ("fonts stripped", strip_fonts(html), 800),
                                         ("fonts stripped, 360 px", strip_fonts(html), 360)):
                m = render(browser, page, width)
                got = [f"{variant}: {p}" for p in proportional(m) + check_layout(m, ruleset, counts)
                       + check_mark(m, html, label) + too_wide(m) + check_instruction(m, plain)]
                if m["table"] and m["table"]["r"] > m["viewport"] + EDGE:
                    got.append(f"{variant}: the board ends at {m['table']['r']:.0f} px, "
                               f"past the {m['viewport']} px window")
                problems += got
                if variant not in fonts and m["pits"]:
                    fonts[variant] = (browser.fonts_of("[data-pit]"), browser.fonts_of("[data-letter]"),
                                      m["widths"], m["table"]["w"])
            result(name, problems)

    for variant, (pit_fonts, letter_fonts, widths, table_w) in fonts.items():
        w = widths["pit"]
        print(f"# {variant}: counts in {', '.join(pit_fonts)}, letters in {', '.join(letter_fonts)} "
              f"(asked for {w['family']}; 10 i {w['i']:.0f} px, 10 M {w['M']:.0f} px); "
              f"board {table_w:.0f} px wide")
    result("the fonts used are proportional ones, not a monospace fallback",
           [f"{v}: {f[0]}" for v, f in fonts.items() if any("Mono" in n for n in f[0] + f[1])])

    for name, rulesets, edit, word in BREAKAGES:
        for ruleset in rulesets:
            # the last mail the edit applies to (the instruction is in the mover's alone)
            mails = games[(ruleset, "")]
            label, plain, html = next((x for x in reversed(mails) if edit(x[2]) != x[2]), mails[-1])
            broken = edit(html)
            problems = []
            if broken == html:
                problems.append("the edit changed nothing")
            m = render(browser, broken, 800)
            found = check_layout(m, ruleset, text_board(plain, RULESETS[ruleset][1])) + \
                check_mark(m, broken, label) + check_instruction(m, plain)
            if not any(word in p for p in found):
                problems.append(f"not caught: no {word!r} among {found}")
            result(f"caught: {name} ({ruleset})", problems)

    for name, rulesets, edit in WIDTH_BREAKAGES:
        for ruleset in rulesets:
            label, plain, html = games[(ruleset, "")][-1]
            broken = edit(html)
            problems = ["the edit changed nothing"] if broken == html else []
            if not too_wide(render(browser, broken, 360)):
                problems.append("not caught: the 360 px page is not found too wide")
            result(f"caught: {name} (360 px, {ruleset})", problems)

    if shots:
        os.makedirs(shots, exist_ok=True)
        for (ruleset, game), mails in games.items():
            if game:
                continue
            label, plain, html = next(x for x in reversed(mails) if "to South" in x[0])
            m = render(browser, html, 800, scale=2)
            path = os.path.join(shots, f"{ruleset}.png")
            browser.screenshot(path, m["shot"])
            print(f"# {path}: {ruleset}, {label}, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
