#!/usr/bin/env bash
# Replays a real Ralph loop through lore: the iteration logs
# (claude -p's text output, no lore sigils) and the progress.txt each
# iteration left, of github.com/27VAIDH/courtSense (a public repository;
# clone it and give its path). Each iteration: lore prime (kept as
# prime-N.md), the log's progress.txt put in place, lore ingest of the
# log. --run drives the same iterations through lore run with a replay
# agent instead; --run-stream-json has that agent print each log as
# claude -p --output-format stream-json would (the init event of
# agentout/testdata/claude-stream-json.jsonl, the text as an assistant
# message, a result event: the loop's text is real, its envelope
# derived). Prints each iteration's outcome, then lore status.
#
#   bench/replay/ralph-loop.sh /path/to/courtSense [N] [--run|--run-stream-json]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"  # before the script changes directory
src="$1"; n="${2:-30}"; mode="${3:-}"
lore="${LORE:-lore}"
work="$(mktemp -d)"; echo "replay in $work" >&2
logs="$work/logs"; mkdir -p "$logs"
git -C "$src" archive HEAD scripts/ralph/runs | tar -x -C "$logs"
# The iteration logs in the order they ran.
ls -d "$logs"/scripts/ralph/runs/*/ | sort | while read -r d; do
  ls "$d" | sed 's/iter-\([0-9]*\).log/\1/' | sort -n | sed "s|^|$d/iter-|; s|$|.log|"
done > "$work/all"
tail -n +"$(( ${SKIP:-0} + 1 ))" "$work/all" | head -n "$n" > "$work/order"  # SKIP=K starts after K
# progress.txt at every commit that changed it, oldest first.
git -C "$src" log --reverse --format=%H -- scripts/ralph/progress.txt > "$work/commits"
mkdir -p "$work/progress"
i=0; while read -r c; do i=$((i+1)); git -C "$src" show "$c:scripts/ralph/progress.txt" > "$work/progress/$i.txt"; done < "$work/commits"
# The progress a log left: the first version that has an entry for the
# story the log says it completed; else the one before.
progress_for() {
  local story; story="$(grep -oE '\bUS-P?[0-9]+\b' "$1" | head -1 || true)"
  [ -n "$story" ] || return 1
  local k; for k in $(seq 1 "$(wc -l < "$work/commits")"); do
    if grep -qE "^## .*\b$story\b" "$work/progress/$k.txt"; then echo "$work/progress/$k.txt"; return 0; fi
  done
  return 1
}
# The stories' titles and descriptions, from every prd.json the loop had:
# the orchestrator primes each iteration with the story its log names.
for c in $(git -C "$src" log --format=%H -- scripts/ralph/prd.json); do
  git -C "$src" show "$c:scripts/ralph/prd.json" 2>/dev/null || true; echo
done > "$work/prds.json"
python3 - "$work/prds.json" "$work/stories.tsv" <<'PY'
import json, sys
seen = {}
for chunk in open(sys.argv[1]).read().split("\n{"):
    chunk = chunk if chunk.startswith("{") else "{" + chunk
    try:
        d = json.loads(chunk)
    except Exception:
        continue
    for s in d.get("userStories", []):
        seen.setdefault(s["id"], (s.get("title", ""), s.get("description", "")))
with open(sys.argv[2], "w") as out:
    for k, (t, d) in seen.items():
        out.write(f"{k}\t{t}\t{d}\n".replace("\r", ""))
PY
repo="$work/repo"; mkdir -p "$repo/scripts/ralph"; cd "$repo"
git init -q; git config user.email replay@example.com; git config user.name Replay
"$lore" init >/dev/null
cp "$work/progress/1.txt" scripts/ralph/progress.txt
k=0
if [ "$mode" = "--run" ] || [ "$mode" = "--run-stream-json" ]; then
  envelope=cat
  if [ "$mode" = "--run-stream-json" ]; then
    head -1 "$here/../../agentout/testdata/claude-stream-json.jsonl" > "$work/init.jsonl"
    cat > "$work/envelope.py" <<'PY'
import json, sys
text = sys.stdin.read()
print(open(sys.argv[1]).read().strip())
if text.strip():
    print(json.dumps({"type": "assistant", "message": {"type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": text}]}, "session_id": "replay"}))
print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 60000, "num_turns": 12,
    "result": text, "session_id": "replay", "total_cost_usd": 0.42}))
PY
    envelope="python3 $work/envelope.py $work/init.jsonl"
  fi
  # A replay agent: each call prints the next log and leaves its progress.
  i=0; while read -r log; do i=$((i+1)); p="$(progress_for "$log" || true)"; echo "$log|$p" > "$work/step.$i"; done < "$work/order"
  cat > "$work/agent.sh" <<AGENT
#!/usr/bin/env bash
cat > /dev/null
n=\$(( \$(cat "$work/next" 2>/dev/null || echo 0) + 1 )); echo \$n > "$work/next"
IFS='|' read -r log p < "$work/step.\$n"
[ -n "\$p" ] && cp "\$p" "$repo/scripts/ralph/progress.txt"
$envelope < "\$log"
AGENT
  chmod +x "$work/agent.sh"
  # As a person would: after the agent's usage limit stops lore run,
  # run it again, until the loop's N iterations are spent.
  while [ "$(cat "$work/next" 2>/dev/null || echo 0)" -lt "$n" ]; do
    left=$(( n - $(cat "$work/next" 2>/dev/null || echo 0) ))
    "$lore" run --repeat "$left" -- "$work/agent.sh" > /dev/null || echo "lore run exit $?"
  done
else
  while read -r log; do
    k=$((k+1))
    story="$(grep -oE '\bUS-P?[0-9]+\b' "$log" | head -1 || true)"
    title=""; desc=""
    if [ -n "$story" ]; then IFS=$'\t' read -r _ title desc < <(grep -P "^$story\t" "$work/stories.tsv" || true); fi
    if [ -n "$title" ]; then
      "$lore" prime --budget 2000 --task-id "$story" --title "$title" --description "$desc" > "$work/prime-$k.md" 2>/dev/null
    else
      "$lore" prime --budget 2000 > "$work/prime-$k.md" 2>/dev/null
    fi
    if p="$(progress_for "$log")"; then cp "$p" scripts/ralph/progress.txt; fi
    "$lore" ingest "$log" --format json 2>/dev/null | grep -oE '"outcome": "[a-z_]+"|"task_id": "[^"]*"' | head -2 | tr '\n' ' ' || true
    echo "  <- $k ${log#$logs/scripts/ralph/runs/}"
  done < "$work/order"
fi
"$lore" status
"$lore" journal list | awk 'NR>1 {print $2}' | sort | uniq -c
git fsck --strict --no-progress && echo "fsck ok"
echo "primes and logs in $work" >&2
