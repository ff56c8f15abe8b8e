package dev.quiver.bash;

import java.util.ArrayList;
import java.util.List;

/**
 * A program's options as glibc's {@code getopt_long} reads them, so that the words a wrapper runs
 * are found where the wrapper finds them. The short options are an optstring: a letter, {@code :}
 * after it for a required value (the rest of the word or the next word), {@code ::} for an optional
 * value (the rest of the word only); a leading {@code +} ends the options at the first operand, without
 * it options and operands mix until {@code --} (glibc's permutation). The long options are
 * {@code name[=letter][:|::]}, blank-separated: the letter when the long option is a short one's
 * other name, the colons as above ({@code --name=value}, or the next word when required). A long
 * option may be abbreviated to any prefix that names one option only.
 *
 * <p>Fail-closed: an option the tables do not know, an ambiguous abbreviation, a missing value, or a
 * computed word where an option may stand ends the reading with {@link Result#failure}. A word whose
 * unquoted expansions may split it is no value either: its words could shift every position after it.
 */
final class Getopt {

    enum Arg { NONE, REQUIRED, OPTIONAL }

    private record Long(String name, String key, Arg arg) {
    }

    private final boolean permute;
    private final String shorts;
    private final List<Long> longs = new ArrayList<>();

    Getopt(String optstring, String longOptions) {
        this.permute = !optstring.startsWith("+");
        this.shorts = permute ? optstring : optstring.substring(1);
        for (String spec : longOptions.trim().split("\\s+")) {
            if (spec.isEmpty()) {
                continue;
            }
            Arg arg = spec.endsWith("::") ? Arg.OPTIONAL : spec.endsWith(":") ? Arg.REQUIRED : Arg.NONE;
            String name = spec.substring(0, spec.length() - (arg == Arg.OPTIONAL ? 2 : arg == Arg.REQUIRED ? 1 : 0));
            int eq = name.indexOf('=');
            longs.add(eq < 0 ? new Long(name, name, arg) : new Long(name.substring(0, eq), name.substring(eq + 1), arg));
        }
    }

    /**
     * One option found: its key (the short letter, else the long name), its value if it took one, and
     * the index of the word after it.
     */
    record Option(String key, Word value, int next) {
    }

    /** What a reading found: the options in order, the operands' indexes, or why the words cannot be read. */
    static final class Result {
        final List<Option> options = new ArrayList<>();
        final List<Integer> operands = new ArrayList<>();
        String failure;

        boolean has(String key) {
            for (Option o : options) {
                if (o.key().equals(key)) {
                    return true;
                }
            }
            return false;
        }

        /** The value of the last occurrence of any of {@code keys}, or null. */
        Word value(String... keys) {
            Word value = null;
            for (Option o : options) {
                for (String key : keys) {
                    value = o.key().equals(key) ? o.value() : value;
                }
            }
            return value;
        }
    }

    /** Reads {@code words} from index {@code from}. */
    Result read(List<Word> words, int from) {
        Result r = new Result();
        int j = from;
        while (j < words.size()) {
            Word w = words.get(j);
            String text = w.value();
            if (w.literal() && text.equals("--")) {
                for (int k = j + 1; k < words.size(); k++) {
                    r.operands.add(k);
                }
                return r;
            }
            if (operand(w)) {
                if (!permute) {
                    for (int k = j; k < words.size(); k++) {
                        r.operands.add(k);
                    }
                    return r;
                }
                r.operands.add(j++);
                continue;
            }
            int next = text.startsWith("--") ? longOption(words, j, r) : cluster(words, j, r);
            if (next < 0) {
                return r;
            }
            j = next;
        }
        return r;
    }

    /** True when the word cannot be an option: it does not start with {@code -}, or is {@code -} alone. */
    static boolean operand(Word w) {
        String start = knownStart(w);
        if (w.literal()) {
            return !start.startsWith("-") || start.equals("-");
        }
        // a computed word is an operand only when what it surely starts with is no dash
        return !start.isEmpty() && start.charAt(0) != '-';
    }

