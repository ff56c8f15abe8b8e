package dev.quiver.tools.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Literal text that every match of a regular expression (RE2 syntax) must contain, so a search can
 * skip, with a fast byte scan, every file and line that lacks it, and run the regex only on the rest.
 *
 * <p>The analysis is conservative: anything it does not understand yields no literal, which only
 * costs speed. With {@code |} at the top level every alternative needs a literal of its own, and a
 * line must contain one of them. Under case-insensitive matching the letters {@code k} and {@code s}
 * end a literal, because RE2 folds them with the Kelvin sign and the long s, which a byte scan would miss.
 */
final class Literals {

    /** More alternatives than this are not worth scanning for one by one. */
    private static final int MAX_ALTERNATIVES = 8;

    private Literals() {
    }

    /**
     * The literals a matching line must contain one of, or empty when none can be named.
     *
     * @param regex the pattern in RE2 syntax
     * @param ignoreCase whether the pattern is matched case-insensitively (ASCII case only is scanned for)
     */
    static Optional<List<String>> required(String regex, boolean ignoreCase) {
        if (hasFlagGroup(regex)) {
            return Optional.empty();
        }
        List<String> branches = splitTopLevel(regex);
        if (branches == null || branches.size() > MAX_ALTERNATIVES) {
            return Optional.empty();
        }
        List<String> literals = new ArrayList<>();
        for (String branch : branches) {
            String literal = longestRequired(branch, ignoreCase);
            if (literal == null || literal.isEmpty()) {
                return Optional.empty();
            }
            if (ignoreCase && !literal.chars().allMatch(c -> c < 0x80)) {
                return Optional.empty(); // Unicode case folding is not scanned for
            }
            literals.add(literal);
        }
        return Optional.of(List.copyOf(literals));
    }

    /** {@code (?i)}, {@code (?s:...)} and the like change how the text matches; named groups do not. */
    private static boolean hasFlagGroup(String regex) {
        for (int i = regex.indexOf("(?"); i >= 0; i = regex.indexOf("(?", i + 1)) {
            if (i > 0 && regex.charAt(i - 1) == '\\' && !escaped(regex, i - 1)) {
                continue;
            }
            char next = i + 2 < regex.length() ? regex.charAt(i + 2) : ')';
            if (next != ':' && next != 'P' && next != '<') {
                return true;
            }
        }
        return false;
    }

    /** Whether the character at {@code index} is itself escaped by an odd run of backslashes before it. */
    private static boolean escaped(String s, int index) {
        int backslashes = 0;
        for (int i = index - 1; i >= 0 && s.charAt(i) == '\\'; i--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    /** The alternatives at the top level, or null when the pattern cannot be read (unbalanced). */
    private static List<String> splitTopLevel(String regex) {
        List<String> branches = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\') {
                if (i + 1 < regex.length() && regex.charAt(i + 1) == 'Q') {
                    int end = regex.indexOf("\\E", i + 2);
                    i = end < 0 ? regex.length() : end + 1;
                } else {
                    i++;
                }
            } else if (c == '[') {
                int end = classEnd(regex, i);
                if (end < 0) {
                    return null;
                }
                i = end;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
                if (depth < 0) {
                    return null;
                }
            } else if (c == '|' && depth == 0) {
                branches.add(regex.substring(start, i));
                start = i + 1;
            }
        }
        if (depth != 0) {
            return null;
        }
        branches.add(regex.substring(start));
        return branches;
    }

