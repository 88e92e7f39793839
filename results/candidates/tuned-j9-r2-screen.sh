#!/bin/bash
# The screen of a second PPO round of the JEN 9 prior, as planned in docs/research.md
# ("A second round of the JEN 9 prior: a screen", c808db5, before its training and games).
# Waits for the training (`ten train configs/jen9_finetune.yaml --set train.init_from=ppo-jen-tuned-j9
# --set train.seed=3 --set output.dir=runs/jen9_round2`, run in the worktree) to leave its model,
# then plays the screen from the worktree frozen at the plan's commit, files the report unread as
# results/jen_ladder/search-tuned-j9-r2-256_seed479000_level9.json and commits it alone. A run with a
# journal goes on from it (--resume). Launch detached, and read nothing of the run before it is filed:
#   git worktree add --detach /work/wt-round2 c808db5     # once per machine
#   setsid nohup bash results/candidates/tuned-j9-r2-screen.sh > /tmp/round2-screen.log 2>&1 < /dev/null &
set -u
export OMP_NUM_THREADS=1
MAIN=$(cd "$(dirname "$0")/../.." && pwd)
WT=${WT:-/work/wt-round2}
PLAN=c808db59f2cef6b3a9ee5947ee3d21064362ff8a
[ "$(git -C "$WT" rev-parse HEAD 2>/dev/null)" = $PLAN ] \
  || { echo "no worktree at ${PLAN:0:7} in $WT: git worktree add --detach $WT ${PLAN:0:7}"; exit 1; }
ten_at() { (cd "$WT" && python -c "import sys; from train.cli import main; sys.argv[0]='ten'; sys.exit(main())" "$@"); }
MODEL=$WT/runs/jen9_round2/model.zip
FINAL=$MAIN/results/jen_ladder/search-tuned-j9-r2-256_seed479000_level9.json
OUT=$WT/runs/round2-screen
until [ -e "$MODEL" ] && ! pgrep -f "output.dir=runs/jen9_round2" > /dev/null; do sleep 30; done
echo "$(date +%T) training done: $MODEL"
if [ ! -e "$FINAL" ]; then
  if [ ! -e "$OUT/report.json" ]; then
    extra=""; [ -e "$OUT/progress.jsonl" ] && extra=--resume
    echo "$(date +%T) screen: start $extra"
    ten_at eval search:runs/jen9_round2/model.zip:256 --levels 9 --games 1000 --seed 479000 --jobs 2 \
      --out "$OUT" $extra > "$WT/runs/round2-screen.log" 2>&1
    echo "$(date +%T) screen: ended rc=$?"
  fi
  [ -e "$OUT/report.json" ] || { echo "$(date +%T) no report"; exit 1; }
  cp -n "$OUT/report.json" "$FINAL"
  for _ in 1 2 3 4 5; do
    git -C "$MAIN" add "$FINAL" && git -C "$MAIN" commit -q -m \
      "tuned-j9-r2 screen: its report filed as $(basename "$FINAL"), unread (plan c808db5)" -- "$FINAL" && break
    sleep 7
  done
fi
echo "$(date +%T) filed"
