#!/usr/bin/env bash
# grep, glob and list_dir on a large real tree: the JDK's own sources (lib/src.zip, about 15,000 files),
# timed in one warm JVM against ripgrep and git ls-files run as fresh processes with the same hit cap.
# Run on demand, after `mvn -o install -DskipTests`:
#   bench/files.sh [rounds] [src.zip]
# Results go to stdout as a Markdown table for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-15}"
zip="${2:-}"
if [ -z "$zip" ]; then
  for candidate in "${JAVA_HOME:-/nonexistent}/lib/src.zip" /usr/lib/jvm/*/lib/src.zip; do
    if [ -r "$candidate" ]; then zip="$(readlink -f "$candidate")"; break; fi
  done
fi
[ -n "$zip" ] && [ -r "$zip" ] || { echo "no readable src.zip found; pass one as the second argument" >&2; exit 1; }
command -v rg >/dev/null || { echo "ripgrep (rg) is needed" >&2; exit 1; }

work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
tree="$work/tree"
mkdir -p "$tree"
unzip -q "$zip" -d "$tree"
# a repository, so that git ls-files has an index to read; .git is never walked by our tools
( cd "$tree" && git init -q && git -c core.autocrlf=false add -A >/dev/null 2>&1 \
    && git -c user.name=bench -c user.email=bench@localhost commit -qm tree >/dev/null )
echo "Tree: $(find "$tree" -type f -not -path '*/.git/*' | wc -l) files, $(du -sh --exclude=.git "$tree" | cut -f1)," \
  "from $zip." >&2

cp_file="$work/classpath.txt"
( cd "$root" && mvn -o -q dependency:build-classpath -pl bundles/tools-core -Dmdep.includeScope=test \
    -Dmdep.outputFile="$cp_file" >/dev/null )
# our bundles from this tree's build output, never from ~/.m2, which other checkouts may have overwritten
ours=""
for bundle in api workspace tools-core tools-edit-plus; do
  [ -d "$root/bundles/$bundle/target/classes" ] || { echo "build first: mvn -o install -DskipTests" >&2; exit 1; }
  ours="$ours$root/bundles/$bundle/target/classes:"
done
libraries="$(tr ':' '\n' < "$cp_file" | grep -v '/dev/quiver/' | paste -sd: -)"
classpath="$ours$libraries"
java -cp "$classpath" "$root/bench/FilesBench.java" "$tree" "$rounds"