    /** The index of the {@code ]} closing the class that opens at {@code open}, or -1. */
    private static int classEnd(String regex, int open) {
        int i = open + 1;
        if (i < regex.length() && regex.charAt(i) == '^') {
            i++;
        }
        if (i < regex.length() && regex.charAt(i) == ']') {
            i++; // a ] first in a class is a literal
        }
        for (; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '[' && i + 1 < regex.length() && regex.charAt(i + 1) == ':') {
                int end = regex.indexOf(":]", i + 2);
                if (end < 0) {
                    return -1;
                }
                i = end + 1;
            } else if (c == ']') {
                return i;
            }
        }
        return -1;
    }

    /** The index just past the group that opens at {@code open}, or -1. */
    private static int groupEnd(String regex, int open) {
        int depth = 0;
        for (int i = open; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\') {
                if (i + 1 < regex.length() && regex.charAt(i + 1) == 'Q') {
                    int end = regex.indexOf("\\E", i + 2);
                    i = end < 0 ? regex.length() : end + 1;
                } else {
                    i++;
                }
            } else if (c == '[') {
                int end = classEnd(regex, i);
                if (end < 0) {
                    return -1;
                }
                i = end;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
                if (depth == 0) {
                    return i + 1;
                }
            }
        }
        return -1;
    }

    /** The longest run of literal characters every match of this alternative contains, or null. */
    private static String longestRequired(String branch, boolean ignoreCase) {
        String best = "";
        StringBuilder run = new StringBuilder();
        boolean lastWasLiteral = false;
        int i = 0;
        while (i < branch.length()) {
            char c = branch.charAt(i);
            int literal = -1; // the literal code point of this atom, if it is one
            int next = i + 1;
            switch (c) {
                case '\\' -> {
                    if (i + 1 >= branch.length()) {
                        return null;
                    }
                    char e = branch.charAt(i + 1);
                    next = i + 2;
                    if (e == 'Q') {
                        int end = branch.indexOf("\\E", i + 2);
                        String quoted = end < 0 ? branch.substring(i + 2) : branch.substring(i + 2, end);
                        next = end < 0 ? branch.length() : end + 2;
                        // all but the last quoted character are surely required; the last may take a quantifier
                        if (!quoted.isEmpty()) {
                            int lastStart = quoted.offsetByCodePoints(quoted.length(), -1);
                            for (int q = 0; q < lastStart; q++) {
                                char quotedChar = quoted.charAt(q);
                                if (ignoreCase && "kKsS".indexOf(quotedChar) >= 0) {
                                    best = longer(best, run);
                                    run.setLength(0);
                                } else {
                                    run.append(quotedChar);
                                }
                            }
                            literal = quoted.codePointAt(lastStart);
                            if (literal > 0xFFFF) {
                                // appended below as one code point; next is already past \E
                                run.appendCodePoint(literal);
                                lastWasLiteral = true;
                                i = next;
                                continue;
                            }
                        }
                    } else if (e == 'p' || e == 'P') {
                        if (next < branch.length() && branch.charAt(next) == '{') {
                            int end = branch.indexOf('}', next);
                            if (end < 0) {
                                return null;
                            }
                            next = end + 1;
                        } else {
                            next++;
                        }
                    } else if (e == 'x') {
                        return null; // hex escapes are not worth decoding here
                    } else if (!Character.isLetterOrDigit(e)) {
                        literal = e; // an escaped punctuation character stands for itself
                    }
                    // \d \w \s \b \A \z \n \t and the like are no literal
                }
                case '[' -> {
                    int end = classEnd(branch, i);
                    if (end < 0) {
                        return null;
                    }
                    next = end + 1;
                }
                case '(' -> {
                    int end = groupEnd(branch, i);
                    if (end < 0) {
                        return null;
                    }
                    next = end;
                }
                case '.', '^', '$' -> {
                    // no literal
                }
                case '*', '?' -> {
                    if (lastWasLiteral && run.length() > 0) {
                        run.setLength(run.offsetByCodePoints(run.length(), -1));
                    }
                    best = longer(best, run);
                    run.setLength(0);
                    lastWasLiteral = false;
                    i = skipLazy(branch, next);
                    continue;
                }
                case '+' -> {
                    best = longer(best, run);
                    run.setLength(0);
                    lastWasLiteral = false;
                    i = skipLazy(branch, next);
                    continue;
                }
                case '{' -> {
                    int end = branch.indexOf('}', i);
                    String body = end < 0 ? "" : branch.substring(i + 1, end);
                    if (body.matches("\\d+(,\\d*)?")) {
                        boolean optional = body.startsWith("0") && body.matches("0+(,\\d*)?");
                        if (optional && lastWasLiteral && run.length() > 0) {
                            run.setLength(run.offsetByCodePoints(run.length(), -1));
                        }
                        best = longer(best, run);
                        run.setLength(0);
                        lastWasLiteral = false;
                        i = skipLazy(branch, end + 1);
                        continue;
                    }
                    literal = '{';
                }
                default -> literal = Character.codePointAt(branch, i);
            }
            if (literal >= 0 && !(ignoreCase && "kKsS".indexOf(literal) >= 0)) {
                if (literal > 0xFFFF) {
                    next = i + 2;
                }
                run.appendCodePoint(literal);
                lastWasLiteral = true;
            } else {
                best = longer(best, run);
                run.setLength(0);
                lastWasLiteral = false;
            }
            i = next;
        }
        return longer(best, run);
    }

    private static int skipLazy(String branch, int at) {
        return at < branch.length() && branch.charAt(at) == '?' ? at + 1 : at;
    }

    private static String longer(String best, CharSequence run) {
        return run.length() > best.length() ? run.toString() : best;
    }
}
