package dev.quiver.bash;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The commands that run another command, and how each reads its words: the options it takes (as
 * its own {@code getopt} call reads them, see {@link Getopt}), the words it takes before the command
 * (a lock file, a duration, a CPU mask, a priority, a new root), the options that make it run no
 * command ({@code sudo -l}, {@code taskset -p}, {@code flock 9}) or a shell string ({@code flock -c},
 * {@code su -c}, {@code script -c}), and whether it starts a shell when given no command ({@code sudo},
 * {@code su}, {@code chroot DIR}). Fail-closed: when the words cannot be read as the wrapper reads them,
 * the result says why and the line cannot be judged; the wrapper is never taken for the command.
 *
 * <p>Option tables: sudo 1.9.17, coreutils 9 (env, nice, nohup, timeout, stdbuf, chroot), findutils 4.9
 * (xargs), util-linux 2.40 (flock, setsid, taskset, chrt, ionice, unshare, script, su, runuser), procps
 * 4 (watch), strace 6.8, ltrace 0.7, GNU parallel, OpenDoas, polkit (pkexec), shadow (sg), bash's own
 * {@code command}, {@code exec} and {@code builtin}, GNU time, busybox, toybox and firejail.
 */
final class Wrappers {

    enum Kind {
        /** Runs {@link Read#command()}. */
        RUNS,
        /** Runs {@link Read#string()} with a shell; {@link Read#label()} names the wrapper in the result. */
        STRING,
        /** Runs no command we judge: the wrapper is the command ({@code sudo -l}, {@code env}, {@code flock 9}). */
        ALONE,
        /** Runs no command of its words but starts a shell that reads its standard input ({@code sudo -s}, {@code su}). */
        SHELL,
        /** Its words cannot be read: {@link Read#why()}. */
        UNREADABLE
    }

    record Read(Kind kind, List<Word> command, Word string, String label, String why) {

        static final Read ALONE = new Read(Kind.ALONE, List.of(), null, null, null);
        static final Read SHELL = new Read(Kind.SHELL, List.of(), null, null, null);

        static Read runs(List<Word> command) {
            return new Read(Kind.RUNS, command, null, null, null);
        }

        static Read string(Word string, String label) {
            return new Read(Kind.STRING, List.of(), string, label, null);
        }

        static Read unreadable(String why) {
            return new Read(Kind.UNREADABLE, List.of(), null, null, why);
        }
    }

    private interface Wrapper {
        /** How the wrapper reads {@code words}; {@code words.get(0)} is the wrapper itself. */
        Read read(List<Word> words);
    }

