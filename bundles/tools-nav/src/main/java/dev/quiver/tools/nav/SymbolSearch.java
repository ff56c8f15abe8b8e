package dev.quiver.tools.nav;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Finds declarations by name in every source file the ignore rules keep, on every core. A file whose
 * outline is cached and unchanged is not read; any other is read once, and parsed only when it holds the
 * name's literal part, as a declaration of the name must.
 */
final class SymbolSearch {

    /** One declaration found, in its file. */
    record Hit(String path, Declaration declaration, Sources.Outline outline) {
    }

    /**
     * What a search found.
     *
     * @param hits in walk order, then by position in the file
     * @param sourceFiles files in a supported language that the include glob let through
     * @param includedFiles files of any kind that the include glob let through
     * @param secrets files skipped because they hold secrets by name
     * @param binary files skipped because they are binary
     * @param unreadable files that could not be read
     * @param partial files that hold the name's literal part yet whose parse was not whole (syntax errors,
     *     out of time), or that were cut at the size bound, and where no definition was found: one may hide
     *     there
     * @param cancelled whether the call was cancelled before every file was looked at
     */
    record Result(List<Hit> hits, int sourceFiles, int includedFiles, int secrets, int binary, int unreadable,
            List<Partial> partial, boolean cancelled) {

        /**
         * Notes naming the files where a definition may have been missed, for the model to read them
         * otherwise; empty when there are none.
         */
        List<String> missedNotes() {
            List<String> notes = new ArrayList<>();
            note(notes, partial.stream().filter(p -> !p.inPart()).map(Partial::path).toList(),
                    "had syntax errors", "had syntax errors");
            note(notes, partial.stream().filter(Partial::inPart).map(Partial::path).toList(),
                    "was parsed only in part" + PARTIAL_WHY, "were parsed only in part" + PARTIAL_WHY);
            return notes;
        }

        private static void note(List<String> notes, List<String> paths, String one, String many) {
            if (paths.isEmpty()) {
                return;
            }
            String named = String.join(", ", paths.subList(0, Math.min(paths.size(), MAX_NAMED)));
            notes.add("[" + paths.size() + (paths.size() == 1 ? " file holding the name " + one
                    : " files holding the name " + many) + "; definitions there may be missed: " + named
                    + (paths.size() > MAX_NAMED ? " and " + (paths.size() - MAX_NAMED) + " more" : "") + "]");
        }
    }

    /**
     * A file that may hold the name but whose parse was not whole, and showed no definition of it. A file
     * cut at the size bound is one whatever its first part holds.
     */
    record Partial(String path, Sources.Outline outline) {

        /** Whether only a part of the file was parsed (cut at the bound or out of time), not just with errors. */
        boolean inPart() {
            return outline.cutAtLine() > 0 || outline.timedOut();
        }
    }

    private static final String PARTIAL_WHY = " (over " + (Sources.MAX_PARSE_BYTES >> 20) + " MB, or out of time)";

    /** Files named in a note about partial parses; the rest are counted. */
    static final int MAX_NAMED = 10;

    /** Files a worker takes at a time: neighbours in walk order, so mostly of one folder. */
    private static final int BATCH = 32;

    private SymbolSearch() {
    }

