package dev.quiver.distribution;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the assembled {@code bin/quiver} as a separate process, as a user or a script would. */
final class QuiverProcess {

    /**
     * What a run printed and how it ended.
     *
     * @param exitCode the process's exit code
     * @param stdout everything on standard output
     * @param stderr everything on standard error
     */
    record Run(int exitCode, String stdout, String stderr) {
    }

    /**
     * Copies a folder's tree, files with their attributes (times included), leaving out what
     * {@code keep} refuses (given each path relative to {@code from}).
     */
    static void copyTree(Path from, Path to, java.util.function.Predicate<String> keep) throws IOException {
        try (java.util.stream.Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                String relative = from.relativize(path).toString();
                if (!keep.test(relative)) {
                    continue;
                }
                Path target = to.resolve(relative);
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    static Path distribution() {
        return Path.of(System.getProperty("quiver.dist", "target/quiver")).toAbsolutePath();
    }

    /** Runs quiver in a workspace with a private HOME and state folder, feeding stdin. */
    static Run run(Path workspace, Map<String, String> environment, String stdin, String... args)
            throws IOException, InterruptedException {
        return run(distribution(), workspace, environment, stdin, args);
    }

    /** Runs the {@code bin/quiver} of the given distribution folder (a copy of the built one, say). */
    static Run run(Path distribution, Path workspace, Map<String, String> environment, String stdin, String... args)
            throws IOException, InterruptedException {
        ProcessBuilder builder = builder(distribution, workspace, environment, args);
        Path out = Files.createTempFile("quiver-out", ".txt");
        Path err = Files.createTempFile("quiver-err", ".txt");
        builder.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = builder.start();
        try (var in = process.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("quiver " + String.join(" ", args) + " did not finish within 60 s");
        }
        Run run = new Run(process.exitValue(), Files.readString(out), Files.readString(err));
        Files.delete(out);
        Files.delete(err);
        return run;
    }

    /**
     * The built {@code bin/quiver} as {@link #run} starts it, for a test that reads its output while it runs;
     * its standard error is discarded.
     */
    static Process start(Path workspace, String... args) throws IOException {
        ProcessBuilder builder = builder(distribution(), workspace, Map.of(), args);
        builder.redirectError(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.from(
                new java.io.File("/dev/null")));
        return builder.start();
    }

    /**
     * The built {@code bin/quiver} with the given environment, its standard input a pipe the test writes
     * and closes, its standard output a pipe; its standard error is discarded.
     */
    static Process startPiped(Path workspace, Map<String, String> environment, String... args) throws IOException {
        ProcessBuilder builder = builder(distribution(), workspace, environment, args);
        builder.redirectError(ProcessBuilder.Redirect.DISCARD);
        return builder.start();
    }

    private static ProcessBuilder builder(Path distribution, Path workspace, Map<String, String> environment,
            String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(distribution.resolve("bin").resolve("quiver").toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(workspace.toFile());
        Path home = Files.createDirectories(home(workspace));
        builder.environment().put("HOME", home.toString());
        builder.environment().put("XDG_CONFIG_HOME", home.resolve(".config").toString());
        builder.environment().put("XDG_STATE_HOME", home.resolve(".state").toString());
        builder.environment().remove("OPENAI_API_KEY");
        builder.environment().remove("OPENAI_BASE_URL");
        // the idle warm-up off unless a test asks for it (IdleWarmupEndToEndTest): its compiling and reading
        // on both cores made the other tests' timing, and their processes' exits, vary on a loaded machine
        builder.environment().put("QUIVER_WARMUP", "off");
        builder.environment().putAll(environment);
        return builder;
    }

    /** The private home {@link #run} gives a workspace's runs. */
    static Path home(Path workspace) {
        return workspace.resolveSibling(workspace.getFileName() + "-home");
    }

    /** Writes the user's config file of a workspace's runs: what the user, not the repository, configured. */
    static Path userConfig(Path workspace, String json) throws IOException {
        Path file = home(workspace).resolve(".config/quiver/config.json");
        Files.createDirectories(file.getParent());
        return Files.writeString(file, json);
    }

    /**
     * An installation of its own in {@code folder}, for a test that changes its {@code conf/}: {@code bin/}
     * and {@code conf/} copied (the launcher finds its home from its script), everything else linked.
     */
    static Path linkedDistribution(Path folder) throws IOException {
        Path source = distribution();
        copyTree(source.resolve("bin"), folder.resolve("bin"), relative -> true);
        copyTree(source.resolve("conf"), folder.resolve("conf"), relative -> true);
        try (java.util.stream.Stream<Path> entries = Files.list(source)) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                if (!name.equals("bin") && !name.equals("conf")) {
                    Files.createSymbolicLink(folder.resolve(name), entry);
                }
            }
        }
        return folder;
    }

    static Run run(Path workspace, String... args) throws IOException, InterruptedException {
        return run(workspace, Map.of(), "", args);
    }

    private QuiverProcess() {
    }
}
