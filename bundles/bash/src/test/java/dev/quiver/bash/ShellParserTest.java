package dev.quiver.bash;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

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
        assertEquals(List.of("cat", "sh"), parsed.commands().stream().map(SimpleCommand::text).toList());
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
    void leadingAssignmentsAreDropped() {
        SimpleCommand c = only("FOO=1 BAR=\"a b\" make test");
        assertEquals("make test", c.text());
        assertEquals(List.of(), c.wrappers());
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
        assertEquals(List.of("env -S"), only("env -S 'rm x'").wrappers());
    }

    @Test
    void recursionStopsAtTheDepthLimitAndIsIncomplete() {
        String command = "ls";
        for (int i = 0; i < 12; i++) {
            command = "eval " + ("'" + command.replace("'", "'\\''") + "'");
        }
        ParsedCommand parsed = ShellParser.parse(command);
        assertFalse(parsed.complete());
        assertFalse(parsed.commands().isEmpty());
    }

    @Test
    void anIncompleteInnerStringMakesTheParseIncomplete() {
        assertFalse(ShellParser.parse("bash -c 'echo \"unterminated'").complete());
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
