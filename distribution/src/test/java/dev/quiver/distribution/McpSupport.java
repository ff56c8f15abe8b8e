package dev.quiver.distribution;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** What the MCP end-to-end tests share: a private copy of the distribution, node scripts, processes. */
final class McpSupport {

    /** The tool bundle the tests remove and bring back while {@code quiver mcp} runs. */
    static final String MOVABLE = "dev.quiver.tools.edit.plus";

    private McpSupport() {
    }

    /**
     * A distribution of its own in {@code folder}: {@code bin/} and {@code conf/} copied (the launcher
     * finds its home from its jar), every bundle of {@code bundle/} linked except the edit-plus tools,
     * whose jar is in the FileInstall-watched {@code deploy/} folder instead, where a test can remove it.
     *
     * @return the path of the jar in deploy/
     */
    static Path privateDistribution(Path folder) throws IOException {
        Path source = QuiverProcess.distribution();
        Files.createDirectories(folder.resolve("bin"));
        for (String name : List.of("quiver", "quiver.jar", "felix.jar")) {
            Files.copy(source.resolve("bin").resolve(name), folder.resolve("bin").resolve(name),
                    StandardCopyOption.COPY_ATTRIBUTES);
        }
        QuiverProcess.copyTree(source.resolve("conf"), folder.resolve("conf"), relative -> true);
        Files.createDirectories(folder.resolve("bundle"));
        Files.createDirectories(folder.resolve("deploy"));
        Path movable = null;
        try (Stream<Path> jars = Files.list(source.resolve("bundle"))) {
            for (Path jar : jars.toList()) {
                if (jar.getFileName().toString().startsWith(MOVABLE + "-")) {
                    movable = Files.copy(jar, folder.resolve("deploy").resolve(jar.getFileName()));
                } else {
                    Files.createSymbolicLink(folder.resolve("bundle").resolve(jar.getFileName()), jar);
                }
            }
        }
        if (movable == null) {
            throw new IllegalStateException("no " + MOVABLE + " jar in " + source.resolve("bundle"));
        }
        return movable;
    }

    /** Copies a test resource of {@code mcp/} into a folder. */
    static Path resource(String name, Path folder) throws IOException {
        Path target = folder.resolve(name);
        try (var in = McpSupport.class.getResourceAsStream("/mcp/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource mcp/" + name);
            }
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
        return target;
    }

    /** The node binary; the tests need node 18 or newer (CI has it, see .ci/run). */
    static String node() {
        return "node";
    }

    /**
     * What a finished process printed.
     *
     * @param exitCode its exit code
     * @param stdout its standard output
     * @param stderr its standard error
     */
    record Result(int exitCode, String stdout, String stderr) {
    }

    /** Runs a command to its end, within a limit, with extra environment variables. */
    static Result run(Path directory, Map<String, String> environment, long timeoutSeconds, List<String> command)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
        builder.environment().putAll(environment);
        Path out = Files.createTempFile("mcp-out", ".txt");
        Path err = Files.createTempFile("mcp-err", ".txt");
        builder.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
        Process process = builder.start();
        process.getOutputStream().close();
        boolean done = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!done) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        Result result = new Result(done ? process.exitValue() : -1, Files.readString(out), Files.readString(err));
        Files.delete(out);
        Files.delete(err);
        if (!done) {
            throw new AssertionError(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s\nstdout: "
                    + result.stdout() + "\nstderr: " + result.stderr());
        }
        return result;
    }

    /**
     * Installs the official TypeScript SDK into a folder of its own (the npm cache makes later runs
     * quick) and returns the folder, where scripts that import it can run.
     */
    static Path installTypeScriptSdk(Path folder) throws IOException, InterruptedException {
        Files.createDirectories(folder);
        Files.writeString(folder.resolve("package.json"), "{\"name\":\"quiver-mcp-interop\",\"private\":true,"
                + "\"type\":\"module\"}\n");
        Result install = run(folder, Map.of(), 300, List.of("npm", "install", "--no-audit", "--no-fund",
                "--loglevel=error", "--no-save", "@modelcontextprotocol/sdk@1.32.2"));
        if (install.exitCode() != 0) {
            throw new AssertionError("npm install @modelcontextprotocol/sdk failed (node and npm are needed, and the npm "
                    + "registry):\n" + install.stdout() + install.stderr());
        }
        return folder;
    }

    /** Reads lines of a stream until one starts with a prefix; returns that line. */
    static String lineStartingWith(BufferedReader reader, String prefix, List<String> seen) throws IOException {
        String line;
        while ((line = reader.readLine()) != null) {
            seen.add(line);
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new AssertionError("the stream ended before a line starting with " + prefix + ": " + seen);
    }

    /** The environment a quiver process gets in the tests: a private home and state folder. */
    static Map<String, String> privateHome(Path home) {
        // the idle warm-up off, as QuiverProcess has it: its work on both cores varied these tests' timing
        return Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", home.resolve(".config").toString(),
                "XDG_STATE_HOME", home.resolve(".state").toString(), "QUIVER_WARMUP", "off");
    }

    /** A reader of a process's standard error. */
    static BufferedReader stderr(Process process) {
        return new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
    }

    /** The command line of bin/quiver of a distribution. */
    static List<String> quiver(Path distribution, String... args) {
        List<String> command = new ArrayList<>();
        command.add(distribution.resolve("bin").resolve("quiver").toString());
        command.addAll(List.of(args));
        return command;
    }
}
