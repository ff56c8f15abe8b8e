package dev.quiver.bash;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How one program reads its options, as glibc's {@code getopt_long} (or git's parse-options) reads
 * them, so that every judge, and every wrapper's reading of the command it runs, finds the words
 * where the program finds them: short options alone or in clusters ({@code -rf}), with a value attached
 * or in the next word ({@code -tDIR}, {@code -t DIR}), long options with {@code =value} or the next word,
 * unique prefixes ({@code --rec} is {@code --recursive}), {@code --} ending the options and, where the
 * program permutes, options after operands.
 *
 * <p>Written as a small table per program: {@code "f|force r|R|recursive interactive=? t|target-directory="}
 * — each entry names one option by its letters and long names ({@code |} between), the first long name
 * (else the first letter) being its canonical name; {@code =} marks a required value (attached, or the
 * next word), {@code =?} an optional one (attached only). A marker belongs to its name and to the
 * unmarked names before it; names after the last marker take no value ({@code h=?|help}: {@code -h}
 * takes an optional value, {@code --help} none). A table that starts with {@code +} ends the options
 * at the first operand, as getopt's optstring does.
 *
 * <p>Two readings. An open one ({@link #gnu}, {@link #git}, {@link #strict}) is for judging a program:
 * options it does not know are kept as written, an ambiguous prefix records every candidate, and a
 * computed word where an option could stand is listed in {@link Read#computed()} for the judge that
 * cares. A closed one ({@link #closed}) is for the wrappers, whose command must be found exactly:
 * an option the table does not know, an ambiguous abbreviation, a missing value, a value that may
 * split into several words or none, or a computed word where an option may stand ends the reading
 * with {@link Read#failure}.
 */
final class Getopt {

    /** How many values an option takes. */
    enum Arity { NONE, REQUIRED, OPTIONAL }

    private record Entry(String canonical, Arity arity) {
    }

    /** One option found: its canonical name, its value if it took one, and the index of the word after it. */
    record Found(String name, Word value, int next) {
    }

    /** What a reading found. */
    static final class Read {
        private final Getopt spec;
        /** The words read: those given, with literal brace expansions that could hold options expanded (open readings). */
        List<Word> words;
        final List<Found> found = new ArrayList<>();
        /** The operands' indexes in {@link #words}. */
        final List<Integer> positions = new ArrayList<>();
        private final List<Word> computed = new ArrayList<>();
        /** Why a closed reading could not read the words; null when it could. */
        String failure;

        Read(Getopt spec, List<Word> words) {
            this.spec = spec;
            this.words = words;
        }

        List<CommandModel.Option> options() {
            return found.stream().map(f -> new CommandModel.Option(f.name(), f.value())).toList();
        }

        List<Word> operands() {
            return positions.stream().map(words::get).toList();
        }

        /** Computed words where an option could stand (open readings); each is also an operand. */
        List<Word> computed() {
            return List.copyOf(computed);
        }

        /** Whether the option spelled {@code spelling} ({@code -h}, {@code --help}: any of its names) was given. */
        boolean has(String spelling) {
            String name = spec.canonical(spelling);
            return found.stream().anyMatch(f -> f.name().equals(name));
        }

        /** The value of the last occurrence of any of the options spelled {@code spellings}, or null. */
        Word value(String... spellings) {
            Word value = null;
            for (Found f : found) {
                for (String s : spellings) {
                    value = f.name().equals(spec.canonical(s)) ? f.value() : value;
                }
            }
            return value;
        }
    }

    private final Map<Character, Entry> shorts = new LinkedHashMap<>();
    private final Map<String, Entry> longs = new LinkedHashMap<>();
    private final boolean permute;
    private final boolean abbreviations;
    private final boolean negatable;
    private final boolean closed;

    private Getopt(String table, boolean permute, boolean abbreviations, boolean negatable, boolean closed) {
        this.permute = permute && !table.startsWith("+");
        this.abbreviations = abbreviations;
        this.negatable = negatable;
        this.closed = closed;
        for (String item : table.replaceFirst("^\\+", "").trim().split("\\s+")) {
            if (item.isEmpty()) {
                continue;
            }
            String[] names = item.split("\\|");
            String canonical = null;
            for (String name : names) {
                String bare = name.replaceFirst("=\\??$", "");
                canonical = canonical == null && bare.length() > 1 ? "--" + bare : canonical;
            }
            canonical = canonical != null ? canonical : "-" + names[0].charAt(0);
            Arity arity = Arity.NONE;
            for (int i = names.length - 1; i >= 0; i--) {
                String name = names[i];
                arity = name.endsWith("=?") ? Arity.OPTIONAL : name.endsWith("=") ? Arity.REQUIRED : arity;
                String bare = name.replaceFirst("=\\??$", "");
                Entry entry = new Entry(canonical, arity);
                if (bare.length() == 1) {
                    shorts.put(bare.charAt(0), entry);
                } else {
                    longs.put(bare, entry);
                }
            }
        }
    }

    /**
     * A GNU program (or git's parse-options, which reads the same way): options anywhere before
     * {@code --}, long options abbreviated to any unique prefix.
     */
    static Getopt gnu(String table) {
        return new Getopt(table, true, true, false, false);
    }

    /**
     * git's parse-options: as {@link #gnu}, and every long option has a {@code --no-} form that undoes it
     * (abbreviated too: {@code git clean -nfd --no-dry} deletes); the later of the two wins.
     */
    static Getopt git(String table) {
        return new Getopt(table, true, true, true, false);
    }

    /** A program that stops at its first operand (git's global options, POSIX utilities); no abbreviations. */
    static Getopt strict(String table) {
        return new Getopt(table, false, false, false, false);
    }

    /** A wrapper's own {@code getopt_long} call, read fail-closed. */
    static Getopt closed(String table) {
        return new Getopt(table, true, true, false, true);
    }

    /** The canonical name of the option spelled {@code spelling}; the spelling itself when the table has no such option. */
    String canonical(String spelling) {
        Entry e = spelling.startsWith("--") ? longs.get(spelling.substring(2))
                : spelling.length() == 2 ? shorts.get(spelling.charAt(1)) : null;
        return e == null ? spelling : e.canonical();
    }

    /** Words a literal brace expansion gives, where one of them could be an option; the word itself otherwise. */
    private static List<Word> braced(Word w, List<Word> computed) {
        String v = w.value();
        if (!w.literal() || v.indexOf('{') < 0 || v.indexOf(',') < 0) {
            return List.of(w);
        }
        List<String> words = new ArrayList<>();
        if (!PathResolver.braces(v, words, 0)) {
            computed.add(w); // too many to read: it could hold any option
            return List.of(w);
        }
        if (words.size() < 2 || words.stream().noneMatch(x -> x.startsWith("-"))) {
            return List.of(w);
        }
        List<Word> out = new ArrayList<>();
        words.forEach(x -> out.add(Word.literal(x)));
        return out;
    }

    /**
     * Reads {@code given} from index {@code from}. An open reading keeps a computed word where an option
     * could stand (before {@code --}, and that could begin with a dash) both in {@link Read#computed()}
     * and as an operand: the judge that cares decides.
     */
    Read read(List<Word> given, int from) {
        List<Word> args = given;
        List<Word> computed = new ArrayList<>();
        if (!closed) {
            // bash expands braces before the program reads its words: rm {-r,-f} src is rm -r -f src
            args = new ArrayList<>(given.subList(0, Math.min(from, given.size())));
            for (int i = from; i < given.size(); i++) {
                args.addAll(braced(given.get(i), computed));
            }
        }
        Read r = new Read(this, args);
        r.computed.addAll(computed);
        int j = from;
        while (j < args.size()) {
            Word w = args.get(j);
            if (w.literal() && w.value().equals("--")) {
                operands(r, j + 1);
                return r;
            }
            if (!closed && !w.literal()) {
                boolean option = !operand(w);
                if (option) {
                    r.computed.add(w);
                } else if (!permute) {
                    operands(r, j);
                    return r;
                }
                r.positions.add(j++);
                continue;
            }
            if (operand(w)) {
                if (!permute) {
                    operands(r, j);
                    return r;
                }
                r.positions.add(j++);
                continue;
            }
            j = w.value().startsWith("--") ? longOption(args, j, r) : cluster(args, j, r);
            if (j < 0) {
                return r;
            }
        }
        return r;
    }

    private static void operands(Read r, int from) {
        for (int k = from; k < r.words.size(); k++) {
            r.positions.add(k);
        }
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

    /** The canonical names a long option word means: one, or every candidate of an ambiguous prefix. */
    List<String> longNames(String name) {
        Entry exact = longs.get(name);
        if (exact != null) {
            return List.of(exact.canonical());
        }
        List<String> candidates = new ArrayList<>();
        if (abbreviations) {
            for (Map.Entry<String, Entry> e : longs.entrySet()) {
                if (e.getKey().startsWith(name) && !candidates.contains(e.getValue().canonical())) {
                    candidates.add(e.getValue().canonical());
                }
            }
        }
        return candidates;
    }

    /**
     * The option a {@code --no-} word undoes, as git's parse-options reads it: {@code --no-NAME} for an
     * option the table has no {@code no-} entry for, NAME exact or a unique prefix among the long options
     * and the table's own {@code no-} entries; null when it is no negation (or an ambiguous one, which git refuses).
     */
    private String negation(String name, List<String> names) {
        if (!negatable || !name.startsWith("no-") || longs.containsKey(name)) {
            return null;
        }
        String rest = name.substring(3);
        Entry positive = longs.get(rest);
        if (positive != null) {
            return positive.canonical();
        }
        List<String> undone = abbreviations ? longNames(rest) : List.of();
        return undone.size() == 1 && names.isEmpty() ? undone.get(0) : null;
    }

    /** The failure of a closed reading, or -1 with the failure set. */
    private static int fail(Read r, String why) {
        r.failure = why;
        return -1;
    }

    /** Reads {@code --name[=value]} at {@code j}; the next index, or -1 with the failure set. */
    private int longOption(List<Word> words, int j, Read r) {
        Word w = words.get(j);
        String start = literalStart(w);
        int eq = start.indexOf('=');
        if (!w.literal() && eq < 0) {
            return fail(r, "a computed option " + show(w));
        }
        String given = (eq < 0 ? start : start.substring(0, eq)).substring(2);
        Word attached = eq < 0 ? null : new Word(w.value().substring(w.value().indexOf('=') + 1), w.literal());
        return closed ? closedLong(words, j, given, attached, r) : openLong(words, j, given, attached, r);
    }

    private int closedLong(List<Word> words, int j, String given, Word attached, Read r) {
        String spelled = given;
        Entry match = longs.get(given);
        if (match == null) {
            // an abbreviation: ambiguous unless every option it may name is the same
            for (Map.Entry<String, Entry> l : longs.entrySet()) {
                if (l.getKey().startsWith(given)) {
                    if (match != null && !match.equals(l.getValue())) {
                        return fail(r, "the ambiguous option --" + given);
                    }
                    match = l.getValue();
                    spelled = l.getKey();
                }
            }
        }
        if (match == null || given.isEmpty()) {
            return fail(r, "an option it does not know (--" + given + ")");
        }
        if (attached != null) {
            if (match.arity() == Arity.NONE) {
                return fail(r, "--" + spelled + " with a value it does not take");
            }
            r.found.add(new Found(match.canonical(), attached, j + 1));
            return j + 1;
        }
        if (match.arity() == Arity.REQUIRED) {
            return valueWord(words, j, match.canonical(), "--" + spelled, r);
        }
        r.found.add(new Found(match.canonical(), null, j + 1));
        return j + 1;
    }

    private int openLong(List<Word> words, int j, String name, Word attached, Read r) {
        List<String> names = longNames(name);
        String negated = negation(name, names);
        if (negated != null) {
            // --no-OPTION undoes what came before it
            r.found.removeIf(o -> o.name().equals(negated));
            return j + 1;
        }
        if (names.isEmpty()) {
            // unknown to the table: the program refuses it, or the table is short; kept as written
            r.found.add(new Found("--" + name, attached, j + 1));
            return j + 1;
        }
        // an ambiguous prefix makes the program fail; every candidate is recorded, so no judge misses one
        Arity arity = Arity.NONE;
        for (String n : names) {
            Entry e = longs.get(n.substring(2));
            arity = e != null && e.arity().ordinal() > arity.ordinal() ? e.arity() : arity;
        }
        int next = j + 1;
        Word value = attached;
        if (attached == null && arity == Arity.REQUIRED && names.size() == 1 && j + 1 < words.size()) {
            value = words.get(j + 1);
            next = j + 2;
        }
        for (String n : names) {
            r.found.add(new Found(n, value, next));
        }
        return next;
    }

    /** Reads a cluster of short options at {@code j}; the next index, or -1 with the failure set. */
    private int cluster(List<Word> words, int j, Read r) {
        Word w = words.get(j);
        String start = literalStart(w);
        for (int k = 1; k < start.length(); k++) {
            char c = start.charAt(k);
            Entry e = shorts.get(c);
            if (e == null) {
                if (closed) {
                    return fail(r, "an option it does not know (-" + c + ")");
                }
                r.found.add(new Found("-" + c, null, j + 1));
                continue;
            }
            if (e.arity() == Arity.NONE) {
                r.found.add(new Found(e.canonical(), null, j + 1));
                continue;
            }
            if (k + 1 < w.value().length()) {
                // the rest of the word is the value (a computed rest too)
                r.found.add(new Found(e.canonical(), new Word(w.value().substring(k + 1), w.literal()), j + 1));
                return j + 1;
            }
            if (e.arity() == Arity.OPTIONAL) {
                r.found.add(new Found(e.canonical(), null, j + 1));
                return j + 1;
            }
            return valueWord(words, j, e.canonical(), "-" + c, r);
        }
        if (start.length() < w.value().length()) {
            return fail(r, "a computed option " + show(w));
        }
        return j + 1;
    }

    /** Takes the word after {@code j} as the value of {@code name}: fail-closed when it is missing or may split. */
    private int valueWord(List<Word> words, int j, String name, String spelled, Read r) {
        if (j + 1 >= words.size()) {
            if (closed) {
                return fail(r, spelled + " without its value");
            }
            r.found.add(new Found(name, null, j + 1));
            return j + 1;
        }
        Word value = words.get(j + 1);
        if (closed && ShellText.maySplit(value)) {
            return fail(r, "the value of " + spelled + " computed as " + show(value) + ", which may be several words or none");
        }
        r.found.add(new Found(name, value, j + 2));
        return j + 2;
    }

    static String show(Word w) {
        return "`" + ShellText.abbreviate(w.value(), 60) + "`";
    }
}
