package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.distribution.QuiverProcess.Run;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver undo} in a workspace where a killed process left a change half done: the change is
 * finished or rolled back before undo looks at the checkpoints, and what came of it is said first,
 * also when there is nothing to undo.
 */
class UndoRecoversFirstTest {

    private static final String TEMPORARY = ".y.txt.0123456789abcdef.quiver-tmp";

    @TempDir
    Path temp;

    @Test
    void undoFinishesOrRollsBackADeadChangeFirstAndSaysSoFirst() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws")).toRealPath();
        Path data = QuiverProcess.home(workspace).resolve(".local/share");
        Map<String, String> environment = Map.of("XDG_DATA_HOME", data.toString());
        Path changes = stateFolder(data, workspace).resolve("changes");

        // a process killed while staging: a temporary and a folder it made, listed in a pending file nobody holds
        Path half = Files.createDirectories(workspace.resolve("half/made"));
        Path staged = Files.writeString(half.resolve(".n.txt.00000000000000aa.quiver-tmp"), "staged\n");
        plant(changes, "1-dead", "apply_patch\t1700000000000\n" + workspace.resolve("half") + "\n" + half + "\n"
                + staged + "\n", null);
        Run nothing = QuiverProcess.run(workspace, environment, "", "undo");
        assertEquals(1, nothing.exitCode(), nothing.stdout());
        // without a turn there is no checkpoint store yet: undo fails, after the recovery, and says both
        assertTrue(nothing.stderr().matches("quiver undo: An interrupted apply_patch \\(.+\\) was rolled back: no file "
                + "changed\\. No checkpoints are recorded for " + java.util.regex.Pattern.quote(workspace.toString())
                + " .+ so there is nothing to undo\\. .+\n"), nothing.stderr());
        assertFalse(Files.exists(workspace.resolve("half")), "the dead change's folders are still there");
        assertNoRecords(changes);

        // a turn to undo, then a process killed while renaming a two-file change: x.txt is new, y.txt still old
        Run call = QuiverProcess.run(workspace, environment, "{\"tool\":\"bash\",\"args\":{\"command\":"
                + "\"echo turn > turn.txt\"}}\n", "call", "--batch", "-", "--yolo");
        assertEquals(0, call.exitCode(), call.stderr());
        assertTrue(Files.exists(workspace.resolve("turn.txt")), call.stdout());
        Files.writeString(workspace.resolve("x.txt"), "new\n");
        Files.writeString(workspace.resolve("y.txt"), "old\n");
        Files.writeString(workspace.resolve(TEMPORARY), "new\n");
        String journal = step(workspace.resolve("x.txt"), ".x.txt.00000000000000bb.quiver-tmp")
                + step(workspace.resolve("y.txt"), TEMPORARY) + "end\n";
        plant(changes, "2-dead", "apply_patch\t1700000000000\n" + workspace.resolve(TEMPORARY) + "\n", journal);

        Run undo = QuiverProcess.run(workspace, environment, "", "undo");
        assertEquals(0, undo.exitCode(), undo.stdout() + undo.stderr());
        List<String> notes = List.of(undo.stdout().substring(undo.stdout().indexOf("Not undone:\n")).split("\n"));
        assertTrue(notes.get(1).matches("  An interrupted apply_patch \\(.+\\) was finished: 2 files\\."), undo.stdout());
        assertTrue(notes.size() > 2, "the turn's own notes (it ran a command) follow: " + undo.stdout());
        assertEquals("new\n", Files.readString(workspace.resolve("x.txt")));
        assertEquals("new\n", Files.readString(workspace.resolve("y.txt")), "the dead change was not finished");
        assertFalse(Files.exists(workspace.resolve(TEMPORARY)));
        assertFalse(Files.exists(workspace.resolve("turn.txt")), "the turn was not undone");
        assertNoRecords(changes);
    }

    /** Where Quiver keeps a workspace's state: beside its sessions, named by the folder and a hash of its path. */
    private static Path stateFolder(Path data, Path workspace) throws Exception {
        byte[] hash = MessageDigest.getInstance("SHA-256").digest(workspace.toString().getBytes(StandardCharsets.UTF_8));
        return data.resolve("quiver/sessions").resolve(workspace.getFileName() + "-" + HexFormat.of().formatHex(hash, 0, 6))
                .resolve("state");
    }

    private static String step(Path file, String temporary) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        return "write\t" + file + "\t" + temporary + "\t" + HexFormat.of().formatHex(sha.digest("old\n".getBytes()))
                + "\t" + HexFormat.of().formatHex(sha.digest("new\n".getBytes())) + "\n";
    }

    private static void plant(Path changes, String id, String pending, String journal) throws IOException {
        Files.createDirectories(changes);
        Files.writeString(changes.resolve(id + ".pending"), pending);
        if (journal != null) {
            Files.writeString(changes.resolve(id + ".journal"), journal);
        }
    }

    private static void assertNoRecords(Path changes) throws IOException {
        try (Stream<Path> left = Files.list(changes)) {
            assertEquals(List.of(), left.toList(), "a pending file or journal is left");
        }
    }
}
