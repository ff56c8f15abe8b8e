# Sourced by the benchmarks that run on the JDK's own sources (lib/src.zip, about 15,000 files).
# Argument: the src.zip to use; empty for $JAVA_HOME's or the first under /usr/lib/jvm. Needs $root,
# the checkout. Sets $zip, $work (a temporary folder removed at exit) and $tree (the sources unpacked
# there and made a git repository, as a workspace usually is: our walks read its index and ignore
# files; .git itself is never walked), and defines quiver_classpath.
zip="${1:-}"
if [ -z "$zip" ]; then
  for candidate in "${JAVA_HOME:-/nonexistent}/lib/src.zip" /usr/lib/jvm/*/lib/src.zip; do
    if [ -r "$candidate" ]; then zip="$(readlink -f "$candidate")"; break; fi
  done
fi
[ -n "$zip" ] && [ -r "$zip" ] || { echo "no readable src.zip found; pass one as the second argument" >&2; exit 1; }

work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
tree="$work/tree"
mkdir -p "$tree"
unzip -q "$zip" -d "$tree"
( cd "$tree" && git init -q && git -c core.autocrlf=false add -A >/dev/null 2>&1 \
    && git -c user.name=bench -c user.email=bench@localhost commit -qm tree >/dev/null )
echo "Tree: $(find "$tree" -type f -not -path '*/.git/*' | wc -l) files, $(du -sh --exclude=.git "$tree" | cut -f1)," \
  "from $zip." >&2

# quiver_classpath MODULE BUNDLE...: the class path of the BUNDLEs' build output in this checkout (never
# from ~/.m2, which other checkouts may have overwritten) and MODULE's libraries, test scope included.
quiver_classpath() {
  local module="$1" cp_file="$work/classpath.txt" ours="" bundle
  shift
  ( cd "$root" && mvn -o -q dependency:build-classpath -pl "$module" -Dmdep.includeScope=test \
      -Dmdep.outputFile="$cp_file" >/dev/null )
  for bundle in "$@"; do
    [ -d "$root/bundles/$bundle/target/classes" ] || { echo "build first: mvn -o package -DskipTests" >&2; exit 1; }
    ours="$ours$root/bundles/$bundle/target/classes:"
  done
  echo "$ours$(tr ':' '\n' < "$cp_file" | grep -v '/dev/quiver/' | paste -sd: -)"
}
