#!/bin/sh
# Regenerate the mail-client-made fixtures in tests/mail/fixtures/ (the .eml files only;
# the .json files beside them and the hand-written fixtures are not touched).
#
# Not run by CI. Needs mutt, s-nail and tmux (apt-get install mutt s-nail tmux), plus sed and awk.
# Nothing is sent anywhere: both clients hand their mail to a capture script in a temporary folder.
# mutt needs a terminal, so it runs inside a private tmux server (its own socket, killed at the end)
# with `-e 'push <reply><send-message><quit>'`; the "person" is the $editor script below, which
# edits the reply body the way a player would (move line on top, under the quote, ...).
# s-nail runs in batch mode (-#) and edits its reply with the ~| tilde escape.
#
# The clients stamp the real time and a random Message-ID; both are replaced afterwards with fixed
# values (and nothing else is changed, except where a fixture says so) so that regenerating gives
# the same bytes.
#
# Usage: tests/mail/make-fixtures.sh [NNN ...]     (no argument: all of them)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$here/sources
out=$here/fixtures
w=$(mktemp -d "${TMPDIR:-/tmp}/mkfx.XXXXXX")
sock=mkfx.$$
cleanup() {
    tmux -L "$sock" kill-server 2>/dev/null || :
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
    rm -rf "$w"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export TZ=UTC LC_ALL=C.UTF-8 HOME="$w"
mkdir -p "$out"

for tool in mutt s-nail tmux; do
    command -v "$tool" >/dev/null || { echo "make-fixtures: $tool is not installed (apt-get install mutt s-nail tmux)" >&2; exit 1; }
done

want() { # is fixture $1 asked for?
    [ -z "$only" ] && return 0
    case " $only " in *" $1 "*) return 0 ;; esac
    return 1
}
only="$*"

# ---------------------------------------------------------------- helpers

# mbox NAME FILE.eml: a one-message mbox of FILE, as a mail client's folder holds it
mbox() {
    { printf 'From referee@referee.example Mon Nov 30 09:00:00 2026\n'
      sed 's/^\(>*From \)/>\1/' "$2"
      printf '\n'; } > "$w/$1.mbox"
}

# stamp FILE DATE MSGID: fixed Date and Message-ID in the header of FILE
stamp() {
    sed -e "1,/^\$/s/^Date: .*/Date: $2/" -e "1,/^\$/s/^Message-ID: .*/Message-ID: <$3>/" "$1" > "$1.tmp"
    mv "$1.tmp" "$1"
}

# What the "person" does in mutt's editor: $w/top goes right under the header block
# (edit_headers is on), $w/bottom at the end, then $w/sed runs over the whole file.
cat > "$w/edit.sh" <<EOF
#!/bin/sh
awk -v topf="$w/top" -v botf="$w/bottom" '
function dump(fn,  l) { while ((getline l < fn) > 0) print l; close(fn) }
!inbody { print; if (\$0 == "") { inbody = 1; dump(topf) }; next }
{ print }
END { dump(botf) }' "\$1" > "\$1.ed"
sed -f "$w/sed" "\$1.ed" > "\$1"
rm -f "\$1.ed"
EOF
cat > "$w/capture.sh" <<EOF
#!/bin/sh
cat > "$w/sent.tmp" && mv "$w/sent.tmp" "$w/sent"
EOF
chmod +x "$w/edit.sh" "$w/capture.sh"

cat > "$w/muttrc" <<EOF
set folder="$w" spoolfile="$w/none" tmpdir="$w" record="" postpone=no
set mbox_type=mbox move=no quit=yes wait_key=no confirmappend=no
set sendmail="$w/capture.sh" editor="$w/edit.sh"
set realname="Bob" from="bob@players.example" use_from=yes hostname="players.example"
set reply_to=yes include=yes fast_reply=yes edit_headers=yes abort_unmodified=no
set charset="utf-8" send_charset="us-ascii:utf-8" user_agent=yes
EOF

# body TOP BOTTOM [SED]: what the player types (printf %b escapes allowed)
body() {
    printf '%b' "$1" > "$w/top"
    printf '%b' "$2" > "$w/bottom"
    printf '%s\n' "${3:-}" > "$w/sed"
}

# mutt_reply MBOX RESULT [mutt -e commands...]: reply to the first message of MBOX
mutt_reply() {
    mb=$1 res=$2
    shift 2
    rm -f "$w/sent"
    {
        printf 'exec mutt -n -F %s -f %s' "$w/muttrc" "$w/$mb.mbox"
        for e in "$@"; do printf " -e '%s'" "$e"; done
        printf " -e 'push <reply><send-message><quit>'\n"
    } > "$w/run.sh"
    tmux -L "$sock" new-session -d -x 132 -y 40 "sh $w/run.sh"
    i=0
    while [ ! -s "$w/sent" ] || tmux -L "$sock" has-session 2>/dev/null; do
        i=$((i + 1))
        if [ "$i" -gt 100 ]; then
            echo "make-fixtures: mutt did not finish; its screen:" >&2
            tmux -L "$sock" capture-pane -p >&2 || :
            exit 1
        fi
        # mutt stamps the body (in whole seconds) before it starts the editor; when the clock
        # ticked over a second during the edit it asks, as it would a person, whether to look at
        # the changed body again. A person says yes.
        # The prompt eats the pushed <quit>, so mutt is then left in its index: quit it by hand.
        screen=$(tmux -L "$sock" capture-pane -p 2>/dev/null || :)
        case $screen in
            *'modified. Update encoding'*) tmux -L "$sock" send-keys y 2>/dev/null || : ;;
            *'q:Quit'*) [ -s "$w/sent" ] && { tmux -L "$sock" send-keys q 2>/dev/null || :; } ;;
        esac
        sleep 0.2
    done
    mv "$w/sent" "$res"
}

