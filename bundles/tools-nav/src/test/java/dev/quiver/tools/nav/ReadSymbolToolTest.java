package dev.quiver.tools.nav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadSymbolToolTest {

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

    private String read(Map<String, Object> arguments) throws Exception {
        return new ReadSymbolTool().call(Arguments.of(arguments), context).text();
    }

    private static final String QUEUE = """
            package q;

            public class Queue {
                private int size;

                /** Adds one. */
                @Deprecated
                public void add(int value) {
                    size++;
                }

                public void add(int value, int times) {
                    size += times;
                }

                public int size() {
                    return size;
                }
            }
            """;

    @Test
    void classDotMethodGivesTheMethodsLinesWithAnnotations() throws Exception {
        write("src/q/Queue.java", QUEUE);
        assertEquals("""
                [src/q/Queue.java:16-18: method Queue.size]
                16:     public int size() {
                17:         return size;
                18:     }""", read(Map.of("name", "Queue.size", "path", "src/q/Queue.java")));
        assertEquals("""
                [src/q/Queue.java:7-10: method Queue.add]
                7:     @Deprecated
                8:     public void add(int value) {
                9:         size++;
                10:     }
                [src/q/Queue.java:12-14: method Queue.add]
                12:     public void add(int value, int times) {
                13:         size += times;
                14:     }""", read(Map.of("name", "add")), "overloads in one file are shown together");
    }

    @Test
    void aNameDefinedInSeveralPlacesListsThemToChooseFrom() throws Exception {
        write("a/one.py", "def run():\n    return 1\n");
        write("b/two.py", "class Job:\n    def run(self):\n        return 2\n");
        String out = read(Map.of("name", "run"));
        assertEquals("""
                run is defined in 2 places; ask again with path, or with the name qualified (Class.method):
                a/one.py:1: function run — def run():
                b/two.py:2: method Job.run — def run(self):""", out);
        assertEquals("""
                [b/two.py:2-3: method Job.run]
                2:     def run(self):
                3:         return 2""", read(Map.of("name", "Job.run")));
    }

    @Test
    void aMissingNameListsWhatTheFileDeclares() throws Exception {
        write("src/q/Queue.java", QUEUE);
        ToolException e = assertThrows(ToolException.class,
                () -> read(Map.of("name", "remove", "path", "src/q/Queue.java")));
        assertEquals("No definition of remove in src/q/Queue.java. It declares: Queue, Queue.add, Queue.size.",
                e.getMessage());
        ToolException nowhere = assertThrows(ToolException.class, () -> read(Map.of("name", "remove")));
        assertTrue(nowhere.getMessage().startsWith("No definition of remove in the workspace's 1 source files"),
                nowhere.getMessage());
    }

    @Test
    void aLongDefinitionIsCutWithWhereToReadOn() throws Exception {
        StringBuilder body = new StringBuilder("fn long() {\n");
        for (int i = 0; i < 3000; i++) {
            body.append("    let value_").append(i).append(" = ").append(i).append(";\n");
        }
        body.append("}\n");
        write("src/long.rs", body.toString());
        String out = read(Map.of("name", "long", "path", "src/long.rs"));
        assertTrue(out.startsWith("[src/long.rs:1-3002: function long]\n1: fn long() {\n"), out.substring(0, 100));
        assertTrue(out.matches("(?s).*\\[cut at line \\d+ of 1-3002; read on with read_file path src/long.rs offset \\d+]"),
                out.substring(out.length() - 120));
        assertTrue(out.length() <= ReadSymbolTool.MAX_CHARS + 200, "" + out.length());
    }

    @Test
    void aFileWithSyntaxErrorsGivesTheDefinitionsThatParsedAndSaysSo() throws Exception {
        write("src/broken.py", "def good():\n    return 1\n\ndef broken(:\n    pass\n");
        write("src/Broken.java", FindSymbolToolTest.BROKEN_JAVA);
        assertEquals("""
                [src/broken.py: syntax errors from line 4; declarations near them may be missing or misread]
                [src/broken.py:1-2: function good]
                1: def good():
                2:     return 1""", read(Map.of("name", "good", "path", "src/broken.py")));
        assertEquals("""
                [src/Broken.java: syntax errors from line 3; declarations near them may be missing or misread]
                [src/Broken.java:4-4: method Broken.after]
                4:   void after() { }""", read(Map.of("name", "Broken.after")));
    }

    @Test
    void aDefinitionSyntaxErrorsHidAnswersWithTheFilesThatMayHoldIt() throws Exception {
        write("src/hiding.py", FindSymbolToolTest.HIDING_PY);
        ToolException inFile = assertThrows(ToolException.class,
                () -> read(Map.of("name", "hidden", "path", "src/hiding.py")));
        assertTrue(inFile.getMessage().startsWith("No definition of hidden in src/hiding.py. "), inFile.getMessage());
        assertTrue(inFile.getMessage().endsWith(". [src/hiding.py: syntax errors from line 1; declarations near them "
                + "may be missing or misread]"), inFile.getMessage());
        ToolException anywhere = assertThrows(ToolException.class, () -> read(Map.of("name", "hidden")));
        assertTrue(anywhere.getMessage().endsWith("*hidden*. [1 file holding the name had syntax errors; definitions "
                + "there may be missed: src/hiding.py]"), anywhere.getMessage());
    }

    @Test
    void aHugeFileGivesWhatLiesBeforeTheBoundAndSaysWhereItStopped() throws Exception {
        StringBuilder source = new StringBuilder("fn early() {\n    let a = 1;\n}\n");
        int line = 3;
        while (source.length() <= Sources.MAX_PARSE_BYTES + 1000) {
            line++;
            source.append("const C").append(line).append(": u32 = ").append(line).append(";\n");
        }
        source.append("fn late() {}\n");
        write("src/huge.rs", source.toString());
        String early = read(Map.of("name", "early", "path", "src/huge.rs"));
        assertTrue(early.matches("\\[src/huge\\.rs: over 4 MB; only lines 1-\\d+ were parsed]\n"
                + "\\[src/huge\\.rs:1-3: function early]\n1: fn early\\(\\) \\{\n2:     let a = 1;\n3: }"), early);
        ToolException inFile = assertThrows(ToolException.class,
                () -> read(Map.of("name", "late", "path", "src/huge.rs")));
        assertTrue(inFile.getMessage().startsWith("No definition of late in src/huge.rs. It declares: early, C4, C5, "),
                inFile.getMessage().substring(0, 200));
        assertTrue(inFile.getMessage().matches("(?s).* \\[src/huge\\.rs: over 4 MB; only lines 1-\\d+ were parsed]"),
                inFile.getMessage().substring(inFile.getMessage().length() - 200));
        ToolException anywhere = assertThrows(ToolException.class, () -> read(Map.of("name", "late")));
        assertTrue(anywhere.getMessage().endsWith("*late*. [1 file holding the name was parsed only in part (over 4 MB, "
                + "or out of time); definitions there may be missed: src/huge.rs]"), anywhere.getMessage());
    }

    @Test
    void aBinaryFileIsRefusedByPathAndLeftOutOfTheWorkspaceSearch() throws Exception {
        Files.write(root.resolve("blob.py"), "def twin():\n    pass\n\u0000\u0001".getBytes());
        write("src/twin.py", "def twin():\n    return 2\n");
        ToolException binary = assertThrows(ToolException.class, () -> read(Map.of("name", "twin", "path", "blob.py")));
        assertEquals("blob.py is binary (it holds NUL bytes), so it has no declarations to read.", binary.getMessage());
        assertEquals("""
                [src/twin.py:1-2: function twin]
                1: def twin():
                2:     return 2""", read(Map.of("name", "twin")), "the binary twin is not a second place");
    }
}