    private static final Getopt SUDO = Getopt.closed("+A|askpass a|auth-type= B|bell b|background C|close-from= "
            + "c|login-class= D|chdir= preserve-env=?|E e|edit g|group= H|set-home h=?|help i|login "
            + "K|remove-timestamp k|reset-timestamp l|list N|no-update n|non-interactive P|preserve-groups "
            + "p|prompt= R|chroot= r|role= S|stdin s|shell T|command-timeout= t|type= U|other-user= u|user= "
            + "V|version v|validate host=");
    private static final Getopt DOAS = Getopt.closed("+a= C= L n s u=");
    private static final Getopt PKEXEC = Getopt.closed("+u|user= help version disable-internal-agent keep-cwd");
    private static final Getopt ENV = Getopt.closed("+C|chdir= i|ignore-environment S|split-string= u|unset= v|debug "
            + "0|null default-signal=? ignore-signal=? block-signal=? list-signal-handling help version");
    private static final Getopt NICE = Getopt.closed("+n|adjustment= help version");
    private static final Getopt NOHUP = Getopt.closed("+help version");
    private static final Getopt TIMEOUT = Getopt.closed("+f|foreground k|kill-after= p|preserve-status s|signal= "
            + "v|verbose help version");
    private static final Getopt TIME = Getopt.closed("+a|append f|format= o|output= p|portability q|quiet v|verbose "
            + "V|version help");
    private static final Getopt STDBUF = Getopt.closed("+i|input= o|output= e|error= help version");
    private static final Getopt IONICE = Getopt.closed("+c|class= n|classdata= p|pid= P|pgid= t=|ignore u|uid= "
            + "h|help V|version");
    private static final Getopt COMMAND = Getopt.closed("+p v V");
    private static final Getopt BUILTIN = Getopt.closed("+");
    private static final Getopt EXEC = Getopt.closed("+c l a=");
    private static final Getopt XARGS = Getopt.closed("+0|null a|arg-file= E= e|eof=? i|replace=? I= l|max-lines=? "
            + "L= n|max-args= o|open-tty p|interactive r|no-run-if-empty s|max-chars= t|verbose x|exit P|max-procs= "
            + "d|delimiter= show-limits process-slot-var= help version");
    private static final Getopt FLOCK = Getopt.closed("+s|shared e x|exclusive n|nonblocking|nb o|close F|no-fork "
            + "u|unlock w|timeout|wait= E|conflict-exit-code= h|help V|version verbose fcntl start= length=");
    private static final Getopt SETSID = Getopt.closed("+c|ctty f|fork w|wait h|help V|version");
    private static final Getopt NSENTER = Getopt.closed("+a|all t|target= mount=?|m uts=?|u ipc=?|i net=?|n pid=?|p "
            + "cgroup=?|C user=?|U time=?|T S|setuid= G|setgid= preserve-credentials keep-caps r|root=? w|wd=? "
            + "W|wdns= e|env F|no-fork Z|follow-context c|join-cgroup user-parent h|help V|version");
    private static final Getopt SETPRIV = Getopt.closed("+d|dump nnp|no-new-privs inh-caps= ambient-caps= bounding-set= "
            + "ruid= euid= rgid= egid= reuid= regid= clear-groups keep-groups init-groups groups= securebits= "
            + "pdeathsig= selinux-label= apparmor-profile= landlock-access= landlock-rule= reset-env h|help V|version");
    private static final Getopt TASKSET = Getopt.closed("+a|all-tasks p|pid c|cpu-list h|help V|version");
    private static final Getopt CHRT = Getopt.closed("+a|all-tasks b|batch d|deadline D|sched-deadline= e|ext f|fifo "
            + "i|idle p|pid h|help m|max o|other P|sched-period= T|sched-runtime= r|rr R|reset-on-fork v|verbose "
            + "V|version");
    private static final Getopt UNSHARE = Getopt.closed("+f|fork h|help V|version mount=?|m uts=?|u ipc=?|i net=?|n "
            + "pid=?|p cgroup=?|C time=?|T user=?|U r|map-root-user R|root= w|wd= S|setuid= G|setgid= "
            + "c|map-current-user l|load-interp= kill-child=? mount-proc=? mount-binfmt=? map-user= map-users= "
            + "map-group= map-groups= map-auto map-subids propagation= setgroups= keep-caps monotonic= boottime=");
    private static final Getopt CHROOT = Getopt.closed("+groups= userspec= skip-chdir help version");
    private static final Getopt SCRIPT = Getopt.closed("a|append B|log-io= c|command= e|return E|echo= f|flush "
            + "I|log-in= O|log-out= o|output-limit= q|quiet m|logging-format= T|log-timing= t|timing=? V|version "
            + "h|help force");
    private static final String SU_TABLE = "c|command= f|fast g|group= G|supp-group= l|login m p|preserve-environment "
            + "P|pty T|no-pty s|shell= h|help V|version w|whitelist-environment= session-command=";
    private static final Getopt SU = Getopt.closed(SU_TABLE);
    private static final Getopt RUNUSER = Getopt.closed(SU_TABLE + " u|user=");
    private static final Getopt WATCH = Getopt.closed("+b|beep C|no-color c|color e|errexit f|follow d|differences=? "
            + "g|chgexit h|help q|equexit= n|interval= p|precise r|no-rerun s|shotsdir= t|no-title w|no-wrap "
            + "v|version x|exec");
    private static final Getopt STRACE = Getopt.closed("+a|columns= A|output-append-mode b|detach-on= c|summary-only "
            + "C|summary d|debug D e= E|env= f F h|help i|instruction-pointer I|interruptible= k n|syscall-number N "
            + "o|output= O|summary-syscall-overhead= p|attach= P|trace-path= q relative-timestamps=?|r "
            + "s|string-limit= S|summary-sort-by= t syscall-times=?|T u|user= U|summary-columns= v|no-abbrev "
            + "V|version w|summary-wall-clock x X|const-print-style= y Y z|successful-only "
            + "Z|failed-only|failing-only daemonize=? daemonised=? daemonized=? follow-forks output-separately "
            + "kill-on-exit stack-trace=? stack-traces=? stack-trace-frame-limit= syscall-limit= "
            + "absolute-timestamps=? timestamps=? strings-in-hex=? pidns-translation seccomp-bpf tips=? argv0= "
            + "trace= trace-fds= abbrev= verbose= raw= signals= signal= status= read= write= fault= inject= kvm= "
            + "quiet=? silent=? silence=? decode-fds=? decode-pids= secontext=?");
    private static final Getopt LTRACE = Getopt.closed("+b|no-signals c C|demangle f g|no-plt h|help i L r S t T "
            + "V|version a|align= A= D|debug= e= F|config= l|library= n|indent= o|output= p= s= u= w|where= x= X=");
    /**
     * GNU parallel reads its options with Perl's Getopt::Long (bundled, in order). Options whose value
     * is optional are left out on purpose: Getopt::Long would take the next word as their value when
     * it does not look like an option, so they are read as unknown (fail-closed).
     */
    private static final Getopt PARALLEL = Getopt.closed("+0|null k|keep-order q|quote r|no-run-if-empty t u|ungroup "
            + "v|verbose X x m|xargs g|group p|interactive h|help V|version a|arg-file= d|delimiter= E= I= "
            + "j|jobs|max-procs= P= L|max-lines= n|max-args= N|max-replace-args= s|max-chars= S|sshlogin= C|colsep= "
            + "W|workdir|wd= bar eta progress dry-run will-cite no-notice line-buffer lb tag pipe pipepart shuf "
            + "files csv fg bg nonall onall plus link xapply silent wait semaphore citation number-of-cpus "
            + "number-of-cores number-of-threads number-of-sockets resume resume-failed retry-failed noswap cleanup "
            + "transfer controlmaster ctag shebang shellquote arg-sep= arg-file-sep= block= block-size= "
            + "compress-program= decompress-program= delay= env= filter= halt= header= joblog= load= memfree= "
            + "memsuspend= nice= recend= recstart= results= res= retries= return= rpl= sshdelay= sshloginfile= slf= "
            + "semaphorename= id= tagstring= timeout= tmpdir= trc= transferfile= tf= basefile= bf= termseq= ssh= "
            + "limit=");

