package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.TreeMap;

/**
 * A symbolic-link race for file tools, on real files. A workspace holds {@code victim.txt} and
 * {@code dir/victim.txt}; a swapper thread flips {@code victim.txt} between a regular file and a link
 * to a file outside the workspace (or to the workspace's {@code .env}), and {@code dir} between a real
 * folder and a link to a folder outside. A test calls a tool many times while it runs, then checks
 * that no result showed what is outside or secret ({@link #assertClean(String)}) and that nothing
 * outside changed ({@link #close()}).
 */
public final class LinkRace implements AutoCloseable {

    public static final String OUTSIDE_MARKER = "OUTSIDE-MARKER-7f3a";
    public static final String SECRET_MARKER = "SECRET-MARKER-91c2";

    public final Path root;
    public final Path outside;
    private final String insideText;
    private final Map<String, String> outsideBefore;
    private final Thread swapper;
    private volatile boolean running = true;

    /**
     * @param base an empty folder; the workspace and the outside folder are made in it
     * @param insideText the content of the workspace's victims. Given the outside file's content, a
     *     read-before-write check cannot tell them apart, so a write that escapes is not stopped by it.
     */
    public LinkRace(Path base, String insideText) throws IOException {
        this.insideText = insideText;
        root = Files.createDirectories(base.resolve("workspace")).toRealPath();
        outside = Files.createDirectories(base.resolve("outside")).toRealPath();
        Files.writeString(outside.resolve("victim.txt"), outsideText());
        Files.createDirectories(outside.resolve("dir"));
        Files.writeString(outside.resolve("dir/victim.txt"), outsideText());
        Files.writeString(root.resolve(".env"), "TOKEN=" + SECRET_MARKER + "\n");
        makeRegular();
        outsideBefore = snapshot(outside);
        swapper = new Thread(this::swap, "link-race-swapper");
        swapper.setDaemon(true);
        swapper.start();
    }

    /** The text of the outside victims: the marker, and the inside text when the test asks for look-alikes. */
    public String outsideText() {
        return insideText.contains(OUTSIDE_MARKER) ? insideText : OUTSIDE_MARKER + "\n";
    }

    private void swap() {
        int round = 0;
        while (running) {
            try {
                makeRegular();
                Thread.yield();
                remove(root.resolve("victim.txt"));
                Files.createSymbolicLink(root.resolve("victim.txt"),
                        round++ % 2 == 0 ? outside.resolve("victim.txt") : root.resolve(".env"));
                remove(root.resolve("dir"));
                Files.createSymbolicLink(root.resolve("dir"), outside.resolve("dir"));
                Thread.yield();
            } catch (IOException | UncheckedIOException collided) {
                // a tool moved or made something at the same moment; the next round starts over
            }
        }
    }

    private void makeRegular() throws IOException {
        remove(root.resolve("victim.txt"));
        Files.writeString(root.resolve("victim.txt"), insideText);
        remove(root.resolve("dir"));
        Files.createDirectory(root.resolve("dir"));
        Files.writeString(root.resolve("dir/victim.txt"), insideText);
    }

    /** Removes an entry without following links: a link is removed, a folder with what it holds. */
    private static void remove(Path path) throws IOException {
        if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(path, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Fails when a tool's result (or error) shows the outside file or the secret. */
    /** Calls a tool: its text, or its error's text, which must be as clean. */
    public static String call(Tool tool, Map<String, Object> arguments, ToolContext context) {
        try {
            return tool.call(Arguments.of(arguments), context).text();
        } catch (ToolException refused) {
            return refused.getMessage();
        }
    }

    public void assertClean(String result) {
        assertFalse(result.contains(OUTSIDE_MARKER), () -> "read outside the workspace: " + result);
        assertFalse(result.contains(SECRET_MARKER), () -> "read the secret through a link: " + result);
    }

    /** Stops the swapper, then checks that everything outside is as it was and no workspace file holds what was outside. */
    @Override
    public void close() throws Exception {
        running = false;
        swapper.join();
        assertEquals(outsideBefore, snapshot(outside), "the outside folder changed");
        for (Map.Entry<String, String> file : snapshot(root).entrySet()) {
            if (!file.getKey().equals(".env") && !insideText.contains(OUTSIDE_MARKER)) {
                assertClean(file.getKey() + ": " + file.getValue());
            }
        }
    }

    /** Every entry below a folder, links not followed: files with their content, folders and links by name. */
    static Map<String, String> snapshot(Path folder) throws IOException {
        Map<String, String> entries = new TreeMap<>();
        Files.walkFileTree(folder, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                entries.put(folder.relativize(dir) + "/", "");
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                String content = attributes.isSymbolicLink() ? "-> " + Files.readSymbolicLink(file)
                        : new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)
                                + " mode " + Files.getPosixFilePermissions(file);
                entries.put(folder.relativize(file).toString(), content);
                return FileVisitResult.CONTINUE;
            }
        });
        return entries;
    }
}
