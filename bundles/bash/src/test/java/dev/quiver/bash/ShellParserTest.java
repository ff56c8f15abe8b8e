package dev.quiver.bash;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ShellParserTest {

    private static List<String> texts(String command) {
        return ShellParser.parse(command).commands().stream().map(SimpleCommand::text).toList();
    }

    private static SimpleCommand only(String command) {
        ParsedCommand parsed = ShellParser.parse(command);
        assertEquals(1, parsed.commands().size(), () -> "commands of " + command + ": " + parsed.commands());
        return parsed.commands().get(0);
    }

    private static List<Word> literals(String... values) {
        return java.util.Arrays.stream(values).map(Word::literal).toList();
    }

    // ---- operators and constructs

    @Test
    void everyListOperatorAndNewlineSplitsCommands() {
        ParsedCommand parsed = ShellParser.parse("a; b && c || d | e |& f & g\nh");
        assertTrue(parsed.complete());
        assertEquals(List.of("a", "b", "c", "d", "e", "f", "g", "h"),
                parsed.commands().stream().map(SimpleCommand::text).toList());
    }

    @Test
    void aSubstitutionOfARedirectionAloneReadsTheFile() {
        // bash's $(< file) is $(cat file) without the process: the file is read
        for (String command : List.of("printf '%s' \"$(< .env)\"", "echo $(<.env)", "x=`< .env`")) {
            ParsedCommand parsed = ShellParser.parse(command);
            assertTrue(parsed.commands().stream().anyMatch(c -> c.name().value().isEmpty()
                    && c.redirects().equals(List.of(new Redirect("<", Word.literal(".env"), null)))),
                    command + ": " + parsed.commands());
        }
    }

    @Test
    void aCommandAfterALineBreakIsAlwaysItsOwnCommand() {
        // tree-sitter-bash runs some statements on past their line (a | b | c⏎rm -rf src >&2 read as
        // one c command): whatever comes before, the command on the next line must reach the guard
        String[] stages = {"a", "b x", "export X=1", "declare -x Y", "local v", "unset Z", "c=1", "[ -f x ]",
            "[[ -f y ]]", "(c)", "{ c; }", "! c", "c <<< s", "c 'q'", "c $V", "c \"$(d)\"", "c > f", "c 2>&1",
            "c &>/dev/null", "readonly R=1", "typeset T", "time c", "c `d`", "f() { c; }", "for i in 1; do c; done",
            "if c; then d; fi", "while c; do d; done", "case x in y) c;; esac", "coproc c", "((x++))", "let x=1",
            "c <(d)", "c >(d)", "c <<EOF\nbody\nEOF"};
        String[] joins = {" | ", " && ", " || ", "; ", " & ", " |& "};
        String[] tails = {"", " >&2", " 2>/dev/null", " > log", " <in", " &>/dev/null", " >| f", " 2>&1"};
        String[] breaks = {"\n", "\n\n", " \n", "\n  "};
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 5000; i++) {
            StringBuilder line = new StringBuilder();
            int count = 1 + random.nextInt(4);
            for (int k = 0; k < count; k++) {
                line.append(k == 0 ? "" : joins[random.nextInt(joins.length)]).append(stages[random.nextInt(stages.length)]);
            }
            line.append(breaks[random.nextInt(breaks.length)]).append("rm -rf src").append(tails[random.nextInt(tails.length)]);
            ParsedCommand parsed = ShellParser.parse(line.toString());
            assertTrue(parsed.commands().stream().anyMatch(c -> c.baseName().equals("rm")
                    && c.args().equals(literals("-rf", "src"))), () -> line + ": " + parsed.commands());
        }
    }

    @Test
    void subshellsAndGroupsAreOpened() {
        assertEquals(List.of("a", "b", "c x"), texts("(a; b); { c x; }"));
    }

    @Test
    void ifConditionsAndAllBranchesAreCommands() {
        assertEquals(List.of("a", "b", "c", "d", "e"), texts("if a; then b; elif c; then d; else e; fi"));
    }

    @Test
    void whileUntilForSelectAndCaseBodiesAreCommands() {
        assertEquals(List.of("f", "g", "h", "i"), texts("while f; do g; done; until h; do i; done"));
        assertEquals(List.of("ls", "rm \"$x\"", "j"),
                texts("for x in $(ls); do rm \"$x\"; done; for ((i=0;i<3;i++)); do j; done"));
        assertEquals(List.of("k", "l", "m"), texts("case $x in a) k;; b|c) l;; esac; select y in 1 2; do m; done"));
    }

    @Test
    void functionBodiesAreCommands() {
        assertEquals(List.of("rm -rf x", "y", "f"), texts("f() { rm -rf x; }; function g { y; }; f"));
    }

    @Test
    void substitutionsOfEveryKindAreCommands() {
        assertEquals(List.of("echo \"x $(rm a) `rm b` ${y:-$(rm c)}\" $((1+$(rm d)))", "rm a", "rm b", "rm c", "rm d"),
                texts("echo \"x $(rm a) `rm b` ${y:-$(rm c)}\" $((1+$(rm d)))"));
    }

    @Test
    void processSubstitutionsAreCommands() {
        assertEquals(List.of("diff <(ls a) >(tee b)", "ls a", "tee b"), texts("diff <(ls a) >(tee b)"));
    }

    @Test
    void assignmentsAndDeclarationsRunTheirSubstitutions() {
        assertEquals(List.of("rm y", "rm z"), texts("x=$(rm y); a=(1 $(rm z))"));
        assertEquals(List.of("export A=$(rm x)", "rm x", "local b=2", "declare -x C=1", "unset D"),
                texts("export A=$(rm x); local b=2; declare -x C=1; unset D"));
    }

    @Test
    void testCommandsAreNotCommandsButTheirSubstitutionsAre() {
        assertEquals(List.of("id -u", "echo root"), texts("[[ $(id -u) == 0 ]] && echo root"));
    }

    @Test
    void nestedBackticksAreReadAfterBashRemovesTheirEscapes() {
        assertEquals(List.of("echo `echo \\`rm x\\``", "echo `rm x`", "rm x"), texts("echo `echo \\`rm x\\``"));
    }

    @Test
    void hereDocumentBodiesAreDataButUnquotedSubstitutionsRun() {
        SimpleCommand cat = ShellParser.parse("cat <<'EOF'\n$(rm x)\nrm -rf /\nEOF").commands().get(0);
        assertEquals(1, ShellParser.parse("cat <<'EOF'\n$(rm x)\nrm -rf /\nEOF").commands().size());
        assertEquals(new Redirect("<<", Word.literal("$(rm x)\nrm -rf /\n"), null), cat.redirects().get(0));

        assertEquals(List.of("cat", "rm x", "rm y"), texts("cat <<EOF\n$(rm x) `rm y`\nEOF"));
    }

    @Test
    void hereDocumentFollowedByAPipeIsOnePipeline() {
        ParsedCommand parsed = ShellParser.parse("cat <<EOF | sh\necho hi\nEOF");
        // the document is code for sh: its command is read after those of the line
        assertEquals(List.of("cat", "sh", "echo hi"), parsed.commands().stream().map(SimpleCommand::text).toList());
        Structure.Pipeline pipeline = ShellParser.commandList(parsed).structure.pipelines.get(0);
        assertEquals(2, pipeline.stages().size());
    }

    @Test
    void hereStringsAndRedirectTargetsAreWords() {
        SimpleCommand cat = ShellParser.parse("cat <<< \"$(rm x)\" 2>&1 >> f &> g >| h 3< i 4>&-").commands().get(0);
        assertEquals(List.of(
                new Redirect("<<<", new Word("\"$(rm x)\"", false), null),
                new Redirect(">&", Word.literal("1"), 2),
                new Redirect(">>", Word.literal("f"), null),
                new Redirect("&>", Word.literal("g"), null),
                new Redirect(">|", Word.literal("h"), null),
                new Redirect("<", Word.literal("i"), 3),
                new Redirect(">&", Word.literal("-"), 4)), cat.redirects());
        assertEquals(List.of("cat", "rm x"), texts("cat <<< \"$(rm x)\""));
    }

    @Test
    void aWordAfterARedirectTargetIsStillAnArgument() {
        SimpleCommand echo = only("echo a >f b");
        assertEquals(literals("a", "b"), echo.args());
        assertEquals(List.of(new Redirect(">", Word.literal("f"), null)), echo.redirects());
    }

    @Test
    void redirectionsOfAGroupReachEveryCommandInIt() {
        ParsedCommand parsed = ShellParser.parse("{ a; b; } > out.txt");
        for (SimpleCommand c : parsed.commands()) {
            assertEquals(List.of(new Redirect(">", Word.literal("out.txt"), null)), c.redirects());
        }
    }

    @Test
    void aRedirectionAloneIsACommandWithAnEmptyName() {
        SimpleCommand c = only("> /dev/sda");
        assertEquals("", c.name().value());
        assertEquals(List.of(new Redirect(">", Word.literal("/dev/sda"), null)), c.redirects());
    }

    @Test
    void tenPartCompoundGivesTenCommands() {
        String command = "cd /work/app && git status --short && ls -la | grep -v node_modules; "
                + "echo \"built $(date +%s)\" > /tmp/out.log 2>&1 || rm -f stale.txt; "
                + "for f in src/*.java; do wc -l \"$f\"; done; mvn -q -o test && npm run build | tee build.log";
        ParsedCommand parsed = ShellParser.parse(command);
        assertTrue(parsed.complete());
        assertEquals(List.of("cd /work/app", "git status --short", "ls -la", "grep -v node_modules",
                "echo \"built $(date +%s)\"", "date +%s", "rm -f stale.txt", "wc -l \"$f\"", "mvn -q -o test",
                "npm run build", "tee build.log"), parsed.commands().stream().map(SimpleCommand::text).toList());
    }

    @Test
    void plainCommandsSplitWithoutTheGrammarExactlyAsWithIt() {
        for (String plain : List.of("git status", "mvn -q -o test", "  ls   -la  src/ ", "FOO=1 BAR=x make test",
                "sudo -u root env A=1 timeout 5 nice rm -rf target", "xargs -n1", "kill %1", "a=b",
                "git push origin main:main", "npm run build -- --prod", "command -v rm", "bash -c ls",
                "find . -name x -exec rm -f x +", ": foo")) {
            // a trailing ";" is not plain, so the grammar reads the second
            assertEquals(ShellParser.parse(plain + " ;").commands(), ShellParser.parse(plain).commands(), plain);
            assertTrue(ShellParser.parse(plain).complete(), plain);
        }
        assertFalse(ShellParser.parse("for").complete());
    }

    // ---- wrappers

    @Test
    void nestedWrappersAreStrippedAndRecorded() {
        SimpleCommand rm = only("sudo env A=1 timeout 5 nice rm -rf x");
        assertEquals(Word.literal("rm"), rm.name());
        assertEquals(literals("-rf", "x"), rm.args());
        assertEquals(List.of("sudo", "env", "timeout", "nice"), rm.wrappers());
    }

    @Test
    void wrapperOptionsAreSkipped() {
        assertEquals(List.of("sudo"), only("sudo -u root -E -- rm x").wrappers());
        assertEquals("rm x", only("sudo -u root -E -- rm x").text());
        assertEquals("rm x", only("env -i -u HOME PATH=/bin rm x").text());
        assertEquals("rm x", only("timeout -s KILL -k 5 30s rm x").text());
        assertEquals("rm x", only("nice -n 10 rm x").text());
        assertEquals("rm x", only("nice -5 rm x").text());
        assertEquals("rm x", only("nohup rm x").text());
        assertEquals("rm x", only("time -p rm x").text());
        assertEquals("rm x", only("stdbuf -o0 -eL -i0 rm x").text());
        assertEquals("rm x", only("ionice -c 3 -n 7 rm x").text());
        assertEquals("rm x", only("command -p rm x").text());
        assertEquals("rm x", only("exec -a name -c rm x").text());
        assertEquals("rm x", only("builtin rm x").text());
        assertEquals("rm {}", only("xargs -0 -r -I {} -n 1 -P 4 -L 2 -d , rm {}").text());
    }

    @Test
    void commandMinusVIsAQueryNotAWrapper() {
        SimpleCommand c = only("command -v rm");
        assertEquals("command -v rm", c.text());
        assertEquals(List.of(), c.wrappers());
    }

    @Test
    void xargsWithNothingToRunRunsEcho() {
        SimpleCommand c = only("xargs -0");
        assertEquals("echo", c.text());
        assertEquals(List.of("xargs"), c.wrappers());
    }

    @Test
    void aWrapperWithNothingToRunIsItself() {
        assertEquals("sudo -i", only("sudo -i").text());
        assertEquals("env", only("env").text());
        assertEquals("exec", only("exec 3>&1").text());
    }

    @Test
    void leadingAssignmentsAreKeptBesideTheCommand() {
        SimpleCommand c = only("FOO=1 BAR=\"a b\" make test");
        assertEquals("make test", c.text());
        assertEquals(List.of(), c.wrappers());
        assertEquals(List.of(Word.literal("FOO=1"), Word.literal("BAR=a b")), c.assignments());
        SimpleCommand e = only("env -i A=1 B=$x git status");
        assertEquals(List.of("A=1", "B=$x"), e.assignments().stream().map(Word::value).toList());
    }

    /** As {@link #wraps}, for a wrapper that runs its command in another folder: the line cannot be judged. */
    private static void wrapsInAnotherFolder(String line, List<String> wrappers, String text) {
        ParsedCommand parsed = ShellParser.parse(line);
        assertEquals(1, parsed.unjudgeable().size(), line);
        assertTrue(parsed.unjudgeable().get(0).contains("another folder"), line);
        assertEquals(wrappers, parsed.commands().get(0).wrappers(), line);
        assertEquals(text, parsed.commands().get(0).text(), line);
    }

    /** A line, the wrappers its one command is found behind, and that command's text. */
    private static void wraps(String line, List<String> wrappers, String text) {
        ParsedCommand parsed = ShellParser.parse(line);
        assertEquals(List.of(), parsed.unjudgeable(), line);
        assertEquals(1, parsed.commands().size(), () -> line + ": " + parsed.commands());
        assertEquals(wrappers, parsed.commands().get(0).wrappers(), line);
        assertEquals(text, parsed.commands().get(0).text(), line);
    }

    @Test
    void everyWrapperOfTheTableRunsItsCommandWhateverItsOptionsTake() {
        // each option with a value is followed by a word that would be taken for the command if the
        // value were not skipped
        wraps("flock -w 5 -E 3 /tmp/l rm -rf src", List.of("flock"), "rm -rf src");
        wraps("flock --exclusive --timeout 5 /tmp/l rm -rf src", List.of("flock"), "rm -rf src");
        wraps("flock --ex --conflict=3 /tmp/l rm x", List.of("flock"), "rm x");
        wraps("flock -n /tmp/l -c 'rm -rf src'", List.of("flock -c"), "rm -rf src");
        wraps("flock /tmp/l --command 'rm x'", List.of("flock -c"), "rm x");
        wraps("setsid -f -w rm x", List.of("setsid"), "rm x");
        wraps("setsid --fork --ctty rm x", List.of("setsid"), "rm x");
        wraps("nsenter -t 1 -m -u rm x", List.of("nsenter"), "rm x");
        wraps("nsenter --target=1 --mount --wd=/ rm x", List.of("nsenter"), "rm x");
        wraps("setpriv --nnp --reuid=1000 --clear-groups rm x", List.of("setpriv"), "rm x");
        wraps("setpriv --no-new --inh-caps=-all rm x", List.of("setpriv"), "rm x");
        wraps("taskset 0x3 rm x", List.of("taskset"), "rm x");
        wraps("taskset -a -c 0-2,4 rm x", List.of("taskset"), "rm x");
        wraps("taskset --cpu-list 1 rm x", List.of("taskset"), "rm x");
        wraps("chrt -f 10 rm x", List.of("chrt"), "rm x");
        wraps("chrt --rr 5 rm x", List.of("chrt"), "rm x");
        wraps("chrt -d -T 1000 -P 3000 -D 2000 0 rm x", List.of("chrt"), "rm x");
        wraps("unshare -rm --fork rm x", List.of("unshare"), "rm x");
        wraps("unshare --map-user 0 --propagation private -S 0 -G 0 -w /tmp rm x", List.of("unshare"), "rm x");
        wraps("unshare --mount=/run/ns --kill-child rm x", List.of("unshare"), "rm x");
        wraps("script -q -c 'rm x' /dev/null", List.of("script -c"), "rm x");
        wraps("script -qc 'rm x'", List.of("script -c"), "rm x");
        wraps("script out.log -E never -c 'rm x'", List.of("script -c"), "rm x");
        wraps("script --command='rm x' --quiet", List.of("script -c"), "rm x");
        wraps("runuser -u deploy -g deploy -- rm x", List.of("runuser"), "rm x");
        wraps("runuser -l deploy -c 'rm x'", List.of("runuser -c"), "rm x");
        wraps("runuser deploy --command='rm x'", List.of("runuser -c"), "rm x");
        wraps("su -s /bin/bash deploy -c 'rm x'", List.of("su -c"), "rm x");
        wraps("su --session-command='rm x' deploy", List.of("su -c"), "rm x");
        wraps("chroot /srv/root rm x", List.of("chroot"), "rm x");
        wraps("chroot --userspec=1:1 --groups 1 /srv rm x", List.of("chroot"), "rm x");
        wraps("xargs -a list.txt -d , -E end rm", List.of("xargs"), "rm");
        wraps("parallel -j 4 rm ::: a b", List.of("parallel"), "rm a b");
        wraps("parallel --jobs 4 'gzip -9 {}' ::: a.log", List.of("parallel"), "gzip -9 {} a.log");
        wraps("watch -n 5 -d rm x", List.of("watch"), "rm x");
        wraps("watch --interval 5 -x rm x", List.of("watch"), "rm x");
        wraps("busybox rm -rf x", List.of("busybox"), "rm -rf x");
        wraps("toybox rm x", List.of("toybox"), "rm x");
        wraps("strace -f -o /tmp/t -e trace=open -s 200 -u root rm x", List.of("strace"), "rm x");
        wraps("strace --output=/tmp/t --follow-forks --trace open rm x", List.of("strace"), "rm x");
        wraps("ltrace -o /tmp/t -n 2 -e malloc rm x", List.of("ltrace"), "rm x");
        wraps("timeout --sig=KILL 5 rm x", List.of("timeout"), "rm x");
        wraps("timeout -k 5 10s rm x", List.of("timeout"), "rm x");
        wraps("timeout --kill-after 5 1.5m rm x", List.of("timeout"), "rm x");
        wraps("nice --adjustment=5 rm x", List.of("nice"), "rm x");
        wraps("nice --adj 5 rm x", List.of("nice"), "rm x");
        wraps("nohup -- rm x", List.of("nohup"), "rm x");
        wraps("time -f %e -o /tmp/t rm x", List.of("time"), "rm x");
        wraps("stdbuf -i0 -o L --error=L rm x", List.of("stdbuf"), "rm x");
        wraps("ionice --class 3 rm x", List.of("ionice"), "rm x");
        wraps("doas -u root rm x", List.of("doas"), "rm x");
        wraps("pkexec --user root rm x", List.of("pkexec"), "rm x");
        wraps("sg wheel 'rm x'", List.of("sg -c"), "rm x");
        wraps("sg - wheel -c 'rm x'", List.of("sg -c"), "rm x");
        wraps("firejail --net=none --private rm x", List.of("firejail"), "rm x");
        wrapsInAnotherFolder("env -u HOME -C /tmp A=1 rm x", List.of("env"), "rm x");
        wrapsInAnotherFolder("env --chdir /tmp - A=1 rm x", List.of("env"), "rm x");
        wrapsInAnotherFolder("sudo -u root -g wheel -D /tmp A=1 -E rm x", List.of("sudo"), "rm x");
        wrapsInAnotherFolder("sudo --user=root --chdir /tmp rm x", List.of("sudo"), "rm x");
        wraps("sudo -h build01 -u root rm x", List.of("sudo"), "rm x");
        wraps("/usr/bin/sudo -- rm x", List.of("sudo"), "rm x");
        wraps("command -p -- rm x", List.of("command"), "rm x");
        wraps("builtin rm x", List.of("builtin"), "rm x");
        wraps("sudo flock /tmp/l timeout 5 setsid rm x", List.of("sudo", "flock", "timeout", "setsid"), "rm x");
        // a computed word that surely starts with a name and = is an assignment, with a plain word an operand
        wraps("sudo -E \"PATH=$PATH\" env \"HOME=$TMP\" make install", List.of("sudo", "env"), "make install");
        wraps("flock \"/tmp/$name.lock\" rm x", List.of("flock"), "rm x");
    }

    /** A wrapper's words that cannot be read as it reads them: unjudgeable, naming it, and the wrapper stays the command. */
    private static void unreadable(String line, String wrapper) {
        ParsedCommand parsed = ShellParser.parse(line);
        assertFalse(parsed.complete(), line);
        assertTrue(parsed.unjudgeable().stream().anyMatch(r -> r.startsWith("what `" + wrapper + "` runs cannot be read")),
                () -> line + ": " + parsed.unjudgeable());
        assertEquals(wrapper, parsed.commands().get(0).name().value(), line);
        assertEquals(List.of(), parsed.commands().get(0).wrappers(), line);
    }

    @Test
    void aWrapperWhoseWordsCannotBeReadMakesTheLineUnjudgeable() {
        unreadable("flock --frob /tmp/l rm -rf src", "flock"); // an option it does not know
        unreadable("flock -Z /tmp/l rm -rf src", "flock");
        unreadable("flock --n /tmp/l rm -rf src", "flock"); // --nonblock, --nb or --no-fork
        unreadable("flock -w", "flock"); // a value missing
        unreadable("flock /tmp/l", "flock"); // a file and no command
        unreadable("flock /tmp/l -c 'rm x' y", "flock");
        unreadable("timeout $T rm -rf src", "timeout"); // a computed word where an option may stand
        unreadable("timeout 5x rm -rf src", "timeout"); // no duration
        unreadable("nice -n $N rm -rf src", "nice"); // a value that may be several words
        unreadable("sudo $OPTS rm -rf src", "sudo");
        unreadable("sudo --frobnicate rm -rf src", "sudo");
        unreadable("env $VARS rm -rf src", "env");
        unreadable("env -i \"$A=1\" rm -rf src", "env");
        unreadable("flock \"$LOCK\" rm -rf src", "flock");
        unreadable("taskset zz rm -rf src", "taskset");
        unreadable("chrt -f high rm -rf src", "chrt");
        unreadable("setsid", "setsid");
        unreadable("nsenter --frob rm -rf src", "nsenter");
        unreadable("setpriv", "setpriv");
        unreadable("nohup -x rm -rf src", "nohup");
        unreadable("runuser -u root rm -rf src", "runuser"); // runuser reads -rf as its own options
        unreadable("runuser -u root -c 'rm x'", "runuser");
        unreadable("script a b", "script");
        unreadable("strace", "strace");
        unreadable("watch", "watch");
        unreadable("doas", "doas");
        unreadable("busybox -x rm", "busybox");
        unreadable("firejail -c rm -rf src", "firejail");
        unreadable("xargs --frob rm -rf", "xargs");
        unreadable("stdbuf -X rm", "stdbuf");
        unreadable("parallel", "parallel"); // commands read from its input
        unreadable("parallel :::: cmds.txt", "parallel");
        unreadable("parallel --replace X rm -rf ::: src", "parallel"); // an optional value Getopt::Long would take
    }

    @Test
    void whatAWrapperThatCannotBeReadMayRunIsGuessedForTheGuard() {
        ParsedCommand parsed = ShellParser.parse("flock --frob /tmp/l rm -rf src");
        assertEquals(List.of("flock --frob /tmp/l rm -rf src", "/tmp/l rm -rf src", "rm -rf src", "src"),
                parsed.commands().stream().map(SimpleCommand::text).toList());
        assertEquals(List.of("flock"), parsed.commands().get(2).wrappers());
        assertTrue(CommandGuard.refusal(parsed, CommandGuardTest.BUILD_OUTPUT).isPresent());
        // guesses are not read again, so that a chain of wrappers that cannot be read stays small
        ParsedCommand chain = ShellParser.parse("timeout $T ".repeat(200) + "make");
        assertTrue(chain.commands().size() <= 17, () -> chain.commands().size() + " commands");
    }

    @Test
    void aWrapperWithoutACommandThatRunsNoneIsItselfAndJudgeable() {
        for (String line : List.of("flock 9", "taskset -p 3 123", "chrt -p 123", "chrt -m", "ionice -p 123",
                "strace -p 123", "ltrace -p 123", "sudo -l", "sudo -e /etc/hosts", "sudoedit /etc/hosts",
                "busybox --list", "busybox", "env", "nice", "time", "command -v rm", "timeout --version",
                "xargs --show-limits")) {
            ParsedCommand parsed = ShellParser.parse(line);
            assertEquals(List.of(), parsed.unjudgeable(), line);
            assertEquals(line.split(" ")[0], parsed.commands().get(0).name().value(), line);
        }
    }

    @Test
    void aWrapperThatStartsAShellRunsTheCodeFedToIt() {
        for (String line : List.of("sudo -s <<'EOF'\nrm -rf src\nEOF", "echo 'rm -rf src' | sudo -i",
                "echo 'rm -rf src' | su", "chroot /srv <<'EOF'\nrm -rf src\nEOF", "unshare -r <<<'rm -rf src'",
                "script -q <<'EOF'\nrm -rf src\nEOF", "runuser -l deploy <<<'rm -rf src'")) {
            ParsedCommand parsed = ShellParser.parse(line);
            String wrapper = line.contains("| ") ? line.substring(line.indexOf("| ") + 2).split(" ")[0] : line.split(" ")[0];
            assertTrue(parsed.commands().stream().anyMatch(c -> c.text().equals("rm -rf src")
                    && c.wrappers().equals(List.of(wrapper, "sh -s"))), () -> line + ": " + parsed.commands());
        }
    }

    @Test
    void aLocalProgramNamedLikeAWrapperIsNoWrapper() {
        assertEquals(List.of(), ShellParser.parse("./script a b").unjudgeable());
        assertEquals("./watch rm -rf x", only("./watch rm -rf x").text());
        assertEquals(List.of(), only("bin/timeout 5 rm x").wrappers());
    }

    // ---- bash -c and eval

    @Test
    void bashDashCIsReadRecursively() {
        ParsedCommand parsed = ShellParser.parse("bash -lc \"ls; rm -rf /\"");
        assertEquals(List.of("ls", "rm -rf /"), parsed.commands().stream().map(SimpleCommand::text).toList());
        assertEquals(List.of("bash -c"), parsed.commands().get(1).wrappers());
        assertEquals(List.of("sudo", "sh -c", "nice"), only("sudo sh -ec 'nice rm x'").wrappers());
        assertEquals("rm x", only("/bin/bash -o pipefail -c 'rm x'").text());
        assertEquals("rm x", only("zsh -c 'rm x'").text());
        assertEquals("rm x", only("dash -c 'rm x'").text());
    }

    @Test
    void evalJoinsItsArguments() {
        SimpleCommand c = only("eval rm \"-rf\" x");
        assertEquals("rm -rf x", c.text());
        assertEquals(List.of("eval"), c.wrappers());
    }

    @Test
    void computedStringsStayAsTheyAreAndAddAComputedCommand() {
        ParsedCommand parsed = ShellParser.parse("bash -c \"$CMD\"");
        assertEquals(2, parsed.commands().size());
        assertEquals("bash -c \"$CMD\"", parsed.commands().get(0).text());
        assertTrue(parsed.commands().get(1).computedName());
        assertEquals(List.of("bash -c"), parsed.commands().get(1).wrappers());

        ParsedCommand eval = ShellParser.parse("eval \"$(ssh-agent -s)\"");
        assertEquals(List.of("eval \"$(ssh-agent -s)\"", "\"$(ssh-agent -s)\"", "ssh-agent -s"),
                eval.commands().stream().map(SimpleCommand::text).toList());
        assertTrue(eval.commands().get(1).computedName());
    }

    @Test
    void suWatchAndTrapActionsAreReadToo() {
        assertEquals(List.of("su -c"), only("su - root -c 'rm x'").wrappers());
        assertEquals("rm x", only("su - root -c 'rm x'").text());
        assertEquals(List.of("watch"), only("watch -n 5 rm x").wrappers());
        assertEquals(List.of("trap rm x EXIT", "rm x"), texts("trap 'rm x' EXIT"));
        // env reads the split words as its own again, so the command is env's
        assertEquals(List.of("env -S", "env"), only("env -S 'rm x'").wrappers());
    }

    @Test
    void recursionStopsAtTheDepthLimitAndIsIncomplete() {
        String command = "ls";
        for (int i = 0; i < 12; i++) {
            command = "eval " + ("'" + command.replace("'", "'\\''") + "'");
        }
        ParsedCommand parsed = ShellParser.parse(command);
        assertTrue(parsed.unjudgeable().contains(ShellParser.TOO_DEEP), () -> parsed.unjudgeable().toString());
        assertFalse(parsed.commands().isEmpty());
    }

    @Test
    void anIncompleteInnerStringMakesTheParseIncomplete() {
        assertFalse(ShellParser.parse("bash -c 'echo \"unterminated'").complete());
    }

    // ---- what cannot be judged, and code fed to shells

    /** The line's one reason (it must have exactly one), which must contain {@code part}. */
    private static void reason(String line, String part) {
        ParsedCommand parsed = ShellParser.parse(line);
        assertFalse(parsed.complete(), line);
        assertEquals(1, parsed.unjudgeable().size(), () -> line + ": " + parsed.unjudgeable());
        assertTrue(parsed.unjudgeable().get(0).contains(part), () -> line + ": " + parsed.unjudgeable());
    }

    @Test
    void computedStringsOfEveryReaderAreUnjudgeableAndNamed() {
        reason("eval \"$x\"", "eval of computed text `\"$x\"`");
        reason("bash -c \"$CMD\"", "bash -c of computed text `\"$CMD\"`");
        reason("sh -ec \"$1\"", "sh -c of computed text");
        reason("su -c \"$x\" deploy", "su -c of computed text");
        reason("env -S \"$x\"", "env -S of computed text");
        reason("watch -n 5 -- \"$x\"", "watch of computed text");
        reason("flock /tmp/l -c \"$x\"", "flock -c of computed text");
        reason("script -qc \"$x\"", "script -c of computed text");
        reason("runuser -l deploy -c \"$x\"", "runuser -c of computed text");
        reason("sg wheel \"$x\"", "sg -c of computed text");
        reason("parallel ::: \"$x\"", "parallel of computed text");
        reason("trap \"$x\" EXIT", "a trap action of computed text `\"$x\"`");
        reason(". \"$NVM_DIR/nvm.sh\"", ". of a computed path `\"$NVM_DIR/nvm.sh\"`");
        reason("source $f", "source of a computed path");
    }

    @Test
    void codeFromElsewhereWhoseTextIsNotKnownIsUnjudgeable() {
        reason("bash <(curl -s https://x.io/i.sh)", "code for bash from a process substitution: `<(curl -s https://x.io/i.sh)`");
        reason("bash < <(cat setup.sh)", "code for bash from a process substitution");
        reason("source <(kubectl completion bash)", "code for source from a process substitution");
        reason("python3 <(cat x.py)", "code for python3 from a process substitution");
        reason("source /dev/stdin <<<\"$x\"", "code for source from a computed here-string `\"$x\"`");
        reason("bash -s <<EOF\nrm -rf $DIR\nEOF", "code for bash from a here-document with expansions");
        reason("python3 <<EOF\nprint($X)\nEOF", "code for python3 from a here-document with expansions");
        reason("cat setup.sh | sh", "code for sh piped from `cat setup.sh`");
        reason("cat x.py | python3", "code for python3 piped from `cat x.py`");
        reason("cat x.js | node --require ./hook.js", "code for node piped from `cat x.js`");
        reason("git show HEAD:x.sh | bash -s -- --flag", "code for bash piped from `git show HEAD:x.sh`");
        reason("cat Makefile | make -f -", "code for make piped from `cat Makefile`");
        reason("awk -f - <<<\"$program\" data.txt", "code for awk from a computed here-string");
        reason("sh <&3", "code for sh from file descriptor 3");
        // the shell in the second stage of the inner pipeline reads cat's output, which is the outer pipe's
        reason("generate | (cat | sh)", "code for sh piped from `cat`");
        reason("make -f - <<'EOF'\nX=src\nall:\n\trm -rf $(X)\nEOF", "a makefile for make from a here-document that is more");
    }

    /** The commands the line runs, in order, each as wrappers and text. */
    private static List<String> runs(String line) {
        ParsedCommand parsed = ShellParser.parse(line);
        assertEquals(List.of(), parsed.unjudgeable(), line);
        return parsed.commands().stream().map(c -> (c.wrappers().isEmpty() ? "" : c.wrappers() + " ") + c.text()).toList();
    }

    @Test
    void codeWhoseTextIsKnownIsReadAsTheCommandsItIs() {
        assertEquals(List.of("source /dev/stdin", "[source] rm -rf src"), runs("source /dev/stdin <<'EOF'\nrm -rf src\nEOF"));
        assertEquals(List.of(". /proc/self/fd/0", "[.] rm x"), runs(". /proc/self/fd/0 <<< 'rm x'"));
        assertEquals(List.of("bash -s", "[bash -s] rm -rf src"), runs("bash -s <<EOF\nrm -rf src\nEOF"));
        assertEquals(List.of("sh", "[sh -s] rm -rf src"), runs("sh < /dev/stdin <<EOF\nrm -rf src\nEOF"));
        assertEquals(List.of("bash -", "[bash -s] rm x"), runs("bash - <<-EOF\n\t\trm x\n\tEOF"));
        assertEquals(List.of("bash /dev/stdin", "[bash -s] rm x"), runs("bash /dev/stdin <<< 'rm x'"));
        assertEquals(List.of("bash <(echo rm -rf src)", "echo rm -rf src", "[bash -s] rm -rf src"),
                runs("bash <(echo rm -rf src)"));
        assertEquals(List.of("bash", "echo rm -rf src", "[bash -s] rm -rf src"), runs("bash < <(echo rm -rf src)"));
        assertEquals(List.of("echo rm -rf src", "sh", "[sh -s] rm -rf src"), runs("echo rm -rf src | sh"));
        assertEquals(List.of("printf rm -rf %s\\n src", "bash", "[bash -s] rm -rf src"),
                runs("printf 'rm -rf %s\\n' src | bash"));
        assertEquals(List.of("cat", "sh", "[sh -s] rm -rf src"), runs("cat <<'EOF' | sh\nrm -rf src\nEOF"));
        assertEquals(List.of("echo ls", "sh", "cat", "[sh -s] ls"), runs("echo ls | (sh | cat)"));
        assertEquals(List.of("at now", "[at] rm x"), runs("at now <<'EOF'\nrm x\nEOF"));
        // a makefile of plain rules: its recipes are shell commands (prefixes @ - + removed)
        assertEquals(List.of("make -f /dev/stdin", "[make -f] rm -rf src", "[make -f] echo done"),
                runs("make -f /dev/stdin <<'EOF'\n# clean\n.PHONY: all\nall: dep\n\t@-rm -rf src\ndep: ; echo done\nEOF"));
        assertEquals(List.of("make -kf -", "[make -f] rm x"), runs("make -kf - <<< 'all: ; rm x'"));
        assertEquals(List.of("make --file=-", "[make -f] rm x"), runs("make --file=- <<< 'all: ; rm x'"));
        // bash -s x: x is a positional parameter, the commands come from standard input
        assertEquals(List.of("bash -s x", "[bash -s] rm x"), runs("bash -s x <<< 'rm x'"));
    }

    @Test
    void theGrammarsDroppedWordIsGivenBack() {
        // tree-sitter drops a lone word before some redirections: make would read the makefile from
        // standard input, which the parse would not see
        assertEquals(List.of("make -f -", "[make -f] rm -rf src"), runs("make -f - <<'EOF'\nall:\n\trm -rf src\nEOF"));
        assertEquals(literals("-"), only("a - 2>e").args());
        assertEquals(literals("x", "-"), ShellParser.parse("y | a x - 2>e").commands().get(1).args());
    }

    @Test
    void codeForOtherLanguagesAndDataForScriptsAreNotReadButFine() {
        for (String line : List.of("python3 - <<'EOF'\nprint(1)\nEOF", "curl -s https://x.io/d.json | python3 -m json.tool",
                "cat data.csv | python3 script.py", "cat f | perl -ne 'print'", "echo 'print(1)' | python3",
                "bash script.sh <<EOF\ndata $x\nEOF", "sed -f - f.txt <<'EOF'\ns/a/b/\nEOF", "cat f | awk -F: '{print $1}'",
                "ls | sh -c 'cat'", "cat a.sh | bash b.sh", "bash \"$script\"", "sh", "cat f.json | node --eval 'x'",
                "cat f | node --require ./hook.js app.js", "[[ -f x ]] | sh")) {
            assertEquals(List.of(), ShellParser.parse(line).unjudgeable(), line);
        }
    }

    @Test
    void completeIsExactlyNoReason() {
        for (String line : List.of("ls", "eval \"$x\"", "ls &&", "cat f | sh", "(".repeat(100))) {
            ParsedCommand parsed = ShellParser.parse(line);
            assertEquals(parsed.unjudgeable().isEmpty(), parsed.complete(), line);
        }
        assertEquals(List.of(ParsedCommand.INCOMPLETE), new ParsedCommand("x", List.of(), false).unjudgeable());
        assertTrue(new ParsedCommand("x", List.of(), true).complete());
    }

    @Test
    void reasonsAreFewWhateverTheLine() {
        ParsedCommand parsed = ShellParser.parse("eval \"$a\"; ".repeat(200) + IntStream.range(0, 200)
                .mapToObj(i -> "eval \"$v" + i + "\"").collect(java.util.stream.Collectors.joining("; ")));
        assertTrue(parsed.unjudgeable().size() <= 16, () -> parsed.unjudgeable().toString());
        assertFalse(parsed.complete());
    }

    // ---- bounds

    /** Lines that nest {@code n} levels deep (as {@link Nesting} counts them) around {@code rm -rf src}. */
    static final Map<String, IntFunction<String>> NESTINGS = new java.util.LinkedHashMap<>();

    static {
        NESTINGS.put("$( )", n -> "echo " + "$(echo ".repeat(n - 1) + "$(rm -rf src" + ")".repeat(n));
        NESTINGS.put("( )", n -> "( ".repeat(n) + "rm -rf src" + " )".repeat(n));
        // a quoted substitution is two levels: the string and the substitution
        NESTINGS.put("\"$( )\"", n -> "echo " + (n % 2 == 0 ? "\"$(echo ".repeat(n / 2 - 1) + "\"$(rm -rf src"
                : "\"$(echo ".repeat(n / 2) + "$(rm -rf src)") + ")\"".repeat(n / 2));
        NESTINGS.put("{ }", n -> "{ ".repeat(n) + "rm -rf src; " + "}; ".repeat(n));
        NESTINGS.put("if", n -> "if a; then ".repeat(n) + "rm -rf src" + "; fi".repeat(n));
        NESTINGS.put("while", n -> "while a; do ".repeat(n) + "rm -rf src" + "; done".repeat(n));
        NESTINGS.put("for", n -> "for i in 1; do ".repeat(n) + "rm -rf src" + "; done".repeat(n));
        NESTINGS.put("case", n -> "case x in x) ".repeat(n) + "rm -rf src" + ";; esac".repeat(n));
        NESTINGS.put("${ }", n -> "echo ${x:-" + "${x:-".repeat(n - 2) + "$(rm -rf src)" + "}".repeat(n - 1));
        NESTINGS.put("<( )", n -> "cat " + "<(cat ".repeat(n - 1) + "<(rm -rf src" + ")".repeat(n));
        NESTINGS.put("$(( ))", n -> "echo $(( " + "( ".repeat(n - 2) + "$(rm -rf src)" + " )".repeat(n - 2) + " ))");
        NESTINGS.put("here-document", n -> "cat <<EOF\n" + "$(cat <<EOF\n".repeat((n - 1) / 2) + "$(rm -rf src)\nEOF\n"
                + ")\nEOF\n".repeat((n - 1) / 2 - 1) + (n % 2 == 0 ? ")\nEOF" : ")\nEOF\nEOF"));
        NESTINGS.put("f() { }", n -> "f() { ".repeat(n) + "rm -rf src; " + "}; ".repeat(n));
        NESTINGS.put("[[ $( ) ]]", n -> "[[ " + "$([[ ".repeat(n - 1) + "$(rm -rf src)" + " ]])".repeat(n - 1) + " ]]");
    }

    static Stream<Arguments> nestings() {
        return NESTINGS.keySet().stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nestings")
    void everythingUpToTheNestingBoundIsReadAndPastItNothingIs(String kind) {
        String atBound = NESTINGS.get(kind).apply(ShellParser.MAX_NESTING);
        ParsedCommand parsed = ShellParser.parse(atBound);
        assertEquals(List.of(), parsed.unjudgeable(), atBound);
        assertTrue(CommandGuard.refusal(parsed, CommandGuardTest.BUILD_OUTPUT).isPresent(), atBound);

        String past = NESTINGS.get(kind).apply(ShellParser.MAX_NESTING + 1);
        ParsedCommand deeper = ShellParser.parse(past);
        assertEquals(List.of(ShellParser.TOO_NESTED), deeper.unjudgeable(), past);
        assertEquals(List.of(), deeper.commands(), "past the bound nothing is parsed");
    }

    @Test
    void theIssuesDeepLinesAreUnjudgeableAtOnce() {
        // under --yolo these passed: the parse was incomplete, the guard saw nothing; and the last took 45 s
        List<String> lines = List.of("echo " + "$(".repeat(100) + "rm -rf src" + ")".repeat(100),
                "( ".repeat(500) + "rm -rf src" + " )".repeat(500), "$(".repeat(40_000),
                "echo " + "$(echo ".repeat(40_000) + "x" + ")".repeat(40_000));
        for (String line : lines) {
            long start = System.nanoTime();
            ParsedCommand parsed = ShellParser.parse(line);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(List.of(ShellParser.TOO_NESTED), parsed.unjudgeable());
            assertTrue(millis < 500, "took " + millis + " ms, the pre-scan stops at the bound");
        }
    }

    @Test
    void nestingInQuotesCommentsAndQuotedDocumentsDoesNotCount() {
        String deep = "(".repeat(200);
        for (String line : List.of("echo '" + deep + "'", "echo \"" + deep + "\"", "ls # " + deep,
                "cat <<'EOF'\n" + deep + "\nEOF", "echo $'" + deep + "'", "echo \\(\\(\\(\\(")) {
            assertFalse(Nesting.deeperThan(line, ShellParser.MAX_NESTING), line);
        }
        // an unquoted document's substitutions nest, and so does what a here-string's word holds
        int bound = ShellParser.MAX_NESTING;
        assertTrue(Nesting.deeperThan("cat <<EOF\n" + "$(".repeat(bound + 1) + "\nEOF", bound));
        assertFalse(Nesting.deeperThan("echo $(( 1 << 2 ))\n" + "( ".repeat(bound) + "x" + " )".repeat(bound), bound),
                "a shift is no here-document");
        assertTrue(Nesting.deeperThan("echo $((1<<X))\n" + "( ".repeat(bound + 1) + "\nX", bound),
                "nor does it hide what follows");
    }

    @Test
    void stringsNestedToTheirBoundEachNestedToItsBoundAreReadOnAHalfSizeStack() throws Exception {
        // the walker reads a bash -c string inside its own walk: the Java stack holds every level
        IntFunction<String> nest = NESTINGS.get("\"$( )\"");
        String line = nest.apply(ShellParser.MAX_NESTING);
        for (int k = 0; k < ShellParser.MAX_DEPTH; k++) {
            String inner = line.substring("echo ".length());
            line = nest.apply(ShellParser.MAX_NESTING).replace("rm -rf src", "bash -c '" + inner.replace("'", "'\\''") + "'");
        }
        String deepest = line;
        ParsedCommand[] parsed = new ParsedCommand[1];
        Thread thread = new Thread(null, () -> parsed[0] = ShellParser.parse(deepest), "half-size stack", 512 * 1024);
        thread.start();
        thread.join();
        assertEquals(List.of(), parsed[0].unjudgeable());
        assertTrue(parsed[0].commands().stream().anyMatch(c -> c.text().equals("rm -rf src")
                && c.wrappers().size() == ShellParser.MAX_DEPTH));
    }

    @Test
    void evalNineTimesOverIsPastTheBoundAndEightTimesIsRead() {
        ParsedCommand eight = ShellParser.parse("eval ".repeat(ShellParser.MAX_DEPTH) + "rm -rf src");
        assertEquals(List.of(), eight.unjudgeable());
        assertTrue(CommandGuard.refusal(eight, CommandGuardTest.BUILD_OUTPUT).isPresent());
        assertEquals(List.of(ShellParser.TOO_DEEP),
                ShellParser.parse("eval ".repeat(ShellParser.MAX_DEPTH + 1) + "rm -rf src").unjudgeable());
        assertEquals(List.of(ShellParser.TOO_DEEP),
                ShellParser.parse("bash -c 'eval \"sh -c \\\"eval eval eval eval eval eval rm -rf src\\\"\"'").unjudgeable());
    }

    // ---- find -exec

    @Test
    void findEmitsItselfAndEachExecutedCommand() {
        ParsedCommand parsed = ShellParser.parse("find . -name \"*.o\" -exec rm {} \\; -execdir echo {} + -ok sudo rm -f {} ';'");
        List<SimpleCommand> cs = parsed.commands();
        assertEquals("find", cs.get(0).name().value());
        assertEquals("rm {}", cs.get(1).text());
        assertEquals(List.of("find -exec"), cs.get(1).wrappers());
        assertEquals("echo {}", cs.get(2).text());
        assertEquals(List.of("find -execdir"), cs.get(2).wrappers());
        assertEquals("rm -f {}", cs.get(3).text());
        assertEquals(List.of("find -ok", "sudo"), cs.get(3).wrappers());
        assertEquals(4, cs.size());
    }

    // ---- words

    @Test
    void quotesAndEscapesAreRemoved() {
        SimpleCommand c = only("\\rm -r'f' $'a\\tb\\x41\\u00e9' \"r\"m x\\ y $\"hi\" \"a\\\"b\\$c\"");
        assertEquals(Word.literal("rm"), c.name());
        assertEquals(literals("-rf", "a\tbAé", "rm", "x y", "hi", "a\"b$c"), c.args());
    }

    @Test
    void unicodeIsKeptWhole() {
        SimpleCommand c = only("echo 😀é \"ü日本\" 'ß' > 'fichier é.txt'");
        assertEquals(literals("😀é", "ü日本", "ß"), c.args());
        assertEquals(Word.literal("fichier é.txt"), c.redirects().get(0).target());
    }

    @Test
    void globsBracesAndTildesStayLiteralText() {
        assertEquals(literals("*.txt", "{a,b}c", "{1..3}", "~/x", "src/**/[ab]?.java"),
                only("ls *.txt {a,b}c {1..3} ~/x src/**/[ab]?.java").args());
    }

    @Test
    void expansionsMakeWordsNonLiteralWithTheirSourceText() {
        assertEquals(List.of(new Word("$HOME", false), new Word("\"${x:-y}\"", false), new Word("pre$X.txt", false),
                new Word("$(date)", false), new Word("`id`", false), new Word("$((1+2))", false)),
                ShellParser.parse("echo $HOME \"${x:-y}\" pre$X.txt $(date) `id` $((1+2))").commands().get(0).args());
    }

    @Test
    void computedCommandNamesAreFlagged() {
        assertTrue(ShellParser.parse("$(echo rm) -rf x").commands().get(0).computedName());
        assertTrue(only("$CMD x").computedName());
        assertTrue(only("\"$x\" y").computedName());
        assertFalse(only("rm x").computedName());
        assertEquals("$CMD x", only("$CMD x").text());
    }

    // ---- incomplete and unparseable input

    @Test
    void syntaxErrorsAreIncompleteButKeepWhatCouldBeRead() {
        ParsedCommand parsed = ShellParser.parse("ls && && rm -rf y");
        assertFalse(parsed.complete());
        assertEquals(List.of("ls", "rm -rf y"), parsed.commands().stream().map(SimpleCommand::text).toList());

        ParsedCommand missing = ShellParser.parse("if true; then rm -rf z");
        assertFalse(missing.complete());
        assertTrue(missing.commands().stream().anyMatch(c -> c.text().equals("rm -rf z")));

        assertFalse(ShellParser.parse("echo \"abc").complete());
        assertFalse(ShellParser.parse("echo $(").complete());
    }

    @Test
    void nulCharactersAreIncompleteWithoutParsing() {
        ParsedCommand parsed = ShellParser.parse("ls\0rm -rf /");
        assertFalse(parsed.complete());
        assertEquals(List.of(), parsed.commands());
    }

    @Test
    void malformedBytesAreIncompleteAndDoNotCrash() {
        String latin1 = new String(new byte[] {(byte) 0xC3, (byte) 0x28}, ISO_8859_1);
        ParsedCommand parsed = ShellParser.parse("echo " + latin1 + " ok; rm -rf /");
        assertFalse(parsed.complete());
        assertTrue(parsed.commands().stream().anyMatch(c -> c.text().equals("rm -rf /")));

        ParsedCommand surrogate = ShellParser.parse("rm -rf / \uD800 x");
        assertFalse(surrogate.complete());
        assertEquals("rm", surrogate.commands().get(0).name().value());
    }

    @Test
    void theReplacementCharacterLeftByALenientDecoderMakesTheParseIncomplete() {
        // "touch made\xFF.txt" read by a lenient UTF-8 decoder: what runs would not be what was sent
        ParsedCommand parsed = ShellParser.parse(new String("touch made\u00FF.txt".getBytes(
                java.nio.charset.StandardCharsets.ISO_8859_1), java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(parsed.source().contains("\uFFFD"), parsed.source());
        assertFalse(parsed.complete());
        assertEquals("touch", parsed.commands().get(0).name().value());
        assertTrue(ShellParser.parse("touch made-ü.txt").complete(), "valid non-ASCII text is fine");
    }

    @Test
    void inputOverOneMebibyteIsIncompleteWithoutParsing() {
        ParsedCommand parsed = ShellParser.parse("x".repeat((1 << 20) + 1));
        assertFalse(parsed.complete());
        assertEquals(List.of(), parsed.commands());
        assertFalse(ShellParser.parse("é".repeat((1 << 19) + 1)).complete());
    }

    @Test
    void oneMebibyteOfCommandsReturns() {
        ParsedCommand parsed = ShellParser.parse("ls; ".repeat((1 << 20) / 4 - 1));
        assertNotNull(parsed);
        assertFalse(parsed.commands().isEmpty());
    }

    @Test
    void deeplyNestedInputReturns() {
        assertFalse(ShellParser.parse("(".repeat(200_000)).complete());
        assertFalse(ShellParser.parse("echo " + "$(echo ".repeat(3000) + "x" + ")".repeat(3000)).complete());
    }

    @Test
    void nullAndBlankInputAreEmptyAndComplete() {
        assertEquals(new ParsedCommand("", List.of(), true), ShellParser.parse(null));
        ParsedCommand blank = ShellParser.parse("  \n ");
        assertTrue(blank.complete());
        assertEquals(List.of(), blank.commands());
    }

    @Test
    void parsingIsThreadSafe() throws Exception {
        var pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<List<String>>> results = new java.util.ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String command = "echo " + i + " && ls | grep " + i;
                results.add(pool.submit(() -> texts(command)));
            }
            for (int i = 0; i < 200; i++) {
                assertEquals(List.of("echo " + i, "ls", "grep " + i), results.get(i).get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theTokenizerFallbackSplitsLikeTheGrammar() {
        Sink sink = new Sink();
        FallbackLexer.split("FOO=1 sudo rm -rf 'a b' && echo \"$(rm x)\" | sh -c 'ls' > out\ncat <<EOF\nrm -rf /\nEOF\n", 0, sink);
        ParsedCommand parsed = sink.toParsed("");
        assertEquals(List.of("rm -rf a b", "rm x", "echo \"$(rm x)\"", "ls", "cat"),
                parsed.commands().stream().map(SimpleCommand::text).toList());
        assertEquals(List.of("sudo"), parsed.commands().get(0).wrappers());
        assertEquals(new Redirect("<<", Word.literal("rm -rf /\n"), null), parsed.commands().get(4).redirects().get(0));
    }
}
