package dev.quiver.distribution;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes the framework caches that killed Quiver processes left behind. Each process makes
 * {@code quiver-felix-<pid>-<n>} and deletes it at exit; a process killed with SIGKILL cannot, and on
 * {@code /dev/shm} such a folder holds memory until the machine restarts. A folder is swept only when
 * its process is gone, it is a real folder (not a link) owned by this user, and Felix's own
 * {@code cache.lock} in it is free: a process in another pid namespace sharing the folder holds that
 * lock, so a pid that merely looks dead from here never costs a live process its cache.
 */
final class StaleCaches {

    static final String PREFIX = "quiver-felix-";
    private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "(\\d{1,10})-\\d{1,20}");
    /** How long the exit waits for a sweep still running; what is left is swept by the next start. */
    private static final long AWAIT_MILLIS = 5_000;

    private StaleCaches() {
    }

    /** Sweeps {@code parent} on a daemon thread, so start-up never waits for it. */
    static Thread sweepInBackground(Path parent) {
        Thread sweeper = new Thread(() -> sweep(parent), "quiver-cache-sweep");
        sweeper.setDaemon(true);
        sweeper.start();
        return sweeper;
    }

    static void awaitSweep(Thread sweeper) {
        try {
            sweeper.join(AWAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Deletes every stale cache folder directly in {@code parent}; returns how many. */
    static int sweep(Path parent) {
        long self = ProcessHandle.current().pid();
        int swept = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent, PREFIX + "*")) {
            for (Path folder : entries) {
                Matcher name = NAME.matcher(folder.getFileName().toString());
                if (!name.matches()) {
                    continue;
                }
                long pid = Long.parseLong(name.group(1));
                if (pid != self && ProcessHandle.of(pid).isEmpty() && ownFolder(folder) && unlocked(folder)) {
                    Launcher.deleteTree(folder);
                    swept++;
                }
            }
        } catch (IOException | RuntimeException e) {
            // a folder that cannot be listed keeps its leftovers; they cost space, never correctness
        }
        return swept;
    }

    private static boolean ownFolder(Path folder) throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(folder, PosixFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
        return attributes.isDirectory()
                && attributes.owner().getName().equals(System.getProperty("user.name"));
    }

    /** Whether no process holds Felix's lock on the cache: a lock held elsewhere means it is in use. */
    private static boolean unlocked(Path folder) {
        Path lock = folder.resolve("cache.lock");
        if (!Files.isRegularFile(lock, LinkOption.NOFOLLOW_LINKS)) {
            return true;
        }
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
                FileLock held = channel.tryLock()) {
            return held != null;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
