package dev.quiver.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The rules of one {@code --allowedTools} or {@code --disallowedTools} value: entries separated by
 * commas or spaces outside parentheses, each {@code TOOL} (every call of the tool) or
 * {@code TOOL(PATTERN)} (calls whose subject the permission pattern matches, as in a config file's
 * {@code permission} table). Claude Code's spellings are read where Quiver has the same tool:
 * {@code Bash(git diff:*)} is {@code bash(git diff *)}, {@code Read} is {@code read_file}, and
 * {@code mcp__server} is {@code mcp__server__*}.
 *
 * @param entries each entry as tool key and subject pattern, in the order given
 */
record ToolRules(List<Entry> entries) {

    /** One rule: a tool name or tool glob, and a subject pattern ({@code *} for every call). */
    record Entry(String tool, String pattern) {
    }

    /** Claude Code's tool names with a Quiver tool that does the same; each maps to that one tool. */
    static final Map<String, String> CLAUDE_NAMES = Map.ofEntries(Map.entry("Bash", "bash"),
            Map.entry("Read", "read_file"), Map.entry("Write", "write_file"), Map.entry("Edit", "edit_file"),
            Map.entry("MultiEdit", "multi_edit"), Map.entry("Glob", "glob"), Map.entry("Grep", "grep"),
            Map.entry("LS", "list_dir"), Map.entry("WebFetch", "web_fetch"), Map.entry("TodoWrite", "todo_write"),
            Map.entry("Task", "task"));

    private static final String FORM = "Write TOOL or TOOL(PATTERN), such as bash(git diff *) or read_file, separated by "
            + "commas or spaces.";

    /** picocli's converter: a value that cannot be read is a usage error (exit 2) naming the entry. */
    static final class Converter implements ITypeConverter<ToolRules> {
        @Override
        public ToolRules convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** Reads one option value; throws naming the entry that cannot be read and the form to use. */
    static ToolRules parse(String value) {
        List<Entry> entries = new ArrayList<>();
        int i = 0;
        while (i < value.length()) {
            char c = value.charAt(i);
            if (c == ',' || Character.isWhitespace(c)) {
                i++;
                continue;
            }
            int start = i;
            while (i < value.length() && value.charAt(i) != '(' && value.charAt(i) != ','
                    && !Character.isWhitespace(value.charAt(i))) {
                i++;
            }
            String tool = value.substring(start, i);
            String pattern = "*";
            if (i < value.length() && value.charAt(i) == '(') {
                int close = closing(value, i);
                if (close < 0) {
                    throw new IllegalArgumentException("'" + value.substring(start) + "' is missing its closing ')'. " + FORM);
                }
                pattern = value.substring(i + 1, close).strip();
                i = close + 1;
                if (i < value.length() && value.charAt(i) != ',' && !Character.isWhitespace(value.charAt(i))) {
                    throw new IllegalArgumentException("'" + value.substring(start) + "' has text after its ')'. " + FORM);
                }
                if (pattern.isEmpty()) {
                    throw new IllegalArgumentException("'" + value.substring(start, i) + "' has an empty pattern. " + FORM);
                }
            }
            entries.add(entry(tool, pattern));
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("no tool given. " + FORM);
        }
        return new ToolRules(List.copyOf(entries));
    }

    /** The index of the ')' that closes the '(' at {@code open}, counting nested pairs; -1 when none does. */
    private static int closing(String value, int open) {
        int depth = 0;
        for (int i = open; i < value.length(); i++) {
            if (value.charAt(i) == '(') {
                depth++;
            } else if (value.charAt(i) == ')' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static Entry entry(String written, String pattern) {
        if (!written.matches("[A-Za-z0-9_.*?-]+")) {
            throw new IllegalArgumentException("'" + written + "' is not a tool name. " + FORM);
        }
        if (pattern.length() > 4096) {
            throw new IllegalArgumentException("the pattern for " + written + " is longer than 4096 characters.");
        }
        String tool = CLAUDE_NAMES.getOrDefault(written, written);
        if (tool.startsWith("mcp__") && !tool.substring(5).contains("__") && tool.indexOf('*') < 0) {
            tool = tool + "__*"; // Claude Code's mcp__server: every tool of the server
        }
        if (tool.equals("web_fetch") && pattern.startsWith("domain:")) {
            throw new IllegalArgumentException("'" + written + "(" + pattern + ")' uses Claude Code's domain: form, which "
                    + "Quiver does not read; web_fetch's subject is the URL: web_fetch(https://"
                    + pattern.substring("domain:".length()) + "/*).");
        }
        if (pattern.endsWith(":*")) {
            // Claude Code's prefix form; Quiver's "git diff *" also matches the bare "git diff"
            pattern = pattern.substring(0, pattern.length() - 2).stripTrailing() + " *";
        }
        if (!tool.equals("bash") && pattern.startsWith("./")) {
            pattern = pattern.substring(2); // paths are matched relative to the workspace, without ./
        }
        return new Entry(tool, pattern);
    }

    /** Every value's rules as the kernel takes them: tool key to its patterns, in the order given. */
    static Map<String, List<String>> merged(List<ToolRules> values) {
        Map<String, List<String>> rules = new LinkedHashMap<>();
        for (ToolRules value : values) {
            for (Entry entry : value.entries()) {
                List<String> patterns = rules.computeIfAbsent(entry.tool(), tool -> new ArrayList<>());
                if (!patterns.contains(entry.pattern())) {
                    patterns.add(entry.pattern());
                }
            }
        }
        return rules;
    }
}
