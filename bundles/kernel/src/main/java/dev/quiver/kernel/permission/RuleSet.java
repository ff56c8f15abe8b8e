package dev.quiver.kernel.permission;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.api.host.Decision;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code permission} configuration: per tool (or tool glob such as {@code mcp__*}) either one
 * decision or an ordered table of subject patterns, in which the later matching entry wins.
 *
 * <p>Rules come in layers — the managed policy, the user's files, the workspace's — and every layer
 * is consulted: each gives the decision of its own table's last matching entry, and the call gets
 * the strictest of them (deny over ask over allow). So no layer can loosen what another tightened: a
 * user's deny holds against a workspace's allow, a managed ask against a user's allow. Within a layer
 * the file read first wins for a tool key, whole. A table replaces the tool's defaults only where it
 * matches. An exact tool key wins over globs; among globs the one written last wins. Entries with an
 * unrecognised decision are dropped and reported — never read as allow. An untrusted workspace's
 * layer keeps only its deny and ask entries.
 *
 * <p>One exception to "strictest wins": the allow rules the user gives for one run on the command
 * line ({@code --allowedTools}, {@link Authority#RUN_ALLOW}) answer an ask of the user's or the
 * workspace's layer, as the user's own answer to that question would. They never answer a deny, nor an
 * ask of the managed policy.
 */
public final class RuleSet {

    /** Where a layer's rules come from, as far as outranking goes. */
    public enum Authority {
        /** The managed policy: its asks hold against everything. */
        MANAGED,
        /** The user's files and the workspace's. */
        ORDINARY,
        /** The command line's allow rules for one run: they answer ordinary asks. */
        RUN_ALLOW
    }

    /**
     * One config file's {@code permission} value.
     *
     * @param file the file, for messages
     * @param layer the layer's rank, 0 the highest; files of one layer share it
     * @param workspace whether it is the workspace's, which can never unlock a secret
     * @param narrowOnly keep deny and ask entries only (an untrusted workspace)
     * @param value the parsed {@code permission} object
     * @param authority whether the layer is the managed policy's, an ordinary one, or the run's allow rules
     */
    public record Source(Path file, int layer, boolean workspace, boolean narrowOnly, JsonNode value,
            Authority authority) {

        /** An ordinary layer's file. */
        public Source(Path file, int layer, boolean workspace, boolean narrowOnly, JsonNode value) {
            this(file, layer, workspace, narrowOnly, value, Authority.ORDINARY);
        }
    }

    /**
     * One layer: its tables by tool key, in the order written.
     *
     * @param unlocksNoSecret whether even its exact allow rule cannot unlock a secret path (the workspace's,
     *     and the command line's, whose patterns are typed for one run)
     */
    private record Layer(Map<String, List<Rule>> tables, boolean unlocksNoSecret, Authority authority) {
    }

    private final List<Layer> layers;

    private RuleSet(List<Layer> layers) {
        this.layers = layers;
    }

    /** No rules: every tool has its defaults. */
    public static RuleSet empty() {
        return new RuleSet(List.of());
    }

    /**
     * Reads the {@code permission} objects of files that all belong to one layer, first file first.
     *
     * @param sources each file's {@code permission} value with the file
     * @param warnings receives one sentence per problem, naming the file and the key
     */
    public static RuleSet parse(List<Map.Entry<Path, JsonNode>> sources, List<String> warnings) {
        List<Source> layered = new ArrayList<>();
        for (Map.Entry<Path, JsonNode> source : sources) {
            layered.add(new Source(source.getKey(), 0, false, false, source.getValue()));
        }
        return layered(layered, warnings);
    }

    /**
     * Reads the {@code permission} objects of every layer.
     *
     * @param sources highest layer first; within a layer, first file first
     * @param warnings receives one sentence per problem, naming the file and the key
     */
    public static RuleSet layered(List<Source> sources, List<String> warnings) {
        Map<Integer, Layer> layers = new java.util.TreeMap<>();
        for (Source source : sources) {
            Path file = source.file();
            JsonNode permission = source.value();
            Layer layer = layers.computeIfAbsent(source.layer(), rank -> new Layer(new LinkedHashMap<>(),
                    source.workspace() || source.authority() == Authority.RUN_ALLOW, source.authority()));
            if (!permission.isObject()) {
                warnings.add("Config key 'permission' in " + file + " must be an object of tools; ignoring it.");
                continue;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = permission.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> entry = it.next();
                String tool = entry.getKey();
                if (layer.tables().containsKey(tool)) {
                    continue; // an earlier file of this layer configured this tool; its table stands whole
                }
                List<Rule> table = table(tool, entry.getValue(), file, warnings);
                if (table != null && source.narrowOnly()) {
                    table.removeIf(rule -> rule.decision() == Decision.ALLOW);
                }
                if (table != null && !table.isEmpty()) {
                    layer.tables().put(tool, List.copyOf(table));
                }
            }
        }
        return new RuleSet(List.copyOf(layers.values()));
    }

    private static List<Rule> table(String tool, JsonNode value, Path file, List<String> warnings) {
        String where = "permission." + tool + " in " + file;
        if (value.isTextual()) {
            return decision(value.asText(), where, warnings).map(d -> new ArrayList<>(List.of(new Rule(tool, "*", d, file))))
                    .orElse(null);
        }
        if (!value.isObject()) {
            warnings.add("Config key " + where + " must be a decision (allow, ask, deny) or an object of patterns; "
                    + "ignoring it.");
            return null;
        }
        List<Rule> rules = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> entry = it.next();
            String pattern = entry.getKey();
            String at = where + " (pattern \"" + shorten(pattern) + "\")";
            if (pattern.length() > Wildcard.MAX_PATTERN_CHARS) {
                warnings.add("Config key " + at + " is longer than " + Wildcard.MAX_PATTERN_CHARS + " characters; dropped.");
                continue;
            }
            if (!entry.getValue().isTextual()) {
                warnings.add("Config key " + at + " must be allow, ask or deny; dropped.");
                continue;
            }
            decision(entry.getValue().asText(), at, warnings).ifPresent(d -> rules.add(new Rule(tool, pattern, d, file)));
        }
        return rules;
    }

    private static Optional<Decision> decision(String text, String where, List<String> warnings) {
        switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "allow":
                return Optional.of(Decision.ALLOW);
            case "ask":
                return Optional.of(Decision.ASK);
            case "deny":
                return Optional.of(Decision.DENY);
            default:
                warnings.add("Config key " + where + " has the unknown decision \"" + shorten(text)
                        + "\" (use allow, ask or deny); dropped, so the default applies.");
                return Optional.empty();
        }
    }

    private static String shorten(String text) {
        return text.length() > 60 ? text.substring(0, 60) + "..." : text;
    }

    /** Whether any layer has a table for a tool. */
    public boolean configures(String tool) {
        return layers.stream().anyMatch(layer -> tableFor(layer, tool).isPresent());
    }

    /**
     * The rule each layer's table (for this tool) decides by — its last entry that matches any of the
     * texts — strictest first: the first is the call's decision.
     */
    public List<Rule> matches(String tool, List<String> texts) {
        return matches(tool, matchingAny(texts));
    }

    /** Matches a rule whose pattern matches any of the texts. */
    static java.util.function.Predicate<Rule> matchingAny(List<String> texts) {
        return rule -> texts.stream().anyMatch(text -> Wildcard.matchesSubject(rule.pattern(), text));
    }

    /**
     * As {@link #matches(String, List)}, with the subject deciding which rules match it: a shell command
     * is matched by an allow rule on its normalised text only, by a deny or ask rule on every spelling.
     */
    public List<Rule> matches(String tool, java.util.function.Predicate<Rule> matcher) {
        List<Rule> matched = new ArrayList<>();
        Optional<Rule> runAllow = Optional.empty();
        boolean managedAsks = false;
        for (Layer layer : layers) {
            Optional<Rule> rule = tableFor(layer, tool).flatMap(table -> lastMatch(table, matcher));
            if (rule.isEmpty()) {
                continue;
            }
            if (layer.authority() == Authority.RUN_ALLOW) {
                runAllow = rule;
                continue;
            }
            managedAsks |= layer.authority() == Authority.MANAGED && rule.get().decision() == Decision.ASK;
            matched.add(rule.get());
        }
        matched.sort((a, b) -> Integer.compare(b.decision().ordinal(), a.decision().ordinal()));
        if (runAllow.isPresent()) {
            boolean answers = !managedAsks && (matched.isEmpty() || matched.get(0).decision() != Decision.DENY);
            // first when it answers the ask (or there was none), last otherwise: the strictest still decides
            matched.add(answers ? 0 : matched.size(), runAllow.get());
        }
        return matched;
    }

    /**
     * Whether a rule outside the workspace allows exactly this path (no wildcard) and no layer denies
     * or asks for it: what it takes to unlock a secret.
     */
    public boolean allowsExactly(String tool, String path) {
        boolean allowed = false;
        for (Layer layer : layers) {
            Optional<List<Rule>> table = tableFor(layer, tool);
            if (table.isEmpty()) {
                continue;
            }
            Optional<Rule> last = lastMatch(table.get(), rule -> Wildcard.matchesSubject(rule.pattern(), path));
            if (last.isPresent() && last.get().decision() != Decision.ALLOW) {
                return false;
            }
            allowed |= !layer.unlocksNoSecret() && table.get().stream().anyMatch(rule -> rule.decision() == Decision.ALLOW
                    && rule.pattern().equals(path));
        }
        return allowed;
    }

    /** The table that governs a tool in one layer: its exact key, else the last glob key that matches it. */
    private static Optional<List<Rule>> tableFor(Layer layer, String tool) {
        List<Rule> exact = layer.tables().get(tool);
        if (exact != null) {
            return Optional.of(exact);
        }
        List<Rule> found = null;
        for (Map.Entry<String, List<Rule>> entry : layer.tables().entrySet()) {
            String key = entry.getKey();
            if ((key.indexOf('*') >= 0 || key.indexOf('?') >= 0) && Wildcard.matches(key, tool)) {
                found = entry.getValue();
            }
        }
        return Optional.ofNullable(found);
    }

    /** The last rule of a table that matches. */
    private static Optional<Rule> lastMatch(List<Rule> table, java.util.function.Predicate<Rule> matcher) {
        for (int i = table.size() - 1; i >= 0; i--) {
            if (matcher.test(table.get(i))) {
                return Optional.of(table.get(i));
            }
        }
        return Optional.empty();
    }
}
