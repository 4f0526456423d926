#!/usr/bin/env bash
# Reproduces the solutions in boards/solutions/ from a clean checkout, each
# then checked a second, independent way, and says whether both agree with
# the answer the solution file records (its first line starting {"exact").
#
#   boards/solutions/reproduce.sh quick            # under a minute of CPU: kalah-small (to 4x4, 5x3, 6x2), waurie-2 on the shipped tables
#   boards/solutions/reproduce.sh NAME...          # kalah-small waurie-2 waurie-3 mankala-3 kalah-4 kalah-4-empty-capture kalah-5-empty-capture kalah-5 mankala-4-bounds
#   boards/solutions/reproduce.sh all              # every one: hours (mankala-3's tables alone ~30 min)
#
# Tables go to $TABLES (default /var/tmp/mancala-tables); the binary is
# target/release/mancala (built if missing) or $MANCALA_BIN. Exit 1 when any
# answer differs. What each check is, and the times seen: the solution files.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${MANCALA_BIN:-target/release/mancala}
[ -x "$bin" ] || cargo build --release --locked
tables=${TABLES:-/var/tmp/mancala-tables}
solutions=boards/solutions
failed=0

# The answer without its positions searched (the same value and move
# values may come by other work).
answer() { grep -m1 '^{"exact"' | sed 's/"nodes":[0-9]*,//'; }

# check NAME HOW EXPECTED GOT: one line, and the failure counted.
check() {
    if [ "$3" = "$4" ]; then
        echo "$1 ($2): agrees: $4"
    else
        echo "$1 ($2): DIFFERS: recorded $3, now $4"
        failed=1
    fi
}

solve() { "$bin" solve - --json --nodes 1000000000000 "$@" | answer; }

# The small boards solved in well under a second each.
quick_shape() { (($1 <= 3 || ($1 == 4 && $2 <= 4) || ($1 == 5 && $2 <= 3) || ($1 == 6 && $2 <= 2))); }

# Kalah on 1 to 6 pits a row, 1 to 6 stones, both rules, no tables: each
# against its row of the table in kalah-small.txt, and (empty-capture) the
# second way (the quick shapes): a transposition table of 1 MB, replaced
# all the time in any shape of more than about 65,000 positions.
kalah_small() {
    local which=$1 m n rules args want got
    while read -r m n rules want; do
        [ "$which" = quick ] && ! quick_shape "$m" "$n" && continue
        # 6x4 on: the kalah-4 files, on deeper tables.
        ((m == 6 && n >= 4)) && continue
        args=(--pits "$m" --stones "$n")
        [ "$rules" = empty-capture ] && args+=(--variant empty-capture)
        want=$(echo "$want" | answer)
        # The 6-pit board's shipped tables (standard rules only) for 6x3.
        tabled=(--no-tables)
        ((m == 6 && n == 3)) && tabled=()
        got=$("$bin" new kalah "${args[@]}" | solve "${tabled[@]}")
        check "kalah($m,$n) $rules" "tables: ${tabled[*]:-shipped}" "$want" "$got"
        if [ "$rules" = empty-capture ] && quick_shape "$m" "$n"; then
            got=$("$bin" new kalah "${args[@]}" | solve --no-tables --memory 1)
            check "kalah($m,$n) $rules" "1 MB memo" "$want" "$got"
        fi
    done < <(grep '^kalah(' "$solutions/kalah-small.txt" | sed 's/^kalah(\([0-9]\),\([0-9]\)) \([a-z-]*\) /\1 \2 \3 /')
}

# tables_to RULESET N [--variant V]: tables to N stones in pits in $tables/N.
tables_to() {
    local ruleset=$1 n=$2
    shift 2
    mkdir -p "$tables/$n"
    "$bin" tables build "$ruleset" --stones-in-pits "$n" --tables "$tables/$n" "$@"
}

