package dev.quiver.tools.extra;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One pass over a file's bytes, read through the jail as a stream so that any size can be counted:
 * its lines (ended by {@code \n}, {@code \r\n} or a lone {@code \r}, as every file tool counts them),
 * which line breaks it uses, whether it is binary (a NUL byte in the first 8 KB, the workspace's
 * rule) and whether its bytes are valid UTF-8.
 *
 * @param bytes the size
 * @param lines the lines; a final line break starts no extra line
 * @param binary a NUL byte in the first 8 KB
 * @param utf8 every byte sequence is valid UTF-8
 * @param ascii every byte is below 128
 * @param bom the file starts with a UTF-8 byte-order mark
 * @param lf lines ended by {@code \n}
 * @param crlf lines ended by {@code \r\n}
 * @param cr lines ended by a lone {@code \r}
 * @param finalBreak the last line ends with a line break
 */
record FileScan(long bytes, long lines, boolean binary, boolean utf8, boolean ascii, boolean bom, long lf, long crlf,
        long cr, boolean finalBreak) {

    private static final int BINARY_PROBE = 8192;

    /** Reads the file once. The cancellation check is asked between blocks, so a huge file can be stopped. */
    static FileScan of(Workspace workspace, Path file, java.util.function.BooleanSupplier cancelled)
            throws ToolException {
        String name = workspace.relativize(file);
        try (SeekableByteChannel channel = workspace.openRead(file)) {
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
            java.nio.CharBuffer chars = java.nio.CharBuffer.allocate(64 * 1024);
            long total = 0;
            long lf = 0;
            long crlf = 0;
            long cr = 0;
            boolean binary = false;
            boolean utf8 = true;
            boolean ascii = true;
            byte[] head = new byte[3];
            boolean pendingCr = false;
            int last = -1;
            int carried = 0; // bytes of an incomplete character left in the buffer by the decoder, already counted
            while (channel.read(buffer) >= 0) {
                if (cancelled.getAsBoolean()) {
                    throw new ToolException("Cancelled while reading " + name + ".");
                }
                buffer.flip();
                for (int i = carried; i < buffer.limit(); i++) {
                    int b = buffer.get(i) & 0xff;
                    long at = total + i - carried;
                    if (at < head.length) {
                        head[(int) at] = (byte) b;
                    }
                    if (b == 0 && at < BINARY_PROBE) {
                        binary = true;
                    }
                    if (b >= 0x80) {
                        ascii = false;
                    }
                    if (pendingCr) {
                        pendingCr = false;
                        if (b == '\n') {
                            crlf++;
                            last = b;
                            continue;
                        }
                        cr++;
                    }
                    if (b == '\r') {
                        pendingCr = true;
                    } else if (b == '\n') {
                        lf++;
                    }
                    last = b;
                }
                total += buffer.limit() - carried;
                if (utf8) {
                    utf8 = !decode(decoder, buffer, chars, false);
                }
                if (!utf8) {
                    buffer.position(buffer.limit());
                }
                carried = buffer.remaining();
                buffer.compact();
            }
            if (pendingCr) {
                cr++;
            }
            if (utf8) {
                buffer.flip();
                utf8 = !decode(decoder, buffer, chars, true);
            }
            boolean bom = total >= 3 && (head[0] & 0xff) == 0xef && (head[1] & 0xff) == 0xbb && (head[2] & 0xff) == 0xbf;
            boolean finalBreak = last == '\n' || last == '\r';
            long lines = lf + crlf + cr + (total > 0 && !finalBreak ? 1 : 0);
            return new FileScan(total, lines, binary, utf8, ascii, bom, lf, crlf, cr, finalBreak);
        } catch (IOException e) {
            throw new ToolException("Cannot read " + name + ": " + e.getMessage(), e);
        }
    }

    /** Decodes what the buffer holds, leaving an incomplete last character in it; true on an invalid sequence. */
    private static boolean decode(CharsetDecoder decoder, ByteBuffer buffer, java.nio.CharBuffer chars, boolean end) {
        while (true) {
            chars.clear();
            CoderResult result = decoder.decode(buffer, chars, end);
            if (result.isError()) {
                return true;
            }
            if (result.isUnderflow()) {
                return end && buffer.hasRemaining();
            }
        }
    }

    /** The line breaks in words: {@code LF}, {@code CRLF}, {@code mixed (…)} or {@code none}. */
    String lineEndings() {
        List<String> kinds = new ArrayList<>();
        if (lf > 0) {
            kinds.add("LF " + lf);
        }
        if (crlf > 0) {
            kinds.add("CRLF " + crlf);
        }
        if (cr > 0) {
            kinds.add("CR " + cr);
        }
        if (kinds.isEmpty()) {
            return "none (one line, no line break)";
        }
        String kind = kinds.size() > 1 ? "mixed (" + String.join(", ", kinds) + ")" : kinds.get(0).split(" ")[0];
        return kind + (finalBreak ? "" : "; no line break at the end");
    }

    /** The encoding as the file tools read it. */
    String encoding() {
        if (binary) {
            return "binary";
        }
        if (ascii) {
            return "ASCII (valid UTF-8)";
        }
        if (utf8) {
            return bom ? "UTF-8 with a byte-order mark" : "UTF-8";
        }
        return "not valid UTF-8: the file tools read and write it as ISO-8859-1, keeping every byte";
    }
}
