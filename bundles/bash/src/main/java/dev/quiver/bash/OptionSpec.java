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

    private OptionSpec(String table, boolean permute, boolean abbreviations) {
        this.permute = permute;
        this.abbreviations = abbreviations;
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
        return new OptionSpec(table, true, true);
    }

    /** A program that stops at its first operand (git's global options, POSIX utilities); no abbreviations. */
    static OptionSpec strict(String table) {
        return new OptionSpec(table, false, false);
    }

    /**
     * Reads {@code args} from {@code from}. A computed word where an option could stand (before
     * {@code --}, and that could begin with a dash) is both listed in {@code computed} and kept as an
     * operand: the judge that cares decides.
     */
    Read read(List<Word> args, int from) {
        List<CommandModel.Option> options = new ArrayList<>();
        List<Word> operands = new ArrayList<>();
        List<Word> computed = new ArrayList<>();
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

    private int longOption(List<Word> args, int i, List<CommandModel.Option> out) {
        String v = args.get(i).value();
        int eq = v.indexOf('=');
        String name = v.substring(2, eq < 0 ? v.length() : eq);
        List<String> names = longNames(name);
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
