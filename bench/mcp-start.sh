#!/usr/bin/env bash
# Start-up of `quiver mcp` as an MCP client waits for it: spawn -> initialize answered -> tools/list
# answered, over stdio, against Claude Code's `claude mcp serve`, the commands taking turns in each
# round. Run on demand:
#   bench/mcp-start.sh [rounds]
# CLAUDE=/path/to/claude uses an installed Claude Code; otherwise @anthropic-ai/claude-code is
# installed from npm into a temporary folder (if that fails, quiver is measured alone). Both run with
# a private HOME and state folder, so `quiver mcp` starts with the catalogue its own unmeasured first
# start recorded. Results go to stdout as a Markdown table for docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="$root/distribution/target/quiver"
runs="${1:-10}"
[ -x "$dist/bin/quiver" ] || { echo "build first: mvn -DskipTests package -pl distribution -am" >&2; exit 1; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws" "$work/home"
printf '# bench\n' > "$work/ws/README.md"
claude="${CLAUDE:-}"
if [ -z "$claude" ]; then
  if (cd "$work" && printf '{"private":true}\n' > package.json \
      && npm install --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code >/dev/null 2>&1); then
    claude="$work/node_modules/.bin/claude"
  else
    echo "could not install @anthropic-ai/claude-code from npm: measuring quiver alone" >&2
  fi
fi
export HOME="$work/home" XDG_STATE_HOME="$work/home/.state" XDG_CONFIG_HOME="$work/home/.config"
cd "$work/ws"
servers=("quiver mcp=$dist/bin/quiver mcp")
[ -n "$claude" ] && servers+=("claude mcp serve ($("$claude" --version 2>/dev/null | cut -d' ' -f1))=$claude mcp serve")
servers+=("quiver mcp without the record=env QUIVER_JAVA_OPTS=-Dquiver.mcp.catalogue=false $dist/bin/quiver mcp")
python3 "$root/bench/mcp_start.py" "$runs" "${servers[@]}"
echo
echo "$runs rounds on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), commit $(git -C "$root" rev-parse --short HEAD), $(java -version 2>&1 | head -1)."
