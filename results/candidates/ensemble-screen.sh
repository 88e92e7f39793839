#!/bin/bash
# The value-ensemble screen, as planned in docs/research.md ("A value ensemble: a screen"),
# played from a worktree frozen at the plan's commit; files the report unread as
# results/jen_ladder/search-tuned-j9-256-ensemble3_seed477000_level9.json and commits it alone.
# A run with a journal goes on from it (--resume). Launch detached, and read nothing before it is filed:
#   git worktree add --detach /work/wt-ensemble PLAN     # once per machine
#   PLAN=<the plan's commit> setsid nohup bash results/candidates/ensemble-screen.sh > /tmp/ensemble-screen.log 2>&1 < /dev/null &
set -u
export OMP_NUM_THREADS=1
MAIN=$(cd "$(dirname "$0")/../.." && pwd)
WT=${WT:-/work/wt-ensemble}
[ "$(git -C "$WT" rev-parse HEAD 2>/dev/null)" = "$PLAN" ] \
  || { echo "no worktree at $PLAN in $WT: git worktree add --detach $WT $PLAN"; exit 1; }
ten_at() { (cd "$WT" && python -c "import sys; from train.cli import main; sys.argv[0]='ten'; sys.exit(main())" "$@"); }
FINAL=$MAIN/results/jen_ladder/search-tuned-j9-256-ensemble3_seed477000_level9.json
OUT=$WT/runs/ensemble-screen
mkdir -p "$WT/runs"
if [ ! -e "$FINAL" ]; then
  if [ ! -e "$OUT/report.json" ]; then
    extra=""; [ -e "$OUT/progress.jsonl" ] && extra=--resume
    echo "$(date +%T) screen: start $extra"
    ten_at eval results/candidates/value_ensemble.py:make --levels 9 --games 1000 --seed 477000 --jobs 2 \
      --no-progress --out "$OUT" $extra > "$WT/runs/ensemble-screen.log" 2>&1
    echo "$(date +%T) screen: ended rc=$?"
  fi
  [ -e "$OUT/report.json" ] || { echo "$(date +%T) no report"; exit 1; }
  cp -n "$OUT/report.json" "$FINAL"
  for _ in 1 2 3 4 5; do
    git -C "$MAIN" add "$FINAL" && git -C "$MAIN" commit -q -m \
      "value-ensemble screen: its report filed as $(basename "$FINAL"), unread (plan ${PLAN:0:7})" -- "$FINAL" && break
    sleep 7
  done
fi
echo "$(date +%T) filed"
