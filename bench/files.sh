#!/usr/bin/env bash
# grep, glob and list_dir on a large real tree: the JDK's own sources (lib/src.zip, about 15,000 files),
# timed in one warm JVM against ripgrep and git ls-files run as fresh processes with the same hit cap.
# Run on demand, after `mvn -o install -DskipTests`:
#   bench/files.sh [rounds] [src.zip]
# Results go to stdout as a Markdown table for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-15}"
command -v rg >/dev/null || { echo "ripgrep (rg) is needed" >&2; exit 1; }
source "$root/bench/jdk-tree.sh" "${2:-}"
classpath="$(quiver_classpath bundles/tools-core api workspace tools-core tools-edit-plus)"
java -cp "$classpath" "$root/bench/FilesBench.java" "$tree" "$rounds"
