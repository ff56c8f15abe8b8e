#!/usr/bin/env bash
# find_symbol and outline on a large real tree: the JDK's own sources (lib/src.zip, about 15,000 files),
# timed in one warm JVM against ripgrep with a definition regex and universal-ctags, as fresh processes.
# Run on demand, after `mvn -o package -DskipTests -pl testing,bundles/api,bundles/workspace,bundles/tools-nav`:
#   bench/nav.sh [rounds] [src.zip]
# Results go to stdout as a Markdown table for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-10}"
command -v rg >/dev/null || { echo "ripgrep (rg) is needed" >&2; exit 1; }
command -v ctags >/dev/null || echo "universal-ctags is not installed: its rows are left out" >&2
source "$root/bench/jdk-tree.sh" "${2:-}"
classpath="$(quiver_classpath bundles/tools-nav api workspace tools-nav)"
java -cp "$classpath" "$root/bench/NavBench.java" "$tree" "$rounds"
