# stage.sh - the stages of .ci/run and tests/run.sh, each with its own time (sourced).
#
#   stage NAME COMMAND...   runs COMMAND under the heading `== NAME`, then prints
#                           `== NAME: passed (NNs)` or `== NAME: FAILED, exit N (NNs)`;
#                           a failure is added to $STAGE_FAILURES (a file: stages
#                           also run in background subshells), and the next stages
#                           run all the same.
#   stages_passed           true when no stage failed; else names the ones that did.
# The sourcing script sets STAGE_FAILURES to a file of its own, and removes it.
# (The word "error" with a colon is left to real failures: a green log holds none.)

stage() {
    local name=$1 started=$SECONDS status=0
    shift
    : "${STAGE_FAILURES:?set by the script that sources stage.sh}"
    echo "== $name"
    "$@" || status=$?
    if ((status == 0)); then
        echo "== $name: passed ($((SECONDS - started))s)"
    else
        echo "== $name: FAILED, exit $status ($((SECONDS - started))s)"
        echo "$name" >>"$STAGE_FAILURES"
    fi
}

stages_passed() {
    [[ ! -s $STAGE_FAILURES ]] && return 0
    echo "== failed stages:"
    sed 's/^/   /' "$STAGE_FAILURES"
    return 1
}
