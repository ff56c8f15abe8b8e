package dev.quiver.workspace;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Another program writing to a file while edits run: a thread appending a numbered line about every
 * millisecond, each time opening, appending and closing the file as {@code echo >> file} does. Close it
 * and ask {@link #lost} which of its lines the file no longer holds. Shipped in this bundle's test jar.
 */
public final class Appender implements AutoCloseable {

    private final Path file;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger appended = new AtomicInteger();
    private final Thread thread;

    public Appender(Path file) {
        this.file = file;
        this.thread = new Thread(this::run, "appender");
        thread.start();
    }

    private void run() {
        while (!stop.get()) {
            try {
                Files.write(file, line(appended.get()).getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
                appended.incrementAndGet();
                Thread.sleep(1);
            } catch (IOException | InterruptedException e) {
                return;
            }
        }
    }

    private static String line(int n) {
        return "appended line " + n + "\n";
    }

    /** How many lines were appended. */
    public int appended() {
        return appended.get();
    }

    /** The appended lines the file does not hold, by number; read after {@link #close}. */
    public List<Integer> lost() throws IOException {
        String text = Files.readString(file, StandardCharsets.ISO_8859_1);
        List<Integer> lost = new ArrayList<>();
        for (int n = 0; n < appended.get(); n++) {
            if (!text.contains(line(n))) {
                lost.add(n);
            }
        }
        return lost;
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join(TimeUnit.SECONDS.toMillis(30));
    }
}
