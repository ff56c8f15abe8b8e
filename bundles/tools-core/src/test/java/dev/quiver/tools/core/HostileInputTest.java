package dev.quiver.tools.core;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paths and contents a careless or hostile model may send, through every file tool of the core set:
 * nothing outside the workspace is read or written, and every refusal is a message, never a trace.
 */
class HostileInputTest {

    @TempDir
    Path root;

    @TempDir
    Path outside;

    ToolTestContext context;

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
        Files.writeString(outside.resolve("secret.txt"), "outside secret\n");
        Files.createSymbolicLink(root.resolve("link-out"), outside);
        Files.createSymbolicLink(root.resolve("file-out.txt"), outside.resolve("secret.txt"));
    }

    private List<String> hostilePaths() {
        return List.of("../escape.txt", "a/../../escape.txt", "/etc/passwd", outside.resolve("secret.txt").toString(),
                "link-out/secret.txt", "link-out/new.txt", "file-out.txt", "a\0b.txt", "\0", "",
                "   ", "x".repeat(5000), "dir/" + "y".repeat(300) + "/z.txt");
    }

    private static void assertCleanRefusal(ToolException error, String path) {
        String message = error.getMessage();
        assertFalse(message.isBlank(), path);
        assertFalse(message.contains("\tat ") || message.contains("Exception"), () -> path + ": " + message);
    }

    private void assertOutsideUntouched() throws IOException {
        try (Stream<Path> files = Files.list(outside)) {
            assertEquals(List.of("secret.txt"), files.map(p -> p.getFileName().toString()).toList());
        }
        assertEquals("outside secret\n", Files.readString(outside.resolve("secret.txt")));
        assertFalse(Files.exists(root.getParent().resolve("escape.txt")));
    }

    @Test
    void everyPathToolRefusesEveryHostilePathCleanly() throws IOException {
        List<String> unrefused = new ArrayList<>();
        for (String path : hostilePaths()) {
            List<Map.Entry<Tool, Map<String, Object>>> calls = List.of(
                    Map.entry(new ReadFileTool(), Map.of("path", path)),
                    Map.entry(new WriteFileTool(), Map.of("path", path, "content", "planted\n")),
                    Map.entry(new EditFileTool(), Map.of("path", path, "oldString", "outside", "newString", "mine")));
            for (Map.Entry<Tool, Map<String, Object>> call : calls) {
                try {
                    String out = call.getKey().call(Arguments.of(call.getValue()), context).text();
                    unrefused.add(call.getKey().spec().name() + " " + path + " -> " + out);
                } catch (ToolException e) {
                    assertCleanRefusal(e, path);
                }
            }
            assertOutsideUntouched();
        }
        assertEquals(List.of(), unrefused);
    }

    @Test
    void readManyFilesReportsEachHostilePathInItsOwnBlock() throws Exception {
        Files.writeString(root.resolve("ok.txt"), "fine\n");
        List<Map<String, Object>> files = new ArrayList<>();
        for (String path : hostilePaths().subList(0, 12)) {
            files.add(Map.of("path", path));
        }
        files.add(Map.of("path", "ok.txt"));
        String out = new ReadManyFilesTool().call(Arguments.of(Map.of("files", files)), context).text();
        assertFalse(out.contains("outside secret"), out);
        assertFalse(out.contains("Exception"), out);
        assertTrue(out.endsWith("==> ok.txt <==\n[ok.txt: lines 1-1 of 1]\n1: fine\n"), out);
        assertEquals(12, out.split("\\[unreadable: ", -1).length - 1, out);
    }

    @Test
    void grepAndGlobNeverReachOutside() throws Exception {
        assertEquals("No matches.", new GrepTool().call(Arguments.of(Map.of("pattern", "outside secret")), context).text());
        assertEquals("No files match *secret* (ignored files excluded).",
                new GlobTool().call(Arguments.of(Map.of("pattern", "*secret*")), context).text());
        ToolException badGlob = assertThrows(ToolException.class,
                () -> new GrepTool().call(Arguments.of(Map.of("pattern", "x", "include", "{{{")), context));
        assertCleanRefusal(badGlob, "{{{");
    }

    @Test
    void globAndIncludePatternsPointingOutsideFindNothingThere() throws Exception {
        Files.writeString(root.resolve("inside.txt"), "secret inside\n");
        // "/**" is anchored at the workspace root, as in .gitignore and ripgrep, so it lists inside.txt
        List<String> patterns = List.of("../*", "../**", "**/../*", "/etc/*", "/**", outside + "/*", outside + "/**",
                "link-out/*", "a\0b", "\0", "x".repeat(5000), "{" + "a,".repeat(2000) + "b}");
        for (String pattern : patterns) {
            try {
                String out = new GlobTool().call(Arguments.of(Map.of("pattern", pattern)), context).text();
                assertTrue(out.startsWith("No files match ") || out.equals("inside.txt"), pattern + " -> " + out);
            } catch (ToolException e) {
                assertCleanRefusal(e, pattern);
            }
            try {
                String out = new GrepTool().call(Arguments.of(Map.of("pattern", "secret", "include", pattern)), context)
                        .text();
                assertTrue(out.startsWith("No matches.") || out.equals("inside.txt:1: secret inside"),
                        pattern + " -> " + out);
            } catch (ToolException e) {
                assertCleanRefusal(e, pattern);
            }
        }
        for (String pattern : List.of("\0", "a\0b", "(", "x".repeat(100_000))) {
            try {
                assertEquals("No matches.", new GrepTool().call(Arguments.of(Map.of("pattern", pattern)), context).text());
            } catch (ToolException e) {
                assertCleanRefusal(e, pattern);
            }
        }
        assertOutsideUntouched();
    }

    @Test
    void hugeAndBinaryContentIsHandled() throws Exception {
        // a NUL-laden content is written as given; read_file then refuses it as binary, however large
        String huge = "\0".repeat(33 * 1024 * 1024);
        new WriteFileTool().call(Arguments.of(Map.of("path", "huge.bin", "content", huge)), context);
        ToolException tooLarge = assertThrows(ToolException.class,
                () -> new ReadFileTool().call(Arguments.of(Map.of("path", "huge.bin")), context));
        assertTrue(tooLarge.getMessage().contains("huge.bin is a binary file"), tooLarge.getMessage());
        assertEquals("No matches.", new GrepTool().call(Arguments.of(Map.of("pattern", "x")), context).text());
    }

    @Test
    void nonUtf8ContentRoundTripsByteForByte() throws Exception {
        byte[] bytes = new byte[255];
        for (int i = 0; i < 255; i++) {
            bytes[i] = (byte) (i + 1); // every byte but NUL, so the file is text that is not UTF-8
        }
        Files.write(root.resolve("all-bytes.txt"), bytes);
        new ReadFileTool().call(Arguments.of(Map.of("path", "all-bytes.txt")), context);
        new EditFileTool().call(Arguments.of(Map.of("path", "all-bytes.txt", "oldString", "\u00fe\u00ff",
                "newString", "\u00e9!")), context);
        bytes[253] = (byte) 0xE9;
        bytes[254] = '!';
        assertArrayEquals(bytes, Files.readAllBytes(root.resolve("all-bytes.txt")));
        assertTrue(new GrepTool().call(Arguments.of(Map.of("pattern", "\u00e9!", "fixedStrings", true)), context).text()
                .startsWith("all-bytes.txt:"), "ISO-8859-1 text is searched as read");
        assertEquals(StandardCharsets.ISO_8859_1, context.workspace().readText(root.resolve("all-bytes.txt")).charset());
    }
}
