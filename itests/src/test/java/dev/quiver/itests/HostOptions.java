package dev.quiver.itests;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemPackages;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.ops4j.pax.exam.Option;

/** The Felix host as the distribution builds it: every bundle in target/bundles, plus JUnit. */
final class HostOptions {

    private HostOptions() {
    }

    static Option[] host() {
        File folder = new File(System.getProperty("itest.bundles", "target/bundles"));
        File[] jars = folder.listFiles((dir, name) -> name.endsWith(".jar"));
        if (jars == null || jars.length == 0) {
            throw new IllegalStateException("No bundles in " + folder.getAbsolutePath() + "; run through Maven (verify).");
        }
        Arrays.sort(jars);
        List<Option> options = new ArrayList<>();
        for (File jar : jars) {
            String url = "reference:" + jar.toURI();
            // fragments cannot be started
            options.add(jar.getName().startsWith("dev.quiver.logging") ? bundle(url).noStart() : bundle(url));
        }
        // the OpenAI stub of dev.quiver.testing serves HTTP with the JDK's built-in server
        options.add(systemPackages("com.sun.net.httpserver"));
        options.add(systemProperty("org.ops4j.pax.url.mvn.localRepository")
                .value(System.getProperty("org.ops4j.pax.url.mvn.localRepository", "")));
        options.add(systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"));
        options.add(junitBundles());
        options.add(cleanCaches());
        return options.toArray(new Option[0]);
    }
}
