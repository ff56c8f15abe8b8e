#!/usr/bin/env bash
# Latency of whole permission decisions: CallChain.check — arguments and schema, subjects, the shell
# parser, the guard, the secrets, the rule table, the strictest of the parts — for a 10-part compound
# bash command, single commands and path tools, in one warm JVM (DecisionBench in the kernel's test
# code), with the JVM options bin/quiver gives a session (serial GC, the tiered compilers). Prints
# Markdown tables of median, p99 and mean microseconds. Run on demand:
#   bench/decisions.sh [samples per case]
# BENCH_JAVA_OPTS replaces the JVM options (e.g. "-XX:+UseSerialGC -XX:TieredStopAtLevel=1
# -XX:CICompilerCount=1", what a one-shot `quiver check` runs with).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mvn -o -q -f bundles/kernel/pom.xml test-compile dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/bench.classpath >&2
k=bundles/kernel/target
opts="${BENCH_JAVA_OPTS--XX:+UseSerialGC}"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
java $opts -cp "$k/classes:$k/test-classes:$(cat "$k/bench.classpath")" dev.quiver.kernel.DecisionBench "$@"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
