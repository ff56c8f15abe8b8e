package dev.quiver.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The plain-line fast path must read every line it accepts exactly as tree-sitter's grammar and the
 * walker do: the same simple commands (words, redirections, wrappers), pipelines, background
 * stages and completeness. Checked on the decision corpus, on everyday compounds, and on thousands
 * of generated lines.
 */
class PlainCommandTest {

    /** Everything a parse produced, in a form two parses can be compared by. */
    private static String describe(Sink sink) {
        List<String> commands = new ArrayList<>();
        for (Sink.Cmd c : sink.cmds) {
            SimpleCommand command = c.build();
            commands.add(command.wrappers() + " " + command.name() + " " + command.args() + " " + command.redirects());
        }
        return "commands " + commands + "\npipelines " + sink.pipelines + "\nbackgrounds " + sink.backgrounds
                + "\nfunctions " + sink.functions + "\nunjudgeable " + sink.reasons;
    }

    /** Whether the fast path takes the line; if it does, it must agree with the grammar. */
    private static boolean agrees(String line) {
        Sink fast = new Sink();
        if (!PlainCommand.split(line, 0, fast)) {
            assertTrue(fast.cmds.isEmpty(), "a declined line adds nothing: " + line);
            return false;
        }
        Sink tree = ShellParser.parseWithTree(line, 0, new Sink());
        assertEquals(describe(tree), describe(fast), "the fast path reads differently from the grammar: " + line);
        return true;
    }

    @Test
    void everydayCompoundsTakeTheFastPathAndAgreeWithTheGrammar() {
        List<String> lines = List.of(
                "git diff --stat | head -20",
                "cd src && mvn -q -o test -Dtest=ShellParserTest",
                "ls -la; pwd",
                "npm test &",
                "npm run build && npm test || echo failed",
                "grep -rn \"TODO\" src | wc -l",
                "tar -xf - < archive.tar; cat - > copy.txt",
                "git log --oneline -10 > log.txt",
                "git commit -m 'Fix the parser' && git push origin main",
                "mvn -q package -DskipTests 2>/dev/null >> build.log",
                "find . -name '*.java' | xargs wc -l | sort -n | tail -3",
                "FOO=bar BAZ='a b' make -j4 all",
                "sudo apt-get install -y ripgrep && rg --version",
                "timeout 10 npm test -- --watch=false",
                "cat < input.txt | sort | uniq -c",
                "ls src/*.java\nwc -l README.md",
                "python3 -m pytest -q tests/ &> out.txt &",
                "rm -rf target && mvn -q install",
                "git status --short; git stash list; git branch -a",
                "echo \"built at 10:00\" >> build/out.log 2>&1",
                "bash -c 'git status && rm -rf src'",
                // the grammar drops a lone - before a numbered redirection; the walker gives it back
                "tar -xf - 2>err.txt");
        for (String line : lines) {
            assertTrue(agrees(line), "plain, so the fast path should take it: " + line);
        }
    }

    @Test
    void linesOutsideThePlainSubsetGoToTheGrammar() {
        List<String> lines = List.of(
                "echo $(date)", "echo `date`", "for f in *.java; do wc -l $f; done", "{ a; b; }", "(cd src && ls)",
                "echo 'unterminated", "git status &&", "a ;; b", "a |& b", "echo a > f b", "a 2>&-", "ls # comment",
                "echo a\\ b", "echo ~/x", "[ -f x ] && y", "if true; then x; fi", "echo \"$HOME\"", "cat <<EOF\nx\nEOF",
                "a <(b)", "x=$((1+2))", "echo {a,b}", "! grep x y", "time make", "a >| f", "a <> f", "a && && b",
                "; a", "a | | b", "export A=1", "echo \"a\\\"b\"",
                // both pipes and && or || in one statement: the grammar groups some of those otherwise
                "git status && git diff --stat | head -20", "cd src && mvn -q test 2>&1 | tail -5", "a | b | c && d",
                // where the grammar reads words otherwise than bash: a redirection touching a word, a
                // command named -
                "a -2>x", "ls>out.txt", "- x",
                // a descriptor number no int holds
                "echo 99999999999>x",
                // a pipeline of three stages or more, then another line: the grammar may run on into it
                "cat x | grep y | wc -l\nrm -rf src >&2", "a | b | c\nd");
        for (String line : lines) {
            assertFalse(agrees(line), "not plain: " + line);
        }
    }

    @Test
    void everyCorpusLineTheFastPathTakesAgreesWithTheGrammar() throws IOException {
        int taken = 0;
        int lines = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                PlainCommandTest.class.getResourceAsStream("/decision-corpus.tsv"), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String command = line.split("\t", 3)[2].replace("⏎", "\n");
                lines++;
                taken += agrees(command) ? 1 : 0;
            }
        }
        assertTrue(taken > lines / 3, "the fast path takes a good part of the corpus: " + taken + " of " + lines);
    }

    private static final String[] WORDS = {"ls", "git", "status", "-la", "--stat", "a.txt", "src/Main.java", "*.java",
        "x?", "'a b'", "\"c d\"", "--name='x y'", "A=1", "2024", "-", "%1", "a,b", "k=v", "mvn", "rm", "-rf", "target",
        "sudo", "env", "xargs", "bash", "-c", "'ls; pwd'", "find", "-exec", "echo", "{}", "';'", "nohup", "''"};
    private static final String[] SEPARATORS = {" && ", " || ", " | ", "; ", " & ", "\n", " &&\n", " |\n  ", ";", "&", " ;"};
    private static final String[] REDIRECTS = {" > out.txt", " >> log", " 2>&1", " >&2", " 2>/dev/null", " < in.txt",
        " &> all.log", " 1>x", " 2> 'e f'", ">y"};

    /** A line of one to five commands of plain pieces, joined and redirected at random. */
    private static String generatedLine(Random random) {
        StringBuilder line = new StringBuilder(random.nextInt(4) == 0 ? " " : "");
        int commands = 1 + random.nextInt(5);
        for (int c = 0; c < commands; c++) {
            int count = 1 + random.nextInt(4);
            for (int w = 0; w < count; w++) {
                line.append(w == 0 ? "" : random.nextInt(8) == 0 ? "  " : " ").append(WORDS[random.nextInt(WORDS.length)]);
            }
            if (random.nextInt(4) == 0) {
                line.append(REDIRECTS[random.nextInt(REDIRECTS.length)]);
            }
            if (c + 1 < commands) {
                line.append(SEPARATORS[random.nextInt(SEPARATORS.length)]);
            }
        }
        if (random.nextInt(5) == 0) {
            line.append(random.nextBoolean() ? " &" : ";");
        }
        return line.toString();
    }

    @Test
    void generatedLinesAgreeWithTheGrammar() {
        int taken = 0;
        int total = 0;
        for (long seed : new long[] {20261203, 7, 1_000_003}) {
            Random random = new Random(seed);
            for (int i = 0; i < 20_000; i++, total++) {
                taken += agrees(generatedLine(random)) ? 1 : 0;
            }
        }
        // the generator mixes pipes with && and long pipelines with more lines freely, which the fast
        // path leaves to the grammar; what it takes must still be thousands of lines compared
        assertTrue(taken > total / 4, "the fast path took " + taken + " of " + total + " generated lines");
    }
}
