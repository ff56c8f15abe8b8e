package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quiver.testing.OpenAiStub;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interactive terminal of the built {@code bin/quiver}, in a real terminal: tmux runs it,
 * {@code send-keys} types, {@code capture-pane} reads the screen. The model is the loopback stub.
 * Skipped where tmux is not installed.
 */
class TerminalEndToEndTest {

    @TempDir
    Path temp;

    /** A tmux server of its own (a private socket), so a person's tmux sessions are never touched. */
    private static final class Tmux implements AutoCloseable {
        private final String socket = "quiver-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        private String socketPath;

        void start(Path directory, List<String> environment, List<String> command) throws Exception {
            List<String> line = new ArrayList<>(List.of("new-session", "-d", "-s", "q", "-x", "110", "-y", "50", "-c",
                    directory.toString(), "env", "QUIVER_WARMUP=off"));
            line.addAll(environment);
            line.addAll(command);
            tmux(line.toArray(String[]::new));
            socketPath = tmux("display-message", "-p", "#{socket_path}").strip();
        }

        /** Types text literally. */
        void type(String text) throws Exception {
            tmux("send-keys", "-t", "q", "-l", text);
        }

        /** Presses keys by tmux name: Enter, Escape, C-c, Tab. */
        void press(String... keys) throws Exception {
            List<String> line = new ArrayList<>(List.of("send-keys", "-t", "q"));
            line.addAll(List.of(keys));
            tmux(line.toArray(String[]::new));
        }

        String screen() throws Exception {
            return tmux("capture-pane", "-t", "q", "-p", "-J", "-S", "-300");
        }

        /** The screen with its colours and attributes as escape sequences. */
        String screenWithStyles() throws Exception {
            return tmux("capture-pane", "-t", "q", "-p", "-e", "-J", "-S", "-300");
        }

        String await(String text) throws Exception {
            return await(screen -> screen.contains(text), "\"" + text + "\"");
        }

        String await(Predicate<String> condition, String what) throws Exception {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            String screen = "";
            while (System.nanoTime() < deadline) {
                screen = screen();
                if (condition.test(screen)) {
                    return screen;
                }
                Thread.sleep(100);
            }
            throw new AssertionError("Timed out waiting for " + what + ". The screen:\n" + screen);
        }

        /** The last line with the prompt mark, what the input line holds. */
        String input() throws Exception {
            String[] lines = screen().split("\n");
            for (int i = lines.length - 1; i >= 0; i--) {
                if (lines[i].startsWith("›")) {
                    return lines[i].strip();
                }
            }
            return "";
        }

        String tmux(String... arguments) throws Exception {
            List<String> command = new ArrayList<>(List.of("tmux", "-L", socket));
            command.addAll(List.of(arguments));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IOException("tmux " + String.join(" ", arguments) + " failed: " + out);
            }
            return out;
        }

