package dev.quiver.bash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.treesitter.TSLanguage;
import org.treesitter.TreeSitterBash;

/**
 * Loads tree-sitter's natives into this bundle's class loader, from a fresh folder of its own.
 *
 * <p>The binding's classes load their library when first used, from a copy written to the folder the
 * system property {@value #STORE} names (else {@code ~/.tree-sitter}), and the JVM lets one class
 * loader load a library file. {@code dev.quiver.tools.nav} embeds the same binding and sets that
 * property to its own folder while it loads: were this bundle to load in that instant, from that
 * folder, one of the two would fail. So both set, use and put back the property only while holding
 * the property's name, a string literal: interned once for the whole JVM, it is one lock in every
 * bundle without any bundle exporting it.
 */
final class Natives {

    /** The binding's property, and the JVM-wide lock held while it is set (see above). */
    private static final String STORE = "tree-sitter-lib";

    private Natives() {
    }

    /**
     * Loads the runtime and the bash grammar and returns the grammar; called once, from a class
     * initialiser, so a failure reaches the parser as the {@link LinkageError} it falls back on.
     */
    static TSLanguage loadBash() {
        Path folder;
        try {
            folder = Files.createTempDirectory("quiver-tree-sitter-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            synchronized (STORE) {
                String before = System.getProperty(STORE);
                System.setProperty(STORE, folder.toString());
                try {
                    // the runtime's library is loaded by TSParser's class initialiser, the grammar's by its class's
                    Class.forName("org.treesitter.TSParser", true, Natives.class.getClassLoader());
                    return new TreeSitterBash();
                } catch (ClassNotFoundException e) {
                    throw new NoClassDefFoundError(e.getMessage());
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

    /** Removes the copies (a loaded library stays mapped); one that cannot be removed is left, harmless. */
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
