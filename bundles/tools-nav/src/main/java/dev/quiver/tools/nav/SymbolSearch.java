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
     * @param cancelled whether the call was cancelled before every file was looked at
     */
    record Result(List<Hit> hits, int sourceFiles, int includedFiles, int secrets, int binary, int unreadable,
            boolean cancelled) {
    }

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
        return new Result(hits, sources.get(), included.get(), secrets.get(), binary.get(), unreadable.get(),
                stopped[0]);
    }

    /**
     * The outline of a file that may declare the name: the cached one when the file is unchanged, else
     * the file is read and parsed when it holds the name's literal part; null when it cannot declare it.
     */
    private static Sources.Outline outline(FolderReader reader, String path, Path file, Language language,
            NamePattern name, AtomicInteger binary) throws IOException {
        Sources.Stamp stamp = Sources.stamp(file);
        Sources.Entry entry = Sources.entry(file, stamp);
        if (entry != null) {
            if (entry.outline() != null) {
                return entry.outline();
            }
            if (entry.identifiers() == null) {
                binary.incrementAndGet();
                return null;
            }
            if (!entry.identifiers().mayDeclare(name)) {
                return null;
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
        if (!Sources.contains(source.utf8(), name.needle())) {
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