# two_tables NAME RULESET STONES MEMORY_MB FIRST SECOND [--variant V]: the
# start of RULESET with STONES a pit solved on tables to FIRST stones in
# pits, then checked on tables to SECOND (a search reaching other positions).
two_tables() {
    local name=$1 ruleset=$2 stones=$3 memory=$4 n want
    local sizes=("$5" "$6")
    shift 6
    want=$(answer < "$solutions/$name.txt")
    for n in "${sizes[@]}"; do
        tables_to "$ruleset" "$n" "$@"
        check "$name" "tables to $n" "$want" \
            "$("$bin" new "$ruleset" --stones "$stones" "$@" | solve --tables "$tables/$n" --memory "$memory")"
    done
}

# kalah_tables N VARIANT: Kalah's tables to N stones in pits (18, 23, 26
# or 27) in $tables/N, each extended from the depth below (as the files'
# runs: to 23 ~10 min of CPU, to 26 ~17 min, to 27 ~25 min more).
kalah_tables() {
    local n=$1 variant=$2 below args=()
    [ -n "$variant" ] && args=(--variant "$variant")
    local table=kalah${variant:+-$variant}.tables
    case $n in 23) below=18 ;; 26) below=23 ;; 27) below=26 ;; *) below= ;; esac
    if [ -n "$below" ]; then
        kalah_tables "$below" "$variant"
        mkdir -p "$tables/$n"
        [ -e "$tables/$n/$table" ] || cp "$tables/$below/$table" "$tables/$n/$table"
    fi
    tables_to kalah "$n" "${args[@]}"
}

# bound_test V SOLVE_ARGS...: the sheet on standard input tested
# `solve --at-least V`: the bound proven, {"at_least":V} or {"at_most":V-1}.
bound_test() {
    local v=$1
    shift
    "$bin" solve - --json --at-least "$v" --nodes 100000000000000 "$@" |
        grep -m1 -o '^{"bound":{[^}]*}' | sed 's/^{"bound"://'
}

# bounds NAME RULESET STONES FIRST SECOND: each `bound` line of NAME's file
# (`bound MOVE V BOUND`: the start after MOVE, or the start itself for -,
# tested `--at-least V`, proving BOUND for its mover) proven again on tables
# to FIRST stones in pits, then on tables to SECOND (other positions).
bounds() {
    local name=$1 ruleset=$2 stones=$3 n move v want got
    for n in "$4" "$5"; do
        tables_to "$ruleset" "$n"
        while read -r move v want; do
            got=$("$bin" new "$ruleset" --stones "$stones" |
                if [ "$move" = - ]; then cat; else "$bin" move - "$move"; fi |
                bound_test "$v" --tables "$tables/$n" --memory 1024)
            check "$name" "after ${move/-/nothing}, at least $v, tables to $n" "$want" "$got"
        done < <(sed -n 's/^bound //p' "$solutions/$name.txt")
    done
}

# bench_value NAME=VALUE...: the solve bench's "the value Some(V)" line
# (without its positions) on an 8 GB memo, with those variables set.
bench_value() {
    env MANCALA_MEMORY=8192 "$@" cargo bench --bench solve 2>/dev/null | grep -m1 '^the value' | sed 's/:.*//'
}

# value_alone NAME STONES VARIANT: the start's value alone (the solve
# bench's MANCALA_VALUE, iterative deepening first, an 8 GB memo) on tables
# to 23 stones in pits, against the file's line "the value Some(V)"; then
# the same without deepening (another search order) where the file names it.
value_alone() {
    local name=$1 stones=$2 variant=$3 want got deepening
    local file=$solutions/$name.txt
    want=$(grep -m1 '^the value Some' "$file" | sed 's/:.*//')
    kalah_tables 23 "$variant"
    for deepening in 1 0; do
        [ "$deepening" = 0 ] && ! grep -q 'MANCALA_DEEPENING=0' "$file" && continue
        got=$(bench_value MANCALA_VALUE="$stones" ${variant:+MANCALA_VARIANT="$variant"} \
            MANCALA_TABLES="$tables/23" MANCALA_DEEPENING=$deepening)
        check "$name" "value alone, deepening $deepening" "$want" "$got"
    done
}

