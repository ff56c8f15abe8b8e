package dev.quiver.cli.terminal;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** An output stream that hands over each complete line (without its line end), decoded as UTF-8. */
final class LineOutput extends OutputStream {

    private final Consumer<String> lines;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

    LineOutput(Consumer<String> lines) {
        this.lines = lines;
    }

    @Override
    public synchronized void write(int b) {
        if (b == '\n') {
            String line = pending.toString(StandardCharsets.UTF_8);
            pending.reset();
            lines.accept(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
        } else {
            pending.write(b);
        }
    }

    @Override
    public synchronized void write(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            write(bytes[i]);
        }
    }

    /** A last line without a line end is handed over too. */
    @Override
    public synchronized void close() {
        if (pending.size() > 0) {
            write('\n');
        }
    }
}
