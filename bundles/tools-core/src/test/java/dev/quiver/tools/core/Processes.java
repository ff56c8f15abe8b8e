package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Runs the real git and ripgrep binaries, isolated from the user's and the system's configuration. */
final class Processes {

    private Processes() {
    }

    /** Runs a command and returns its stdout; fails the test on an exit code not in {@code okCodes}. */
    static String run(Path directory, List<Integer> okCodes, String... command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(List.of(command)).directory(directory.toFile());
        Map<String, String> env = builder.environment();
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        env.put("XDG_CONFIG_HOME", "/nonexistent-quiver-test");
        env.put("HOME", "/nonexistent-quiver-test");
        env.remove("RIPGREP_CONFIG_PATH");
        Path stderr = Files.createTempFile("process-stderr", ".txt");
        try {
            Process process = builder.redirectError(stderr.toFile()).start();
            process.getOutputStream().close();
            byte[] out = process.getInputStream().readAllBytes();
            int code = process.waitFor();
            String errors = Files.readString(stderr);
            assertTrue(okCodes.contains(code), () -> String.join(" ", command) + " exited " + code + ": " + errors);
            return new String(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(stderr);
        }
    }

    static String git(Path directory, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        return run(directory, List.of(0), command.toArray(String[]::new));
    }

    /**
     * ripgrep on the directory's whole tree, hidden files included but not {@code .git}, with every
     * configuration file off; exit code 1 (no match) is not a failure. Paths come without a leading
     * {@code ./}.
     */
    static String rg(Path directory, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("rg", "--no-config", "--hidden", "-g", "!.git", "--color=never"));
        command.addAll(List.of(args));
        boolean files = List.of(args).contains("--files");
        if (!files) {
            command.add("--");
            command.add(".");
        }
        String out = run(directory, List.of(0, 1), command.toArray(String[]::new));
        return out.replaceAll("(?m)^\\./", "");
    }
}
