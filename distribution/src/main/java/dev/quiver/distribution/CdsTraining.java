package dev.quiver.distribution;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.osgi.framework.Bundle;

/**
 * The build's class-data-sharing training run: links the bundle classes the run loaded but never
 * linked, so that the archive written at exit holds them.
 *
 * <p>Java 17 writes only linked classes to a dynamic archive ({@code -XX:ArchiveClassesAtExit}), and
 * a start loads several hundred classes it never links: the verifier loads them to check other
 * classes, annotations name them (most of Jackson's annotations, the exception types of
 * {@code catch} clauses). Left out of the archive, each is read from its jar and parsed again at
 * every start. The run names what it loaded in its class-loading log
 * ({@code -Xlog:class+load:file=F}); linking one can load more, so this reads the log again until
 * nothing new appears. Linking does not initialise: no static initialiser runs.
 */
final class CdsTraining {

    private static final String SOURCE = " source: ";
    private static final int MAX_ROUNDS = 10;

    private CdsTraining() {
    }

    /** Links the classes of {@code bundles} that {@code log} says were loaded; returns how many. */
    static int linkLoadedClasses(Path log, List<Bundle> bundles) throws IOException {
        Map<Path, Bundle> byJar = new HashMap<>();
        for (Bundle bundle : bundles) {
            jar(bundle.getLocation().replaceFirst("^reference:", "")).ifPresent(jar -> byJar.put(jar, bundle));
        }
        Set<String> done = new HashSet<>();
        int linked = 0;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            int before = linked;
            for (String line : Files.readAllLines(log)) {
                // "[0.600s][info][class,load] com.example.Name source: file:/…/bundle/x.jar"
                int source = line.indexOf(SOURCE);
                int name = source < 0 ? 0 : line.lastIndexOf(' ', source - 1) + 1;
                if (name <= 0) {
                    continue;
                }
                Bundle bundle = jar(line.substring(source + SOURCE.length()).strip()).map(byJar::get).orElse(null);
                String className = line.substring(name, source);
                if (bundle != null && done.add(className) && link(bundle, className)) {
                    linked++;
                }
            }
            if (linked == before) {
                break;
            }
        }
        return linked;
    }

    /** The jar a {@code file:} URI names ("file:///x.jar" as installed, "file:/x.jar" as logged). */
    private static Optional<Path> jar(String uri) {
        try {
            return uri.startsWith("file:") ? Optional.of(Path.of(URI.create(uri))) : Optional.empty();
        } catch (IllegalArgumentException notAPath) {
            return Optional.empty();
        }
    }

    private static boolean link(Bundle bundle, String className) {
        try {
            // asking for the declared fields links the class (and verifies it) without initialising it
            bundle.loadClass(className).getDeclaredFields();
            return true;
        } catch (ReflectiveOperationException | LinkageError | RuntimeException unlinkable) {
            return false; // it stays out of the archive, as it would have
        }
    }
}