    /**
     * What a word surely starts with when it runs: all of a literal word; of a computed one, its
     * text up to the first expansion with quotes removed ({@code "PATH=$PATH"} starts with {@code PATH=}).
     */
    static String knownStart(Word w) {
        if (w.literal()) {
            return w.value();
        }
        String t = w.value();
        StringBuilder b = new StringBuilder();
        boolean doubleQuoted = false;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '$' || c == '`') {
                break;
            } else if (c == '"') {
                doubleQuoted = !doubleQuoted;
            } else if (c == '\'' && !doubleQuoted) {
                int close = t.indexOf('\'', i + 1);
                if (close < 0) {
                    break;
                }
                b.append(t, i + 1, close);
                i = close;
            } else if (c == '\\' && i + 1 < t.length()) {
                b.append(t.charAt(++i));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /**
     * The literal start of a word: all of a literal word; of a computed one, its source text up to
     * the first quote, expansion or escape, or null when even that may differ when it runs.
     */
    private static String literalStart(Word w) {
        if (w.literal()) {
            return w.value();
        }
        String text = w.value();
        for (int i = 0; i < text.length(); i++) {
            if ("$\"'`\\".indexOf(text.charAt(i)) >= 0) {
                return text.substring(0, i);
            }
        }
        return text;
    }

    /** Reads {@code --name[=value]} at {@code j}; the next index, or -1 with the failure set. */
    private int longOption(List<Word> words, int j, Result r) {
        Word w = words.get(j);
        String start = literalStart(w);
        int eq = start.indexOf('=');
        if (!w.literal() && eq < 0) {
            r.failure = "a computed option " + show(w);
            return -1;
        }
        String given = (eq < 0 ? start : start.substring(0, eq)).substring(2);
        Long match = null;
        for (Long l : longs) {
            match = l.name().equals(given) ? l : match;
        }
        if (match == null) {
            // an abbreviation: ambiguous unless every option it may name is the same
            for (Long l : longs) {
                if (l.name().startsWith(given)) {
                    if (match != null && !(match.key().equals(l.key()) && match.arg() == l.arg())) {
                        r.failure = "the ambiguous option --" + given;
                        return -1;
                    }
                    match = l;
                }
            }
        }
        if (match == null || given.isEmpty()) {
            r.failure = "an option it does not know (--" + given + ")";
            return -1;
        }
        if (eq >= 0) {
            if (match.arg() == Arg.NONE) {
                r.failure = "--" + match.name() + " with a value it does not take";
                return -1;
            }
            String rest = w.value().substring(w.value().indexOf('=') + 1);
            r.options.add(new Option(match.key(), new Word(rest, w.literal()), j + 1));
            return j + 1;
        }
        if (match.arg() == Arg.REQUIRED) {
            return valueWord(words, j, match.key(), "--" + match.name(), r);
        }
        r.options.add(new Option(match.key(), null, j + 1));
        return j + 1;
    }

    /** Reads a cluster of short options at {@code j}; the next index, or -1 with the failure set. */
    private int cluster(List<Word> words, int j, Result r) {
        Word w = words.get(j);
        String start = literalStart(w);
        for (int k = 1; k < start.length(); k++) {
            char c = start.charAt(k);
            int at = shorts.indexOf(c);
            if (at < 0 || c == ':') {
                r.failure = "an option it does not know (-" + c + ")";
                return -1;
            }
            boolean required = at + 1 < shorts.length() && shorts.charAt(at + 1) == ':';
            boolean optional = required && at + 2 < shorts.length() && shorts.charAt(at + 2) == ':';
            String key = String.valueOf(c);
            if (optional || (required && k + 1 < w.value().length())) {
                // the rest of the word is the value (a computed rest too)
                String rest = w.value().substring(k + 1);
                r.options.add(new Option(key, rest.isEmpty() ? null : new Word(rest, w.literal()), j + 1));
                return j + 1;
            }
            if (required) {
                return valueWord(words, j, key, "-" + c, r);
            }
            r.options.add(new Option(key, null, j + 1));
        }
        if (start.length() < w.value().length()) {
            r.failure = "a computed option " + show(w);
            return -1;
        }
        return j + 1;
    }

    /** Takes the word after {@code j} as the value of {@code key}. */
    private static int valueWord(List<Word> words, int j, String key, String spelled, Result r) {
        if (j + 1 >= words.size()) {
            r.failure = spelled + " without its value";
            return -1;
        }
        Word value = words.get(j + 1);
        if (splits(value)) {
            r.failure = "the value of " + spelled + " computed as " + show(value) + ", which may be several words or none";
            return -1;
        }
        r.options.add(new Option(key, value, j + 2));
        return j + 2;
    }

    /**
     * Whether a word may become several words or none when it runs: an expansion outside double
     * quotes, or {@code "$@"} and {@code "${a[@]}"} inside them.
     */
    static boolean splits(Word w) {
        if (w.literal()) {
            return false;
        }
        String t = w.value();
        boolean quoted = false;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            char d = i + 1 < t.length() ? t.charAt(i + 1) : 0;
            if (c == '\\') {
                i++;
            } else if (c == '\'' && !quoted) {
                int close = t.indexOf('\'', i + 1);
                i = close < 0 ? t.length() : close;
            } else if (c == '"') {
                quoted = !quoted;
            } else if ((c == '$' && d == '@') || (quoted && c == '[' && t.startsWith("[@]", i))) {
                return true;
            } else if (!quoted && (c == '`' || (c == '$' && d != '\'' && d != '"' && d != 0))) {
                return true;
            }
        }
        return false;
    }

    static String show(Word w) {
        return "`" + ShellText.abbreviate(w.value(), 60) + "`";
    }
}
