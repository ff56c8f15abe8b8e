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
}
