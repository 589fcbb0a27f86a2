#!/usr/bin/env bash
# A team beside lore's commits, for SECONDS (default 90): clone A has
# three `lore add` loops and a person who runs plain `git pull` (merge),
# concludes a stopped merge with `git commit` as git suggests, and
# `git push`; clone B has a `lore add` loop and a `lore sync` loop. At the
# end both run lore sync; the remote's main must hold every memory lore
# acknowledged, with no conflict marker. Issue 36, item 3.
#
#   bench/races/pull.sh [SECONDS]       (from the top of lore's repository)
set -u
secs=${1:-90}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/bin/" ./cmd/... || exit 1
export PATH="$work/bin:$PATH" GIT_CONFIG_NOSYSTEM=1 HOME="$work"
git config --global user.email p@example.com; git config --global user.name P
git config --global init.defaultBranch main; git config --global pull.rebase false
git init -q --bare "$work/remote.git"
git clone -q "$work/remote.git" "$work/a" 2>/dev/null; cd "$work/a"
lore init >/dev/null; printf 'lock_timeout: 60s\n' > .agent/config.yaml
git add .agent/config.yaml; git commit -qm config; git push -q -u origin main; lore hooks install >/dev/null
git clone -q "$work/remote.git" "$work/b"; (cd "$work/b" && lore hooks install >/dev/null)
end=$(( $(date +%s) + secs ))
for w in 1 2 3; do
	( cd "$work/a"; i=0; while [ "$(date +%s)" -lt $end ]; do i=$((i+1))
		lore add "a$w note $i" -t context --format quiet 2>>"$work/lore.err" >>"$work/acked"; done ) &
done
( cd "$work/b"; i=0; while [ "$(date +%s)" -lt $end ]; do i=$((i+1))
	lore add "b note $i" -t context --format quiet 2>>"$work/lore.err" >>"$work/acked"; done ) &
( cd "$work/b"; n=0; while [ "$(date +%s)" -lt $end ]; do n=$((n+1)); lore sync --format quiet >/dev/null 2>>"$work/sync.err"; done; echo $n > "$work/syncs" ) &
( cd "$work/a"; n=0; stopped=0; while [ "$(date +%s)" -lt $end ]; do n=$((n+1))
	git pull -q --no-edit >/dev/null 2>>"$work/pull.err"
	if [ -f .git/MERGE_HEAD ]; then stopped=$((stopped+1)); git commit -q --no-edit >/dev/null 2>&1 || git merge --abort 2>/dev/null; fi
	git push -q 2>/dev/null; done; echo "$n plain pulls, $stopped stopped in a merge" > "$work/pulls" ) &
wait
cd "$work/a"; [ -f .git/MERGE_HEAD ] && git merge --abort
for i in 1 2 3; do (cd "$work/a" && lore sync --format quiet >/dev/null); (cd "$work/b" && lore sync --format quiet >/dev/null); done
git -C "$work/remote.git" show main:.agent/memories.md > "$work/main.md"
missing=0; while read -r id; do grep -q "^### $id\$" "$work/main.md" || { missing=$((missing+1)); echo "missing: $id"; }; done < "$work/acked"
echo "$(wc -l < "$work/acked") memories acknowledged, $missing missing from the remote's main, $(grep -c '<<<<<<<' "$work/main.md") conflict markers; $(cat "$work/pulls"), $(grep -c 'Cannot fast-forward' "$work/pull.err") failed with git's 'Cannot fast-forward your working tree'; $(cat "$work/syncs") lore syncs in B"
git -C "$work/remote.git" fsck --strict --no-progress 2>&1 | grep -v '^dangling'; echo "fsck: done"
[ "$missing" -eq 0 ]
