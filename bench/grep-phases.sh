#!/usr/bin/env bash
# Where a warm grep's time goes in a `quiver call --batch -` process: the batch process beside the tools
# alone (bench/GrepServer.java) on the same build's jars, and a fresh ripgrep, on the JDK's own sources.
# Run on demand, after `mvn -o install -DskipTests`:
#   bench/grep-phases.sh [measured rounds] [src.zip]
# QUIVER: the bin/quiver to time (default this checkout's). JARS: more folders of jars to time the tools
# alone from, separated by spaces (say bundles/*/target of an older commit, to find when a cost came in).
# Results go to stdout as Markdown for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
quiver="${QUIVER:-$root/distribution/target/quiver/bin/quiver}"
command -v rg >/dev/null || { echo "ripgrep (rg) is needed" >&2; exit 1; }
[ -x "$quiver" ] || { echo "build first: mvn -o install -DskipTests ($quiver)" >&2; exit 1; }
source "$root/bench/jdk-tree.sh" "${2:-}"
bundles="$(cd "$(dirname "$quiver")/../bundle" && pwd)"
# the tools alone, with the launcher's collector; the given jars come first on the class path, the
# distribution's libraries (JGit, Jackson) after them
alone() { echo "java -XX:+UseSerialGC -Xshare:auto -cp '$1/*:$bundles/*' '$root/bench/GrepServer.java' '$tree'"; }
servers=("batch=$quiver --workspace '$tree' --yolo call --batch -" "tools alone=$(alone "$bundles")")
for jars in ${JARS:-}; do servers+=("tools alone, $(basename "$(dirname "$jars")")=$(alone "$jars")"); done
java "$root/bench/GrepPhasesBench.java" "$tree" 6 "${1:-20}" "${servers[@]}"
echo
echo "Commit $(git -C "$root" rev-parse --short HEAD), load average $(cut -d' ' -f1-3 /proc/loadavg), $(rg --version | head -1)."
