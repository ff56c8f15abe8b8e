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
source "$root/bench/jdk-tree.sh" "${2:-}"
classpath="$(quiver_classpath bundles/kernel api workspace kernel)"
java -cp "$classpath" "$root/bench/CheckpointBench.java" "$tree" "$rounds"
