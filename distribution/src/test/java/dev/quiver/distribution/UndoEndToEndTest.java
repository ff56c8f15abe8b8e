package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.distribution.QuiverProcess.Run;
import dev.quiver.testing.FileTrees;
import dev.quiver.testing.OpenAiStub;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Undo from outside: the assembled {@code bin/quiver} deletes a folder with a command the guard does
 * not know, through the real bash tool (under a rule that allows every command, and {@code --yolo}),
 * and {@code quiver undo} brings it back byte for byte, modes and links included.
 */
class UndoEndToEndTest {

    private static final String RMTREE = "python3 -c \\\"import shutil; shutil.rmtree('src')\\\"";

    @TempDir
    Path temp;

    /** A workspace with a source tree worth losing: text, binary, an executable, a link, nested folders. */
    private Path workspace() throws IOException {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Demo\n");
        Path src = Files.createDirectories(workspace.resolve("src/main/java/demo"));
        Files.writeString(src.resolve("Main.java"), "package demo;\n\npublic class Main {}\n");
        byte[] table = new byte[100_000];
        new Random(7).nextBytes(table);
        Files.write(workspace.resolve("src/main/table.bin"), table);
        Path script = Files.writeString(workspace.resolve("src/build.sh"), "#!/bin/sh\necho built\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createSymbolicLink(workspace.resolve("src/Main.java"), Path.of("main/java/demo/Main.java"));
        QuiverProcess.userConfig(workspace, "{\"permission\":{\"bash\":\"allow\"}}");
        return workspace;
    }

    /** Every entry of a folder: a file's mode and bytes, a link's text, a folder. */
    private static Map<String, String> tree(Path folder) throws IOException {
        return FileTrees.of(folder, relative -> true);
    }

    @Test
    void aCommandTheGuardDoesNotKnowDeletesSrcAndQuiverUndoBringsItBackByteForByte() throws Exception {
        Path workspace = workspace();
        Map<String, String> before = tree(workspace.resolve("src"));
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("bash", "{\"command\":\"" + RMTREE + "\"}")),
                OpenAiStub.text("Removed src."))) {
            Run turn = QuiverProcess.run(workspace, "-p", "clean up", "--yolo", "--model", "openai/test",
                    "--base-url", model.baseUrl());
            assertEquals(0, turn.exitCode(), turn.stdout() + turn.stderr());
        }
        assertFalse(Files.exists(workspace.resolve("src")), "the command ran");

        Run list = QuiverProcess.run(workspace, "undo", "--list");
        assertEquals(0, list.exitCode(), list.stderr());
        String[] rows = list.stdout().split("\n");
        assertEquals(2, rows.length, list.stdout());
        assertTrue(rows[1].matches("\\s+1 .* 1\\s+4  bash \\(execute\\)"), rows[1]);

        Run undo = QuiverProcess.run(workspace, "undo");
        assertEquals(0, undo.exitCode(), undo.stdout() + undo.stderr());
        assertTrue(undo.stdout().startsWith("Restored 4 files that the last turn changed:\n"), undo.stdout());
        assertTrue(undo.stdout().contains("  deleted → recreated  src/main/table.bin\n"), undo.stdout());
        assertTrue(undo.stdout().contains("This turn ran commands (bash)."), undo.stdout());
        assertTrue(undo.stdout().contains("The conversation of session "), undo.stdout());
        assertEquals(before, tree(workspace.resolve("src")), "byte for byte, modes and the link");

        Run again = QuiverProcess.run(workspace, "undo", "--list");
        assertEquals("No turn to undo in " + workspace + ".\n", again.stdout(), again.stderr());
    }

    @Test
    void aDeletionRunWithQuiverCallIsUndoneAndAChangeMadeSinceIsKeptUnlessForced() throws Exception {
        Path workspace = workspace();
        Map<String, String> before = tree(workspace.resolve("src"));
        Run call = QuiverProcess.run(workspace, Map.of(), "{\"tool\":\"bash\",\"args\":{\"command\":\"" + RMTREE
                + " && echo changed > README.md\"}}\n", "call", "--batch", "-", "--yolo");
        assertEquals(0, call.exitCode(), call.stderr());
        assertTrue(call.stdout().contains("\"status\":\"ok\""), call.stdout());
        Files.writeString(workspace.resolve("README.md"), "# Demo, edited by hand since\n");

        Run undo = QuiverProcess.run(workspace, "undo");
        assertEquals(0, undo.exitCode(), undo.stderr());
        assertEquals(before, tree(workspace.resolve("src")));
        assertTrue(undo.stdout().contains("Not restored:\n  README.md (modified): it changed after turn 1 of session "),
                undo.stdout());
        assertEquals("# Demo, edited by hand since\n", Files.readString(workspace.resolve("README.md")));

        Run none = QuiverProcess.run(workspace, "undo");
        assertEquals(1, none.exitCode(), none.stdout());
        assertEquals("quiver undo: No turn in " + workspace.toRealPath() + " has changes left to undo.\n", none.stderr());
    }
}
