package dev.quiver.workspace;

import dev.quiver.api.ToolException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.eclipse.jgit.ignore.FastIgnoreRule;

/**
 * Glob matching with gitignore semantics (JGit's {@link FastIgnoreRule}), plus {@code {a,b}}
 * alternatives, which gitignore lacks and ripgrep's {@code --glob} has. The common shapes (literal
 * text, {@code *} and whole {@code **} segments) are matched by {@link SimpleGlob}, with JGit's result.
 */
final class Globs {

    /** Alternatives multiply; past this many, the glob is refused rather than expanded. */
    private static final int MAX_ALTERNATIVES = 256;

    private Globs() {
    }

    static Predicate<String> matcher(String glob) throws ToolException {
        String trimmed = glob == null ? "" : glob.trim();
        if (trimmed.isEmpty()) {
            throw new ToolException("Glob is empty. Give a pattern such as **/*.java or src/*.ts.");
        }
        if (trimmed.startsWith("./")) {
            trimmed = trimmed.substring(2);
        }
        if (trimmed.startsWith("!")) {
            throw new ToolException("Glob '" + glob + "' starts with '!'; negated globs are not supported here. "
                    + "Match what you want instead.");
        }
        List<Predicate<String>> rules = new ArrayList<>();
        for (String alternative : expandBraces(trimmed, glob)) {
            FastIgnoreRule rule = new FastIgnoreRule(alternative);
            if (rule.isEmpty()) {
                throw new ToolException("Glob '" + glob + "' matches nothing as written.");
            }
            Predicate<String> simple = SimpleGlob.of(alternative);
            rules.add(simple != null ? simple : path -> rule.isMatch(path, false, true));
        }
        return rules.size() == 1 ? rules.get(0) : relativePath -> {
            for (Predicate<String> rule : rules) {
                if (rule.test(relativePath)) {
                    return true;
                }
            }
            return false;
        };
    }

    /** {@code a{b,c}d} becomes {@code abd}, {@code acd}; nested braces expand too. */
    static List<String> expandBraces(String pattern, String original) throws ToolException {
        List<String> done = new ArrayList<>();
        List<String> pending = new ArrayList<>(List.of(pattern));
        while (!pending.isEmpty()) {
            String current = pending.remove(pending.size() - 1);
            int open = firstUnescaped(current, '{', 0);
            if (open < 0) {
                done.add(current);
                continue;
            }
            int depth = 0;
            int close = -1;
            List<Integer> commas = new ArrayList<>();
            for (int i = open; i < current.length(); i++) {
                char c = current.charAt(i);
                if (c == '\\') {
                    i++;
                } else if (c == '{') {
                    depth++;
                } else if (c == '}') {
                    depth--;
                    if (depth == 0) {
                        close = i;
                        break;
                    }
                } else if (c == ',' && depth == 1) {
                    commas.add(i);
                }
            }
            if (close < 0) {
                throw new ToolException("Glob '" + original + "' has an unclosed '{'.");
            }
            String head = current.substring(0, open);
            String tail = current.substring(close + 1);
            int start = open + 1;
            commas.add(close);
            for (int comma : commas) {
                pending.add(head + current.substring(start, comma) + tail);
                start = comma + 1;
            }
            if (done.size() + pending.size() > MAX_ALTERNATIVES) {
                throw new ToolException("Glob '" + original + "' expands to more than " + MAX_ALTERNATIVES
                        + " alternatives. Use a simpler pattern.");
            }
        }
        return done;
    }

    private static int firstUnescaped(String s, char wanted, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == wanted) {
                return i;
            }
        }
        return -1;
    }
}
