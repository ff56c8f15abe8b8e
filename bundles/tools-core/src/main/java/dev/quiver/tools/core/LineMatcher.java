package dev.quiver.tools.core;


/**
 * Matches a grep pattern against one line at a time. The pattern is an RE2 pattern (RE2/J parsed
 * and validated it). When the JDK's engine reads it the same way, lines are matched with the JDK's
 * engine, which is several times faster than RE2/J, under a budget of character reads; a line that
 * exhausts the budget (catastrophic backtracking) is matched again with RE2/J, which is linear.
 * So a search is never slower than RE2/J by more than the budget, and never hangs.
 *
 * <p>The JDK engine is used only when the two agree by construction: the pattern compiles there,
 * with {@code UNIX_LINES} (only {@code \n} ends a line, as for RE2's {@code .}) and
 * {@code UNICODE_CASE} (RE2 folds case by Unicode), and it has none of the constructs the two read
 * differently: character classes nested in classes or intersected with {@code &&} (RE2 takes them
 * literally), POSIX {@code [:alpha:]} classes, {@code \b} and {@code \B} (the JDK's word boundary is
 * Unicode-aware in Java 17, RE2's is ASCII), {@code \v}, octal or back-reference digits after a
 * backslash, and inline flags other than {@code i}, {@code m} and {@code s} (RE2's {@code U} means
 * ungreedy). The one remaining difference is that the JDK's {@code \s} also matches a vertical tab.
 */
final class LineMatcher {

    /** Character reads allowed per line: generous for any sane pattern, small next to a backtracking blow-up. */
    static final int BASE_BUDGET = 20_000;
    static final int BUDGET_PER_CHAR = 200;

    private final com.google.re2j.Matcher linear;
    private final java.util.regex.Matcher fast;
    private final Budgeted text = new Budgeted();

    LineMatcher(com.google.re2j.Pattern pattern) {
        this.linear = pattern.matcher("");
        java.util.regex.Pattern jdk = jdkPattern(pattern.pattern(),
                (pattern.flags() & com.google.re2j.Pattern.CASE_INSENSITIVE) != 0);
        this.fast = jdk == null ? null : jdk.matcher("");
    }

    /** Whether the JDK engine is used for this pattern (tests and benchmarks). */
    boolean usesJdkEngine() {
        return fast != null;
    }

    /** Whether the pattern matches somewhere in the line. */
    boolean find(String line) {
        if (fast != null) {
            text.reset(line, BASE_BUDGET + (long) BUDGET_PER_CHAR * line.length());
            try {
                return fast.reset(text).find();
            } catch (OverBudget tooSlow) {
                // catastrophic backtracking on this line: the linear engine decides it
            }
        }
        return linear.reset(line).find();
    }

    /** The JDK pattern that means the same, or null when the pattern uses a construct read differently. */
    static java.util.regex.Pattern jdkPattern(String regex, boolean ignoreCase) {
        if (!sameInBothEngines(regex)) {
            return null;
        }
        int flags = java.util.regex.Pattern.UNIX_LINES | java.util.regex.Pattern.UNICODE_CASE
                | (ignoreCase ? java.util.regex.Pattern.CASE_INSENSITIVE : 0);
        try {
            return java.util.regex.Pattern.compile(regex, flags);
        } catch (IllegalArgumentException e) { // PatternSyntaxException among others
            return null;
        }
    }

    static boolean sameInBothEngines(String regex) {
        boolean inClass = false;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\') {
                if (i + 1 >= regex.length()) {
                    return false;
                }
                char next = regex.charAt(++i);
                if (next == 'Q') {
                    int end = regex.indexOf("\\E", i + 1);
                    if (end < 0) {
                        return false;
                    }
                    i = end + 1;
                    continue;
                }
                if (next == 'b' || next == 'B' || next == 'v' || (next >= '0' && next <= '9')) {
                    return false;
                }
                continue;
            }
            if (inClass) {
                if (c == '[' || (c == '&' && i + 1 < regex.length() && regex.charAt(i + 1) == '&')) {
                    return false; // a nested class, a POSIX class or an intersection
                }
                if (c == ']') {
                    inClass = false;
                }
                continue;
            }
            if (c == '[') {
                inClass = true;
                // a ] right after [ or [^ is a literal in both engines' class syntax only in RE2
                int first = i + 1 < regex.length() && regex.charAt(i + 1) == '^' ? i + 2 : i + 1;
                if (first < regex.length() && regex.charAt(first) == ']') {
                    return false;
                }
                if (first > i + 1) {
                    i++;
                }
                continue;
            }
            if (c == '(' && i + 1 < regex.length() && regex.charAt(i + 1) == '?') {
                int j = i + 2;
                if (j < regex.length() && regex.charAt(j) == ':') {
                    continue;
                }
                while (j < regex.length() && "imsx-".indexOf(regex.charAt(j)) >= 0) {
                    if (regex.charAt(j) == 'x') {
                        return false;
                    }
                    j++;
                }
                if (j >= regex.length() || (regex.charAt(j) != ')' && regex.charAt(j) != ':') || j == i + 2) {
                    return false; // lookaround, named groups, or flags RE2 reads otherwise
                }
            }
        }
        return !inClass;
    }

    /** Thrown when a line used up its budget; preallocated, without a stack trace. */
    private static final class OverBudget extends RuntimeException {
        static final OverBudget INSTANCE = new OverBudget();

        private OverBudget() {
            super(null, null, false, false);
        }
    }

    /** A line whose character reads are counted against a budget. */
    private static final class Budgeted implements CharSequence {
        private String line = "";
        private long left;

        void reset(String s, long budget) {
            line = s;
            left = budget;
        }

        @Override
        public char charAt(int index) {
            if (--left < 0) {
                throw OverBudget.INSTANCE;
            }
            return line.charAt(index);
        }

        @Override
        public int length() {
            return line.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return line.subSequence(start, end);
        }

        @Override
        public String toString() {
            return line;
        }
    }
}
