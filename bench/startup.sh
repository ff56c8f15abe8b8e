#!/usr/bin/env bash
# Cold start-up of the machine-readable modes: wall time of `quiver tools --json` (and `check`),
# each a fresh JVM and a fresh framework, against the bare JVM, and of `tools --json` answered from
# the record of the last identical run (no framework at all). Run on demand:
#   bench/startup.sh [runs]
# The commands take turns within each round, so all of them see the same load (this machine's
# figures drift by 10-20 % from minute to minute). Results go to stdout as a Markdown table for
# docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="$root/distribution/target/quiver"
runs="${1:-20}"
[ -x "$dist/bin/quiver" ] || { echo "build first: mvn -DskipTests package -pl distribution -am" >&2; exit 1; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cd "$work"

# `tools --json` answers from the record of the last identical run (docs/tools.md): the cold start
# rows turn it off (-Dquiver.tools.record=false; JDK_JAVA_OPTIONS where QUIVER_JAVA_OPTS holds another
# option already), and one row measures the record itself. The state folder is this run's own.
export XDG_STATE_HOME="$work/state"
names=(
  "java -version (bare JVM)"
  "quiver tools --json"
  "quiver tools --json, from the record"
  "quiver check bash"
  "quiver tools --json, no framework snapshot"
  "quiver tools --json, no CDS archive"
)
commands=(
  "java -Xshare:auto -version"
  "env QUIVER_JAVA_OPTS=-Dquiver.tools.record=false $dist/bin/quiver tools --json"
  "$dist/bin/quiver tools --json"
  "$dist/bin/quiver check bash {\"command\":\"ls\"}"
  "env JDK_JAVA_OPTIONS=-Dquiver.tools.record=false QUIVER_JAVA_OPTS=-Dquiver.snapshot=false $dist/bin/quiver tools --json"
  "env JDK_JAVA_OPTIONS=-Dquiver.tools.record=false QUIVER_JAVA_OPTS=-Xshare:off $dist/bin/quiver tools --json"
)
declare -A times
for i in "${!commands[@]}"; do eval "${commands[$i]}" >/dev/null 2>&1 || true; done # the page cache, not the JVM
for _ in $(seq "$runs"); do
  for i in "${!commands[@]}"; do
    start=$(date +%s%N)
    read -ra argv <<< "${commands[$i]}"
    "${argv[@]}" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    times[$i]+="$(( (end - start) / 1000000 )) "
  done
done

echo "| command | median ms | min ms | max ms | mean ms |"
echo "|---|---|---|---|---|"
for i in "${!commands[@]}"; do
  printf '%s\n' ${times[$i]} | sort -n | awk -v name="${names[$i]}" '
    { t[NR] = $1; sum += $1 }
    END { printf "| %s | %d | %d | %d | %d |\n", name, t[int((NR + 1) / 2)], t[1], t[NR], sum / NR }'
done
echo
echo "$runs rounds on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)."
