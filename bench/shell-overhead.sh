#!/usr/bin/env bash
# The overhead of the bash tool's Shell service for `true`, with and without the bubblewrap sandbox,
# against spawning `bash -lc true` directly, and with a 100,000-file workspace (secret masking).
# Run on demand:
#   bench/shell-overhead.sh [runs] [--real-home]
# HOME is an empty folder by default, so that no login profile (pyenv, nvm, ...) adds its own,
# variable cost to every variant; --real-home keeps yours. Prints a Markdown table for
# docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-50}"
shell="$root/bundles/shell/target/classes"
[ -f "$shell/dev/quiver/shell/ProcessShell.class" ] || {
  echo "build first: mvn -o -DskipTests install -pl bundles/api,bundles/workspace,bundles/shell" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "bubblewrap (bwrap) is not installed" >&2; exit 1; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
# the shell's classes, and the API, the workspace and JGit as its tests see them
(cd "$root" && mvn -o -q dependency:build-classpath -pl bundles/shell -Dmdep.includeScope=test \
  -Dmdep.outputFile="$work/classpath.txt" >/dev/null)
classpath="$shell:$(cat "$work/classpath.txt")"

# a workspace of 100,000 files in 2,000 folders, two of them secrets
python3 - "$work/big" <<'PY'
import os, sys
root = sys.argv[1]
for a in range(50):
    for b in range(40):
        d = f"{root}/node_modules/pkg{a}/lib{b}"
        os.makedirs(d)
        for c in range(50):
            open(f"{d}/f{c}.js", "w").close()
open(f"{root}/.env", "w").write("SECRET=1\n")
open(f"{root}/node_modules/pkg3/lib4/server.pem", "w").write("x")
PY

home="$HOME"
if [ "${2:-}" != "--real-home" ]; then home="$work/home"; mkdir -p "$home"; fi
cd "$work"
HOME="$home" XDG_STATE_HOME="$work/state" java -cp "$classpath" "$root/bench/ShellOverhead.java" "$runs" "$work/big"
echo
echo "$runs runs each on $(nproc) cores, $(java -version 2>&1 | head -1), $(bwrap --version)."
