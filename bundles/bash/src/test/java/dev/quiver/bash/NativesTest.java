package dev.quiver.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.quiver.testing.Monitors;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.treesitter.TSParser;
import org.treesitter.TreeSitterBash;

/**
 * dev.quiver.tools.nav embeds the same tree-sitter binding and sets its JVM-wide folder property while it
 * loads; this bundle loading in that instant would load from that folder and one of the two would fail.
 * Both load only while holding the same JVM-wide lock (the nav side: its own NativesTest).
 */
class NativesTest {

    /** The lock both bundles load under: a string literal, so this is the very object their code holds. */
    private static final String JVM_WIDE_LOCK = "tree-sitter-lib";

    /** A class loader of its own stands for this bundle's first parse. */
    @Test
    void theNativesAreLoadedOnlyWhileHoldingTheLockDevQuiverToolsNavLoadsUnder() throws Exception {
        URL[] classes = {jar(Natives.class), jar(TSParser.class), jar(TreeSitterBash.class)};
        Method load = new URLClassLoader(classes, ClassLoader.getPlatformClassLoader())
                .loadClass(Natives.class.getName()).getDeclaredMethod("loadBash");
        load.setAccessible(true);
        AtomicReference<Object> grammar = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread loading = new Thread(() -> {
            try {
                grammar.set(load.invoke(null));
            } catch (ReflectiveOperationException | RuntimeException e) {
                failure.set(e);
            }
        }, "first load of the bash natives");
        synchronized (JVM_WIDE_LOCK) {
            loading.start();
            Monitors.awaitBlockedOn(loading, JVM_WIDE_LOCK);
        }
        loading.join();
        assertNull(failure.get(), () -> "the load failed: " + failure.get());
        assertEquals("org.treesitter.TreeSitterBash", grammar.get().getClass().getName());
        assertNull(System.getProperty("tree-sitter-lib"), "the property is put back as it was");
    }

    private static URL jar(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }
}
