package dev.quiver.cli.terminal;

import dev.quiver.api.host.SessionOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jline.builtins.ScreenTerminal;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.ExternalTerminal;

/**
 * The terminal front end on a JLine terminal over pipes, driven with real key bytes. What it
 * writes is replayed through a VT100 emulator ({@link ScreenTerminal}), so tests read the screen
 * a person would see.
 */
final class TerminalHarness implements AutoCloseable {

    static final int WIDTH = 100;
    static final int HEIGHT = 80;

    final FakeSession session;
    final FakeServices services;
    final Path history;
    private final PipedOutputStream keys = new PipedOutputStream();
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private final Terminal terminal;
    final CompletableFuture<Integer> exit = new CompletableFuture<>();

    TerminalHarness(FakeSession session, FakeServices services, Path history) throws IOException {
        this.session = session;
        this.services = services;
        this.history = history;
        PipedInputStream in = new PipedInputStream(keys, 1 << 16);
        OutputStream out = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (written) {
                    written.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (written) {
                    written.write(b, off, len);
                }
            }
        };
        terminal = new ExternalTerminal("test", "xterm-256color", in, out, StandardCharsets.UTF_8);
        terminal.setSize(new Size(WIDTH, HEIGHT));
        Launch launch = new Launch(session.kernel(), "9.9.9", SessionOptions.headless(session.workspace), services,
                null, new PrintStream(OutputStream.nullOutputStream()), new PrintStream(OutputStream.nullOutputStream()),
                Map.of(), history, false);
        Thread thread = new Thread(() -> {
            try {
                exit.complete(new JLineFrontEnd(launch, terminal).run());
            } catch (Throwable t) {
                exit.completeExceptionally(t);
            }
        }, "test-terminal");
        thread.setDaemon(true);
        thread.start();
    }

    /** Types text; {@code \r} is enter, {@code \033} escape, {@code \003} ctrl-c, {@code \t} tab. */
    TerminalHarness type(String text) throws IOException {
        keys.write(text.getBytes(StandardCharsets.UTF_8));
        keys.flush();
        return this;
    }

    /** The screen as a person sees it now, trailing spaces trimmed. */
    String screen() {
        String text;
        synchronized (written) {
            text = written.toString(StandardCharsets.UTF_8);
        }
        ScreenTerminal screen = new ScreenTerminal(WIDTH, HEIGHT);
        screen.write(text);
        StringBuilder out = new StringBuilder();
        for (String line : screen.toString().split("\n", -1)) {
            out.append(line.replaceAll("[\\s\\u0000]+$", "")).append('\n');
        }
        return out.toString().replaceAll("\n+$", "\n");
    }

    /** Everything written, escape codes included. */
    String raw() {
        synchronized (written) {
            return written.toString(StandardCharsets.UTF_8);
        }
    }

    /** Waits until the screen shows the text; fails with the screen otherwise. */
    String await(String text) throws InterruptedException {
        return await(screen -> screen.contains(text), "the screen to show \"" + text + "\"");
    }

    String await(Predicate<String> condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        String screen = screen();
        while (System.nanoTime() < deadline) {
            screen = screen();
            if (condition.test(screen)) {
                return screen;
            }
            Thread.sleep(20);
        }
        String state = "";
        if (exit.isDone()) {
            try {
                state = " The front end ended with " + exit.get() + ".";
            } catch (Exception e) {
                AssertionError failure = new AssertionError("The front end failed.", e.getCause());
                throw failure;
            }
        }
        throw new AssertionError("Timed out waiting for " + what + "." + state + " The screen:\n" + screen
                + "\nWritten:\n" + raw().replace("\033", "\\e"));
    }

    /** The line the cursor's prompt is on: the last line starting with the prompt mark. */
    String inputLine() {
        String[] lines = screen().split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            if (lines[i].startsWith("› ") || lines[i].startsWith("? ") || lines[i].equals("›") || lines[i].equals("?")) {
                return lines[i];
            }
        }
        return "";
    }

    int awaitExit() throws Exception {
        return exit.get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws IOException {
        for (String keys : new String[] {"\025\004", "\033\003\003"}) {
            if (!exit.isDone()) {
                type(keys); // clear the line and end the input; else abort and quit
                try {
                    exit.get(3, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // try the next way out
                }
            }
        }
        keys.close();
    }
}
