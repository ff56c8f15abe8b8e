#!/usr/bin/env bash
# Hot-swap latency, on demand: boots the Pax Exam host (itests) and times, over 20 rounds after two
# warm-up rounds, catalogue install -> first successful call, update -> the new revision answers,
# remove -> gone, and a jar copied into / deleted from a watched folder (FileInstall, 100 ms poll).
# Prints a Markdown table for docs/benchmarks.md. Build the bundles first (mvn install -DskipTests).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mvn -o -q verify -f "$root/itests/pom.xml" -Dit.test=HotSwapBenchmark -Dfailsafe.failIfNoSpecifiedTests=false \
  2>/dev/null | grep '^|' || { echo "the benchmark did not run; see itests/target/failsafe-reports" >&2; exit 1; }
echo
echo "$(nproc) cores, $(java -version 2>&1 | head -1)."
