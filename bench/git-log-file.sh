#!/usr/bin/env bash
# git_log_file on a generated 10,000-commit history (500 files; the followed files renamed twice), timed in
# one warm JVM against `git log --follow -n N -- path` as a fresh process, interleaved round by round.
# Run on demand, after `mvn -o package -DskipTests -pl testing,bundles/api,bundles/workspace,bundles/tools-git`:
#   bench/git-log-file.sh [rounds]
# Results go to stdout as a Markdown table for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-10}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
for bundle in api workspace tools-git; do
  [ -d "$root/bundles/$bundle/target/classes" ] || { echo "build first: mvn -o package -DskipTests" >&2; exit 1; }
done
# the bundles' own build output (never ~/.m2, which other checkouts may have overwritten) and their libraries
( cd "$root" && mvn -o -q dependency:build-classpath -pl bundles/tools-git -Dmdep.outputFile="$work/classpath.txt" >/dev/null )
classpath="$root/bundles/api/target/classes:$root/bundles/workspace/target/classes:$root/bundles/tools-git/target/classes:"
classpath="$classpath$(tr ':' '\n' < "$work/classpath.txt" | grep -v '/dev/quiver/' | paste -sd: -)"
java -cp "$classpath" "$root/bench/GitLogFileBench.java" "$work/history" "$rounds"
