package dev.quiver.tools.nav;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Loads tree-sitter's natives into this bundle's class loader.
 *
 * <p>The binding's classes load their library when first used, from a copy it writes to
 * {@code ~/.tree-sitter} unless the system property {@value #STORE} names another folder. The JVM lets
 * one class loader load a library file: {@code dev.quiver.bash} embeds the same binding, and this
 * bundle after an update is a second class loader too. So every class loader of this bundle has the
 * natives copied into a fresh folder of its own, loads them from there at once, and removes the copies
 * (a loaded library stays mapped).
 *
 * <p>The property is JVM-wide, so it is set, used and put back only while holding {@link #STORE}
 * itself: a string literal is interned once for the whole JVM, so it is one object in every bundle's
 * class loader without any bundle exporting a lock, and {@code dev.quiver.bash} loads its own natives
 * under the same one. Neither can load from the other's folder.
 */
final class Natives {

    /** The binding's property, and the JVM-wide lock held while it is set (see above). */
    private static final String STORE = "tree-sitter-lib";
    /** The binding's classes whose static initialisers load a library: the runtime, then each grammar. */
    private static final String[] LOADERS = {"org.treesitter.TSParser", "org.treesitter.TreeSitterJava",
        "org.treesitter.TreeSitterJavascript", "org.treesitter.TreeSitterTypescript", "org.treesitter.TreeSitterTsx", "org.treesitter.TreeSitterPython",
        "org.treesitter.TreeSitterGo", "org.treesitter.TreeSitterRust"};

    private static Throwable failure;
    private static boolean loaded;

    private Natives() {
    }

    /**
     * Loads every library once; later calls return at once, or fail again as the first did.
     *
     * @throws IllegalStateException naming why tree-sitter cannot run here
     */
    static synchronized void load() {
        if (!loaded && failure == null) {
            try {
                loadAll();
                loaded = true;
            } catch (IOException | LinkageError | ReflectiveOperationException | RuntimeException e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw new IllegalStateException("tree-sitter cannot run on this machine ("
                    + System.getProperty("os.name") + " " + System.getProperty("os.arch") + "): " + failure, failure);
        }
    }

    private static void loadAll() throws IOException, ReflectiveOperationException {
        Path folder = Files.createTempDirectory("quiver-tree-sitter-");
        try {
            synchronized (STORE) {
                String before = System.getProperty(STORE);
                System.setProperty(STORE, folder.toString());
                try {
                    for (String name : LOADERS) {
                        Class.forName(name, true, Natives.class.getClassLoader());
                    }
                } finally {
                    if (before == null) {
                        System.clearProperty(STORE);
                    } else {
                        System.setProperty(STORE, before);
                    }
                }
            }
        } finally {
            remove(folder);
        }
    }

    /** Removes the copies; one that cannot be removed is left in the temporary folder, harmless. */
    private static void remove(Path folder) {
        try (Stream<Path> copies = Files.walk(folder)) {
            for (Path copy : copies.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(copy);
            }
        } catch (IOException e) {
            // left for the system's temporary-file cleaning
        }
    }
}
