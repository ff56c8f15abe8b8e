package dev.quiver.distribution;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.osgi.framework.Bundle;

/**
 * Start-up work done ahead on the second core: while the main thread prepares and starts the
 * framework, a daemon thread sets up logging and initialises classes that the next phases will
 * need, so the main thread finds them ready (a class is initialised once, by whichever thread comes
 * first; the other waits for it rather than doing it again). Nothing here changes behaviour; a
 * failure is ignored, except that logging is set up before the framework is created either way.
 */
final class Warmup {

    private static final CountDownLatch LOGGING = new CountDownLatch(1);

    /**
     * A bundle's manifest header naming a public {@code Runnable} with a public no-argument
     * constructor, run on the warm-up thread once the bundle is resolved: the bundle's own head start
     * (classes it is about to load, caches the JDK fills once). Read from the bundles of
     * {@code bundle/} only; bundles from catalogues and {@code deploy/} get no code run this way.
     */
    static final String HEADER = "Quiver-Warmup";

    /** Felix classes whose static initialisers are slow when cold (reflection, JDK probing). */
    private static final String[] FRAMEWORK_CLASSES = {
        "org.apache.felix.framework.util.SecureAction",
        "org.apache.felix.framework.util.Util",
        "org.apache.felix.framework.Felix",
        "org.apache.felix.framework.BundleImpl",
        "org.apache.felix.framework.BundleWiringImpl",
        "org.apache.felix.framework.ExtensionManager",
        "org.apache.felix.framework.util.manifestparser.ManifestParser",
    };

    private Warmup() {
    }

    /**
     * Logging (see {@link #awaitLogging}), then JDK and framework classes: Felix's static state,
     * {@code String.format}'s locale data (the framework's first properties use it), time formatting
     * (session ids) and regular expressions.
     */
    static void jdk() {
        run("quiver-warmup-jdk", () -> {
            try {
                LogSetup.configure();
            } finally {
                LOGGING.countDown();
            }
            String.format("%d %s", 1, "a");
            java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(java.time.OffsetDateTime.now());
            java.util.regex.Pattern.compile("[a-z]+\\s*(\\d+)?").matcher("warm 1").find();
            ClassLoader loader = Warmup.class.getClassLoader();
            for (String name : FRAMEWORK_CLASSES) {
                Class.forName(name, true, loader);
            }
        });
    }

    /** Waits until {@link #jdk} has set up logging; sets it up here if that thread could not. */
    static void awaitLogging() throws InterruptedException {
        LOGGING.await();
        if (!LogSetup.configured()) {
            LogSetup.configure();
        }
    }

    /**
     * Classes of resolved bundles that every command uses, in the order the main thread comes to
     * them: slf4j (the first immediate component with a logger starts it), then what each bundle's
     * {@value #HEADER} header names (the CLI's: its command model), then Jackson's object mapper
     * (configuration, tool schemas, output).
     */
    static void start(List<Bundle> bundles) {
        java.util.Map<String, Bundle> byName = new java.util.HashMap<>();
        bundles.forEach(bundle -> byName.put(bundle.getSymbolicName(), bundle));
        run("quiver-warmup-bundles", () -> {
            Bundle slf4j = byName.get("slf4j.api");
            if (slf4j != null) {
                slf4j.loadClass("org.slf4j.LoggerFactory").getMethod("getLogger", String.class).invoke(null, "dev.quiver");
            }
            for (Bundle bundle : bundles) {
                String warmup = bundle.getHeaders("").get(HEADER);
                if (warmup != null) {
                    try {
                        ((Runnable) bundle.loadClass(warmup.strip()).getConstructor().newInstance()).run();
                    } catch (Exception | LinkageError failed) {
                        // only a head start
                    }
                }
            }
            Bundle jackson = byName.get("com.fasterxml.jackson.core.jackson-databind");
            if (jackson != null) {
                Object mapper = jackson.loadClass("com.fasterxml.jackson.databind.ObjectMapper").getConstructor().newInstance();
                // a tree read and written back, as tool schemas and the output are; not a Map or a bean,
                // whose serializers the start never uses
                Object tree = mapper.getClass().getMethod("readTree", String.class).invoke(mapper, "{\"a\":[1,\"b\"]}");
                mapper.getClass().getMethod("writeValueAsString", Object.class).invoke(mapper, tree);
            }
        });
    }

    private static void run(String name, ThrowingRunnable work) {
        Thread thread = new Thread(() -> {
            try {
                work.run();
            } catch (Throwable ignored) {
                // only a head start; the real work does it again if this failed
            }
        }, name);
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY);
        thread.start();
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
