package dev.quiver.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which tool sets a session offers. {@code core} is always on; without a {@code toolSets} key every
 * installed set is on except the opt-in {@code net}; with one, {@code core} plus the sets it names.
 * Tools without a set (plugins, MCP servers) are never gated here. A disabled set is absent from the
 * request and the system prompt together.
 */
final class ToolSets {

    /** The sets Quiver's own bundles define. */
    static final Set<String> KNOWN = Set.of("core", "edit-plus", "nav", "extra", "git", "net", "agent");
    /** Sets that are off unless named. */
    static final Set<String> OPT_IN = Set.of("net");

    private final Optional<Set<String>> chosen;

    private ToolSets(Optional<Set<String>> chosen) {
        this.chosen = chosen;
    }

    /**
     * Reads the config's {@code toolSets}; unknown names and wrong types are reported.
     *
     * @param installed the sets of the tools registered now, which also count as known
     */
    static ToolSets from(Optional<Config.Value> value, Set<String> installed, List<String> warnings) {
        if (value.isEmpty()) {
            return new ToolSets(Optional.empty());
        }
        JsonNode node = value.get().node();
        if (!node.isArray()) {
            warnings.add("Config key 'toolSets' in " + value.get().file() + " must be a list of set names such as "
                    + "[\"edit-plus\", \"git\"]; using the default sets.");
            return new ToolSets(Optional.empty());
        }
        Set<String> sets = new TreeSet<>();
        sets.add("core");
        List<String> unknown = new ArrayList<>();
        for (JsonNode entry : node) {
            String name = entry.asText("");
            if (KNOWN.contains(name) || installed.contains(name)) {
                sets.add(name);
            } else {
                unknown.add(entry.isTextual() ? name : entry.toString());
            }
        }
        if (!unknown.isEmpty()) {
            warnings.add("Unknown tool sets in 'toolSets' of " + value.get().file() + ": " + String.join(", ", unknown)
                    + " (known: " + String.join(", ", new TreeSet<>(KNOWN)) + "); they are off.");
        }
        return new ToolSets(Optional.of(sets));
    }

    /**
     * These sets less those an untrusted workspace's {@code toolSets} leaves out: such a workspace may
     * switch sets off, never on.
     */
    ToolSets narrowedTo(Optional<Config.Value> workspace, List<String> warnings) {
        if (workspace.isEmpty()) {
            return this;
        }
        if (!workspace.get().node().isArray()) {
            warnings.add("Config key 'toolSets' in " + workspace.get().file() + " must be a list of set names; "
                    + "ignoring it.");
            return this;
        }
        Set<String> named = new TreeSet<>();
        workspace.get().node().forEach(entry -> named.add(entry.asText("")));
        named.add("core");
        Set<String> kept = new TreeSet<>();
        for (String set : KNOWN) {
            if (named.contains(set) && chosen.map(sets -> sets.contains(set)).orElse(!OPT_IN.contains(set))) {
                kept.add(set);
            }
        }
        chosen.ifPresent(sets -> sets.stream().filter(named::contains).forEach(kept::add));
        return new ToolSets(Optional.of(kept));
    }

    boolean offers(RegisteredTool tool) {
        if (tool.set().isEmpty()) {
            return true;
        }
        String set = tool.set().get();
        if (set.equals("core")) {
            return true;
        }
        return chosen.map(sets -> sets.contains(set)).orElse(!OPT_IN.contains(set));
    }
}