    static Result run(Workspace workspace, NamePattern name, String kind, Predicate<String> include,
            BooleanSupplier cancelled) throws ToolException {
        Workspace.FileList files;
        try {
            files = workspace.fileList(workspace.root(), false);
        } catch (IOException e) {
            throw new ToolException("Cannot list the workspace: " + e.getMessage(), e);
        }
        Path root = workspace.root();
        ConcurrentMap<Integer, List<Hit>> byIndex = new ConcurrentHashMap<>();
        ConcurrentMap<Integer, Partial> partial = new ConcurrentHashMap<>();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger sources = new AtomicInteger();
        AtomicInteger included = new AtomicInteger();
        AtomicInteger secrets = new AtomicInteger();
        AtomicInteger binary = new AtomicInteger();
        AtomicInteger unreadable = new AtomicInteger();
        boolean[] stopped = new boolean[1];
        Runnable work = () -> {
            try (FolderReader reader = new FolderReader(workspace)) {
                while (true) {
                    int from = next.getAndAdd(BATCH);
                    for (int index = from; index < from + BATCH; index++) {
                        if (cancelled.getAsBoolean()) {
                            stopped[0] = true;
                            return;
                        }
                        String path = files.get(index);
                        if (path == null) {
                            return;
                        }
                        if (!include.test(path)) {
                            continue;
                        }
                        included.incrementAndGet();
                        Language language = Language.of(path).orElse(null);
                        if (language == null) {
                            continue;
                        }
                        sources.incrementAndGet();
                        Path file = root.resolve(path);
                        if (workspace.isSecret(file)) {
                            secrets.incrementAndGet();
                            continue;
                        }
                        Sources.Outline outline;
                        try {
                            outline = outline(reader, path, file, language, name, binary);
                        } catch (IOException e) {
                            unreadable.incrementAndGet();
                            continue;
                        }
                        if (outline == null) {
                            continue;
                        }
                        List<Hit> hits = new ArrayList<>();
                        for (Declaration declaration : outline.declarations()) {
                            if (declaration.isDefinition() && (kind == null || kind.equals(declaration.kind()))
                                    && name.matches(declaration)) {
                                hits.add(new Hit(path, declaration, outline));
                            }
                        }
                        if (!hits.isEmpty()) {
                            byIndex.put(index, hits);
                        } else if (outline.errorLine() > 0 || outline.cutAtLine() > 0 || outline.timedOut()) {
                            partial.put(index, new Partial(path, outline));
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        run(work);
        List<Hit> hits = new ArrayList<>();
        byIndex.entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
                .forEach(entry -> hits.addAll(entry.getValue()));
        List<Partial> partials = partial.entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
                .map(java.util.Map.Entry::getValue).toList();
        return new Result(hits, sources.get(), included.get(), secrets.get(), binary.get(), unreadable.get(), partials,
                stopped[0]);
    }

    /**
     * The outline of a file that may declare the name: the cached one when the file is unchanged, else
     * the file is read and parsed when it holds the name's literal part; null when it cannot declare it.
     * A cached outline is returned only for a file whose identifiers may hold the name, so that a file with
     * syntax errors is named as a place a definition may hide when it holds the name, warm or cold. A file
     * over the size bound is always parsed, as the name may sit in the part that was not read.
     */
    private static Sources.Outline outline(FolderReader reader, String path, Path file, Language language,
            NamePattern name, AtomicInteger binary) throws IOException {
        Sources.Stamp stamp = Sources.stamp(file);
        Sources.Entry entry = Sources.entry(file, stamp);
        if (entry != null) {
            if (entry.identifiers() == null) {
                binary.incrementAndGet();
                return null;
            }
            Sources.Outline cached = entry.outline();
            // a file cut at the size bound may hold the name past the cut, where no identifier was read
            if (cached != null && cached.cutAtLine() > 0) {
                return cached;
            }
            if (!entry.identifiers().mayDeclare(name)) {
                return null;
            }
            if (cached != null) {
                return cached;
            }
        }
        Sources.Source source;
        try (SeekableByteChannel channel = reader.open(path)) {
            source = Sources.read(channel);
        }
        if (source.binary()) {
            binary.incrementAndGet();
            Sources.remember(file, new Sources.Entry(stamp, null, null));
            return null;
        }
        Sources.Identifiers identifiers = Sources.identifiers(source.utf8());
        if (source.cutAtLine() == 0
                && (!identifiers.mayDeclare(name) || !Sources.contains(source.utf8(), name.needle()))) {
            Sources.remember(file, new Sources.Entry(stamp, identifiers, null));
            return null;
        }
        Sources.Outline outline = Sources.parse(source, language);
        Sources.remember(file, new Sources.Entry(stamp, identifiers, outline));
        return outline;
    }

    /** Opens files relative to their folder, held open while the files of one folder are read, as grep does. */
    private static final class FolderReader implements AutoCloseable {
        private final Workspace workspace;
        private String folder;
        private Workspace.Folder held;

        FolderReader(Workspace workspace) {
            this.workspace = workspace;
        }

        SeekableByteChannel open(String relative) throws IOException {
            int slash = relative.lastIndexOf('/');
            String dir = slash < 0 ? "" : relative.substring(0, slash);
            if (!dir.equals(folder)) {
                close();
                held = workspace.openFolder(dir.isEmpty() ? workspace.root() : workspace.root().resolve(dir));
                folder = dir;
            }
            return held.openRead(relative.substring(slash + 1));
        }

        @Override
        public void close() throws IOException {
            folder = null;
            if (held != null) {
                Workspace.Folder closing = held;
                held = null;
                closing.close();
            }
        }
    }

    /** Runs the work on every core, this thread included, and rethrows the first failure. */
    private static void run(Runnable work) throws ToolException {
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        List<Thread> helpers = new ArrayList<>();
        RuntimeException[] failure = new RuntimeException[1];
        for (int t = 1; t < threads; t++) {
            Thread helper = new Thread(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                }
            }, "quiver-find-symbol-" + t);
            helper.setDaemon(true);
            helper.start();
            helpers.add(helper);
        }
        try {
            work.run();
        } catch (RuntimeException e) {
            synchronized (failure) {
                failure[0] = e;
            }
        }
        for (Thread helper : helpers) {
            boolean interrupted = false;
            while (true) {
                try {
                    helper.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (failure) {
            if (failure[0] instanceof UncheckedIOException e) {
                throw new ToolException("Cannot list the workspace: " + e.getCause().getMessage(), e.getCause());
            }
            if (failure[0] instanceof IllegalStateException e) {
                throw new ToolException(e.getMessage(), e);
            }
            if (failure[0] != null) {
                throw failure[0];
            }
        }
    }
}
