package dev.quiver.bash;

import java.util.List;
import java.util.Objects;

/**
 * One simple command after wrappers are stripped.
 *
 * @param name the command word ({@code rm} in {@code sudo rm -rf x}); for a command made of
 *     redirections only ({@code > file}) the empty literal word
 * @param args the words after the command word, leading variable assignments excluded
 * @param redirects the command's redirections, including those written after a compound command
 *     that contains it ({@code { a; b; } > f} gives {@code > f} to both {@code a} and {@code b})
 * @param wrappers the wrappers stripped off, outermost first: {@code sudo}, {@code env},
 *     {@code timeout}, {@code nice}, {@code nohup}, {@code time}, {@code stdbuf}, {@code ionice},
 *     {@code command}, {@code exec}, {@code xargs}, {@code builtin}, {@code doas}, {@code coproc} as their command
 *     word's file name; {@code "bash -c"} (or {@code "sh -c"}, ...) for a command read from a shell's
 *     {@code -c} string, {@code "eval"} for one read from eval's arguments, {@code "env -S"} for
 *     env's split string, {@code "su -c"} for su's command, {@code "watch"} for watch's, {@code "trap"} for a trap's action
 *     (the trap command itself is kept too), and {@code "find -exec"} ({@code -execdir}, {@code -ok}, {@code -okdir})
 *     for a command run by find
 */
public record SimpleCommand(Word name, List<Word> args, List<Redirect> redirects, List<String> wrappers) {

    public SimpleCommand {
        Objects.requireNonNull(name, "name");
        args = List.copyOf(args);
        redirects = List.copyOf(redirects);
        wrappers = List.copyOf(wrappers);
    }

    /** "name arg1 arg2" with literal values joined by single spaces, for rule matching. */
    public String text() {
        StringBuilder b = new StringBuilder(name.value());
        for (Word arg : args) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(arg.value());
        }
        return b.toString();
    }

    /** True when the command word is not a literal (e.g. {@code $(echo rm) -rf x}, {@code $CMD x}, {@code "$x"}). */
    public boolean computedName() {
        return !name.literal();
    }

    /** The command word's file name: {@code rm} for {@code /usr/bin/rm}; the whole value when computed. */
    public String baseName() {
        return ShellText.baseName(name);
    }

    @Override
    public String toString() {
        return (wrappers.isEmpty() ? "" : wrappers + " ") + name + (args.isEmpty() ? "" : " " + args)
                + (redirects.isEmpty() ? "" : " " + redirects);
    }
}
