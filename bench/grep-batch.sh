#!/usr/bin/env bash
# grep and glob as a session meets them: the first three calls of a fresh `quiver call --batch -` and warm
# calls, on the JDK's own sources, each beside a fresh ripgrep on the same tree. Run on demand, after
# `mvn -o install -DskipTests`:
#   bench/grep-batch.sh [processes per case] [warm rounds] [src.zip]
# QUIVER: the bin/quiver to time, or several separated by spaces (say a build of the commit before), which
# then take turns. Results go to stdout as Markdown for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
quiver="${QUIVER:-$root/distribution/target/quiver/bin/quiver}"
command -v rg >/dev/null || { echo "ripgrep (rg) is needed" >&2; exit 1; }
for q in $quiver; do [ -x "$q" ] || { echo "build first: mvn -o install -DskipTests ($q)" >&2; exit 1; }; done
source "$root/bench/jdk-tree.sh" "${3:-}"
# shellcheck disable=SC2086
java "$root/bench/GrepBatchBench.java" "$tree" "${1:-5}" "${2:-10}" $quiver
echo
echo "Commit $(git -C "$root" rev-parse --short HEAD), load average $(cut -d' ' -f1-3 /proc/loadavg), $(rg --version | head -1)."
