package dev.quiver.tools.nav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.testing.Monitors;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.treesitter.TSParser;
import org.treesitter.TreeSitterGo;
import org.treesitter.TreeSitterJava;
import org.treesitter.TreeSitterJavascript;
import org.treesitter.TreeSitterPython;
import org.treesitter.TreeSitterRust;
import org.treesitter.TreeSitterTsx;
import org.treesitter.TreeSitterTypescript;

/**
 * The JVM lets one class loader load a library file. dev.quiver.bash embeds the same tree-sitter binding,
 * which loads from one fixed folder, so this bundle must load its natives from a folder of its own —
 * whatever loaded the binding first.
 */
class NativesTest {

    /** The lock both bundles load under: a string literal, so this is the very object their code holds. */
    private static final String JVM_WIDE_LOCK = "tree-sitter-lib";

    @TempDir
    Path store;

    @Test
    void anotherClassLoaderThatLoadedTheBindingFirstDoesNotStopThisBundle() throws Exception {
        URL[] jars = {jar(TSParser.class), jar(TreeSitterJava.class)};
        // stands for dev.quiver.bash: the binding loaded from the store folder in a class loader of its own
        System.setProperty("tree-sitter-lib", store.toString());
        try {
            loadParserIn(new URLClassLoader(jars, ClassLoader.getPlatformClassLoader()));
            // a second class loader loading from the same folder is refused by the JVM: the trap itself
            UnsatisfiedLinkError refused = assertThrows(UnsatisfiedLinkError.class,
                    () -> loadParserIn(new URLClassLoader(jars, ClassLoader.getPlatformClassLoader())));
            assertTrue(refused.getMessage().contains("already loaded in another classloader"), refused.getMessage());
        } finally {
            System.clearProperty("tree-sitter-lib");
        }
        Declarations.Reading reading = Declarations.read(Language.JAVA, "class Loaded {}".getBytes());
        assertEquals(List.of("Loaded"), reading.declarations().stream().map(Declaration::name).toList());
        assertNull(System.getProperty("tree-sitter-lib"), "the property is put back as it was");
    }

    /**
     * The binding's folder property is JVM-wide: were this bundle to set it while dev.quiver.bash loads,
     * bash would load from this bundle's folder and one of the two would fail. Both load only while
     * holding the same JVM-wide lock (bash's side: its own NativesTest), so while another holds it this
     * bundle waits, before setting anything. A class loader of its own stands for this bundle's first load.
     */
    @Test
    void theNativesAreLoadedOnlyWhileHoldingTheLockDevQuiverBashLoadsUnder() throws Exception {
        URL[] classes = {jar(Natives.class), jar(TSParser.class), jar(TreeSitterJava.class),
            jar(TreeSitterJavascript.class), jar(TreeSitterTypescript.class), jar(TreeSitterTsx.class),
            jar(TreeSitterPython.class), jar(TreeSitterGo.class), jar(TreeSitterRust.class)};
        Method load = new URLClassLoader(classes, ClassLoader.getPlatformClassLoader())
                .loadClass(Natives.class.getName()).getDeclaredMethod("load");
        load.setAccessible(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread loading = new Thread(() -> {
            try {
                load.invoke(null);
            } catch (ReflectiveOperationException | RuntimeException e) {
                failure.set(e);
            }
        }, "first load of the nav natives");
        synchronized (JVM_WIDE_LOCK) {
            loading.start();
            Monitors.awaitBlockedOn(loading, JVM_WIDE_LOCK);
        }
        loading.join();
        assertNull(failure.get(), () -> "the load failed: " + failure.get());
        assertNull(System.getProperty("tree-sitter-lib"), "the property is put back as it was");
    }

    private static void loadParserIn(ClassLoader loader) throws Exception {
        Class.forName("org.treesitter.TSParser", true, loader).getConstructor().newInstance();
    }

    private static URL jar(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }
}
