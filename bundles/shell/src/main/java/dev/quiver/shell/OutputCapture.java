package dev.quiver.shell;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * One output stream of a process: keeps its first and last bytes and counts what falls between,
 * so a command printing gigabytes costs a fixed amount of memory, and passes the text on live.
 */
final class OutputCapture implements Sink {


    private final int headLimit;
    private final byte[] tail;
    private final ByteArrayOutputStream head;
    private final CharsetDecoder liveDecoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    private final Consumer<String> live;
    private byte[] undecoded = new byte[0];
    private long total;
    private int tailStart;
    private int tailLength;

    /** @param live receives the text as it arrives; {@code null} when no one watches */
    OutputCapture(int headLimit, int tailLimit, Consumer<String> live) {
        this.headLimit = headLimit;
        this.tail = new byte[tailLimit];
        this.head = new ByteArrayOutputStream(Math.min(headLimit, 8192));
        this.live = live;
    }

    @Override
    public synchronized void accept(byte[] buffer, int length) {
        total += length;
        int offset = 0;
        int toHead = Math.min(length, headLimit - head.size());
        if (toHead > 0) {
            head.write(buffer, 0, toHead);
            offset = toHead;
        }
        for (int i = offset; i < length; i++) {
            int index = (tailStart + tailLength) % tail.length;
            tail[index] = buffer[i];
            if (tailLength < tail.length) {
                tailLength++;
            } else {
                tailStart = (tailStart + 1) % tail.length;
            }
        }
        if (live != null) {
            streamLive(buffer, length);
        }
    }

    private void streamLive(byte[] buffer, int length) {
        ByteBuffer in;
        if (undecoded.length == 0) {
            in = ByteBuffer.wrap(buffer, 0, length);
        } else {
            byte[] joined = new byte[undecoded.length + length];
            System.arraycopy(undecoded, 0, joined, 0, undecoded.length);
            System.arraycopy(buffer, 0, joined, undecoded.length, length);
            in = ByteBuffer.wrap(joined);
        }
        CharBuffer chars = CharBuffer.allocate(in.remaining() + 1);
        liveDecoder.decode(in, chars, false);
        // the decoder leaves the bytes of a character split across reads in the input: keep them for the next read
        undecoded = new byte[in.remaining()];
        in.get(undecoded);
        chars.flip();
        if (chars.hasRemaining()) {
            try {
                live.accept(chars.toString());
            } catch (RuntimeException ignored) {
                // a front end that fails to show output must not stop the command or lose its result
            }
        }
    }

    /** Everything kept, with a note where the middle was dropped. */
    synchronized String text() {
        String first = head.toString(StandardCharsets.UTF_8);
        long dropped = total - head.size() - tailLength;
        if (tailLength == 0) {
            return first;
        }
        byte[] last = new byte[tailLength];
        for (int i = 0; i < tailLength; i++) {
            last[i] = tail[(tailStart + i) % tail.length];
        }
        String end = new String(last, StandardCharsets.UTF_8);
        if (dropped == 0) {
            return new String(concat(head.toByteArray(), last), StandardCharsets.UTF_8);
        }
        return first + "\n... [" + dropped + " bytes of output dropped from the middle; " + total
                + " bytes in all] ...\n" + end;
    }

    synchronized long total() {
        return total;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
