#!/usr/bin/env bash
# A person's git beside lore's commits, for SECONDS (default 90): four
# `lore add` loops, and a person's loop of `git stash; git stash pop;
# git add u; git commit` with lore's pre-commit hook installed. At the end
# every memory lore acknowledged must be in HEAD. Issue 36, item 2.
#
#   bench/races/stash.sh [SECONDS]      (from the top of lore's repository)
set -u
secs=${1:-90}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/bin/" ./cmd/... || exit 1
export PATH="$work/bin:$PATH" GIT_CONFIG_NOSYSTEM=1 HOME="$work"
git config --global user.email p@example.com; git config --global user.name P
repo="$work/repo"; mkdir "$repo"; cd "$repo"
git init -q; lore init >/dev/null; lore hooks install >/dev/null
echo 0 > u; git add u; git commit -qm u
end=$(( $(date +%s) + secs ))
for w in 1 2 3 4; do
	( i=0; while [ "$(date +%s)" -lt $end ]; do i=$((i+1))
		lore add "writer $w note $i about stash races" -t context --format quiet 2>>"$work/lore.err" >>"$work/acked"; done ) &
done
( n=0; while [ "$(date +%s)" -lt $end ]; do n=$((n+1)); echo $n >> u
	git stash -q >/dev/null 2>&1; git stash pop -q >/dev/null 2>&1; git add u 2>/dev/null
	git commit -qm "person $n" >/dev/null 2>>"$work/person.err"; done; echo $n > "$work/tries" ) &
wait
git show HEAD:.agent/memories.md > "$work/head.md"
missing=0; while read -r id; do grep -q "^### $id\$" "$work/head.md" || { missing=$((missing+1)); echo "missing: $id"; }; done < "$work/acked"
echo "$(wc -l < "$work/acked") memories acknowledged, $missing missing from HEAD; $(cat "$work/tries") person commits tried, $(git log --oneline --grep '^person' | wc -l) made, $(grep -c 'staged files checked' "$work/person.err") refused by the hook, $(grep -c 'staged the committed version' "$work/person.err") repaired by it"
git fsck --strict --no-progress 2>&1 | grep -v '^dangling' ; echo "fsck: done"
[ "$missing" -eq 0 ]
