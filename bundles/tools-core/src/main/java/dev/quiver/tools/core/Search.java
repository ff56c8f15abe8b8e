package dev.quiver.tools.core;

import com.google.re2j.Pattern;
import dev.quiver.api.Text;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The grep engine: searches many files in parallel and returns the hits in file order.
 *
 * <p>Per file: the bytes are read once into a reused buffer; a NUL byte in the first 8 KB marks the
 * file binary and skips it; when the pattern names literals that every match contains, a byte scan
 * for them rejects most files without decoding anything, and only the lines around an occurrence are
 * decoded and given to RE2. Files are taken in order by the workers, and the search stops as soon as
 * the files before every unfinished one hold more hits than are wanted, so a broad pattern costs
 * about as much as the first files it matches in.
 *
 * <p>Lines and their numbers are those of {@link Text#lines}: {@code \n}, {@code \r\n} and a lone
 * {@code \r} end a line. A file is decoded as UTF-8 when it is valid UTF-8 and as ISO-8859-1 otherwise,
 * as the workspace reads it.
 */
final class Search {

    /** A NUL byte within this many leading bytes marks a file binary, as read_file judges it. */
    static final int BINARY_PROBE = 8192;
    /** Matching lines are cut to this many characters. */
    static final int MAX_LINE_CHARS = 300;
    /** Files larger than this are not searched. */
    static final int MAX_FILE_BYTES = 64 * 1024 * 1024;

    /**
     * What to search for.
     *
     * @param regex matched against each line
     * @param needles byte strings one of which every matching line contains; empty for none known
     * @param before lines of context before each hit
     * @param after lines of context after each hit
     * @param maxHits how many matching lines to return at most
     */
    record Query(Pattern regex, List<Needle> needles, int before, int after, int maxHits) {
    }

    /** One file's output lines ({@code path:N: text}, context and {@code --} separators) and how many matched. */
    record FileHits(int matches, List<String> lines) {
    }

    /**
     * What a search found.
     *
     * @param files the hits of each file that had any, in file order, holding at most {@code maxHits} matches
     * @param more whether more lines matched than were returned
     * @param secrets files skipped because they hold secrets
     * @param tooLarge files skipped because they are larger than {@value #MAX_FILE_BYTES} bytes
     * @param cancelled whether the call was cancelled before the search finished
     * @param included how many files the include glob let through (of those looked at)
     * @param unreadable files listed that could not be opened or read (gone, changed or refused since the listing)
     */
    record Outcome(List<FileHits> files, int matches, boolean more, int secrets, int tooLarge, boolean cancelled,
            int included, int unreadable) {
    }

    private static final FileHits NONE = new FileHits(0, List.of());

    private final Workspace workspace;
    private final Workspace.FileList paths;
    private final Predicate<String> include;
    private final Query query;
    private final BooleanSupplier cancelled;
    private final Path root;

    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger secrets = new AtomicInteger();
    private final AtomicInteger tooLarge = new AtomicInteger();
    private final AtomicInteger included = new AtomicInteger();
    private final AtomicInteger unreadable = new AtomicInteger();
    /** Each searched file's hits, by its index in {@code paths}; grown as files are taken. */
    private FileHits[] results = new FileHits[1024];
    /** The number of files in {@code paths}, once a worker has read past the last; -1 until then. */
    private int end = -1;
    private int frontier;
    private long prefixMatches;
    private volatile boolean enough;

    private Search(Workspace workspace, Workspace.FileList paths, Predicate<String> include, Query query,
            BooleanSupplier cancelled) {
        this.workspace = workspace;
        this.paths = paths;
        this.include = include;
        this.query = query;
        this.cancelled = cancelled;
        this.root = workspace.root();
    }

    /**
     * Searches the files, in parallel on every core.
     *
     * @param paths workspace-relative paths in the order the hits are to be reported, read only as far as
     *     the search goes
     * @param include which of them to search
     * @throws UncheckedIOException when the list of paths cannot be read
     */
    static Outcome run(Workspace workspace, Workspace.FileList paths, Predicate<String> include, Query query,
            BooleanSupplier cancelled) {
        return run(workspace, paths, include, query, cancelled, Math.max(1, Runtime.getRuntime().availableProcessors()));
    }

    /** As {@link #run(Workspace, Workspace.FileList, Predicate, Query, BooleanSupplier)}, on this many threads (the caller's one of them). */
    static Outcome run(Workspace workspace, Workspace.FileList paths, Predicate<String> include, Query query,
            BooleanSupplier cancelled, int threads) {
        Search search = new Search(workspace, paths, include, query, cancelled);
        List<Thread> helpers = new ArrayList<>();
        RuntimeException[] failure = new RuntimeException[1];
        for (int t = 1; t < threads; t++) {
            Thread helper = new Thread(() -> {
                try {
                    search.work();
                } catch (RuntimeException e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                    search.enough = true;
                }
            }, "quiver-grep-" + t);
            helper.setDaemon(true);
            helper.start();
            helpers.add(helper);
        }
        try {
            search.work();
        } finally {
            search.enough |= Thread.currentThread().isInterrupted();
            for (Thread helper : helpers) {
                joinQuietly(helper);
            }
        }
        synchronized (failure) {
            if (failure[0] != null) {
                throw failure[0];
            }
        }
        return search.outcome();
    }

    private static void joinQuietly(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private Outcome outcome() {
        List<FileHits> files = new ArrayList<>();
        int shown = 0;
        long total = 0;
        boolean complete = end >= 0;
        for (int i = 0; i != end; i++) {
            FileHits hits = i < results.length ? results[i] : null;
            if (hits == null) {
                complete = false;
                break;
            }
            total += hits.matches();
            if (hits.matches() == 0 || shown >= query.maxHits()) {
                continue;
            }
            if (shown + hits.matches() <= query.maxHits()) {
                files.add(hits);
                shown += hits.matches();
            } else {
                files.add(cut(hits, query.maxHits() - shown));
                shown = query.maxHits();
            }
        }
        boolean wasCancelled = !complete && !(total > query.maxHits());
        return new Outcome(files, shown, total > query.maxHits(), secrets.get(), tooLarge.get(), wasCancelled,
                included.get(), unreadable.get());
    }

    /** The first {@code keep} matches of a file's hits, with their context. */
    private static FileHits cut(FileHits hits, int keep) {
        List<String> lines = new ArrayList<>();
        int matches = 0;
        for (String line : hits.lines()) {
            if (isMatchLine(line)) {
                if (matches == keep) {
                    break;
                }
                matches++;
            }
            lines.add(line);
        }
        while (!lines.isEmpty() && lines.get(lines.size() - 1).equals("--")) {
            lines.remove(lines.size() - 1);
        }
        return new FileHits(matches, lines);
    }

    private static boolean isMatchLine(String formatted) {
        return formatted.startsWith("\u0000");
    }

    // ------------------------------------------------------------------------------------- workers

    /** Files up to this size are read into a worker's direct buffer and scanned there, without a copy. */
    private static final int DIRECT_BYTES = 4 << 20;

    /** A heap buffer grown past this is not kept for the next search. */
    private static final int KEPT_HEAP_BYTES = 4 << 20;
    /** How many workers' buffers are kept between searches. */
    private static final int KEPT_BUFFERS = 4;

    /**
     * A worker's read buffers, kept from one search to the next: allocating them zeroes 5 MiB a
     * worker, a millisecond or two of every search, and a direct buffer's memory returns only when
     * the collector runs.
     */
    private static final class Buffers {
        final ByteBuffer direct = ByteBuffer.allocateDirect(DIRECT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        byte[] heap = new byte[1 << 20];
    }

    /** Buffers kept for the next search; full at {@value #KEPT_BUFFERS}, when more are simply dropped. */
    private static final java.util.concurrent.BlockingQueue<Buffers> KEPT =
            new java.util.concurrent.ArrayBlockingQueue<>(KEPT_BUFFERS);

    private static Buffers takeBuffers() {
        Buffers kept = KEPT.poll();
        return kept == null ? new Buffers() : kept;
    }

    private static void keepBuffers(Buffers buffers) {
        if (buffers.heap.length > KEPT_HEAP_BYTES) {
            buffers.heap = new byte[1 << 20];
        }
        KEPT.offer(buffers);
    }

    /** One worker's state: its buffers, its matcher, the folders it reads in. */
    /** How many levels of folders a worker keeps open below the root; see {@link Worker#held}. */
    static final int HELD_DEPTH = 24;

    private final class Worker implements AutoCloseable {
        final Buffers buffers = takeBuffers();
        final LineMatcher matcher = new LineMatcher(query.regex());
        /**
         * The folders of the last file's path, held open by the jail: the root first, then each folder
         * opened relative to the one before (openat). A worker takes files in path order, so each folder
         * is opened once per search, as ripgrep does, instead of walked again from the root. Below
         * {@value Search#HELD_DEPTH} levels only the deepest folder stays open (the others are null): a tree
         * thousands of folders deep would otherwise hold two descriptors a level and could exhaust the
         * process's limit.
         */
        private final List<Workspace.Folder> held = new ArrayList<>();
        /** The names (as listed, so possibly escaped) of the folders below the root, held or not. */
        private final List<String> names = new ArrayList<>();

        /**
         * Opens a file of the workspace for reading through the jail, relative to its held folder.
         *
         * @param relative its workspace-relative path
         * @param name its name, the last element of {@code relative}
         */
        SeekableByteChannel open(String relative, Path name) throws IOException {
            if (held.isEmpty()) {
                held.add(workspace.openFolder(root));
            }
            int end = relative.lastIndexOf('/');
            int from = 0;
            int kept = 0;
            while (from < end && kept < names.size()) {
                int slash = relative.indexOf('/', from);
                String known = names.get(kept);
                if (known.length() != slash - from || !relative.startsWith(known, from)) {
                    break;
                }
                kept++;
                from = slash + 1;
            }
            if (kept > HELD_DEPTH && kept < names.size()) {
                // the shared folder is not held: go down again from the deepest one that is
                from = 0;
                for (int level = 0; level < HELD_DEPTH; level++) {
                    from = relative.indexOf('/', from) + 1;
                }
                kept = HELD_DEPTH;
            }
            closeBelow(kept);
            while (from < end) {
                int slash = relative.indexOf('/', from);
                String child = relative.substring(from, slash);
                // a folder's open that fails leaves the stack as it was: its files are skipped, each
                // trying again, as the tree may be changing
                int deepest = held.size() - 1;
                Workspace.Folder opened = held.get(deepest).openFolder(child);
                if (deepest > HELD_DEPTH) {
                    closeQuietly(held.set(deepest, null));
                }
                held.add(opened);
                names.add(child);
                from = slash + 1;
            }
            return held.get(held.size() - 1).openRead(name.toString());
        }

        /** Closes the folders below the first {@code depth} below the root. */
        private void closeBelow(int depth) {
            while (names.size() > depth) {
                names.remove(names.size() - 1);
                Workspace.Folder folder = held.remove(held.size() - 1);
                if (folder != null) {
                    closeQuietly(folder);
                }
            }
        }

        private static void closeQuietly(Workspace.Folder folder) {
            try {
                folder.close();
            } catch (IOException ignored) {
                // a directory handle that will not close leaks nothing the next open needs
            }
        }

        /** Closes every folder and gives the read buffers back for the next search. */
        @Override
        public void close() {
            closeBelow(0);
            if (!held.isEmpty()) {
                closeQuietly(held.remove(0));
            }
            keepBuffers(buffers);
        }
    }

    private void work() {
        try (Worker worker = new Worker()) {
            while (!enough && !cancelled.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
                int index = next.getAndIncrement();
                String path;
                try {
                    path = paths.get(index);
                } catch (IOException unlisted) {
                    throw new UncheckedIOException(unlisted);
                }
                if (path == null) {
                    ended(index);
                    return;
                }
                FileHits hits;
                try {
                    hits = searchFile(worker, path);
                } catch (IOException notRead) {
                    // vanished or unreadable since it was listed: skipped and counted, as rg skips it and says so
                    unreadable.incrementAndGet();
                    hits = NONE;
                }
                complete(index, hits);
            }
        }
    }

    private synchronized void ended(int index) {
        end = end < 0 ? index : Math.min(end, index);
    }

    private synchronized void complete(int index, FileHits hits) {
        if (index >= results.length) {
            results = Arrays.copyOf(results, Math.max(index + 1, results.length * 2));
        }
        results[index] = hits;
        while (frontier < results.length && results[frontier] != null) {
            prefixMatches += results[frontier].matches();
            frontier++;
        }
        if (prefixMatches > query.maxHits()) {
            enough = true;
        }
    }

    private FileHits searchFile(Worker worker, String relative) throws IOException {
        if (!include.test(relative)) {
            return NONE;
        }
        included.incrementAndGet();
        // one Path of the file's name serves both: secrets are told by name alone (Workspace.isSecret)
        // and the file is opened relative to its folder
        Path name = Path.of(relative.substring(relative.lastIndexOf('/') + 1));
        if (workspace.isSecret(name)) {
            secrets.incrementAndGet();
            return NONE;
        }
        int length = read(worker, relative, name);
        if (length == TOO_LARGE) {
            tooLarge.incrementAndGet();
            return NONE;
        }
        List<Needle> needles = query.needles();
        if (length >= 0) {
            // the whole file is in the direct buffer: most files are rejected right there, by the needle
            // scan when there is one (a file without the needle is skipped, binary or not)
            if (!needles.isEmpty() && !occurs(needles, worker) || Needle.hasNul(worker.buffers.direct, length, BINARY_PROBE)) {
                return NONE;
            }
            if (worker.buffers.heap.length < length) {
                worker.buffers.heap = new byte[Math.max(length, worker.buffers.heap.length * 2)];
            }
            worker.buffers.direct.get(0, worker.buffers.heap, 0, length);
        } else {
            length = -length - 1; // a large file, read onto the heap
            if (Needle.hasNul(worker.buffers.heap, length, BINARY_PROBE)
                    || !needles.isEmpty() && first(needles, worker.buffers.heap, 0, length) < 0) {
                return NONE;
            }
        }
        byte[] bytes = worker.buffers.heap;
        if (!needles.isEmpty() && query.before() == 0 && query.after() == 0) {
            return byOccurrence(worker, relative, bytes, length);
        }
        return byLine(worker, relative, new String(bytes, 0, length, charset(bytes, length)));
    }

    private static final int TOO_LARGE = Integer.MIN_VALUE;

    /**
     * Reads a whole file: a file that fits stays in the worker's direct buffer and its length is returned;
     * a larger one goes to the heap buffer and {@code -length - 1} is returned; {@link #TOO_LARGE} when it
     * is larger than {@value #MAX_FILE_BYTES} bytes.
     */
    private static int read(Worker worker, String file, Path name) throws IOException {
        try (SeekableByteChannel channel = worker.open(file, name)) {
            ByteBuffer direct = worker.buffers.direct;
            direct.clear();
            while (direct.hasRemaining()) {
                int read = channel.read(direct);
                if (read < 0 || read > 0 && direct.hasRemaining()) {
                    // a short read of a regular file is its end: no second system call to be told so
                    return direct.position();
                }
            }
            // the direct buffer is full: the file may be larger, so it continues on the heap
            int length = direct.position();
            if (worker.buffers.heap.length < length * 2) {
                worker.buffers.heap = new byte[length * 2];
            }
            direct.get(0, worker.buffers.heap, 0, length);
            while (true) {
                direct.clear();
                int read = channel.read(direct);
                if (read < 0) {
                    return -length - 1;
                }
                if ((long) length + read > MAX_FILE_BYTES) {
                    return TOO_LARGE;
                }
                if (length + read > worker.buffers.heap.length) {
                    worker.buffers.heap = Arrays.copyOf(worker.buffers.heap, Math.max(length + read, worker.buffers.heap.length * 2));
                }
                direct.flip();
                direct.get(worker.buffers.heap, length, read);
                length += read;
            }
        }
    }

    private static boolean occurs(List<Needle> needles, Worker worker) {
        int length = worker.buffers.direct.position();
        for (Needle needle : needles) {
            if (needle.occursIn(worker.buffers.direct, length)) {
                return true;
            }
        }
        return false;
    }

    private static int first(List<Needle> needles, byte[] bytes, int from, int to) {
        int first = -1;
        for (Needle needle : needles) {
            int at = needle.find(bytes, from, first < 0 ? to : Math.min(to, first + needle.length()));
            if (at >= 0 && (first < 0 || at < first)) {
                first = at;
            }
        }
        return first;
    }

    private static Charset charset(byte[] bytes, int length) {
        if (Needle.isAscii(bytes, 0, length)) {
            return StandardCharsets.UTF_8;
        }
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, 0, length));
            return StandardCharsets.UTF_8;
        } catch (CharacterCodingException notUtf8) {
            return StandardCharsets.ISO_8859_1;
        }
    }

    /**
     * Visits only the lines that hold a needle; every other line is never decoded. Lines are counted
     * only up to a line that matches, and the file's charset is found only for a candidate line that
     * is not ASCII (which both charsets decode alike): most files that hold a needle have no match.
     */
    private FileHits byOccurrence(Worker worker, String relative, byte[] bytes, int length) {
        List<String> lines = new ArrayList<>();
        Charset charset = null;
        int matches = 0;
        int position = 0; // always the start of a line
        int counted = 0; // the start of the line numbered lineNumber
        int lineNumber = 1;
        while (position < length) {
            int at = first(query.needles(), bytes, position, length);
            if (at < 0) {
                break;
            }
            int start = at;
            while (start > position && bytes[start - 1] != '\n' && bytes[start - 1] != '\r') {
                start--;
            }
            int end = at;
            while (end < length && bytes[end] != '\n' && bytes[end] != '\r') {
                end++;
            }
            Charset decoding = StandardCharsets.ISO_8859_1;
            if (!Needle.isAscii(bytes, start, end)) {
                charset = charset == null ? charset(bytes, length) : charset;
                decoding = charset;
            }
            String line = new String(bytes, start, end - start, decoding);
            if (worker.matcher.find(line)) {
                lineNumber += Needle.lineEnds(bytes, counted, start, length);
                counted = start;
                lines.add(matchLine(relative, lineNumber, line));
                matches++;
                if (matches > query.maxHits()) {
                    break;
                }
            }
            position = end < length && bytes[end] == '\r' && end + 1 < length && bytes[end + 1] == '\n' ? end + 2 : end + 1;
        }
        return matches == 0 ? NONE : new FileHits(matches, lines);
    }

    /** Every line of a file that had a candidate (or of every file when no literal is known), with context. */
    private FileHits byLine(Worker worker, String relative, String text) {
        List<String> all = Text.lines(text);
        List<Integer> hits = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (worker.matcher.find(all.get(i))) {
                hits.add(i);
                if (hits.size() > query.maxHits()) {
                    break;
                }
            }
        }
        if (hits.isEmpty()) {
            return NONE;
        }
        List<String> lines = new ArrayList<>();
        int printedUpTo = -1; // the last line index already printed
        for (int hit : hits) {
            int from = Math.max(0, hit - query.before());
            if (printedUpTo >= 0 && from > printedUpTo + 1 && (query.before() > 0 || query.after() > 0)) {
                lines.add("--");
            }
            for (int i = Math.max(from, printedUpTo + 1); i < hit; i++) {
                lines.add(contextLine(relative, i + 1, all.get(i)));
            }
            if (hit > printedUpTo) {
                lines.add(matchLine(relative, hit + 1, all.get(hit)));
            } else {
                // already printed as context after an earlier hit: print it again as a match
                int at = lines.size() - (printedUpTo - hit) - 1;
                lines.set(at, matchLine(relative, hit + 1, all.get(hit)));
            }
            int to = Math.min(all.size() - 1, hit + query.after());
            for (int i = Math.max(hit + 1, printedUpTo + 1); i <= to; i++) {
                lines.add(contextLine(relative, i + 1, all.get(i)));
            }
            printedUpTo = Math.max(printedUpTo, to);
        }
        return new FileHits(hits.size(), lines);
    }

    /** A match line, marked with a leading NUL until it is printed so that it can be told from context. */
    private static String matchLine(String relative, int number, String line) {
        return "\u0000" + relative + ":" + number + ": " + cut(line);
    }

    private static String contextLine(String relative, int number, String line) {
        return relative + "-" + number + "- " + cut(line);
    }

    static String cut(String line) {
        if (line.length() <= MAX_LINE_CHARS) {
            return line;
        }
        int end = Character.isHighSurrogate(line.charAt(MAX_LINE_CHARS - 1)) ? MAX_LINE_CHARS - 1 : MAX_LINE_CHARS;
        return line.substring(0, end) + "...";
    }

    /** A printed line: match lines lose their marker. */
    static String printed(String line) {
        return isMatchLine(line) ? line.substring(1) : line;
    }
}
