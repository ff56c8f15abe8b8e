package dev.quiver.tools.nav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.treesitter.TSParser;
import org.treesitter.TreeSitterJava;

/**
 * The JVM lets one class loader load a library file. dev.quiver.bash embeds the same tree-sitter binding,
 * which loads from one fixed folder, so this bundle must load its natives from a folder of its own —
 * whatever loaded the binding first.
 */
class NativesTest {

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

    private static void loadParserIn(ClassLoader loader) throws Exception {
        Class.forName("org.treesitter.TSParser", true, loader).getConstructor().newInstance();
    }

    private static URL jar(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }
}