    private static final Pattern DURATION = Pattern.compile("(?i)([0-9]*\\.?[0-9]+(e[+-]?[0-9]+)?|inf(inity)?)[smhd]?");
    private static final Pattern MASK = Pattern.compile("(0x)?[0-9a-fA-F,]+");
    private static final Pattern CPU_LIST = Pattern.compile("[0-9,:\\-]+");
    private static final Pattern INTEGER = Pattern.compile("-?[0-9]+");
    /** nice's own spelling of an adjustment, read before its options: {@code -10}, {@code --10}, {@code -+10}. */
    private static final Pattern NICE_ADJUSTMENT = Pattern.compile("-[-+]?[0-9].*");

    private static final Map<String, Wrapper> TABLE = Map.ofEntries(
            Map.entry("sudo", Wrappers::sudo),
            Map.entry("sudoedit", words -> Read.ALONE),
            Map.entry("doas", with(DOAS, Wrappers::doas, "-C", "-L")),
            Map.entry("pkexec", with(PKEXEC, command(Kind.SHELL), "--help", "--version")),
            Map.entry("env", with(ENV, Wrappers::env, "--help", "--version", "--list-signal-handling")),
            Map.entry("nice", Wrappers::nice),
            Map.entry("nohup", with(NOHUP, command(Kind.UNREADABLE), "--help", "--version")),
            Map.entry("timeout", with(TIMEOUT, positional(DURATION, "duration", Kind.UNREADABLE), "--help", "--version")),
            Map.entry("time", with(TIME, command(Kind.ALONE), "--help", "-V")),
            Map.entry("stdbuf", with(STDBUF, command(Kind.UNREADABLE), "--help", "--version")),
            Map.entry("ionice", with(IONICE, command(Kind.ALONE), "-h", "-V", "-p", "-P", "-u")),
            Map.entry("command", with(COMMAND, command(Kind.ALONE), "-v", "-V")),
            Map.entry("builtin", with(BUILTIN, command(Kind.ALONE))),
            Map.entry("exec", with(EXEC, command(Kind.ALONE))),
            Map.entry("coproc", words -> words.size() > 1 ? Read.runs(words.subList(1, words.size())) : Read.ALONE),
            // xargs with nothing to run runs echo
            Map.entry("xargs", with(XARGS, (words, r) -> r.positions.isEmpty() ? Read.runs(List.of(Word.literal("echo")))
                    : command(words, r.positions, 0, Kind.ALONE), "--help", "--version", "--show-limits")),
            Map.entry("flock", with(FLOCK, Wrappers::flock, "-h", "-V")),
            Map.entry("setsid", with(SETSID, command(Kind.UNREADABLE), "-h", "-V")),
            Map.entry("taskset", with(TASKSET, (words, r) -> positional(r.has("-c") ? CPU_LIST : MASK,
                    r.has("-c") ? "CPU list" : "CPU mask", Kind.UNREADABLE).read(words, r), "-h", "-V", "-p")),
            Map.entry("chrt", with(CHRT, positional(INTEGER, "priority", Kind.UNREADABLE), "-h", "-V", "-p", "-m")),
            Map.entry("unshare", with(UNSHARE, command(Kind.SHELL), "-h", "-V")),
            Map.entry("nsenter", with(NSENTER, command(Kind.SHELL), "-h", "-V")),
            Map.entry("setpriv", with(SETPRIV, command(Kind.UNREADABLE), "-h", "-V", "-d")),
            Map.entry("chroot", with(CHROOT, positional(null, "new root", Kind.SHELL), "--help", "--version")),
            Map.entry("script", with(SCRIPT, Wrappers::script, "-h", "-V")),
            Map.entry("su", with(SU, Wrappers::su, "-h", "-V")),
            Map.entry("runuser", with(RUNUSER, Wrappers::su, "-h", "-V")),
            Map.entry("sg", Wrappers::sg),
            Map.entry("firejail", Wrappers::firejail),
            Map.entry("busybox", Wrappers::multicall),
            Map.entry("toybox", Wrappers::multicall),
            Map.entry("strace", with(STRACE, Wrappers::tracer, "-h", "-V")),
            Map.entry("ltrace", with(LTRACE, Wrappers::tracer, "-h", "-V")),
            Map.entry("watch", with(WATCH, Wrappers::watch, "-h", "-v")),
            Map.entry("parallel", with(PARALLEL, Wrappers::parallel, "-h", "-V", "--number-of-cpus", "--number-of-cores",
                    "--number-of-threads", "--number-of-sockets", "--citation")));

