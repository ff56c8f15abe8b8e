package dev.quiver.itests;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;
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

    /**
     * The host as the distribution configures the plugin platform: catalogue installs are kept in a
     * fresh folder, and the host's own bundles (target/bundles) are the installation, never refused.
     */
    static Option[] platform() {
        List<Option> options = new ArrayList<>(Arrays.asList(host()));
        File bundles = new File(System.getProperty("itest.bundles", "target/bundles")).getAbsoluteFile();
        try {
            options.add(frameworkProperty("quiver.plugins.dir").value(
                    java.nio.file.Files.createTempDirectory("quiver-plugins").toString()));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        options.add(frameworkProperty("quiver.catalog.exempt").value(bundles.toString()));
        return options.toArray(new Option[0]);
    }

    /** {@link #platform()} with FileInstall watching a folder, as the distribution's deploy/. */
    static Option[] withDeployFolder(java.nio.file.Path deploy) {
        List<Option> options = new ArrayList<>(Arrays.asList(platform()));
        options.add(frameworkProperty("felix.fileinstall.dir").value(deploy.toString()));
        options.add(frameworkProperty("felix.fileinstall.poll").value("100"));
        options.add(frameworkProperty("felix.fileinstall.noInitialDelay").value("true"));
        options.add(frameworkProperty("felix.fileinstall.log.default").value("jul"));
        options.add(frameworkProperty("felix.fileinstall.bundles.new.start").value("true"));
        options.add(mavenBundle("org.apache.felix", "org.apache.felix.fileinstall",
                System.getProperty("felix.fileinstall.version", "3.7.4")));
        return options.toArray(new Option[0]);
    }

    /** {@link #platform()} with the Gogo runtime and its commands (no console: tests drive sessions). */
    static Option[] withGogo() {
        List<Option> options = new ArrayList<>(Arrays.asList(platform()));
        options.add(mavenBundle("org.apache.felix", "org.apache.felix.gogo.runtime", "1.1.6"));
        options.add(mavenBundle("org.apache.felix", "org.apache.felix.gogo.command", "1.1.2"));
        return options.toArray(new Option[0]);
    }
}
