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
 * <p>A tool's table replaces its defaults rather than merging with them. When several files
 * configure the same tool key, the file read first (command line, then workspace, then user) wins
 * for that key. An exact tool key wins over globs; among globs the one written last wins. Entries
 * with an unrecognised decision are dropped and reported — never read as allow.
 */
public final class RuleSet {

    private final Map<String, List<Rule>> tables;

    private RuleSet(Map<String, List<Rule>> tables) {
        this.tables = tables;
    }

    /** No rules: every tool has its defaults. */
    public static RuleSet empty() {
        return new RuleSet(Map.of());
    }

    /**
     * Reads the {@code permission} objects of the config files, first file first.
     *
     * @param sources each file's {@code permission} value with the file
     * @param warnings receives one sentence per problem, naming the file and the key
     */
    public static RuleSet parse(List<Map.Entry<Path, JsonNode>> sources, List<String> warnings) {
        Map<String, List<Rule>> tables = new LinkedHashMap<>();
        for (Map.Entry<Path, JsonNode> source : sources) {
            Path file = source.getKey();
            JsonNode permission = source.getValue();
            if (!permission.isObject()) {
                warnings.add("Config key 'permission' in " + file + " must be an object of tools; ignoring it.");
                continue;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = permission.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> entry = it.next();
                String tool = entry.getKey();
                if (tables.containsKey(tool)) {
                    continue; // an earlier file configured this tool; its table stands whole
                }
                List<Rule> table = table(tool, entry.getValue(), file, warnings);
                if (table != null) {
                    tables.put(tool, List.copyOf(table));
                }
            }
        }
        return new RuleSet(tables);
    }

    private static List<Rule> table(String tool, JsonNode value, Path file, List<String> warnings) {
        String where = "permission." + tool + " in " + file;
        if (value.isTextual()) {
            return decision(value.asText(), where, warnings).map(d -> List.of(new Rule(tool, "*", d, file))).orElse(null);
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

    /** The table that governs a tool: its exact key, else the last glob key that matches it. */
    public Optional<List<Rule>> tableFor(String tool) {
        List<Rule> exact = tables.get(tool);
        if (exact != null) {
            return Optional.of(exact);
        }
        List<Rule> found = null;
        for (Map.Entry<String, List<Rule>> entry : tables.entrySet()) {
            String key = entry.getKey();
            if ((key.indexOf('*') >= 0 || key.indexOf('?') >= 0) && Wildcard.matches(key, tool)) {
                found = entry.getValue();
            }
        }
        return Optional.ofNullable(found);
    }

    /** The last rule of a table that matches any of the texts; a {@code "cmd *"} pattern also matches {@code cmd}. */
    public static Optional<Rule> lastMatch(List<Rule> table, List<String> texts) {
        for (int i = table.size() - 1; i >= 0; i--) {
            Rule rule = table.get(i);
            for (String text : texts) {
                if (Wildcard.matches(rule.pattern(), text)
                        || (rule.pattern().endsWith(" *") && rule.pattern().substring(0, rule.pattern().length() - 2).equals(text))) {
                    return Optional.of(rule);
                }
            }
        }
        return Optional.empty();
    }
}
