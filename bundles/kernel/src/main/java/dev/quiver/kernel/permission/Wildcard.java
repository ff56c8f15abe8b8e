package dev.quiver.kernel.permission;

/**
 * Permission patterns: {@code *} spans any characters, newlines included; {@code ?} is one
 * character; everything else is literal. A pattern matches the whole text. Matching is iterative
 * (no recursion, no regular expressions), so a hostile pattern or a megabyte of command cannot
 * blow the stack or backtrack exponentially.
 */
public final class Wildcard {

    /** Patterns longer than this are refused when the configuration is read. */
    public static final int MAX_PATTERN_CHARS = 4096;

    private Wildcard() {
    }

    /** As {@link #matches}, and a pattern ending in {@code " *"} also matches the bare command ({@code git *} matches {@code git}). */
    public static boolean matchesSubject(String pattern, String text) {
        return matches(pattern, text)
                || (pattern.endsWith(" *") && pattern.length() - 2 == text.length() && pattern.startsWith(text));
    }

    public static boolean matches(String pattern, String text) {
        int[] p = pattern.codePoints().toArray();
        int[] t = text.codePoints().toArray();
        int pi = 0;
        int ti = 0;
        int star = -1;
        int resume = 0;
        while (ti < t.length) {
            if (pi < p.length && p[pi] != '*' && (p[pi] == '?' || p[pi] == t[ti])) {
                pi++;
                ti++;
            } else if (pi < p.length && p[pi] == '*') {
                star = pi++;
                resume = ti;
            } else if (star >= 0) {
                pi = star + 1;
                ti = ++resume;
            } else {
                return false;
            }
        }
        while (pi < p.length && p[pi] == '*') {
            pi++;
        }
        return pi == p.length;
    }
}
