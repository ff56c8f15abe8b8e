#!/usr/bin/env bash
# Decision latency of the permission chain's shell part: parse + guard of a 10-part compound command,
# in a warm JVM (ShellParserBench in the kernel's test code). Run on demand: bench/decisions.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mvn -o -q -pl bundles/kernel test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath >&2
k=bundles/kernel/target
java -cp "$k/classes:$k/test-classes:$(cat "$k/bench.classpath")" dev.quiver.kernel.shell.ShellParserBench