    private Wrappers() {
    }

    /** How the wrapper {@code base}, which is {@code words.get(0)}, reads its words; null when {@code base} is no wrapper. */
    static Read read(String base, List<Word> words) {
        Wrapper w = TABLE.get(base);
        return w == null ? null : w.read(words);
    }

    /** What a wrapper does once its options are read. */
    private interface Then {
        Read read(List<Word> words, Getopt.Read r);
    }

    /**
     * A wrapper whose options {@code getopt} reads; any of {@code stops} (help, version, a query)
     * means it runs nothing; else {@code then} finds what it runs.
     */
    private static Wrapper with(Getopt getopt, Then then, String... stops) {
        return words -> {
            Getopt.Read r = getopt.read(words, 1);
            Read early = early(r, stops);
            return early != null ? early : then.read(words, r);
        };
    }

    /**
     * The common shape: the command follows the options; without one the wrapper does what
     * {@code bare} says: {@link Kind#ALONE} (it prints something), {@link Kind#SHELL} (it starts a
     * shell), or {@link Kind#UNREADABLE} (it fails: a command is required).
     */
    private static Then command(Kind bare) {
        return (words, r) -> command(words, r.positions, 0, bare);
    }

    /**
     * What a wrapper does before its command is looked for: unreadable when its options are, nothing
     * when one of {@code stops} (help, version, a query) is among them; null to go on.
     */
    private static Read early(Getopt.Read r, String... stops) {
        if (r.failure != null) {
            return Read.unreadable(r.failure);
        }
        for (String key : stops) {
            if (r.has(key)) {
                return Read.ALONE;
            }
        }
        return null;
    }

