package dev.quiver.distribution;

import java.util.List;
import org.osgi.framework.Bundle;

/**
 * Start-up work done ahead on the second core: while the main thread initialises and starts the
 * framework, a daemon thread loads and initialises classes that the next phases will need, so the
 * main thread finds them ready. Nothing here changes behaviour; a failure is ignored.
 */
final class Warmup {

    private Warmup() {
    }

    /** JDK classes: the XML parser SCR reads component descriptors with, time formatting, regular expressions. */
    static void jdk() {
        run("quiver-warmup-jdk", () -> {
            javax.xml.parsers.SAXParserFactory factory = javax.xml.parsers.SAXParserFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.newSAXParser();
            java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(java.time.OffsetDateTime.now());
            java.util.regex.Pattern.compile("[a-z]+\\s*(\\d+)?").matcher("warm 1").find();
        });
    }

    /** Classes of resolved bundles that every command uses: Jackson's object mapper and picocli. */
    static void start(List<Bundle> bundles) {
        run("quiver-warmup-bundles", () -> {
            for (Bundle bundle : bundles) {
                String name = bundle.getSymbolicName();
                if ("com.fasterxml.jackson.core.jackson-databind".equals(name)) {
                    Object mapper = bundle.loadClass("com.fasterxml.jackson.databind.ObjectMapper")
                            .getConstructor().newInstance();
                    mapper.getClass().getMethod("readTree", String.class).invoke(mapper, "{\"a\":[1,\"b\"]}");
                    mapper.getClass().getMethod("writeValueAsString", Object.class)
                            .invoke(mapper, java.util.Map.of("a", List.of(1, "b")));
                } else if ("picocli".equals(name)) {
                    Class.forName("picocli.CommandLine", true, bundle.loadClass("picocli.CommandLine").getClassLoader());
                }
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
