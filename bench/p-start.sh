#!/usr/bin/env bash
# `quiver -p hi`: spawn -> the first model request on the wire, timed by a loopback OpenAI-style
# server, and the whole run. Run on demand:
#   bench/p-start.sh [rounds] [other-quiver-home]
# With a second installation (another build's distribution/target/quiver, copied aside), the two
# take turns in each round and are compared round by round. Results go to stdout as a Markdown
# table for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="$root/distribution/target/quiver"
runs="${1:-10}"
other="${2:-}"
[ -x "$dist/bin/quiver" ] || { echo "build first: mvn -DskipTests package -pl distribution -am" >&2; exit 1; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws" "$work/home"
export HOME="$work/home" XDG_STATE_HOME="$work/home/.state" XDG_CONFIG_HOME="$work/home/.config"
unset OPENAI_API_KEY OPENAI_BASE_URL
cd "$work/ws"
commands=("this build=$dist/bin/quiver -p hi --model openai/bench --base-url {url}")
[ -n "$other" ] && commands+=("$other=$other/bin/quiver -p hi --model openai/bench --base-url {url}")
python3 "$root/bench/p_start.py" "$runs" "${commands[@]}"
echo
echo "$runs rounds on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), commit $(git -C "$root" rev-parse --short HEAD), $(java -version 2>&1 | head -1)."
