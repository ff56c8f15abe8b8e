package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.re2j.Pattern;
import dev.quiver.api.Arguments;
import dev.quiver.api.Workspace;
import dev.quiver.workspace.ToolTestContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A search holds the folders of the file it reads as a stack, each opened relative to the one above
 * (Workspace.Folder#openFolder): the same hits as opening every folder from the root, never a file
 * outside the workspace whatever is swapped in meanwhile, and every folder closed when it ends.
 */
class SearchFolderStackTest {

    @TempDir
    Path base;
    Path root;
    Path outside;

    @BeforeEach
    void folders() throws IOException {
        root = Files.createDirectories(base.resolve("ws")).toRealPath();
        outside = Files.createDirectories(base.resolve("outside")).toRealPath();
    }

    private void file(String path, String content) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    /** Folders entered, left and entered again in walk order, escaped names, links to a file and a folder inside. */
    @Test
    void aTreeWhoseFoldersComeAndGoGivesEveryHitInPathOrder() throws Exception {
        for (String path : List.of("top.txt", "a/x.txt", "a/b/y.txt", "a/b/c/z.txt", "a/d.txt", "a/e/w.txt",
                "f/g/h.txt", "f/i.txt")) {
            file(path, "needle in " + path + "\n");
        }
        Files.createSymbolicLink(root.resolve("a/b/link.txt"), Path.of("../x.txt"));
        Files.createSymbolicLink(root.resolve("linked"), Path.of("a/b"));
        shell("mkdir -p \"$(printf 'sub\\376/deeper')\" && printf 'needle raw\\n' > \"$(printf 'sub\\376/in.txt')\" "
                + "&& printf 'needle deeper\\n' > \"$(printf 'sub\\376/deeper/q.txt')\"");
        assertEquals(String.join("\n",
                "a/b/c/z.txt:1: needle in a/b/c/z.txt",
                "a/b/link.txt:1: needle in a/x.txt",
                "a/b/y.txt:1: needle in a/b/y.txt",
                "a/d.txt:1: needle in a/d.txt",
                "a/e/w.txt:1: needle in a/e/w.txt",
                "a/x.txt:1: needle in a/x.txt",
                "f/g/h.txt:1: needle in f/g/h.txt",
                "f/i.txt:1: needle in f/i.txt",
                "sub\\xFE/deeper/q.txt:1: needle deeper",
                "sub\\xFE/in.txt:1: needle raw",
                "top.txt:1: needle in top.txt"),
                new GrepTool().call(Arguments.of(Map.of("pattern", "needle")), new ToolTestContext(root)).text());
    }

    /**
     * A folder on a worker's stack swapped for a link to outside between two of its files: the worker
     * that holds it keeps reading the folder it opened (the original inode, which was inside when it was
     * checked, and is still: it was only renamed); a folder opened after the swap, by any worker, goes
     * through the link's check and is refused. Nothing outside is read either way.
     */
    @Test
    void aHeldFolderSwappedForALinkOutsideBetweenTwoFilesIsNeverReadOutside() throws Exception {
        List<String> files = new java.util.ArrayList<>();
        files.add("a/b/one.txt");
        for (int i = 0; i < 30; i++) {
            files.add(String.format("a/b/f%02d.txt", i));
        }
        files.add("a/c/three.txt");
        for (String path : files) {
            file(path, "needle inside\n");
            Path out = outside.resolve(path.substring(2));
            Files.createDirectories(out.getParent());
            Files.writeString(out, "needle OUTSIDE\n");
        }
        Workspace workspace = new ToolTestContext(root).workspace();
        AtomicReference<Thread> first = new AtomicReference<>();
        CountDownLatch swapped = new CountDownLatch(1);
        // the worker that read one.txt swaps a for the link as it takes its next file: it holds a and b
        // then; every other worker waits for the swap, so it opens its folders after it
        Predicate<String> include = path -> {
            if (path.equals("a/b/one.txt")) {
                first.set(Thread.currentThread());
                return true;
            }
            if (Thread.currentThread() == first.get() && swapped.getCount() > 0) {
                try {
                    Files.move(root.resolve("a"), root.resolve("a-moved"));
                    Files.createSymbolicLink(root.resolve("a"), outside);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                swapped.countDown();
                return true;
            }
            try {
                assertTrue(swapped.await(30, TimeUnit.SECONDS), "the swap happened");
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return true;
        };
        Search.Outcome outcome = Search.run(workspace, listOf(files), include, query("needle"), () -> false);
        String hits = outcome.files().stream().flatMap(file -> file.lines().stream()).collect(Collectors.joining("\n"));
        assertEquals(0, swapped.getCount(), "the swap happened");
        assertFalse(hits.contains("OUTSIDE"), hits);
        assertTrue(hits.contains("a/b/one.txt"), hits);
        // the file the swapping worker took next was read from its held folder b: the original one
        assertTrue(outcome.matches() >= 2, hits);
    }

    /** Every folder a search opens is closed at its end, also those whose open or whose files failed. */
    @Test
    void aThousandSearchesLeaveNoFolderOpen() throws Exception {
        for (String path : List.of("top.txt", "a/x.txt", "a/b/y.txt", "a/b/c/z.txt", "d/e/w.txt")) {
            file(path, "needle\n");
        }
        Files.createSymbolicLink(root.resolve("a/out"), outside);
        Files.writeString(outside.resolve("x.txt"), "needle OUTSIDE\n");
        ToolTestContext context = new ToolTestContext(root);
        Workspace workspace = context.workspace();
        // folders that cannot be opened: missing, a file, a link out of the workspace, a name that is no name
        Workspace.FileList failing = listOf(List.of("a/b/c/z.txt", "missing/x.txt", "a/x.txt/y.txt", "a/out/x.txt",
                "a/../../outside/x.txt", "d/e/w.txt", "top.txt"));
        GrepTool grep = new GrepTool();
        for (int i = 0; i < 10; i++) {
            grep.call(Arguments.of(Map.of("pattern", "needle")), context);
        }
        long before = openFiles();
        for (int i = 0; i < 1_000; i++) {
            assertEquals(5, grep.call(Arguments.of(Map.of("pattern", "needle")), context).text().lines().count());
            Search.Outcome outcome = Search.run(workspace, failing, path -> true, query("needle"), () -> false);
            assertEquals(3, outcome.matches());
            // the four that cannot be opened are counted, not dropped without a word
            assertEquals(4, outcome.unreadable());
        }
        long after = openFiles();
        // one handle leaked a search would be a thousand; a few come and go with the JVM's own work
        assertTrue(after < before + 20, "open files went from " + before + " to " + after);
    }

    /**
     * A tree far deeper than the folders a worker keeps open: every hit found, in order, and the open
     * handles bounded (attack review: two descriptors a level, a hostile repository's 2,000-deep tree
     * exhausted the process's limit and grep dropped files without a word).
     */
    @Test
    void aVeryDeepTreeIsSearchedWithABoundedNumberOfOpenFolders() throws Exception {
        List<String> files = new java.util.ArrayList<>();
        StringBuilder dir = new StringBuilder();
        for (int level = 0; level < 300; level++) {
            dir.append("d").append(level % 7).append('/');
            if (level % 10 == 3 || level > 290) {
                files.add(dir + "f" + level + ".txt");
                // a sibling of a deep folder, entered after it: the stack goes up and down again
                files.add(dir + "s/x" + level + ".txt");
            }
        }
        files.sort(null);
        for (String path : files) {
            file(path, "needle " + path.substring(path.lastIndexOf('/') + 1) + "\n");
        }
        Workspace workspace = new ToolTestContext(root).workspace();
        long before = openFiles();
        java.util.concurrent.atomic.AtomicLong most = new java.util.concurrent.atomic.AtomicLong();
        Predicate<String> include = path -> {
            try {
                most.accumulateAndGet(openFiles(), Math::max);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return true;
        };
        Search.Outcome outcome = Search.run(workspace, listOf(files), include, query("needle"), () -> false);
        assertEquals(files.size(), outcome.matches());
        String hits = outcome.files().stream().flatMap(file -> file.lines().stream()).collect(Collectors.joining("\n"));
        for (String path : files) {
            assertTrue(hits.contains("needle " + path.substring(path.lastIndexOf('/') + 1)), path);
        }
        // at most two handles a level for the levels kept open and the deepest, per worker, and some slack
        long bound = before + 2L * (Search.HELD_DEPTH + 3) * Runtime.getRuntime().availableProcessors() + 30;
        assertTrue(most.get() <= bound, "open files rose to " + most.get() + " from " + before + ", bound " + bound);
    }

    private static Search.Query query(String literal) {
        return new Search.Query(Pattern.compile(literal), List.of(), 0, 0, 1_000);
    }

    private static Workspace.FileList listOf(List<String> files) {
        return index -> index < files.size() ? files.get(index) : null;
    }

    private static long openFiles() throws IOException {
        try (var list = Files.list(Path.of("/proc/self/fd"))) {
            return list.count();
        }
    }

    private void shell(String script) throws Exception {
        Process process = new ProcessBuilder("sh", "-c", script).directory(root.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
    }
}