        @Override
        public void close() throws Exception {
            try {
                tmux("kill-server");
            } catch (IOException alreadyGone) {
                // the server already ended
            }
            if (socketPath != null && !socketPath.isEmpty()) {
                Files.deleteIfExists(Path.of(socketPath));
            }
        }
    }

    private static boolean tmuxInstalled() {
        try {
            return new ProcessBuilder("tmux", "-V").start().waitFor(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * A copy of the distribution whose edit-plus bundle sits in the watched {@code deploy/} folder, so
     * deleting its file stops it while quiver runs. The other jars are linked, not copied.
     */
    private Path distributionWithDeployedEditPlus() throws IOException {
        Path original = QuiverProcess.distribution();
        Path copy = Files.createDirectories(temp.resolve("quiver"));
        Files.createDirectories(copy.resolve("bin"));
        Files.createDirectories(copy.resolve("bundle"));
        Files.createDirectories(copy.resolve("deploy"));
        Files.createDirectories(copy.resolve("conf"));
        for (String file : List.of("quiver", "quiver.jar", "felix.jar")) {
            Files.copy(original.resolve("bin").resolve(file), copy.resolve("bin").resolve(file));
        }
        copy.resolve("bin/quiver").toFile().setExecutable(true);
        try (Stream<Path> conf = Files.list(original.resolve("conf"))) {
            for (Path file : conf.toList()) {
                Files.copy(file, copy.resolve("conf").resolve(file.getFileName()));
            }
        }
        try (Stream<Path> jars = Files.list(original.resolve("bundle"))) {
            for (Path jar : jars.toList()) {
                String name = jar.getFileName().toString();
                if (name.startsWith("dev.quiver.tools.edit.plus")) {
                    Files.copy(jar, copy.resolve("deploy").resolve(name));
                } else {
                    Files.createSymbolicLink(copy.resolve("bundle").resolve(name), jar);
                }
            }
        }
        return copy;
    }

    /** Whether the command is running within a few seconds: the hint shows before bwrap has started it. */
    private static boolean eventuallyRunning(String commandLine) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!running(commandLine) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        return running(commandLine);
    }

    private static boolean running(String commandLine) {
        return ProcessHandle.allProcesses().anyMatch(p -> p.info().commandLine().map(c -> c.contains(commandLine))
                .orElse(false));
    }

    @Test
    void theModelsQuestionIsAPickerWhoseChoiceTheNextRequestCarries() throws Exception {
        assumeTrue(tmuxInstalled(), "tmux is not installed");
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Path home = Files.createDirectories(temp.resolve("home"));
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("ask", "{\"question\":\"Which database?\",\"options\":["
                        + "{\"label\":\"Postgres\",\"detail\":\"what production runs\"},{\"label\":\"SQLite\"}]}")),
                OpenAiStub.text("Using SQLite."));
                Tmux tmux = new Tmux()) {
            tmux.start(workspace, List.of("HOME=" + home, "XDG_CONFIG_HOME=" + home.resolve(".config"),
                    "XDG_STATE_HOME=" + home.resolve(".state"), "TERM=xterm-256color", "OPENAI_API_KEY="),
                    List.of(QuiverProcess.distribution().resolve("bin/quiver").toString(), "Set up storage", "--model",
                            "openai/test", "--base-url", model.baseUrl()));
            String screen = tmux.await("enter chooses");
            assertTrue(screen.contains("? Which database?") && screen.contains("› 1. Postgres (recommended)"), screen);
            tmux.press("Down");
            tmux.await("› 2. SQLite");
            tmux.press("Enter");
            screen = tmux.await("Using SQLite.");
            assertTrue(screen.contains("→ SQLite"), screen);
            List<String> offered = new ArrayList<>();
            model.requests().get(0).path("tools").forEach(tool -> offered.add(tool.path("function").path("name").asText()));
            assertTrue(offered.contains("ask"), offered.toString());
            assertTrue(model.requests().get(1).toString().contains("The user chose: SQLite"),
                    model.requests().get(1).toString());
        }
    }

    @Test
    void aPromptArgumentIsSentAsSoonAsTheTerminalIsUpAndUpArrowBringsItBack() throws Exception {
        assumeTrue(tmuxInstalled(), "tmux is not installed");
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Path home = Files.createDirectories(temp.resolve("home"));
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Hello there.")); Tmux tmux = new Tmux()) {
            tmux.start(workspace, List.of("HOME=" + home, "XDG_CONFIG_HOME=" + home.resolve(".config"),
                    "XDG_STATE_HOME=" + home.resolve(".state"), "TERM=xterm-256color", "OPENAI_API_KEY="),
                    List.of(QuiverProcess.distribution().resolve("bin/quiver").toString(), "Say hello", "--model",
                            "openai/test", "--base-url", model.baseUrl()));
            String screen = tmux.await("Hello there.");
            assertTrue(screen.contains("› Say hello"), screen);
            assertEquals(1, model.requests().size());
            assertEquals("Say hello", StepUsageAndToolSetsEndToEndTest.lastUserMessage(model.requests().get(0)));
            tmux.press("Up");
            tmux.await(s -> s.split("› Say hello", -1).length == 3, "the prompt back on the input line");
        }
    }

    @Test
    void approvalsInterruptsAbortsTheQueueCompletionAndToolsInARealTerminal() throws Exception {
        assumeTrue(tmuxInstalled(), "tmux is not installed");
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Demo\n");
        Files.createDirectories(workspace.resolve("src/main"));
        Files.createDirectories(workspace.resolve("vendor/src/main"));
        Files.writeString(workspace.resolve("src/main/App.java"), "class App {}\n");
        Files.writeString(workspace.resolve("src/main/Util.java"), "class Util {}\n");
        Files.writeString(workspace.resolve("vendor/src/main/X.java"), "class X {}\n");
        Path home = Files.createDirectories(temp.resolve("home"));
        Path quiver = distributionWithDeployedEditPlus();
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("bash", "{\"command\":\"git status --porcelain\"}")),
                OpenAiStub.text("Ran it **once**."),
                OpenAiStub.calls(OpenAiStub.call("bash", "{\"command\":\"git status --short\"}")),
                OpenAiStub.text("Allowed for the session."),
                OpenAiStub.calls(OpenAiStub.call("bash", "{\"command\":\"touch made-by-quiver.txt\"}")),
                OpenAiStub.text("I will not touch it."),
                OpenAiStub.calls(OpenAiStub.call("bash", "{\"command\":\"sleep 47\"}")),
                OpenAiStub.text("The sleep was stopped early."),
                OpenAiStub.delayed(Duration.ofSeconds(20), OpenAiStub.text("too late")),
                OpenAiStub.delayed(Duration.ofSeconds(2), OpenAiStub.text("First answer.")),
                OpenAiStub.text("Second answer."));
                Tmux tmux = new Tmux()) {
            tmux.start(workspace, List.of("HOME=" + home, "XDG_CONFIG_HOME=" + home.resolve(".config"),
                    "XDG_STATE_HOME=" + home.resolve(".state"), "TERM=xterm-256color", "OPENAI_API_KEY="),
                    // the pane stays after quiver ends, saying how it ended
                    List.of("sh", "-c", "\"$0\" \"$@\"; echo \"[quiver exited $?]\"; sleep 120",
                            quiver.resolve("bin/quiver").toString(), "--model", "openai/test", "--base-url",
                            model.baseUrl()));
            String screen = tmux.await(s -> s.contains("/help for commands") && s.contains("edit-plus"),
                    "the header with the deployed edit-plus tools");
            assertTrue(screen.contains("model openai/test · " + workspace.toRealPath()), screen);
            assertTrue(screen.contains("sandbox "), screen);

            // y: once
            tmux.type("run git status");
            tmux.press("Enter");
            screen = tmux.await("y allow once | a always allow bash git status * | n deny");
            assertTrue(screen.contains("? bash wants to run\n    git status --porcelain"), screen);
            tmux.type("y");
            tmux.press("Enter");
            screen = tmux.await("Ran it once.");
            assertTrue(screen.contains("→ allowed once"), screen);
            assertTrue(screen.contains("bash  git status --porcelain"), screen);

            // a: the pattern for the session
            tmux.type("again");
            tmux.press("Enter");
            tmux.await("a always allow bash git status * | n deny");
            tmux.type("a");
            tmux.press("Enter");
            screen = tmux.await("Allowed for the session.");
            assertTrue(screen.contains("→ allowed bash git status * for this session"), screen);

            // n: what to do instead reaches the model, the command never ran
            tmux.type("make a file");
            tmux.press("Enter");
            tmux.await("| n deny");
            tmux.type("n");
            tmux.press("Enter");
            tmux.await("What should it do instead?");
            tmux.type("do not touch files");
            tmux.press("Enter");
            tmux.await("I will not touch it.");
            assertFalse(Files.exists(workspace.resolve("made-by-quiver.txt")));
            assertTrue(model.requests().get(5).toString().contains("The user denied this call and said: do not touch files"),
                    model.requests().get(5).toString());

            // ctrl-c kills the running sleep; the turn goes on
            tmux.type("sleep");
            tmux.press("Enter");
            tmux.await("| n deny");
            tmux.type("y");
            tmux.press("Enter");
            tmux.await("ctrl-c stops it");
            long started = System.nanoTime();
            assertTrue(eventuallyRunning("sleep 47"), "the sleep runs");
            tmux.press("C-c");
            screen = tmux.await("The sleep was stopped early.");
            assertTrue(System.nanoTime() - started < Duration.ofSeconds(20).toNanos());
            assertFalse(running("sleep 47"), "the sleep was killed");
            assertTrue(screen.contains("bash  sleep 47 · The command was interrupted"), screen);

            // esc aborts the turn and drops what was queued
            tmux.type("think slowly");
            tmux.press("Enter");
            tmux.await("esc aborts");
            tmux.type("never sent");
            tmux.press("Enter");
            tmux.await("queued › never sent");
            tmux.press("Escape");
            screen = tmux.await("turn aborted");
            assertTrue(screen.contains("dropped 1 queued prompt"), screen);
            Thread.sleep(1000);
            assertFalse(tmux.screen().contains("› never sent"), "the queued prompt never ran");

            // a prompt typed during a turn runs when it ends
            tmux.type("first");
            tmux.press("Enter");
            tmux.await("esc aborts");
            tmux.type("second");
            tmux.press("Enter");
            tmux.await("queued › second");
            screen = tmux.await("Second answer.");
            assertTrue(screen.indexOf("First answer.") < screen.indexOf("› second"), screen);

            // @ completes workspace paths, prefix matches first
            tmux.type("look at @src/m");
            tmux.press("Tab");
            tmux.await(s -> {
                try {
                    return tmux.input().equals("› look at @src/main/");
                } catch (Exception e) {
                    return false;
                }
            }, "the completed folder");
            tmux.type("A");
            tmux.press("Tab");
            tmux.await("› look at @src/main/App.java");
            tmux.press("C-u");

            // a tool bundle stops while quiver runs; /tools shows what is left
            tmux.type("/tools");
            tmux.press("Enter");
            screen = tmux.await("registered");
            int before = screen.split("offered this turn of").length;
            assertTrue(screen.contains("edit-plus"), screen);
            try (Stream<Path> deployed = Files.list(quiver.resolve("deploy"))) {
                for (Path jar : deployed.toList()) {
                    Files.delete(jar);
                }
            }
            tmux.await("tools changed:");
            tmux.type("/tools");
            tmux.press("Enter");
            screen = tmux.await(s -> s.split("offered this turn of").length > before, "a second /tools");
            String last = screen.substring(screen.lastIndexOf("offered this turn of") - 4);
            assertFalse(last.contains("edit-plus"), last);

            // ctrl-c with nothing running quits
            tmux.press("C-c");
            tmux.await("[quiver exited 0]");
            assertTrue(Files.list(home.resolve(".state/quiver/history")).findAny().isPresent(), "the history was kept");
        }
    }

    @Test
    void anEditsDiffIsOnScreenBeforeYAndTheFileChangesOnlyAfterIt() throws Exception {
        assumeTrue(tmuxInstalled(), "tmux is not installed");
        Path workspace = Files.createDirectories(temp.resolve("ws-diff"));
        Path readme = Files.writeString(workspace.resolve("README.md"), "# Demo\n\nSome text.\n");
        Path home = Files.createDirectories(temp.resolve("home-diff"));
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}")),
                OpenAiStub.calls(OpenAiStub.call("edit_file",
                        "{\"path\":\"README.md\",\"oldString\":\"# Demo\",\"newString\":\"# Quiver demo\"}")),
                OpenAiStub.text("Edited the title."));
                Tmux tmux = new Tmux()) {
            tmux.start(workspace, List.of("HOME=" + home, "XDG_CONFIG_HOME=" + home.resolve(".config"),
                    "XDG_STATE_HOME=" + home.resolve(".state"), "TERM=xterm-256color", "OPENAI_API_KEY="),
                    List.of("sh", "-c", "\"$0\" \"$@\"; echo \"[quiver exited $?]\"; sleep 120",
                            QuiverProcess.distribution().resolve("bin/quiver").toString(), "--model", "openai/test",
                            "--base-url", model.baseUrl()));
            tmux.await(s -> s.contains("/help for commands"), "the header");
            tmux.type("retitle the readme");
            tmux.press("Enter");
            String screen = tmux.await("| n deny");
            assertTrue(screen.contains("? edit_file wants to run\n    README.md\n    --- a/README.md\n    +++ b/README.md\n"
                    + "    @@ -1,3 +1,3 @@\n    -# Demo\n    +# Quiver demo\n"), screen);
            assertEquals("# Demo\n\nSome text.\n", Files.readString(readme), "written before the answer");
            tmux.type("y");
            tmux.press("Enter");
            screen = tmux.await("Edited the title.");
            assertEquals("# Quiver demo\n\nSome text.\n", Files.readString(readme));
            assertTrue(screen.contains("changed README.md +1 \u22121"), "the summary after the call:\n" + screen);
            // quit and wait, so quiver is not still writing its session when the temporary folder goes;
            // typed, not ctrl-c: a ctrl-c that lands while the turn is still closing stops the turn, not quiver
            tmux.type("/exit");
            tmux.press("Enter");
            tmux.await("[quiver exited 0]");
        }
    }

    /** The SGR sequences that set a line's style, to tell a red line from a plain one. */
    private static String styleOf(String styledScreen, String text) {
        String line = styledScreen.lines().filter(l -> l.contains(text)).findFirst()
                .orElseThrow(() -> new AssertionError("no line with " + text + ":\n" + styledScreen));
        return line.substring(0, line.indexOf(text));
    }

    @Test
    void theYoloHeaderLineIsRedAndAGfmTableIsDrawnInColumns() throws Exception {
        assumeTrue(tmuxInstalled(), "tmux is not installed");
        Path workspace = Files.createDirectories(temp.resolve("ws-yolo"));
        Path home = Files.createDirectories(temp.resolve("home-yolo"));
        String table = "The sizes:\n\n| Name | Size |\n|------|-----:|\n| alpha | 1 |\n| beta-long | 22 |\n\nThat is all.";
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text(table)); Tmux tmux = new Tmux()) {
            tmux.start(workspace, List.of("HOME=" + home, "XDG_CONFIG_HOME=" + home.resolve(".config"),
                    "XDG_STATE_HOME=" + home.resolve(".state"), "TERM=xterm-256color", "OPENAI_API_KEY="),
                    List.of("sh", "-c", "\"$0\" \"$@\"; echo \"[quiver exited $?]\"; sleep 120",
                            QuiverProcess.distribution().resolve("bin/quiver").toString(), "--yolo", "--model",
                            "openai/test", "--base-url", model.baseUrl()));
            tmux.await(s -> s.contains("/help for commands"), "the header");
            String styled = tmux.screenWithStyles();
            String yolo = styleOf(styled, "--yolo: calls that would ask run without asking");
            assertTrue(yolo.matches("(?s).*\u001b\\[[0-9;]*(?<![0-9])31(?![0-9])[0-9;]*m.*"), "red: " + yolo.replace("\u001b", "ESC"));
            assertFalse(styleOf(styled, "/help for commands").matches("(?s).*(?<![0-9])31(?![0-9]).*"), "the other header lines are not red");

            tmux.type("list the sizes");
            tmux.press("Enter");
            String screen = tmux.await("That is all.");
            List<String> lines = screen.lines().map(String::strip).toList();
            int head = lines.indexOf("Name      \u2502 Size");
            assertTrue(head >= 0, "the header row in columns:\n" + screen);
            assertEquals(List.of("\u2500".repeat(10) + "\u253c" + "\u2500".repeat(5), "alpha     \u2502    1",
                    "beta-long \u2502   22"), lines.subList(head + 1, head + 4), "padded, Size right-aligned:\n" + screen);
            assertFalse(screen.contains("|------|"), "no raw pipes:\n" + screen);
            tmux.type("/exit");
            tmux.press("Enter");
            tmux.await("[quiver exited 0]");
        }
    }
}
