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
    /**
     * The cache's bound, in ints: a file's identifier hashes count one each and a declaration 16, so
     * about 100 MB at most.
     */
    private static final long MAX_CACHED_WEIGHT = 24_000_000L;
    /** The Bloom filter's size for a glob's literal part: a sixth to a fifth of its bits are set on the JDK's sources. */
    private static final int BLOOM_BITS_PER_IDENTIFIER = 16;

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
            return out.toString();
        }
    }

    /** What tells a changed file: its size, modification time and identity (device and inode). */
    record Stamp(long size, FileTime modified, Object fileKey) {
    }

    /**
     * What is kept of a file read at one stamp.
     *
     * @param identifiers what its identifiers rule out ({@link #identifiers}); null for a binary file
     * @param outline what its parse found; null when it was read but not parsed
     */
    record Entry(Stamp stamp, Identifiers identifiers, Outline outline) {

        int weight() {
            return (identifiers == null ? 0 : identifiers.hashes().length + 2 * identifiers.runs().length)
                    + (outline == null ? 0 : 16 * outline.declarations().size());
        }
    }

    /**
     * What a file's identifiers tell without reading it again. An exact name is looked up among the
     * identifiers' hashes; a glob's literal part may sit anywhere inside a name, so it is looked up in a
     * Bloom filter of every run of three and of four bytes inside an identifier: a literal the file holds
     * inside one has all its runs there. Runs of four tell {@code Fork} from a file that has only
     * {@code Format} and {@code work}.
     *
     * @param hashes the identifiers' hashes ({@link #token}), sorted and distinct
     * @param runs the filter's bits, a power of two of them, about {@value #BLOOM_BITS_PER_IDENTIFIER} per
     *     distinct identifier
     */
    record Identifiers(int[] hashes, long[] runs) {

        /** Whether the file may declare a name the pattern matches; a false answer is sure. */
        boolean mayDeclare(NamePattern name) {
            if (name.needleIsIdentifier()) {
                return Arrays.binarySearch(hashes, name.needleToken()) >= 0;
            }
            byte[] needle = name.needle();
            for (int length = 3; length <= 4; length++) {
                for (int at = 0; at + length <= needle.length; at++) {
                    int bit = runBit(needle, at, length, runs.length);
                    if ((runs[bit >>> 6] & 1L << bit) == 0) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    private static final Object LOCK = new Object();
    private static long cachedWeight;
    private static final LinkedHashMap<Path, Entry> CACHE = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Path, Entry> eldest) {
            if (cachedWeight > MAX_CACHED_WEIGHT) {
                cachedWeight -= eldest.getValue().weight();
                return true;
            }
            return false;
        }
    };

    private Sources() {
    }

    /** What is kept of a file whose stamp is still this one, or null. */
    static Entry entry(Path file, Stamp stamp) {
        if (stamp == null) {
            return null;
        }
        synchronized (LOCK) {
            Entry entry = CACHE.get(file);
            return entry != null && entry.stamp().equals(stamp) ? entry : null;
        }
    }

    /** Keeps what was read of a file under the stamp taken before the read. */
    static void remember(Path file, Entry entry) {
        if (entry.stamp() == null || entry.outline() != null && entry.outline().timedOut()) {
            return;
        }
        synchronized (LOCK) {
            Entry previous = CACHE.put(file, entry);
            cachedWeight += entry.weight() - (previous == null ? 0 : previous.weight());
        }
    }

    /** The file's outline, from the cache or parsed now; null when the file is binary. */
    static Outline outline(Workspace workspace, Path file, Language language) throws IOException {
        Stamp stamp = stamp(file);
        Entry entry = entry(file, stamp);
        if (entry != null && (entry.outline() != null || entry.identifiers() == null)) {
            return entry.outline();
        }
        Source source;
        try (SeekableByteChannel channel = workspace.openRead(file)) {
            source = read(channel);
        }
        if (source.binary()) {
            remember(file, new Entry(stamp, null, null));
            return null;
        }
        Outline outline = parse(source, language);
        remember(file, new Entry(stamp, identifiers(source.utf8()), outline));
        return outline;
    }

    /** Parses content already read. */
    static Outline parse(Source source, Language language) {
        Declarations.Reading reading = Declarations.read(language, source.utf8());
        return new Outline(language, reading.declarations(), reading.errorLine(), reading.timedOut(), source.cutAtLine());
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

    /** Reads at most {@value #MAX_PARSE_BYTES} bytes from a file the workspace's jail opened. */
    static Source read(SeekableByteChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(MAX_PARSE_BYTES + 1L, Math.max(channel.size(), 0) + 1));
        while (buffer.hasRemaining() && channel.read(buffer) > 0) {
            if (!buffer.hasRemaining() && buffer.capacity() <= MAX_PARSE_BYTES) {
                buffer = ByteBuffer.allocate(Math.min(MAX_PARSE_BYTES + 1, buffer.capacity() * 2)).put(buffer.flip());
            }
        }
        byte[] bytes = Arrays.copyOf(buffer.array(), buffer.position());
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

    /**
     * A text's identifiers: runs of ASCII letters, digits, {@code _} and {@code $} and of any non-ASCII
     * byte. A name declared in the file is one of them, so a file whose identifiers rule a name out need
     * not be read again to look for it.
     */
    static Identifiers identifiers(byte[] utf8) {
        int[] hashes = new int[256];
        int count = 0;
        int i = 0;
        while (i < utf8.length) {
            if (!isIdentifierByte(utf8[i])) {
                i++;
                continue;
            }
            int start = i;
            while (i < utf8.length && isIdentifierByte(utf8[i])) {
                i++;
            }
            if (count == hashes.length) {
                hashes = Arrays.copyOf(hashes, count * 2);
            }
            hashes[count++] = token(utf8, start, i);
        }
        int[] sorted = Arrays.copyOf(hashes, count);
        Arrays.sort(sorted);
        int distinct = 0;
        for (int j = 0; j < sorted.length; j++) {
            if (j == 0 || sorted[j] != sorted[j - 1]) {
                sorted[distinct++] = sorted[j];
            }
        }
        // a power of two, so that a bit is the hash's low bits
        long[] runs = new long[Integer.highestOneBit(Math.max(1, distinct * BLOOM_BITS_PER_IDENTIFIER / 64) * 2 - 1)];
        for (int at = 0; at + 3 <= utf8.length; at++) {
            if (isIdentifierByte(utf8[at]) && isIdentifierByte(utf8[at + 1]) && isIdentifierByte(utf8[at + 2])) {
                int bit = runBit(utf8, at, 3, runs.length);
                runs[bit >>> 6] |= 1L << bit;
                if (at + 4 <= utf8.length && isIdentifierByte(utf8[at + 3])) {
                    bit = runBit(utf8, at, 4, runs.length);
                    runs[bit >>> 6] |= 1L << bit;
                }
            }
        }
        return new Identifiers(Arrays.copyOf(sorted, distinct), runs);
    }

    /**
     * The filter's bit for the run of three or four bytes at {@code at}, in a filter of {@code words} longs
     * (a power of two). Identifier bytes are never 0, so a run of four never reads as one of three.
     */
    private static int runBit(byte[] bytes, int at, int length, int words) {
        int run = 0;
        for (int i = at; i < at + length; i++) {
            run = run << 8 | bytes[i] & 0xff;
        }
        // MurmurHash3's finaliser: runs differ in few bits, which one multiplication leaves clustered
        run = (run ^ run >>> 16) * 0x85ebca6b;
        run = (run ^ run >>> 13) * 0xc2b2ae35;
        return (run ^ run >>> 16) & (words * 64 - 1);
    }

    private static boolean isIdentifierByte(byte b) {
        return b < 0 || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '$';
    }

    /** The hash of one identifier's UTF-8 bytes. */
    static int token(byte[] utf8, int from, int to) {
        int hash = 0x811c9dc5;
        for (int i = from; i < to; i++) {
            hash = (hash ^ (utf8[i] & 0xff)) * 0x01000193;
        }
        return hash;
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