    /** The command made of the operands from {@code first} on, or what a wrapper without one does. */
    private static Read command(List<Word> words, List<Integer> operands, int first, Kind bare) {
        if (first >= operands.size()) {
            return switch (bare) {
                case SHELL -> Read.SHELL;
                case UNREADABLE -> Read.unreadable("no command");
                default -> Read.ALONE;
            };
        }
        List<Word> command = new ArrayList<>(operands.size() - first);
        for (int k = first; k < operands.size(); k++) {
            command.add(words.get(operands.get(k)));
        }
        return Read.runs(command);
    }

    /** One word that must read as {@code shape} (a duration, a priority; null: any), then the command. */
    private static Then positional(Pattern shape, String what, Kind bare) {
        return (words, r) -> {
            String why = positionalWord(words, r.positions, shape, what);
            return why != null ? Read.unreadable(why) : command(words, r.positions, 1, bare);
        };
    }

    /** strace and ltrace run their command, or with {@code -p} and no command only attach to running processes. */
    private static Read tracer(List<Word> words, Getopt.Read r) {
        return command(words, r.positions, 0, r.has("-p") ? Kind.ALONE : Kind.UNREADABLE);
    }

    /** Why the first operand is not a {@code what} the wrapper reads before its command; null when it is. */
    private static String positionalWord(List<Word> words, List<Integer> operands, Pattern shape, String what) {
        if (operands.isEmpty()) {
            return "no " + what;
        }
        Word w = words.get(operands.get(0));
        if (ShellText.maySplit(w)) {
            return "the " + what + " computed as " + Getopt.show(w) + ", which may be several words or none";
        }
        if (w.literal() && shape != null && !shape.matcher(w.value()).matches()) {
            return "a " + what + " it does not read (" + Getopt.show(w) + ")";
        }
        return null;
    }

    private static Read sudo(List<Word> words) {
        Getopt.Read all = new Getopt.Read(SUDO, words);
        int j = 1;
        int hosts = 0;
        while (true) {
            Getopt.Read r = SUDO.read(words, j);
            if (r.failure != null) {
                return Read.unreadable(r.failure);
            }
            all.found.addAll(r.found);
            if (r.positions.isEmpty()) {
                break;
            }
            int first = r.positions.get(0);
            Word w = words.get(first);
            boolean afterDashes = words.get(first - 1).literal() && words.get(first - 1).value().equals("--");
            String start = Getopt.knownStart(w);
            boolean envar = !start.startsWith("/") && !start.startsWith("=") && start.contains("=");
            if (!afterDashes && words.get(first - 1).literal() && words.get(first - 1).value().equals("-h") && !envar) {
                // sudo takes the word after a bare -h as the host to run on, then reads options again
                hosts++;
                j = first + 1;
                continue;
            }
            if (!afterDashes && envar) {
                // sudo reads VAR=value words among its options
                j = first + 1;
                continue;
            }
            if (!afterDashes && !w.literal() && !Getopt.operand(w)) {
                return Read.unreadable("a computed word " + Getopt.show(w) + " where it reads options");
            }
            for (int k = first; k < words.size(); k++) {
                all.positions.add(k);
            }
            break;
        }
        long help = all.found.stream().filter(o -> o.name().equals(SUDO.canonical("-h")) && o.value() == null).count() - hosts;
        if (help > 0 || early(all, "-V", "-e", "-l", "-v", "-K") != null) {
            return Read.ALONE;
        }
        if (all.positions.isEmpty() && all.has("-k") && !all.has("-s") && !all.has("-i")) {
            return Read.ALONE;
        }
        return command(words, all.positions, 0, Kind.SHELL);
    }

    private static Read doas(List<Word> words, Getopt.Read r) {
        if (r.has("-s")) {
            return r.positions.isEmpty() ? Read.SHELL : Read.unreadable("-s with a command");
        }
        return command(words, r.positions, 0, Kind.UNREADABLE);
    }

