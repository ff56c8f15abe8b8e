package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LauncherStorageTest {

    @TempDir
    Path cache;

    /** Another user who creates the names a start would try first cannot stop the start. */
    @Test
    void namesTakenInAdvanceDoNotStopTheStart() throws Exception {
        String prefix = StaleCaches.PREFIX + ProcessHandle.current().pid() + "-";
        Set<Path> taken = new HashSet<>();
        for (int i = 0; i <= 200; i++) {
            taken.add(Files.createDirectory(cache.resolve(prefix + i)));
        }
        Path first = Launcher.createStorage(cache);
        Path second = Launcher.createStorage(cache);
        for (Path storage : new Path[] {first, second}) {
            assertTrue(!taken.contains(storage) && Files.isDirectory(storage), storage.toString());
            assertTrue(storage.getFileName().toString().matches(prefix.replace("-", "\\-") + "\\d{1,20}"),
                    "a name the next start's sweep recognises: " + storage);
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(storage)));
            try (var entries = Files.list(storage)) {
                assertEquals(0, entries.count(), "a fresh folder");
            }
        }
        assertNotEquals(first, second);
    }

    /** A start sweeps a dead process's cache under the random name as it did under the counted one. */
    @Test
    void aDeadProcesssRandomlyNamedCacheIsSwept() throws Exception {
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        Path stale = Files.createDirectories(cache.resolve(StaleCaches.PREFIX + finished.pid() + "-"
                + Long.toUnsignedString(-42L) + "/bundle1"));
        assertEquals(1, StaleCaches.sweep(cache));
        assertTrue(Files.notExists(stale.getParent()));
    }
}
