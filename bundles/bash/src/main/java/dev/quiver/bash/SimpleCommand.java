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
 * @param wrappers the wrappers stripped off, outermost first, as their command word's file name: the
 *     programs of the parser's wrapper table ({@code sudo}, {@code doas}, {@code pkexec}, {@code env},
 *     {@code nice}, {@code nohup}, {@code timeout}, {@code time}, {@code stdbuf}, {@code ionice},
 *     {@code flock}, {@code setsid}, {@code taskset}, {@code chrt}, {@code unshare}, {@code chroot},
 *     {@code runuser} (with {@code -u}), {@code xargs}, {@code busybox}, {@code toybox}, {@code strace}, {@code ltrace},
 *     {@code firejail}, {@code command}, {@code builtin}, {@code exec}, {@code coproc}, {@code watch} (with {@code -x}));
 *     for a command read from a string: {@code "bash -c"} (or {@code "sh -c"}, ...) for a shell's
 *     {@code -c} string, {@code "eval"} for eval's arguments, {@code "env -S"} for env's split string,
 *     {@code "su -c"}, {@code "runuser -c"}, {@code "flock -c"}, {@code "script -c"} and {@code "sg -c"}
 *     for the strings those run with a shell, {@code "watch"} and {@code "parallel"} for the commands
 *     they join into one, {@code "trap"} for a trap's action (the trap command itself is kept too);
 *     for code a command reads from elsewhere: {@code "bash -s"} (or
 *     {@code "sh -s"}, ...) for commands a shell reads from its standard input or a process
 *     substitution, {@code "source"} (or {@code "."}) and {@code "at"} for those they read,
 *     {@code "make -f"} for a makefile's recipes, and the wrapper's name then {@code "sh -s"} for the
 *     shell a wrapper starts without a command ({@code sudo -s}, {@code su}, {@code chroot DIR}); and
 *     {@code "find -exec"} ({@code -execdir}, {@code -ok}, {@code -okdir}) for a command run by find.
 *     {@code sudo}, {@code doas}, {@code su} and {@code runuser} appear as {@code "sudo"}, {@code "doas"},
 *     {@code "su -c"}, {@code "runuser"}, {@code "runuser -c"}, or {@code "su"}/{@code "runuser"} before
 *     {@code "sh -s"}
 * @param assignments the variable assignments it runs with, as written ({@code NAME=value}): those
 *     before the command word ({@code GIT_DIR=x git status}) and those a wrapper passes on
 *     ({@code env GIT_DIR=x git status}, {@code sudo EDITOR=x visudo})
 */
public record SimpleCommand(Word name, List<Word> args, List<Redirect> redirects, List<String> wrappers,
        List<Word> assignments) {

    public SimpleCommand {
        Objects.requireNonNull(name, "name");
        args = List.copyOf(args);
        redirects = List.copyOf(redirects);
        wrappers = List.copyOf(wrappers);
        assignments = List.copyOf(assignments);
    }

    /** A simple command without assignments. */
    public SimpleCommand(Word name, List<Word> args, List<Redirect> redirects, List<String> wrappers) {
        this(name, args, redirects, wrappers, List.of());
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
        return (wrappers.isEmpty() ? "" : wrappers + " ") + (assignments.isEmpty() ? "" : assignments + " ") + name + (args.isEmpty() ? "" : " " + args)
                + (redirects.isEmpty() ? "" : " " + redirects);
    }
}