    /** env: options, an optional {@code -}, assignments, the command; {@code -S} splits a string into arguments. */
    private static Read env(List<Word> words, Getopt.Read r) {
        for (Getopt.Found o : r.found) {
            if (o.name().equals(ENV.canonical("-S"))) {
                // the split words take -S's place and env reads them as its own words again
                List<Word> parts = new ArrayList<>();
                parts.add(Word.literal("env"));
                parts.add(o.value());
                parts.addAll(words.subList(o.next(), words.size()));
                return Read.string(join(parts), "env -S");
            }
        }
        int first = 0;
        List<Integer> operands = r.positions;
        if (!operands.isEmpty() && words.get(operands.get(0)).literal() && words.get(operands.get(0)).value().equals("-")) {
            first++;
        }
        while (first < operands.size()) {
            Word w = words.get(operands.get(first));
            if (Expander.isAssignment(Getopt.knownStart(w))) {
                first++;
            } else if (!w.literal() && (!Getopt.operand(w) || w.value().contains("="))) {
                // it may be an assignment or the command
                return Read.unreadable("a computed word " + Getopt.show(w) + " where it reads assignments");
            } else {
                break;
            }
        }
        return command(words, operands, first, Kind.ALONE);
    }

    private static Read nice(List<Word> words) {
        int j = 1;
        while (j < words.size() && words.get(j).literal() && NICE_ADJUSTMENT.matcher(words.get(j).value()).matches()) {
            j++;
        }
        Getopt.Read r = NICE.read(words, j);
        Read early = early(r, "--help", "--version");
        if (early != null) {
            return early;
        }
        return command(words, r.positions, 0, Kind.ALONE);
    }


    /** flock [options] FILE COMMAND..., flock [options] FILE -c STRING, flock [options] FD (no command). */
    private static Read flock(List<Word> words, Getopt.Read r) {
        String why = positionalWord(words, r.positions, null, "lock file");
        if (why != null) {
            return Read.unreadable(why);
        }
        List<Integer> ops = r.positions;
        if (ops.size() == 1) {
            Word fd = words.get(ops.get(0));
            return fd.literal() && INTEGER.matcher(fd.value()).matches() ? Read.ALONE
                    : Read.unreadable("a lock file and no command");
        }
        Word second = words.get(ops.get(1));
        if (second.literal() && (second.value().equals("-c") || second.value().equals("--command"))) {
            return ops.size() == 3 ? Read.string(words.get(ops.get(2)), "flock -c")
                    : Read.unreadable(second.value() + " with other than one command string");
        }
        return command(words, ops, 1, Kind.UNREADABLE);
    }


    /** script runs its -c string with a shell, else an interactive shell (its operand is the typescript file). */
    private static Read script(List<Word> words, Getopt.Read r) {
        if (r.has("-c")) {
            return Read.string(r.value("-c"), "script -c");
        }
        return r.positions.size() <= 1 ? Read.SHELL : Read.unreadable("more than one typescript file");
    }

    /**
     * su and runuser: {@code -c} (or {@code --session-command}) is a string for the user's shell,
     * else the shell itself runs; {@code runuser -u USER COMMAND...} runs the command directly. Both
     * mix options and operands as glibc does.
     */
    private static Read su(List<Word> words, Getopt.Read r) {
        String name = ShellText.baseName(words.get(0));
        if (r.has("-u")) {
            boolean login = !r.positions.isEmpty() && words.get(r.positions.get(0)).literal()
                    && words.get(r.positions.get(0)).value().equals("-");
            if (login || r.has("-c") || r.has("--session-command") || r.has("-l") || r.has("-s") || r.has("-f")) {
                return Read.unreadable("-u with a shell option");
            }
            return command(words, r.positions, 0, Kind.UNREADABLE);
        }
        Word string = r.value("-c", "--session-command");
        return string != null ? Read.string(string, name + " -c") : Read.SHELL;
    }

