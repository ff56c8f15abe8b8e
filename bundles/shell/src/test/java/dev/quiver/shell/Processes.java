package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Looks at processes from outside, through /proc. */
final class Processes {

    private Processes() {
    }

    /**
     * Whether a process still runs. A killed orphan can linger as a zombie when the machine's init
     * does not reap it; a zombie runs nothing and holds no resources but its pid, so it counts as gone.
     */
    static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String afterName = stat.substring(stat.lastIndexOf(')') + 1).trim();
            char state = afterName.charAt(0);
            return state != 'Z' && state != 'X';
        } catch (NoSuchFileException gone) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    static List<Long> pids(Path file) throws IOException {
        List<Long> pids = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank()) {
                pids.add(Long.parseLong(line.trim()));
            }
        }
        return pids;
    }

    /** Waits until none of the processes runs, failing after a generous limit. */
    static void assertAllGoneWithin(long millis, List<Long> pids) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (true) {
            List<Long> alive = pids.stream().filter(Processes::running).toList();
            if (alive.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                alive.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
                fail("still running after " + millis + " ms: " + alive);
            }
            Thread.sleep(50);
        }
    }

    /** Pids of running processes whose command line contains the marker. */
    static List<Long> withMarker(String marker) throws IOException {
        List<Long> found = new ArrayList<>();
        try (var dirs = Files.list(Path.of("/proc"))) {
            for (Path dir : (Iterable<Path>) dirs::iterator) {
                String name = dir.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String cmdline = new String(Files.readAllBytes(dir.resolve("cmdline"))).replace('\0', ' ');
                    long pid = Long.parseLong(name);
                    if (cmdline.contains(marker) && pid != ProcessHandle.current().pid() && running(pid)) {
                        found.add(pid);
                    }
                } catch (IOException vanished) {
                    // the process ended while we looked
                }
            }
        }
        return found;
    }
}
