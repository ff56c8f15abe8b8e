package dev.quiver.workspace;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace.TextWindow;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A window of lines of a file too large to hold whole, read as a stream: every line is counted, only
 * the window's are kept. The rules are {@link JailedWorkspace#readText}'s: a NUL byte in the first
 * 8 KB is binary, and a file that is not valid UTF-8 throughout is ISO-8859-1 (found by a first pass
 * that fails, then a second).
 */
final class LargeText {

    private LargeText() {
    }

    static TextWindow window(Jail jail, java.nio.file.Path file, String shown, int offset, int limit, long maxChars)
            throws ToolException {
        try {
            try {
                return read(jail, file, shown, offset, limit, maxChars, StandardCharsets.UTF_8);
            } catch (CharacterCodingException notUtf8) {
                return read(jail, file, shown, offset, limit, maxChars, StandardCharsets.ISO_8859_1);
            }
        } catch (java.nio.file.FileSystemException e) {
            throw new ToolException("Cannot read " + shown + ": " + JailedWorkspace.reason(e) + ".", e);
        } catch (IOException e) {
            throw new ToolException("Cannot read " + shown + ": " + e.getMessage(), e);
        }
    }

    private static TextWindow read(Jail jail, java.nio.file.Path file, String shown, int offset, int limit,
            long maxChars, Charset charset) throws IOException, ToolException {
        try (SeekableByteChannel channel = jail.openRead(file);
                InputStream in = new BufferedInputStream(Channels.newInputStream(channel), 1 << 16)) {
            in.mark(JailedWorkspace.BINARY_PROBE_BYTES);
            byte[] probe = in.readNBytes(JailedWorkspace.BINARY_PROBE_BYTES);
            if (JailedWorkspace.isBinary(probe)) {
                throw new ToolException(shown + " is a binary file (it has a NUL byte in its first 8 KB); "
                        + "only text files can be read.");
            }
            in.reset();
            Reader reader = new InputStreamReader(in, charset.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT));
            return split(reader, shown, offset, limit, maxChars, charset);
        }
    }

    /** Lines end at {@code \n}, {@code \r} or {@code \r\n}, as {@link dev.quiver.api.Text#lines} splits them. */
    private static TextWindow split(Reader reader, String shown, int offset, int limit, long maxChars, Charset charset)
            throws IOException, ToolException {
        long last = (long) offset + limit - 1;
        List<String> kept = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        long keptChars = 0;
        long number = 1; // the line being read
        boolean partial = false; // characters after the last terminator
        boolean afterCr = false;
        char[] buffer = new char[1 << 16];
        int count;
        while ((count = reader.read(buffer)) >= 0) {
            for (int i = 0; i < count; i++) {
                char c = buffer[i];
                if (afterCr) {
                    afterCr = false;
                    if (c == '\n') {
                        continue;
                    }
                }
                boolean inWindow = number >= offset && number <= last;
                if (c == '\n' || c == '\r') {
                    if (inWindow) {
                        kept.add(line.toString());
                        line.setLength(0);
                    }
                    number++;
                    partial = false;
                    afterCr = c == '\r';
                } else {
                    partial = true;
                    if (inWindow) {
                        if (++keptChars > maxChars) {
                            throw new ToolException("Lines " + offset + "-" + last + " of " + shown + " hold more than "
                                    + maxChars + " characters; read fewer lines (limit), or one long line with bash "
                                    + "(cut -c1-2000).");
                        }
                        line.append(c);
                    }
                }
            }
        }
        if (partial) {
            if (number >= offset && number <= last) {
                kept.add(line.toString());
            }
            number++;
        }
        long total = number - 1;
        if (total > Integer.MAX_VALUE) {
            throw new ToolException(shown + " has more than " + Integer.MAX_VALUE + " lines; search it with grep.");
        }
        return new TextWindow(kept, (int) total, charset);
    }
}
