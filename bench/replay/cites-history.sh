#!/usr/bin/env bash
# Replays the history of github.com/27VAIDH/courtSense (clone it; give its
# path) as a loop with lore, for issue 38: each commit is an iteration (the
# files it changed ingested as the iteration's, its progress.txt read by
# lore's conventions), and every fourth one adds a memory citing the first
# source file it changed; later commits change those files. Prints lore
# stale, then lore stats. Before each iteration lore prime runs with the
# commit's subject as the task, kept as prime-N.md in the work directory
# (grep them for "⚠ Stale" to see what the agent was warned of).
# REV=c96c0ce^2 replays the loop's own branch (79 iterations, one story
# each) instead of the first parents of HEAD (48).
#
#   LORE=lore [REV=…] bench/replay/cites-history.sh /path/to/courtSense [N]
set -euo pipefail
L="${LORE:-lore}"
W="$(mktemp -d)"; echo "replay in $W" >&2
git clone -q "$1" $W/src
cd $W/src
mapfile -t C < <(git rev-list --reverse --first-parent "${REV:-HEAD}")
echo "${#C[@]} commits"
N=${2:-60}
git checkout -q -b replay "${C[0]}"
git config user.email r@example.com; git config user.name Replay
$L init >/dev/null
prev=${C[0]}
for ((i=1; i<N && i<${#C[@]}; i++)); do
  c=${C[$i]}
  git diff --binary "$prev" "$c" -- . ':(exclude).agent' > $W/patch
  if [ -s $W/patch ]; then git apply --index $W/patch 2>/dev/null || { git checkout -q "$c" -- . ':(exclude).agent' 2>/dev/null || true; git add -A . ; }; fi
  files=$(git diff --cached --name-only | grep -v '^.agent/' | head -50 | paste -sd, - || true)
  subj=$(git log -1 --format=%s "$c")
  $L prime --title "$subj" --budget 2000 --no-instructions > $W/prime-$i.md 2>/dev/null || true
  git commit -q -m "$subj" --allow-empty
  git log -1 --format=%B "$c" | $L ingest - ${files:+--files "$files"} --format json > $W/out.json 2>/dev/null || true
  f1=$(echo "$files" | tr , "\n" | grep -E "^src/.*\.(ts|tsx)$" | head -1 || true)
  if [ -n "$f1" ] && [ $((i % 4)) = 0 ]; then $L add "Iteration $i: $subj — see $f1" -t context --format quiet > /dev/null; fi
  prev=$c
done
$L stale | tail -15
echo "entries with citations: $(grep -c '^| ' .agent/citations.md) rows"
$L stats 2>/dev/null | head -12
