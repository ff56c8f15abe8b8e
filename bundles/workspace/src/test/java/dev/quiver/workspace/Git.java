package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Runs the real git binary, isolated from the user's and the system's configuration. */
final class Git {

    private Git() {
    }

    static String run(Path directory, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("git");
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
        Map<String, String> env = builder.environment();
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        // no global excludes file either: core.excludesFile defaults to $XDG_CONFIG_HOME/git/ignore
        env.put("XDG_CONFIG_HOME", "/nonexistent-quiver-test");
        env.put("HOME", "/nonexistent-quiver-test");
        Path stderr = Files.createTempFile("git-stderr", ".txt");
        try {
            Process process = builder.redirectError(stderr.toFile()).start();
            process.getOutputStream().close();
            byte[] out = process.getInputStream().readAllBytes();
            int code = process.waitFor();
            assertEquals(0, code, () -> "git " + String.join(" ", args) + " failed: " + read(stderr));
            return new String(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(stderr);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(unreadable)";
        }
    }
}
