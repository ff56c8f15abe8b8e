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
     * The text of {@code in}, at most {@link #MAX_CHARS}; empty when there is none.
     *
     * @throws IllegalArgumentException naming the limit when there is more
     */
    static Optional<String> read(Reader in) throws IOException {
        char[] buffer = new char[8192];
        StringBuilder text = new StringBuilder();
        for (int n; (n = in.read(buffer)) >= 0;) {
            text.append(buffer, 0, n);
            if (text.length() > MAX_CHARS) {
                throw new IllegalArgumentException("stdin holds more than " + MAX_CHARS + " characters, too much to "
                        + "add to the prompt; write it to a file and name the file in the prompt instead.");
            }
        }
        return text.toString().isBlank() ? Optional.empty() : Optional.of(text.toString());
    }

    /** The prompt with the piped text after it; the piped text alone when the prompt is blank. */
    static String prompt(String prompt, Optional<String> piped) {
        if (piped.isEmpty()) {
            return prompt;
        }
        return prompt.isBlank() ? piped.get() : prompt + "\n\n" + piped.get();
    }
}
