package dev.quiver.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What {@code -p} reads from stdin, as {@code git diff | quiver -p "review this"} expects: the text piped
 * or redirected from a file, added to the prompt as context. A terminal, {@code /dev/null} or any other
 * device is never read, so {@code quiver -p} typed at a prompt does not wait for input.
 */
final class PipedInput {

    /** The most stdin adds to a prompt; a longer text is better named in the prompt for the agent to read. */
    static final int MAX_CHARS = 1024 * 1024;
    /** How long {@code -p} waits for a pipe's first byte before going on without it. */
    static final java.time.Duration FIRST_WAIT = java.time.Duration.ofSeconds(3);

    private static final int TYPE_MASK = 0170000;
    private static final int FIFO = 0010000;
    private static final int REGULAR = 0100000;

    private PipedInput() {
    }

    /** Whether the process's stdin is a pipe or a regular file (not a terminal or a device). */
    static boolean stdinIsPipeOrFile() {
        try {
            int type = (Integer) Files.getAttribute(Path.of("/proc/self/fd/0"), "unix:mode") & TYPE_MASK;
            return type == FIFO || type == REGULAR;
        } catch (IOException | RuntimeException e) {
            return false; // no way to tell: never wait on it
        }
    }

    /**
     * The text of {@code in}, at most {@link #MAX_CHARS}; empty when there is none, or when nothing at all
     * arrived within {@code firstWait}: a pipe a script opened and never writes to or closes (a child
     * process spawned with a piped stdin) must not make {@code -p} wait forever. Once the first character
     * is there, the rest is read to its end.
     *
     * @param notice told when stdin was given up on, for the user
     * @throws IllegalArgumentException naming the limit when there is more
     */
    static Optional<String> read(Reader in, java.time.Duration firstWait, java.util.function.Consumer<String> notice)
            throws IOException {
        StringBuilder text = new StringBuilder();
        java.util.concurrent.CompletableFuture<Boolean> started = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletableFuture<Void> ended = new java.util.concurrent.CompletableFuture<>();
        Thread reader = new Thread(() -> {
            char[] buffer = new char[8192];
            try {
                for (int n; (n = in.read(buffer)) >= 0;) {
                    synchronized (text) {
                        text.append(buffer, 0, n);
                    }
                    started.complete(true);
                    if (text.length() > MAX_CHARS) {
                        break;
                    }
                }
                started.complete(true);
                ended.complete(null);
            } catch (IOException | RuntimeException e) {
                started.complete(true);
                ended.completeExceptionally(e);
            }
        }, "quiver-stdin");
        reader.setDaemon(true); // when stdin is given up on, it may block on it until the process ends
        reader.start();
        try {
            started.get(firstWait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            ended.get();
        } catch (java.util.concurrent.TimeoutException silent) {
            notice.accept("no input arrived on stdin within " + firstWait.toSeconds() + " s, so it is not read; pipe "
                    + "the text before Quiver starts, or run it with < /dev/null");
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        synchronized (text) {
            if (text.length() > MAX_CHARS) {
                throw new IllegalArgumentException("stdin holds more than " + MAX_CHARS + " characters, too much to "
                        + "add to the prompt; write it to a file and name the file in the prompt instead.");
            }
            return text.toString().isBlank() ? Optional.empty() : Optional.of(text.toString());
        }
    }

    /** The prompt with the piped text after it; the piped text alone when the prompt is blank. */
    static String prompt(String prompt, Optional<String> piped) {
        if (piped.isEmpty()) {
            return prompt;
        }
        return prompt.isBlank() ? piped.get() : prompt + "\n\n" + piped.get();
    }
}
