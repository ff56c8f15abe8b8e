package dev.quiver.tools.nav;

import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads source files through the workspace and keeps what their parse found, so a file is parsed again
 * only when it changed.
 */
final class Sources {

    /** Only this many leading bytes of a file are parsed; the rest is left out and said. */
    static final int MAX_PARSE_BYTES = 4 << 20;
    /** A NUL byte within this many leading bytes marks a file binary, as read_file judges it. */
    private static final int BINARY_PROBE = 8192;
    /** The cache holds outlines of at most this many declarations in all. */
    private static final int MAX_CACHED_DECLARATIONS = 400_000;

    /**
     * A file's content as parsed.
     *
     * @param utf8 the text as UTF-8 (a file that is not valid UTF-8 is read as ISO-8859-1 and re-encoded)
     * @param binary whether a NUL byte marks it binary; then {@code utf8} is empty
     * @param cutAtLine when the file was over {@value #MAX_PARSE_BYTES} bytes, the last line kept; 0 otherwise
     */
    record Source(byte[] utf8, boolean binary, int cutAtLine) {
    }

    /**
     * What the parse of a file found.
     *
     * @param language the language it was read as
     * @param declarations in file order
     * @param errorLine the first line with a syntax error, 0 for none
     * @param timedOut whether the parse ran out of time
     * @param cutAtLine the last line parsed of a file too large to parse whole, 0 otherwise
     */
    record Outline(Language language, List<Declaration> declarations, int errorLine, boolean timedOut, int cutAtLine) {

        /** A note for the model when the outline is not the whole file's, or empty. */
        String caveat(String path) {
            StringBuilder out = new StringBuilder();
            if (timedOut) {
                out.append("[").append(path).append(": the parse ran out of time; nothing was read]");
            }
            if (errorLine > 0) {
                out.append("[").append(path).append(": syntax errors from line ").append(errorLine)
                        .append("; declarations near them may be missing or misread]");
            }
            if (cutAtLine > 0) {
                out.append("[").append(path).append(": over ").append(MAX_PARSE_BYTES >> 20)
                        .append(" MB; only lines 1-").append(cutAtLine).append(" were parsed]");
            }
            if (language == Language.TSX && errorLine > 0) {
                out.append("[no TSX grammar is packaged: .tsx is read with the TypeScript or the JavaScript grammar]");
            }
            return out.toString();
        }
    }

    /** What tells a changed file: its size, modification time and identity (device and inode). */
    record Stamp(long size, FileTime modified, Object fileKey) {
    }

    private record Cached(Stamp stamp, Outline outline) {
    }

    private static final Object LOCK = new Object();
    private static int cachedDeclarations;
    private static final LinkedHashMap<Path, Cached> CACHE = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Path, Cached> eldest) {
            if (cachedDeclarations > MAX_CACHED_DECLARATIONS) {
                cachedDeclarations -= eldest.getValue().outline().declarations().size();
                return true;
            }
            return false;
        }
    };

    private Sources() {
    }

    /** The outline cached for a file that has not changed since, or null. */
    static Outline cached(Path file) {
        Stamp stamp = stamp(file);
        if (stamp == null) {
            return null;
        }
        synchronized (LOCK) {
            Cached cached = CACHE.get(file);
            return cached != null && cached.stamp().equals(stamp) ? cached.outline() : null;
        }
    }

    /** The file's outline, from the cache or parsed now; null when the file is binary. */
    static Outline outline(Workspace workspace, Path file, Language language) throws IOException {
        Stamp stamp = stamp(file);
        synchronized (LOCK) {
            Cached cached = CACHE.get(file);
            if (stamp != null && cached != null && cached.stamp().equals(stamp)) {
                return cached.outline();
            }
        }
        Source source = read(workspace, file);
        return source.binary() ? null : parse(file, stamp, source, language);
    }

    /** Parses content already read, and caches the outline under the file's stamp taken before the read. */
    static Outline parse(Path file, Stamp stamp, Source source, Language language) {
        Declarations.Reading reading = Declarations.read(language, source.utf8());
        Outline outline = new Outline(language, reading.declarations(), reading.errorLine(), reading.timedOut(),
                source.cutAtLine());
        if (stamp != null && !reading.timedOut()) {
            synchronized (LOCK) {
                Cached previous = CACHE.put(file, new Cached(stamp, outline));
                cachedDeclarations += outline.declarations().size()
                        - (previous == null ? 0 : previous.outline().declarations().size());
            }
        }
        return outline;
    }

    /**
     * The file's stamp, taken before reading it; null when it cannot be read. Only a cache key: the
     * content itself is always read through the workspace's jail.
     */
    static Stamp stamp(Path file) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            return new Stamp(attributes.size(), attributes.lastModifiedTime(), attributes.fileKey());
        } catch (IOException e) {
            return null;
        }
    }

    /** Reads at most {@value #MAX_PARSE_BYTES} bytes of a file, through the workspace's jail. */
    static Source read(Workspace workspace, Path file) throws IOException {
        byte[] bytes;
        try (SeekableByteChannel channel = workspace.openRead(file)) {
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(MAX_PARSE_BYTES + 1L, Math.max(channel.size(), 0) + 1));
            while (buffer.hasRemaining() && channel.read(buffer) > 0) {
                if (!buffer.hasRemaining() && buffer.capacity() <= MAX_PARSE_BYTES) {
                    buffer = ByteBuffer.allocate(Math.min(MAX_PARSE_BYTES + 1, buffer.capacity() * 2)).put(buffer.flip());
                }
            }
            bytes = Arrays.copyOf(buffer.array(), buffer.position());
        }
        for (int i = 0, n = Math.min(bytes.length, BINARY_PROBE); i < n; i++) {
            if (bytes[i] == 0) {
                return new Source(new byte[0], true, 0);
            }
        }
        int cutAtLine = 0;
        if (bytes.length > MAX_PARSE_BYTES) {
            int end = MAX_PARSE_BYTES;
            while (end > 0 && bytes[end - 1] != '\n') {
                end--;
            }
            bytes = Arrays.copyOf(bytes, end == 0 ? MAX_PARSE_BYTES : end);
            cutAtLine = lineCount(bytes);
        }
        return new Source(utf8(bytes), false, cutAtLine);
    }

    /** The bytes as UTF-8: themselves when valid, else read as ISO-8859-1 (which keeps every byte) and re-encoded. */
    private static byte[] utf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return bytes;
        } catch (CharacterCodingException e) {
            return new String(bytes, StandardCharsets.ISO_8859_1).getBytes(StandardCharsets.UTF_8);
        }
    }

    private static int lineCount(byte[] bytes) {
        int lines = 0;
        for (byte b : bytes) {
            if (b == '\n') {
                lines++;
            }
        }
        return bytes.length > 0 && bytes[bytes.length - 1] != '\n' ? lines + 1 : lines;
    }

    /** Whether {@code needle} occurs in {@code haystack}. */
    static boolean contains(byte[] haystack, byte[] needle) {
        Objects.requireNonNull(needle);
        if (needle.length == 0) {
            return true;
        }
        byte first = needle[0];
        int last = haystack.length - needle.length;
        outer:
        for (int i = 0; i <= last; i++) {
            if (haystack[i] != first) {
                continue;
            }
            for (int j = 1; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