# snail_reply MBOX RESULT AWK [s-nail -S settings...]: reply in batch mode, body filtered by AWK
snail_reply() {
    mb=$1 res=$2 prog=$3
    shift 3
    rm -f "$w/sent"
    printf '%s\n' "$prog" > "$w/filter.awk"
    printf 'reply 1\n~| awk -f %s\n~.\n' "$w/filter.awk" |
        s-nail -:/ -# -S quote=allbodies -S indentprefix='> ' -S reply-to-honour=yes \
            -S from='Bob <bob@players.example>' -S hostname=players.example \
            -S sendcharsets=utf-8 -S mta="$w/capture.sh" "$@" -f "$w/$mb.mbox"
    [ -s "$w/sent" ] || { echo "make-fixtures: s-nail sent nothing" >&2; exit 1; }
    mv "$w/sent" "$res"
}

# put FILE NNN-NAME MINUTE: stamp and store as fixture NNN-NAME.eml
put() {
    n=${2%%-*}
    stamp "$1" "Mon, 30 Nov 2026 09:$3:00 +0000" "bob.$n@players.example"
    cp "$1" "$out/$2.eml"
    echo "made $2.eml"
}

mbox sw "$src/referee-super-wari.eml"
mbox sw3 "$src/referee-super-wari-ply3.eml"
mbox wa "$src/referee-waurie.eml"

# ---------------------------------------------------------------- fixtures

if want 001; then
    body 'move b\n\nYour turn, Alice.\n\n' ''
    mutt_reply sw "$w/r" && put "$w/r" 001-mutt-move-above-quote 05
fi

if want 002; then
    # The player's editor wrote soft line breaks (a trailing space), as vim with fo+=w does;
    # the "From " line gets space-stuffed by mutt.
    body '' '\nMove: g\n\nFrom here on I will play faster, sorry for the slow start. \nIt has been a busy week at work and the \nkids are both ill.\n'
    mutt_reply sw "$w/r" 'set text_flowed=yes' && put "$w/r" 002-mutt-flowed-move-below 06
fi

if want 003; then
    snail_reply sw "$w/r" '{ print }
/^> North: / { print ""; print "MOVE f"; print ""; print "Nice opening, by the way."; print "" }'
    put "$w/r" 003-snail-move-between-quotes 07
fi

if want 004; then
    # Bob asks Alice (To: changed in the editor), Alice answers, Bob moves to the referee.
    body 'Before I move: did you really mean c? It empties your f.\n\n' '' \
        '1,/^$/s/^To: .*/To: Alice <alice@players.example>/'
    mutt_reply sw "$w/c1" && stamp "$w/c1" 'Mon, 30 Nov 2026 09:02:00 +0000' bob.004a@players.example
    { printf 'From bob@players.example Mon Nov 30 09:02:00 2026\n'; cat "$w/c1"; printf '\n'; } > "$w/c1.mbox"
    body 'Yes, c. Stop stalling and move!\n\n' ''
    mutt_reply c1 "$w/c2" 'set realname="Alice" from="alice@players.example"' &&
        stamp "$w/c2" 'Mon, 30 Nov 2026 09:03:00 +0000' alice.004b@players.example
    { printf 'From alice@players.example Mon Nov 30 09:03:00 2026\n'; cat "$w/c2"; printf '\n'; } > "$w/c2.mbox"
    body 'move d\n\nFine, here it is.\n\n' '' \
        '1,/^$/s/^To: .*/To: referee@referee.example\nCc: Alice <alice@players.example>/'
    mutt_reply c2 "$w/r" && put "$w/r" 004-mutt-nested-quotes 08
fi

if want 005; then
    # allow_8bit=no: mutt sends the 8-bit body as quoted-printable
    body 'move h\n\nSorry for the slow reply \342\200\224 I was at my cousin'"'"'s wedding in Z\303\274rich all weekend and did not get near a computer until this morning.\n\n' ''
    mutt_reply sw "$w/r" 'set allow_8bit=no' && put "$w/r" 005-mutt-quoted-printable 09
fi

if want 006; then
    snail_reply sw "$w/r" 'NR == 1 { print "Move a"; print ""; print "Gr\303\274\303\237e aus K\303\266ln,"; print "Bob"; print "" }
{ print }' -S mime-encoding=base64
    put "$w/r" 006-snail-base64 10
