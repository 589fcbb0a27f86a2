#!/usr/bin/env bash
# Replays the history of github.com/27VAIDH/courtSense (clone it; give its
# path) as a loop with lore, for issue 38: each commit is an iteration (the
# files it changed ingested as the iteration's, its progress.txt read by
# lore's conventions), and every fourth one adds a memory citing the first
# source file it changed; later commits change those files. Prints lore
# stale, then lore stats. Before each iteration lore prime runs with the
# commit's subject as the task, kept as prime-N.md in the work directory
# (grep them for "⚠ Stale" to see what the agent was warned of); at the
# end each is made again with lore prime --at the commit it ran at, and
# compared byte for byte.
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
  # The orchestrator primes before the agent changes anything.
  $L prime --title "$(git log -1 --format=%s "$c")" --budget 2000 --no-instructions > $W/prime-$i.md 2>/dev/null || true
  git rev-parse HEAD > $W/head-$i
  git diff --binary "$prev" "$c" -- . ':(exclude).agent' > $W/patch
  if [ -s $W/patch ]; then git apply --index $W/patch 2>/dev/null || { git checkout -q "$c" -- . ':(exclude).agent' 2>/dev/null || true; git add -A . ; }; fi
  files=$(git diff --cached --name-only | grep -v '^.agent/' | head -50 | paste -sd, - || true)
  subj=$(git log -1 --format=%s "$c")
  git commit -q -m "$subj" --allow-empty
  git log -1 --format=%B "$c" | $L ingest - ${files:+--files "$files"} --format json > $W/out.json 2>/dev/null || true
  f1=$(echo "$files" | tr , "\n" | grep -E "^src/.*\.(ts|tsx)$" | head -1 || true)
  if [ -n "$f1" ] && [ $((i % 4)) = 0 ]; then $L add "Iteration $i: $subj — see $f1" -t context --format quiet > /dev/null; fi
  prev=$c
done
$L stale | tail -15
# Each prime again with --at the commit it ran at: byte for byte?
same=0; differ=0
for ((i=1; i<N && i<${#C[@]}; i++)); do
  $L prime --title "$(git log -1 --format=%s "${C[$i]}")" --budget 2000 --no-instructions --at "$(cat $W/head-$i)" > $W/at-$i.md 2>/dev/null || true
  if cmp -s $W/prime-$i.md $W/at-$i.md; then same=$((same+1)); else differ=$((differ+1)); echo "prime --at differs before iteration $i: diff $W/prime-$i.md $W/at-$i.md"; fi
done
echo "prime --at equals the prime printed then for $same of $((same+differ)) iterations"
echo "stale marks in the primes: $(cat $W/prime-*.md | grep -c '⚠ Stale'), in $(grep -l '⚠ Stale' $W/prime-*.md | wc -l) primes"
echo "entries with citations: $(grep -c '^| ' .agent/citations.md) rows"
$L stats 2>/dev/null | head -12
