package dev.quiver.bash;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How one program reads its options, so that every judge reads them as the program does: short
 * options alone or in clusters ({@code -rf}), with a value attached or in the next word
 * ({@code -tDIR}, {@code -t DIR}), long options with {@code =value} or the next word, GNU's unique
 * prefixes ({@code --rec} is {@code --recursive}), {@code --} ending the options and, where the
 * program permutes (GNU getopt, git's parse-options), options after operands.
 *
 * <p>Written as a small table per program: {@code "f|force r|R|recursive interactive=? t|target-directory="}
 * — each entry names one option by its letters and long names ({@code |} between), the first long name
 * (else the first letter) being its canonical name; {@code =} marks a required value, {@code =?} an
 * optional one (attached only).
 */
final class OptionSpec {

    /** How many values an option takes. */
    enum Arity { NONE, REQUIRED, OPTIONAL }

    private record Entry(String canonical, Arity arity) {
    }

    /** What reading a command's words gave. */
    record Read(List<CommandModel.Option> options, List<Word> operands, List<Word> computed, boolean dashes) {
    }

    private final Map<Character, Entry> shorts = new LinkedHashMap<>();
    private final Map<String, Entry> longs = new LinkedHashMap<>();
    private final boolean permute;
    private final boolean abbreviations;
    private final boolean negatable;

    private OptionSpec(String table, boolean permute, boolean abbreviations, boolean negatable) {
        this.permute = permute;
        this.abbreviations = abbreviations;
        this.negatable = negatable;
        for (String item : table.trim().split("\\s+")) {
            if (item.isEmpty()) {
                continue;
            }
            Arity arity = item.endsWith("=?") ? Arity.OPTIONAL : item.endsWith("=") ? Arity.REQUIRED : Arity.NONE;
            String names = item.substring(0, item.length() - (arity == Arity.OPTIONAL ? 2 : arity == Arity.REQUIRED ? 1 : 0));
            String canonical = null;
            for (String name : names.split("\\|")) {
                if (name.length() > 1 && canonical == null) {
                    canonical = "--" + name;
                }
            }
            if (canonical == null) {
                canonical = "-" + names.charAt(0);
            }
            for (String name : names.split("\\|")) {
                Entry entry = new Entry(canonical, arity);
                if (name.length() == 1) {
                    shorts.put(name.charAt(0), entry);
                } else {
                    longs.put(name, entry);
                }
            }
        }
    }

    /**
     * A GNU program (or git's parse-options, which reads the same way): options anywhere before
     * {@code --}, long options abbreviated to any unique prefix.
     */
    static OptionSpec gnu(String table) {
        return new OptionSpec(table, true, true, false);
    }

    /**
     * git's parse-options: as {@link #gnu}, and every long option has a {@code --no-} form that undoes it
     * (abbreviated too: {@code git clean -nfd --no-dry} deletes); the later of the two wins.
     */
    static OptionSpec git(String table) {
        return new OptionSpec(table, true, true, true);
    }

    /** A program that stops at its first operand (git's global options, POSIX utilities); no abbreviations. */
    static OptionSpec strict(String table) {
        return new OptionSpec(table, false, false, false);
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
     * Reads {@code args} from {@code from}. A computed word where an option could stand (before
     * {@code --}, and that could begin with a dash) is both listed in {@code computed} and kept as an
     * operand: the judge that cares decides.
     */
    Read read(List<Word> given, int from) {
        List<CommandModel.Option> options = new ArrayList<>();
        List<Word> operands = new ArrayList<>();
        List<Word> computed = new ArrayList<>();
        // bash expands braces before the program reads its words: rm {-r,-f} src is rm -r -f src
        List<Word> args = new ArrayList<>(given.subList(0, Math.min(from, given.size())));
        for (int i = from; i < given.size(); i++) {
            args.addAll(braced(given.get(i), computed));
        }
        boolean dashes = false;
        boolean stopped = false;
        for (int i = from; i < args.size(); i++) {
            Word w = args.get(i);
            String v = w.value();
            if (dashes || stopped) {
                operands.add(w);
                continue;
            }
            if (!w.literal()) {
                if (ShellText.mayBeOption(w)) {
                    computed.add(w);
                }
                operands.add(w);
                stopped = !permute && !ShellText.mayBeOption(w);
                continue;
            }
            if (v.equals("--")) {
                dashes = true;
            } else if (v.startsWith("--")) {
                i = longOption(args, i, options);
            } else if (v.length() > 1 && v.charAt(0) == '-') {
                i = cluster(args, i, options);
            } else {
                operands.add(w);
                stopped = !permute;
            }
        }
        return new Read(List.copyOf(options), List.copyOf(operands), List.copyOf(computed), dashes);
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

    private int longOption(List<Word> args, int i, List<CommandModel.Option> out) {
        String v = args.get(i).value();
        int eq = v.indexOf('=');
        String name = v.substring(2, eq < 0 ? v.length() : eq);
        List<String> names = longNames(name);
        String negated = negation(name, names);
        if (negated != null) {
            // --no-OPTION undoes what came before it
            out.removeIf(o -> o.name().equals(negated));
            return i;
        }
        if (names.isEmpty()) {
            // unknown to the table: the program refuses it, or the table is short; kept as written
            out.add(new CommandModel.Option("--" + name, eq < 0 ? null : Word.literal(v.substring(eq + 1))));
            return i;
        }
        // an ambiguous prefix makes the program fail; every candidate is recorded, so no judge misses one
        Arity arity = Arity.NONE;
        for (String n : names) {
            Entry e = longs.get(n.substring(2));
            arity = e != null && e.arity().ordinal() > arity.ordinal() ? e.arity() : arity;
        }
        Word value = null;
        if (eq >= 0) {
            value = Word.literal(v.substring(eq + 1));
        } else if (arity == Arity.REQUIRED && names.size() == 1 && i + 1 < args.size()) {
            value = args.get(++i);
        }
        for (String n : names) {
            out.add(new CommandModel.Option(n, value));
        }
        return i;
    }

    private int cluster(List<Word> args, int i, List<CommandModel.Option> out) {
        String v = args.get(i).value();
        for (int k = 1; k < v.length(); k++) {
            char c = v.charAt(k);
            Entry e = shorts.get(c);
            if (e == null) {
                out.add(new CommandModel.Option("-" + c, null));
                continue;
            }
            if (e.arity() == Arity.NONE) {
                out.add(new CommandModel.Option(e.canonical(), null));
                continue;
            }
            if (k + 1 < v.length()) {
                out.add(new CommandModel.Option(e.canonical(), Word.literal(v.substring(k + 1))));
            } else if (e.arity() == Arity.REQUIRED && i + 1 < args.size()) {
                out.add(new CommandModel.Option(e.canonical(), args.get(++i)));
            } else {
                out.add(new CommandModel.Option(e.canonical(), null));
            }
            return i;
        }
        return i;
    }
}
