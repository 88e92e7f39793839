#!/bin/bash
# Done: look 1 decided the test (B better, +2.4 points, +0.2 to +4.5), so tuned-j9 shipped as
# agents/pretrained/ppo-jen-tuned-j9 and look 2 is not played. Kept as the record of how the runs
# were played; B's path below is that of the worktree at ff817bd, where the file still is.
# The test of tuned-j9 at JEN 9, as planned in docs/research.md (ff817bd, before any game):
# `bash results/candidates/tuned-j9-test.sh 1` plays look 1's runs, `... 2` look 2's, from a
# worktree frozen at the plan's commit, in the plan's order; each run's report is filed unread
# under its plan name in results/jen_ladder/ and committed alone, so that a machine taken back
# loses at most the run in progress. A run with a journal in runs/j9test/ goes on from it.
# When every run of the look is filed, the look's decision is written to
# runs/j9test/look<N>-decision.txt (and .md), and nothing is printed of it.
#
# Launch detached (a session's end stops child processes), and never read a run's log,
# journal or report before the look is complete:
#   git worktree add --detach /work/wt-j9test ff817bd     # once per machine
#   setsid nohup bash results/candidates/tuned-j9-test.sh 1 > /tmp/j9test.log 2>&1 < /dev/null &
set -u
LOOK=${1:?give the look: 1 or 2}
export OMP_NUM_THREADS=1
MAIN=$(cd "$(dirname "$0")/../.." && pwd)
WT=${WT:-/work/wt-j9test}
RUNS=$MAIN/runs/j9test
A=search:ppo-jen-tuned-outcome:256
B=search:results/candidates/tuned-j9.zip:256
[ "$(git -C "$WT" rev-parse HEAD 2>/dev/null)" = ff817bdba2fbb50bebf37feab0a71a0ee957d0ef ] \
  || { echo "no worktree at ff817bd in $WT: git worktree add --detach $WT ff817bd"; exit 1; }
mkdir -p "$RUNS"
ten_at() { (cd "$1" && shift && python -c "import sys; from train.cli import main; sys.argv[0]='ten'; sys.exit(main())" "$@"); }
name() { [ "$1" = a ] && echo "search-tuned-outcome-256_seed$2_level9.json" || echo "search-tuned-j9-256_seed$2_level9.json"; }

run() {  # a|b seed
  local tag=$1-$2 agent final=$MAIN/results/jen_ladder/$(name "$1" "$2")
  [ "$1" = a ] && agent=$A || agent=$B
  if [ -e "$final" ]; then echo "$(date +%T) $tag: filed already"; return; fi
  local out=$RUNS/$tag extra=""
  if [ ! -e "$out/report.json" ]; then
    [ -e "$out/progress.jsonl" ] && extra=--resume
    echo "$(date +%T) $tag: start $extra"
    ten_at "$WT" eval "$agent" --levels 9 --games 1000 --seed "$2" --jobs 2 --out "$out" $extra > "$RUNS/$tag.log" 2>&1
    echo "$(date +%T) $tag: ended rc=$?"
  fi
  [ -e "$out/report.json" ] || { echo "$(date +%T) $tag: no report"; exit 1; }
  cp -n "$out/report.json" "$final"
  local journal=runs/j9test/$tag/progress.jsonl paths=("$final")
  # a journal carried between machines in the repository goes once its report is filed
  git -C "$MAIN" ls-files --error-unmatch "$journal" > /dev/null 2>&1 && git -C "$MAIN" rm -q --cached "$journal" && paths+=("$journal")
  for _ in 1 2 3 4 5; do
    git -C "$MAIN" add "$final" && git -C "$MAIN" commit -q -m \
      "tuned-j9 test, look $LOOK: $tag's report filed as $(basename "$final"), unread (plan ff817bd)" -- "${paths[@]}" && break
    sleep 7
  done
  echo "$(date +%T) $tag: filed"
}

case $LOOK in
  1) SEEDS=(477000 478000 479000); run b 472000; PAIRED=(472000 477000 478000 479000); CONFIDENCE=0.994425 ;;
  2) SEEDS=(480000 481000 482000 483000); PAIRED=(472000 477000 478000 479000 480000 481000 482000 483000); CONFIDENCE=0.952219 ;;
  *) echo "the look is 1 or 2, not $LOOK"; exit 1 ;;
esac
for seed in "${SEEDS[@]}"; do run a "$seed"; run b "$seed"; done
reports=()
for who in a b; do for seed in "${PAIRED[@]}"; do
  f=$MAIN/results/jen_ladder/$(name $who "$seed"); [ -e "$f" ] || { echo "missing $f"; exit 1; }; reports+=("$f")
done; done
ten_at "$MAIN" compare "${reports[@]}" --paired --confidence $CONFIDENCE > "$RUNS/look$LOOK-decision.txt" 2>&1
ten_at "$MAIN" compare "${reports[@]}" --paired --confidence $CONFIDENCE --markdown > "$RUNS/look$LOOK-decision.md" 2>&1
echo "DECISION WRITTEN" >> "$RUNS/look$LOOK-decision.txt"
echo "$(date +%T) look $LOOK: decision written to $RUNS/look$LOOK-decision.txt"
