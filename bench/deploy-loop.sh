#!/usr/bin/env bash
# A plugin author's loop in a running `quiver call --batch -`: the example tool bundle's jar copied into the
# watched folder until its tool answers, and deleted until it is gone, for each FileInstall poll given
# ("default" is conf/config.properties' value). Run on demand, after `mvn -o install -DskipTests`:
#   bench/deploy-loop.sh [rounds] [poll ms...]
# Results go to stdout as a Markdown table for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="$root/distribution/target/quiver"
jar="$root/examples/hello-tool/target/hello-tool-1.0.0.jar"
rounds="${1:-10}"
shift || true
[ -x "$dist/bin/quiver" ] && [ -f "$jar" ] || { echo "build first: mvn -o install -DskipTests" >&2; exit 1; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
java "$root/bench/DeployLoopBench.java" "$dist/bin/quiver" "$jar" "$work" "$rounds" "${@:-default}"
echo
echo "Commit $(git -C "$root" rev-parse --short HEAD), load average $(cut -d' ' -f1-3 /proc/loadavg)."
