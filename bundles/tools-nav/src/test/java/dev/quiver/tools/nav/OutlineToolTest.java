package dev.quiver.tools.nav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutlineToolTest {

    @TempDir
    Path root;

    @TempDir
    Path outside;

    private ToolTestContext context;

    @BeforeEach
    void open() throws Exception {
        context = new ToolTestContext(root);
    }

    private void write(String path, String text) throws Exception {
        Files.createDirectories(root.resolve(path).getParent());
        Files.writeString(root.resolve(path), text);
    }

    private String outline(String path) throws Exception {
        return new OutlineTool().call(Arguments.of(Map.of("path", path)), context).text();
    }

    @Test
    void aSyntaxErrorGivesWhatCouldBeReadAndSaysWhere() throws Exception {
        write("broken.py", """
                def good():
                    pass

                def broken(:
                    pass

                class After:
                    def method(self): pass
                """);
        String out = outline("broken.py");
        assertTrue(out.contains("function good 1-2"), out);
        assertTrue(out.contains("[broken.py: syntax errors from line 4; declarations near them may be missing or misread]"),
                out);
        write("Broken.java", "class Broken {\n  void ok() {}\n  void bad( {\n}\n");
        String java = outline("Broken.java");
        assertTrue(java.contains("syntax errors from line"), java);
        assertTrue(java.contains("method ok 2-2"), java);
    }

    @Test
    void aHugeFileIsParsedUpToTheBoundAndTheRestIsNamed() throws Exception {
        StringBuilder source = new StringBuilder();
        int line = 0;
        while (source.length() <= Sources.MAX_PARSE_BYTES + 1000) {
            line++;
            source.append("def function_").append(line).append("():\n    return ").append(line).append("\n");
            line++;
        }
        write("huge.py", source.toString());
        String out = outline("huge.py");
        assertTrue(out.contains("[huge.py: over 4 MB; only lines 1-"), out.substring(0, 300));
        assertTrue(out.contains("function function_1 1-2"), out.substring(0, 300));
        assertTrue(out.endsWith("; read the file from there with read_file, or find_symbol by name."),
                out.substring(out.length() - 200));
    }

    @Test
    void binaryUnsupportedSecretMissingAndEscapingPathsAreRefusedWithWhatToDo() throws Exception {
        Files.write(root.resolve("blob.go"), new byte[] {'p', 'a', 'c', 0, 1, 2});
        assertMessage("blob.go is binary", "blob.go");
        write("script.rb", "def x; end\n");
        ToolException unsupported = assertThrows(ToolException.class, () -> outline("script.rb"));
        assertEquals("No grammar for script.rb: declarations are read from " + Language.SUPPORTED
                + " files. Use read_file or grep for this one.", unsupported.getMessage());
        write("keys/.env.ts", "export const KEY = 'x';\n");
        assertMessage("holds secrets", "keys/.env.ts");
        assertMessage("No such file: gone.java", "gone.java");
        Files.writeString(outside.resolve("Out.java"), "class Out {}\n");
        assertMessage("escapes workspace", outside.resolve("Out.java").toString());
        Files.createSymbolicLink(root.resolve("Link.java"), outside.resolve("Out.java"));
        assertMessage("escapes workspace", "Link.java");
        assertEquals(List.of(Subject.path("src/A.java")),
                new OutlineTool().subjects(Arguments.of(Map.of("path", "src/A.java"))));
    }

    private void assertMessage(String part, String path) {
        ToolException e = assertThrows(ToolException.class, () -> outline(path));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }

    @Test
    void aFileThatIsNotUtf8IsReadAsLatin1() throws Exception {
        byte[] latin1 = "// caf\u00e9\nclass Caf\u00e9 { void m\u00fcde() {} }\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        Files.write(root.resolve("Latin.java"), latin1);
        assertEquals("""
                [Latin.java: Java, 2 declarations]
                class Café 2-2
                  method müde 2-2""", outline("Latin.java"));
    }
}