    /** sg [-] GROUP [[-c] STRING]: the string runs with /bin/sh; without one, a shell. */
    private static Read sg(List<Word> words) {
        int j = 1;
        if (j < words.size() && words.get(j).literal() && words.get(j).value().equals("-")) {
            j++;
        }
        if (j >= words.size() || !Getopt.operand(words.get(j)) || ShellText.maySplit(words.get(j))) {
            return j >= words.size() ? Read.SHELL : Read.unreadable("a group it does not read (" + Getopt.show(words.get(j)) + ")");
        }
        j++;
        if (j < words.size() && words.get(j).literal() && words.get(j).value().equals("-c")) {
            j++;
        }
        if (j >= words.size()) {
            return Read.SHELL;
        }
        return j + 1 == words.size() ? Read.string(words.get(j), "sg -c") : Read.unreadable("more than one command string");
    }

    /** firejail's options are {@code --name} or {@code --name=value}, one word each; then the program, else a shell. */
    private static Read firejail(List<Word> words) {
        int j = 1;
        while (j < words.size()) {
            Word w = words.get(j);
            if (w.literal() && w.value().equals("--")) {
                j++;
                break;
            }
            if (Getopt.operand(w)) {
                break;
            }
            String start = w.literal() ? w.value() : w.value().substring(0, Math.max(0, w.value().indexOf('=')));
            if (!start.startsWith("--") || start.length() < 3) {
                return Read.unreadable("an option it does not read (" + Getopt.show(w) + ")");
            }
            j++;
        }
        return j < words.size() ? Read.runs(words.subList(j, words.size())) : Read.SHELL;
    }

    /** busybox and toybox run the applet their first word names. */
    private static Read multicall(List<Word> words) {
        if (words.size() < 2) {
            return Read.ALONE;
        }
        Word applet = words.get(1);
        if (applet.literal() && applet.value().startsWith("-")) {
            return applet.value().startsWith("--") ? Read.ALONE : Read.unreadable("an option it does not read ("
                    + Getopt.show(applet) + ")");
        }
        return Read.runs(words.subList(1, words.size()));
    }

    /** watch joins its words into a string for {@code sh -c}, or runs them as they are with {@code -x}. */
    private static Read watch(List<Word> words, Getopt.Read r) {
        if (r.positions.isEmpty()) {
            return Read.unreadable("no command");
        }
        if (r.has("-x")) {
            return command(words, r.positions, 0, Kind.UNREADABLE);
        }
        List<Word> parts = new ArrayList<>();
        for (int k : r.positions) {
            parts.add(words.get(k));
        }
        return Read.string(join(parts), "watch");
    }

    /**
     * GNU parallel: a command template up to the first {@code :::} or {@code ::::}, then argument
     * sources; the shell runs the template with each argument. Read as one string, the template
     * followed by every literal argument, so that the options and paths the arguments bring are
     * judged with the command; arguments read from files or standard input are unknown and stand as
     * {@code {}}. Without a template each argument is a command of its own; read from files or standard
     * input, those commands cannot be known.
     */
    private static Read parallel(List<Word> words, Getopt.Read r) {
        List<Word> template = new ArrayList<>();
        List<Word> arguments = new ArrayList<>();
        boolean unknown = r.has("-a");
        String source = null;
        for (int k : r.positions) {
            Word w = words.get(k);
            if (w.literal() && w.value().matches(":::[:+]?\\+?")) {
                source = w.value();
                unknown |= source.startsWith("::::");
            } else if (source == null) {
                template.add(w);
            } else if (!source.startsWith("::::")) {
                arguments.add(w);
            }
        }
        unknown |= source == null;
        if (template.isEmpty()) {
            if (unknown) {
                return Read.unreadable("the commands it runs are read from its input");
            }
            StringBuilder commands = new StringBuilder();
            boolean literal = true;
            for (Word a : arguments) {
                commands.append(a.value()).append('\n');
                literal &= a.literal();
            }
            return Read.string(new Word(commands.toString(), literal), "parallel");
        }
        List<Word> parts = new ArrayList<>(template);
        parts.addAll(arguments);
        if (unknown) {
            parts.add(Word.literal("{}"));
        }
        return Read.string(join(parts), "parallel");
    }

    /** Words joined with blanks into one string, literal when every word is. */
    static Word join(List<Word> parts) {
        StringBuilder b = new StringBuilder();
        boolean literal = true;
        for (Word p : parts) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(p.value());
            literal &= p.literal();
        }
        return new Word(b.toString(), literal);
    }
}
