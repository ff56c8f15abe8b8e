package dev.quiver.shell;

/**
 * One output stream of a background command, read in windows: each {@link #take()} returns what
 * arrived since the previous one (head and tail kept, like {@link OutputCapture}) and starts afresh.
 */
final class PollBuffer implements Sink {

    private final int headLimit;
    private final int tailLimit;
    private OutputCapture window;
    private long total;

    PollBuffer(int headLimit, int tailLimit) {
        this.headLimit = headLimit;
        this.tailLimit = tailLimit;
        this.window = new OutputCapture(headLimit, tailLimit, null);
    }

    @Override
    public synchronized void accept(byte[] buffer, int length) {
        total += length;
        window.accept(buffer, length);
    }

    /** What arrived since the previous call. */
    synchronized String take() {
        String text = window.text();
        window = new OutputCapture(headLimit, tailLimit, null);
        return text;
    }

    /** Bytes received in all. */
    synchronized long total() {
        return total;
    }
}