fi

if want 007; then
    # mutt 2's send_multipart_alternative: the filter prints the content type, a blank line,
    # then the HTML (a small text-to-HTML filter standing in for the usual markdown one).
    cat > "$w/alt.sh" <<'EOF'
#!/bin/sh
printf 'text/html\n\n'
sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' | awk '
BEGIN { print "<html><head><meta http-equiv=\"content-type\" content=\"text/html; charset=utf-8\"></head><body>" }
/^&gt; ?/ { if (!inq) { if (inp) { print "</p>"; inp = 0 }; print "<blockquote type=\"cite\"><pre>"; inq = 1 }
            sub(/^&gt; ?/, ""); print; next }
inq { print "</pre></blockquote>"; inq = 0 }
/^$/ { if (inp) { print "</p>"; inp = 0 }; next }
{ if (!inp) { printf "<p>"; inp = 1 } else printf "<br>\n"; printf "%s", $0 }
END { if (inq) print "</pre></blockquote>"; if (inp) print "</p>"; print "</body></html>" }'
EOF
    chmod +x "$w/alt.sh"
    body 'move e\n\n' ''
    mutt_reply sw "$w/r" 'set send_multipart_alternative=yes' "set send_multipart_alternative_filter=$w/alt.sh"
    # mutt's boundary is random too: fix it
    b=$(sed -n '1,/^$/s/.*boundary="\([^"]*\)".*/\1/p' "$w/r" | sed 's/[][\.*^$/]/\\&/g')
    sed "s/$b/Fx007aLtErNaTiV/g" "$w/r" > "$w/r.b" && mv "$w/r.b" "$w/r"
    put "$w/r" 007-mutt-multipart-alternative 11
fi

if want 011; then
    printf 'Bob | +64 3 555 1234 | 42 Main St\nChristchurch 8011 | 021 555 0199\n' > "$w/sig"
    body 'Move: h\n\nGood game so far.\n\n' ''
    mutt_reply sw "$w/r" "set signature=$w/sig" && put "$w/r" 011-mutt-signature 15
fi

if want 012; then
    body 'move b-e\n\nDanke, Zo\303\253!\n\n' ''
    mutt_reply wa "$w/r" 'set realname="Jürgen"' && put "$w/r" 012-mutt-waurie-rfc2047-bonus 16
fi

if want 013; then
    # Bill Taylor's way: no move line, the awaited ? in the quoted log replaced by the move.
    body 'Here is the board back with my move filled in.\n\n' '' \
        's/^> 1\.    c      ?$/> 1.    c      e/'
    mutt_reply sw "$w/r" && put "$w/r" 013-mutt-move-in-log 17
fi

if want 014; then
    # An ordinary mutt reply, then every line ending turned into CRLF (as on the SMTP wire,
    # or as a Windows client may save it).
    body 'move g\n\n' ''
    mutt_reply sw "$w/r" && stamp "$w/r" 'Mon, 30 Nov 2026 09:18:00 +0000' bob.014@players.example
    sed 's/$/\r/' "$w/r" > "$out/014-mutt-crlf.eml"
    echo "made 014-mutt-crlf.eml"
fi

if want 015; then
    # An ordinary mutt reply, then the envelope that Postfix's local(8) puts in front when it
    # pipes a mail to procmail or to an alias command: mbox From line, Return-Path,
    # X-Original-To, Delivered-To; the Received header is the one its smtpd
    # added when the mail came in.
    body 'move c\n\n' ''
    mutt_reply sw "$w/r" && stamp "$w/r" 'Mon, 30 Nov 2026 09:05:00 +0000' bob.015@players.example
    { printf 'From bob@players.example  Mon Nov 30 09:05:00 2026\n'
      printf 'Return-Path: <bob@players.example>\n'
      printf 'X-Original-To: referee@referee.example\n'
      printf 'Delivered-To: referee@referee.example\n'
      printf 'Received: from mail.players.example (mail.players.example [192.0.2.25])\n'
      printf '\tby referee.example (Postfix) with ESMTPS id 4F2A81C0412\n'
      printf '\tfor <referee@referee.example>; Mon, 30 Nov 2026 09:05:00 +0000 (UTC)\n'
      cat "$w/r"; } > "$out/015-mutt-postfix-envelope.eml"
    echo "made 015-mutt-postfix-envelope.eml"
fi

if want 016; then
    body 'move z\n\n' ''
    mutt_reply sw "$w/r" && put "$w/r" 016-mutt-not-a-pit 20
fi

if want 017; then
    body 'move c\n\n' ''
    mutt_reply sw3 "$w/r" && put "$w/r" 017-mutt-empty-pit 45
fi

if want 018; then
    body 'move d\n\n' '' 's/^> 1\.    c      ?$/> 1.    c      g/'
    mutt_reply sw "$w/r" && put "$w/r" 018-mutt-move-and-log-disagree 22
fi

if want 019; then
    body 'thanks!\n\n' ''
    mutt_reply sw "$w/r" && put "$w/r" 019-mutt-no-move 23
fi
