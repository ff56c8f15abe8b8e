#!/usr/bin/env bash
# Checkpoints of a large real tree: the JDK's own sources (lib/src.zip, about 15,000 files) in a git
# repository, timed in one warm JVM as a session takes them before each call, and the store's growth.
# Run on demand, after this checkout is built (mvn -o package -DskipTests; our classes are taken from
# its target folders, never from ~/.m2):
#   bench/checkpoints.sh [rounds] [src.zip]
# Results go to stdout as a Markdown table for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-20}"
zip="${2:-}"
if [ -z "$zip" ]; then
  for candidate in "${JAVA_HOME:-/nonexistent}/lib/src.zip" /usr/lib/jvm/*/lib/src.zip; do
    if [ -r "$candidate" ]; then zip="$(readlink -f "$candidate")"; break; fi
  done
fi
[ -n "$zip" ] && [ -r "$zip" ] || { echo "no readable src.zip found; pass one as the second argument" >&2; exit 1; }

work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
tree="$work/tree"
mkdir -p "$tree"
unzip -q "$zip" -d "$tree"
# a repository, as a workspace usually is: the listing reads its index and ignore files
( cd "$tree" && git init -q && git -c core.autocrlf=false add -A >/dev/null 2>&1 \
    && git -c user.name=bench -c user.email=bench@localhost commit -qm tree >/dev/null )
echo "Tree: $(find "$tree" -type f -not -path '*/.git/*' | wc -l) files, $(du -sh --exclude=.git "$tree" | cut -f1)," \
  "from $zip." >&2

cp_file="$work/classpath.txt"
( cd "$root" && mvn -o -q dependency:build-classpath -pl bundles/kernel -Dmdep.includeScope=test \
    -Dmdep.outputFile="$cp_file" >/dev/null )
ours=""
for bundle in api workspace kernel; do
  [ -d "$root/bundles/$bundle/target/classes" ] || { echo "build first: mvn -o package -DskipTests" >&2; exit 1; }
  ours="$ours$root/bundles/$bundle/target/classes:"
done
libraries="$(tr ':' '\n' < "$cp_file" | grep -v '/dev/quiver/' | paste -sd: -)"
java -cp "$ours$libraries" "$root/bench/CheckpointBench.java" "$tree" "$rounds"
