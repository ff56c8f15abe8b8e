package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The index is read as git wrote it, and a planted one that could not be never exhausts memory. */
class TrackedFilesTest {

    @TempDir
    Path repository;

    private void git(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(repository.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.waitFor(), output);
    }

    @Test
    void aRealIndexIsReadAndAPlantedOneCountingBillionsIsNot() throws Exception {
        Files.writeString(repository.resolve("a.txt"), "a\n");
        git("init", "-q");
        git("add", "a.txt");
        Path index = repository.resolve(".git/index");
        assertTrue(TrackedFiles.plausible(index));
        assertTrue(new TrackedFiles(index).current().tracks("a.txt", false));

        // "DIRC", version 2, 2^31 - 1 entries, in 12 bytes: JGit would allocate for every one of them
        Files.write(index, ByteBuffer.allocate(12).put("DIRC".getBytes()).putInt(2).putInt(Integer.MAX_VALUE).array());
        assertFalse(TrackedFiles.plausible(index));
        assertFalse(new TrackedFiles(index).current().tracks("a.txt", false), "read as tracking nothing");
        assertTrue(new TrackedFiles(index).recorded("a.txt", 1024).isEmpty());
    }
}
