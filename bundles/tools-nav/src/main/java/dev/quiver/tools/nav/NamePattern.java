package dev.quiver.tools.nav;

import dev.quiver.api.ToolException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * A symbol name as the model asks for it: exact ({@code parse}), a glob ({@code parse*}, {@code get?ame}),
 * and either qualified by its containers ({@code Parser.parse}, {@code Outer.Inner.run}), which then must
 * be the declaration's innermost ones. Case counts, as it does in the languages.
 */
final class NamePattern {

    private final String text;
    private final Pattern pattern;
    private final boolean qualified;
    private final byte[] needle;
    private final boolean identifier;

    private NamePattern(String text, Pattern pattern, boolean qualified, byte[] needle, boolean identifier) {
        this.text = text;
        this.pattern = pattern;
        this.qualified = qualified;
        this.needle = needle;
        this.identifier = identifier;
    }

    static NamePattern parse(String text) throws ToolException {
        String name = text.strip();
        if (name.isEmpty()) {
            throw new ToolException("name is empty. Give a symbol name such as Parser, parse_args or Parser.parse, "
                    + "or a glob such as *Handler.");
        }
        if (name.length() > 200 || !name.matches("[\\p{L}\\p{N}_$*?.:]+")) {
            throw new ToolException("name must be a symbol name (letters, digits, _ and $), optionally qualified "
                    + "with dots (Class.method) and holding * or ? as wildcards; got: " + quote(name));
        }
        name = name.replace("::", ".");
        if (name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
            throw new ToolException("name " + quote(name) + " has an empty part between dots; write Class.method.");
        }
        StringBuilder regex = new StringBuilder();
        for (char c : name.toCharArray()) {
            switch (c) {
                case '*' -> regex.append("[^.]*");
                case '?' -> regex.append("[^.]");
                case '.' -> regex.append("\\.");
                case '$' -> regex.append("\\$");
                default -> regex.append(c);
            }
        }
        boolean qualified = name.indexOf('.') >= 0;
        String last = name.substring(name.lastIndexOf('.') + 1);
        return new NamePattern(name, Pattern.compile(qualified ? "(?:.*\\.)?" + regex : regex.toString()), qualified,
                longestLiteral(last).getBytes(StandardCharsets.UTF_8), !last.contains("*") && !last.contains("?"));
    }

    private static String quote(String text) {
        return "'" + (text.length() > 80 ? text.substring(0, 80) + "..." : text) + "'";
    }

    /** The longest run without wildcards in the name's last part: every matching file holds it. */
    private static String longestLiteral(String last) {
        String best = "";
        for (String run : last.split("[*?]")) {
            if (run.length() > best.length()) {
                best = run;
            }
        }
        return best;
    }

    boolean matches(Declaration declaration) {
        return pattern.matcher(qualified ? declaration.qualifiedName() : declaration.name()).matches();
    }

    /** Bytes every file holding a match contains; empty when the name is all wildcards. */
    byte[] needle() {
        return needle;
    }

    /**
     * Whether the needle is a whole identifier (the name's last part has no wildcard), so that a file's
     * identifier hashes tell whether it can hold a match.
     */
    boolean needleIsIdentifier() {
        return identifier;
    }

    /** The needle's identifier hash ({@link Sources#token}). */
    int needleToken() {
        return Sources.token(needle, 0, needle.length);
    }

    @Override
    public String toString() {
        return text;
    }
}