# two_bounds NAME STONES VARIANT: the value V of the file's line "the value
# Some(V)" by two bound proofs (`solve --at-least`, the first moves shared
# out over both cores, an 8 GB memo) on tables to 23 stones in pits: at
# least V on some first move, then every first move at most V.
two_bounds() {
    local name=$1 stones=$2 variant=$3 want at_least got
    local file=$solutions/$name.txt
    want=$(grep -m1 '^the value Some' "$file" | sed 's/^the value Some(\(-*[0-9]*\)).*/\1/')
    local args=()
    [ -n "$variant" ] && args=(--variant "$variant")
    kalah_tables 23 "$variant"
    for at_least in "$want" "$((want + 1))"; do
        got=$("$bin" new kalah --stones "$stones" "${args[@]}" |
            bound_test "$at_least" --tables "$tables/23" --memory 8192)
        if [ "$at_least" = "$want" ]; then
            check "$name" "--at-least $at_least" "{\"at_least\":$want}" "$got"
        else
            check "$name" "--at-least $at_least" "{\"at_most\":$want}" "$got"
        fi
    done
}

# first_moves NAME STONES VARIANT: each `move PIT V` line of NAME's file
# (the first move PIT is worth V for South) found again by the solve
# bench's MANCALA_MOVE (the value alone of the position after PIT, on two
# threads sharing an 8 GB memo, deepening first) on tables to 26 stones
# in pits, then on tables to 27 (other positions): minutes each.
first_moves() {
    local name=$1 stones=$2 variant=$3 n pit v got
    for n in 26 27; do
        kalah_tables "$n" "$variant"
        while read -r pit v; do
            got=$(bench_value MANCALA_VALUE="$stones" MANCALA_MOVE="$pit" ${variant:+MANCALA_VARIANT="$variant"} \
                MANCALA_THREADS=2 MANCALA_TABLES="$tables/$n")
            check "$name" "first move $pit, tables to $n" "the value Some($v)" "$got"
        done < <(sed -n 's/^move \([a-f] -*[0-9]*\)$/\1/p' "$solutions/$name.txt")
    done
}

run() {
    case $1 in
    kalah-small-quick) kalah_small quick ;;
    kalah-small) kalah_small all ;;
    waurie-2 | waurie-2-quick)
        local want
        want=$(answer < "$solutions/waurie-2.txt")
        if [ "$1" = waurie-2 ]; then
            tables_to waurie 18
            check waurie-2 "MTD(f), tables to 18" "$want" \
                "$("$bin" new waurie --stones 2 | solve --tables "$tables/18" --memory 2048)"
        fi
        # Shorter tables (the shipped ones, to 11), and by proof numbers.
        check waurie-2 "MTD(f), shipped tables" "$want" \
            "$("$bin" new waurie --stones 2 | solve --memory 2048)"
        check waurie-2 "df-pn, shipped tables" "$want" \
            "$("$bin" new waurie --stones 2 | solve --proof-numbers --memory 2048)"
        ;;
    waurie-3) two_tables waurie-3 waurie 3 8192 18 22 ;;
    mankala-3) two_tables mankala-3 mankala 3 8192 24 20 ;;
    kalah-4) two_tables kalah-4 kalah 4 4096 18 16 ;;
    kalah-4-empty-capture) two_tables kalah-4-empty-capture kalah 4 4096 18 16 --variant empty-capture ;;
    kalah-5-empty-capture)
        value_alone kalah-5-empty-capture 5 empty-capture
        two_bounds kalah-5-empty-capture 5 empty-capture
        first_moves kalah-5-empty-capture 5 empty-capture
        ;;
    kalah-5)
        value_alone kalah-5 5 ""
        two_bounds kalah-5 5 ""
        first_moves kalah-5 5 ""
        ;;
    mankala-4-bounds) bounds mankala-4 mankala 4 20 18 ;;
    *)
        echo "reproduce.sh: no solution '$1'" >&2
        exit 2
        ;;
    esac
}

case ${1:-quick} in
quick) set -- kalah-small-quick waurie-2-quick ;;
all) set -- kalah-small waurie-2 waurie-3 mankala-3 kalah-4 kalah-4-empty-capture kalah-5-empty-capture kalah-5 mankala-4-bounds ;;
esac
for name in "$@"; do run "$name"; done
exit $failed
