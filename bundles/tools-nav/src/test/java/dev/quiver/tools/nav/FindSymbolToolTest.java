package dev.quiver.tools.nav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FindSymbolToolTest {

    @TempDir
    Path root;

    private ToolTestContext context;

    @BeforeEach
    void open() throws Exception {
        context = new ToolTestContext(root);
    }

    private void write(String path, String text) throws Exception {
        Files.createDirectories(root.resolve(path).getParent());
        Files.writeString(root.resolve(path), text);
    }

    private String find(Map<String, Object> arguments) throws Exception {
        return new FindSymbolTool().call(Arguments.of(arguments), context).text();
    }

    @Test
    void definitionsOnlyNeverUsesCommentsOrStrings() throws Exception {
        write("src/Parser.java", """
                class Parser {
                    // Parser parse() in a comment
                    String s = "Parser";
                    Parser parse() { return new Parser(); }
                }
                """);
        write("src/Main.java", """
                class Main {
                    void run() { Parser p = new Parser(); p.parse(); }
                }
                """);
        assertEquals("src/Parser.java:1: class Parser — class Parser {", find(Map.of("name", "Parser")));
        assertEquals("src/Parser.java:4: method Parser.parse — Parser parse() { return new Parser(); }",
                find(Map.of("name", "parse")));
    }

    @Test
    void globPatternsKindsAndIncludeNarrowTheSearch() throws Exception {
        write("a/handlers.py", """
                class RequestHandler:
                    def handle(self): pass

                def make_handler(): pass
                """);
        write("b/handlers.go", """
                package b

                type ErrorHandler struct{}
                """);
        assertEquals("""
                a/handlers.py:1: class RequestHandler — class RequestHandler:
                b/handlers.go:3: struct ErrorHandler — type ErrorHandler struct{}""", find(Map.of("name", "*Handler")));
        assertEquals("a/handlers.py:4: function make_handler — def make_handler(): pass",
                find(Map.of("name", "*handle*", "kind", "function")));
        assertEquals("b/handlers.go:3: struct ErrorHandler — type ErrorHandler struct{}",
                find(Map.of("name", "*Handler", "include", "b/**")));
        assertEquals("a/handlers.py:2: method RequestHandler.handle — def handle(self): pass",
                find(Map.of("name", "Request*.h?ndle")));
        ToolException wrongKind = assertThrows(ToolException.class, () -> find(Map.of("name", "x", "kind", "widget")));
        assertTrue(wrongKind.getMessage().contains("class, struct, interface"), wrongKind.getMessage());
    }

    @Test
    void ncaQuerySymbolsArgumentsAreAccepted() throws Exception {
        write("src/lib.rs", "pub fn query_me() {}\n");
        write("other/lib.rs", "pub fn query_me() {}\n");
        assertEquals("src/lib.rs:1: function query_me — pub fn query_me() {}",
                find(Map.of("query", "query_me", "glob", "src/**")));
        ToolException missing = assertThrows(ToolException.class, () -> find(Map.of("kind", "function")));
        assertTrue(missing.getMessage().startsWith("name is required"), missing.getMessage());
    }

    @Test
    void resultsAreCappedWithANoteSayingHowManyMore() throws Exception {
        StringBuilder source = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            source.append("def handler_").append(i).append("(): pass\n");
        }
        write("many.py", source.toString());
        String out = find(Map.of("name", "handler_*", "maxResults", 5));
        assertEquals(6, out.lines().count(), out);
        assertTrue(out.endsWith("... 25 more definitions match than the 5 shown; narrow name, kind or include, or raise "
                + "maxResults."), out);
    }

    @Test
    void ignoredSecretAndBinaryFilesAreNotSearched() throws Exception {
        Files.createDirectories(root.resolve(".git"));
        write(".gitignore", "build/\n");
        write("build/Gen.java", "class Target {}\n");
        write("src/Real.java", "class Target {}\n");
        write("config/.env.py", "class Target: pass\n");
        Files.write(root.resolve("src/Blob.java"), "class Target {}\u0000\u0001".getBytes());
        String out = find(Map.of("name", "Target"));
        assertTrue(out.startsWith("src/Real.java:1: class Target — class Target {}\n"), out);
        assertFalse(out.contains("build/") || out.contains(".env"), out);
        assertTrue(out.contains("[skipped 1 file(s) that hold secrets by name]"), out);
        assertTrue(out.contains("[skipped 1 binary file(s)]"), out);
    }

    @Test
    void noSourceFilesNamesTheSupportedLanguagesAndMissesSuggestAGlob() throws Exception {
        write("notes/readme.md", "# Parser\n");
        write("lib/a.rb", "class Parser; end\n");
        String none = find(Map.of("name", "Parser"));
        assertTrue(none.startsWith("No definition of Parser in 0 source files."), none);
        assertTrue(none.contains("Java (.java), JavaScript"), none);
        write("src/A.java", "class parser {}\n");
        String miss = find(Map.of("name", "Parser"));
        assertTrue(miss.contains("matched by exact name and case; try a glob such as *Parser*"), miss);
        String include = find(Map.of("name", "Parser", "include", "nothing/**"));
        assertTrue(include.contains("include nothing/** matched no file."), include);
    }

    @Test
    void aMalformedNameIsRefusedWithWhatToWrite() {
        ToolException bad = assertThrows(ToolException.class, () -> find(Map.of("name", "foo(bar)")));
        assertTrue(bad.getMessage().contains("must be a symbol name"), bad.getMessage());
        ToolException dots = assertThrows(ToolException.class, () -> find(Map.of("name", "A..b")));
        assertTrue(dots.getMessage().contains("empty part between dots"), dots.getMessage());
    }

    @Test
    void aChangedFileIsParsedAgain() throws Exception {
        write("src/a.ts", "export function before() {}\n");
        assertTrue(find(Map.of("name", "before")).startsWith("src/a.ts:1:"));
        write("src/a.ts", "\n\nexport function after() {}\n");
        assertTrue(find(Map.of("name", "before")).startsWith("No definition"));
        assertEquals("src/a.ts:3: function after — export function after() {}", find(Map.of("name", "after")));
    }

    @Test
    void aFileReadButNotParsedIsFoundByALaterSearchForANameItDeclares() throws Exception {
        write("src/b.go", "package b\n\nfunc Beta() {}\n\n// Alpha is only mentioned\n");
        assertTrue(find(Map.of("name", "Gamma")).startsWith("No definition"), "read, remembered by its identifiers");
        assertTrue(find(Map.of("name", "Alpha")).startsWith("No definition"), "parsed: mentioned is not declared");
        assertEquals("src/b.go:3: function Beta — func Beta() {}", find(Map.of("name", "Beta")));
        assertEquals("src/b.go:3: function Beta — func Beta() {}", find(Map.of("name", "B*")));
    }

    /**
     * A glob's literal part is looked up in what the first search kept of each file's identifiers, so a
     * file that cannot hold it is not read again while its stamp (size, modification time, inode) stands.
     * Rewriting the file in place at the same size and time shows it: the new name is not seen.
     */
    @Test
    void aWarmGlobSearchDoesNotReadAgainAFileWhoseIdentifiersCannotHoldItsLiteral() throws Exception {
        write("src/c.go", "package c\n\nfunc Other() {}\n");
        write("src/d.go", "package c\n\nfunc YourMap() {}\n");
        assertEquals("src/d.go:3: function YourMap — func YourMap() {}", find(Map.of("name", "*Map")));
        Path file = root.resolve("src/c.go");
        FileTime modified = Files.getLastModifiedTime(file);
        Files.writeString(file, "package c\n\nfunc MyMap() {}\n");
        Files.setLastModifiedTime(file, modified);
        assertEquals("src/d.go:3: function YourMap — func YourMap() {}", find(Map.of("name", "*Map")),
                "src/c.go was not read again");
        Files.setLastModifiedTime(file, FileTime.fromMillis(modified.toMillis() + 1000));
        assertEquals("src/c.go:3: function MyMap — func MyMap() {}\nsrc/d.go:3: function YourMap — func YourMap() {}",
                find(Map.of("name", "*Map")), "a new stamp has it read");
    }

    /** Python whose first definition is broken and hides the one after it, which the file still names. */
    static final String HIDING_PY = "def first(:\n    pass\nx = [1,\ndef hidden():\n    pass\n";

    /** Java with one broken member between two that still parse. */
    static final String BROKEN_JAVA = "class Broken {\n  void ok() {}\n  int = = ;\n  void after() { }\n}\n";

    @Test
    void aFileWithSyntaxErrorsGivesWhatCouldBeReadAndSaysSo() throws Exception {
        write("src/broken.py", """
                def good():
                    pass

                def broken(:
                    pass

                class After:
                    def method(self): pass
                """);
        write("src/Broken.java", BROKEN_JAVA);
        assertEquals("""
                src/broken.py:1: function good — def good():
                [src/broken.py: syntax errors from line 4; declarations near them may be missing or misread]""",
                find(Map.of("name", "good")));
        assertEquals("""
                src/broken.py:8: method After.method — def method(self): pass
                [src/broken.py: syntax errors from line 4; declarations near them may be missing or misread]""",
                find(Map.of("name", "After.method")));
        assertEquals("""
                src/Broken.java:2: method Broken.ok — void ok() {}
                src/Broken.java:4: method Broken.after — void after() { }
                [src/Broken.java: syntax errors from line 3; declarations near them may be missing or misread]""",
                find(Map.of("name", "Broken.*", "kind", "method", "include", "**/*.java")));
    }

    /**
     * A file whose syntax errors hid the definition asked for has no match to carry a note, so the files
     * that hold the name and parsed with errors are named on their own, cold and warm alike; a broken
     * file that does not hold the name is not, nor is one whose match already carries its note.
     */
    @Test
    void filesHoldingTheNameWhoseErrorsMayHideItsDefinitionAreNamed() throws Exception {
        write("src/hiding.py", HIDING_PY);
        write("src/Hiding.java", "class Hiding {\n  void hidden( {\n}\n");
        write("src/Unrelated.java", "class Unrelated {\n  void y( {\n}\n");
        write("src/Main.java", "class Main { void run() { hidden(); } }\n");
        String expected = "No definition of hidden in 4 source files. Declarations are matched by exact name and case; "
                + "try a glob such as *hidden* or grep for uses.\n[2 files holding the name had syntax errors; "
                + "definitions there may be missed: src/Hiding.java, src/hiding.py]";
        assertEquals(expected, find(Map.of("name", "hidden")), "cold");
        assertEquals(expected, find(Map.of("name", "hidden")), "warm, from the cache");
        assertEquals("No definition of hid*e? in 4 source files. Declarations are matched by exact name and case; "
                + "try a glob such as *hid*e?* or grep for uses.\n[2 files holding the name had syntax errors; "
                + "definitions there may be missed: src/Hiding.java, src/hiding.py]", find(Map.of("name", "hid*e?")),
                "a glob's literal part decides which files hold the name");
        write("src/Found.java", "class Found {\n  void hidden() {}\n  int = = ;\n}\n");
        String found = find(Map.of("name", "hidden"));
        assertTrue(found.startsWith("src/Found.java:2: method Found.hidden — void hidden() {}\n[src/Found.java: "
                + "syntax errors from line 3;"), found);
        assertTrue(found.endsWith("\n[2 files holding the name had syntax errors; definitions there may be missed: "
                + "src/Hiding.java, src/hiding.py]"), found);
    }

    @Test
    void theFilesNamedForSyntaxErrorsAreCapped() throws Exception {
        for (int i = 1; i <= SymbolSearch.MAX_NAMED + 2; i++) {
            write(String.format("src/m%02d.py", i), HIDING_PY);
        }
        String out = find(Map.of("name", "hidden"));
        assertTrue(out.endsWith("\n[12 files holding the name had syntax errors; definitions there may be missed: "
                + "src/m01.py, src/m02.py, src/m03.py, src/m04.py, src/m05.py, src/m06.py, src/m07.py, src/m08.py, "
                + "src/m09.py, src/m10.py and 2 more]"), out);
    }

    /** A huge file: what lies before the bound is found and the cut said; past it, the file is named. */
    @Test
    void aHugeFileIsSearchedUpToTheBoundAndNamedWhenTheNameMayLiePastIt() throws Exception {
        StringBuilder source = new StringBuilder("def early():\n    pass\n");
        int line = 2;
        while (source.length() <= Sources.MAX_PARSE_BYTES + 1000) {
            line++;
            source.append("value_").append(line).append(" = ").append(line).append('\n');
        }
        source.append("def late():\n    pass\n");
        write("src/huge.py", source.toString());
        String early = find(Map.of("name", "early"));
        assertTrue(early.matches("src/huge\\.py:1: function early — def early\\(\\):\n\\[src/huge\\.py: over 4 MB; only "
                + "lines 1-\\d+ were parsed]"), early);
        String note = "\n[1 file holding the name was parsed only in part (over 4 MB, or out of time); definitions "
                + "there may be missed: src/huge.py]";
        String late = find(Map.of("name", "late"));
        assertTrue(late.startsWith("No definition of late in 1 source files.") && late.endsWith(note), late);
        assertTrue(find(Map.of("name", "late")).endsWith(note), "warm, from the cache");
    }

    /** Minified code: one line over the bound is cut inside the line and parsed, never read whole. */
    @Test
    void aHugeFileOnOneLineIsCutAndParsed() throws Exception {
        StringBuilder source = new StringBuilder("function first(){return 1}");
        for (int i = 0; source.length() <= Sources.MAX_PARSE_BYTES + 1000; i++) {
            source.append("var v").append(i).append("=").append(i).append(";");
        }
        write("dist/app.min.js", source.toString());
        String out = find(Map.of("name", "first"));
        assertTrue(out.startsWith("dist/app.min.js:1: function first — "), out.substring(0, Math.min(out.length(), 200)));
        assertTrue(out.endsWith("\n[dist/app.min.js: over 4 MB; only lines 1-1 were parsed]"),
                out.substring(Math.max(0, out.length() - 300)));
        assertTrue(out.length() < 2000, "the signature line is shortened: " + out.length());
    }
}
