#!/usr/bin/env bash
# Cold start-up of the machine-readable modes: wall time of `quiver tools --json` (and `check`),
# each a fresh JVM and a fresh framework, against the bare JVM. Run on demand:
#   bench/startup.sh [runs]
# Results go to stdout as a Markdown table for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="$root/distribution/target/quiver"
runs="${1:-20}"
[ -x "$dist/bin/quiver" ] || { echo "build first: mvn -DskipTests package -pl distribution -am" >&2; exit 1; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cd "$work"

measure() { # name, command...
  local name="$1"; shift
  local times=()
  "$@" >/dev/null 2>&1 || true # warm the page cache, not the JVM
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N); "$@" >/dev/null 2>&1; end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v name="$name" '
    { t[NR] = $1; sum += $1 }
    END { printf "| %s | %d | %d | %d | %d |\n", name, t[int((NR + 1) / 2)], t[1], t[NR], sum / NR }'
}

echo "| command | median ms | min ms | max ms | mean ms |"
echo "|---|---|---|---|---|"
measure "java -version (bare JVM)" java -Xshare:auto -version
measure "quiver tools --json" "$dist/bin/quiver" tools --json
measure "quiver check bash" "$dist/bin/quiver" check bash '{"command":"ls"}'
measure "quiver tools --json, no CDS archive" env QUIVER_JAVA_OPTS=-Xshare:off "$dist/bin/quiver" tools --json
echo
echo "$runs runs each on $(nproc) cores, $(java -version 2>&1 | head -1)."
