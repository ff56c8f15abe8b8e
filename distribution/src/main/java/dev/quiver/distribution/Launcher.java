package dev.quiver.distribution;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.felix.framework.Felix;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.FrameworkWiring;

/**
 * Boots the Quiver host: a Felix framework with every bundle of {@code bundle/}, then hands the
 * command line to the {@code quiver.main} service (the CLI bundle) and exits with its code.
 *
 * <p>The framework cache is a fresh temporary folder per process, started as a copy of the framework
 * snapshot when that is valid ({@link Snapshot}), and bundles are installed by reference, so several
 * Quiver processes can run side by side and no jar is ever copied.
 *
 * <p>Start order: {@code bundle/} (the host, with the catalogue platform's resolver hook), then the
 * bundles installed from catalogues by earlier processes ({@code quiver.plugins.dir}), so they
 * resolve under the catalogue policy, then FileInstall, which brings {@code deploy/}.
 * {@code quiver shell} also installs {@code shell/} (the Felix Gogo shell) and hands the terminal to
 * it; no other command installs it, so an ordinary start pays nothing for the shell.
 */
public final class Launcher {

    private static final String MAIN_FILTER = "(&(objectClass=java.util.function.Function)(quiver.main=true))";
    private static final String FILEINSTALL = "org.apache.felix.fileinstall";
    private static final String PLUGINS = "quiver.plugins.dir";
    /** The first argument that starts the Felix shell instead of the command line. */
    static final String SHELL = "shell";
    private static final long MAIN_WAIT_MILLIS = 15_000;
    /** The build's class-data-sharing training run: its class-loading log ({@link CdsTraining}). */
    private static final String CDS_TRAINING = "quiver.cds.training.log";

    private Launcher() {
    }

    public static void main(String[] args) {
        FileNameEncoding.warning(System.getProperty("sun.jnu.encoding"), FileNameEncoding.locale())
                .ifPresent(System.err::println);
        int code;
        try {
            code = run(home(), args);
        } catch (Exception e) {
            System.err.println("quiver: cannot start: " + e);
            code = 1;
        }
        System.out.flush();
        System.exit(code);
    }

    static int run(Path home, String[] args) throws IOException, BundleException, InterruptedException {
        Trace trace = Trace.from(System.getProperty("quiver.startup.trace"));
        Map<String, Object> properties = frameworkProperties(home);
        // quiver tools --json: the output of the last run with exactly these inputs, when there is one
        java.util.Optional<ToolsRecord> toolsRecord = ToolsRecord.of(home, args, properties);
        java.util.Optional<ToolsRecord.Answer> recorded = toolsRecord.flatMap(ToolsRecord::read);
        if (recorded.isPresent()) {
            trace.mark("answered from the record");
            return ToolsRecord.give(recorded.get());
        }
        // a run that may be recorded: anything but the command printing on stderr keeps it from the record
        StderrWatch stderr = toolsRecord.isPresent() ? StderrWatch.install() : null;
        Warmup.jdk();
        Path cacheParent = cacheParent();
        Path storage = createStorage(cacheParent);
        // a fresh folder per process, empty or holding a copy of the snapshot: never cleaned
        properties.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        // quiver mcp: the recorded catalogue answers the client while the framework starts
        java.util.Optional<McpEarly> early = McpEarly.start(home, args, properties);
        Thread sweeper = StaleCaches.sweepInBackground(cacheParent);
        List<Path> jars = jars(home.resolve("bundle"));
        // -Dquiver.snapshot=false: a start that neither uses nor records one (to measure what it saves)
        Snapshot snapshot = "false".equals(System.getProperty("quiver.snapshot")) ? null : Snapshot.of(home, jars);
        boolean restored = snapshot != null && snapshot.restoreInto(storage);
        Warmup.awaitLogging();
        trace.mark(restored ? "cache folder from the snapshot" : "cache folder");
        properties.put("felix.log.logger", new LogSetup.FelixLogger()); // once logging is configured
        Felix felix = new Felix(properties);
        Thread stopper = new Thread(() -> stop(felix, storage), "quiver-shutdown");
        Runtime.getRuntime().addShutdownHook(stopper);
        List<Bundle> bundles = List.of();
        boolean recordSnapshot = false;
        Integer exitCode = null;
        try {
            felix.init();
            trace.mark("framework init");
            BundleContext context = felix.getBundleContext();
            early.ifPresent(answers -> answers.register(context));
            toolsRecord.ifPresent(record -> record.register(context));
            bundles = restored ? hostBundles(context) : new ArrayList<>();
            List<Bundle> installed = installMissing(context, jars, bundles);
            bundles.addAll(installed);
            trace.mark("install " + bundles.size() + " bundles" + (!restored ? ""
                    : installed.isEmpty() ? " (snapshot)" : " (snapshot, " + installed.size() + " missing from it)"));
            felix.start();
            felix.adapt(FrameworkWiring.class).resolveBundles(null);
            trace.mark("resolve");
            Warmup.start(bundles);
            startAll(bundles.stream().filter(b -> !FILEINSTALL.equals(b.getSymbolicName())).toList());
            trace.mark("start");
            String plugins = context.getProperty(PLUGINS);
            if (plugins != null && !plugins.isBlank()) {
                startAll(install(context, Path.of(plugins), names(bundles)));
            }
            startAll(bundles.stream().filter(b -> FILEINSTALL.equals(b.getSymbolicName())).toList());
            trace.mark("plugins and FileInstall");
            if (args.length > 0 && SHELL.equals(args[0])) {
                return shell(felix, context, home, bundles);
            }
            Function<String[], Integer> main = awaitMain(context);
            if (main == null) {
                System.err.println("quiver: the command-line bundle did not start. " + diagnose(bundles));
                return 1;
            }
            trace.mark("command line service");
            Integer code = main.apply(args);
            trace.mark("command");
            String classLog = System.getProperty(CDS_TRAINING);
            if (classLog != null) {
                int linked = CdsTraining.linkLoadedClasses(Path.of(classLog), bundles);
                System.err.println("quiver: class-data-sharing training linked " + linked + " classes");
            }
            // a start that had to install anything records its cache as the next snapshot, once its command ran
            recordSnapshot = snapshot != null && !installed.isEmpty() && bundles.size() == jars.size();
            exitCode = code == null ? 1 : code;
            return exitCode;
        } finally {
            stopFramework(felix);
            if (toolsRecord.isPresent() && exitCode != null) {
                toolsRecord.get().recordIfClean(exitCode, stderr.printed());
            }
            if (recordSnapshot) {
                snapshot.record(storage, bundles);
            }
            deleteTree(storage);
            StaleCaches.awaitSweep(sweeper);
            trace.mark("stop");
            try {
                Runtime.getRuntime().removeShutdownHook(stopper);
            } catch (IllegalStateException alreadyExiting) {
                // the hook is running now; it does the same
            }
        }
    }

    /** Installs the jars of {@code bundle/} that are not installed from where they lie already. */
    private static List<Bundle> installMissing(BundleContext context, List<Path> jars, List<Bundle> installed) {
        java.util.Set<String> locations = new java.util.HashSet<>();
        installed.forEach(bundle -> locations.add(bundle.getLocation()));
        List<Bundle> bundles = new ArrayList<>();
        for (Path jar : jars) {
            if (!locations.contains(location(jar))) {
                install(context, jar).ifPresent(bundles::add);
            }
        }
        return bundles;
    }

    /** The bundles a restored snapshot brought back, in id order: the order they were installed in. */
    private static List<Bundle> hostBundles(BundleContext context) {
        List<Bundle> bundles = new ArrayList<>();
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getBundleId() != 0) {
                bundles.add(bundle);
            }
        }
        bundles.sort(Comparator.comparingLong(Bundle::getBundleId));
        return bundles;
    }

    /**
     * A new folder of this process's own for the framework cache, readable by its owner only. Named by
     * the process id and a counter rather than {@code Files.createTempDirectory}'s random name, whose
     * first use seeds {@code SecureRandom}: a cost at every start for nothing (the name need not be
     * secret; creating the folder fails if it exists, and the next name is tried).
     */
    /**
     * A new owner-only folder named {@code quiver-felix-<pid>-<random>}: the pid lets a later start tell a
     * dead process's cache, and the random part means no other user can take the name in advance.
     */
    static Path createStorage(Path parent) throws IOException {
        return Files.createTempDirectory(parent, StaleCaches.PREFIX + ProcessHandle.current().pid() + "-",
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
    }

    /**
     * Where the per-process framework cache goes: {@code quiver.cache.dir} when set, else a memory
     * file system when there is one ({@code $XDG_RUNTIME_DIR}, else {@code /dev/shm}), because
     * installing 30 bundles writes their cache entries and a disk makes that about twice as slow;
     * else the JVM's temporary folder.
     */
    private static Path cacheParent() {
        String configured = System.getProperty("quiver.cache.dir");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        for (String candidate : new String[] {System.getenv("XDG_RUNTIME_DIR"), "/dev/shm"}) {
            if (candidate != null && !candidate.isBlank()) {
                Path folder = Path.of(candidate);
                if (Files.isDirectory(folder) && Files.isWritable(folder)) {
                    return folder;
                }
            }
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** A folder a framework property names; a path that never exists when it names none. */
    static Path folder(Map<String, Object> properties, String name) {
        Object value = properties.get(name);
        return value == null || value.toString().isBlank() ? Path.of("/nonexistent") : Path.of(value.toString());
    }

    /**
     * Standard error as the launcher, the framework and the bundles print on it, noting whether anything
     * was printed; the command line bundle writes on the file descriptor itself, and a trace goes to the
     * stream it was made with.
     */
    private static final class StderrWatch extends java.io.PrintStream {
        private volatile boolean printed;

        private StderrWatch(java.io.PrintStream original) {
            super(original, true);
        }

        static StderrWatch install() {
            StderrWatch watch = new StderrWatch(System.err);
            System.setErr(watch);
            return watch;
        }

        boolean printed() {
            return printed;
        }

        @Override
        public void write(int b) {
            printed = true;
            super.write(b);
        }

        @Override
        public void write(byte[] buffer, int offset, int length) {
            printed |= length > 0;
            super.write(buffer, offset, length);
        }
    }

    private static Path home() throws URISyntaxException {
        Path jar = Path.of(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return jar.getParent().getParent();
    }

    private static Map<String, Object> frameworkProperties(Path home) throws IOException {
        Properties file = new Properties();
        Path conf = home.resolve("conf").resolve("config.properties");
        if (Files.exists(conf)) {
            try (InputStream in = Files.newInputStream(conf)) {
                file.load(in);
            }
        }
        Map<String, Object> properties = new HashMap<>();
        for (String name : file.stringPropertyNames()) {
            // a system property of the same name wins (QUIVER_JAVA_OPTS=-Dquiver.catalog.enforce=true)
            String value = System.getProperty(name, file.getProperty(name));
            properties.put(name, value.replace("${quiver.home}", home.toString()));
        }
        properties.put("quiver.home", home.toString());
        return properties;
    }

    /**
     * {@code quiver shell}: starts the Felix Gogo shell on the terminal and runs until it exits (its
     * {@code exit} or end of input stops the framework).
     */
    private static int shell(Felix felix, BundleContext context, Path home, List<Bundle> host)
            throws IOException, InterruptedException {
        List<Bundle> shell = install(context, home.resolve("shell"), names(host));
        if (shell.isEmpty()) {
            System.err.println("quiver: the Felix shell is not installed (no bundles in " + home.resolve("shell") + ").");
            return 1;
        }
        startAll(shell);
        felix.waitForStop(0);
        return 0;
    }

    private static java.util.Set<String> names(List<Bundle> bundles) {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Bundle bundle : bundles) {
            names.add(bundle.getSymbolicName() + "@" + bundle.getVersion());
        }
        return names;
    }

    /** Installs the jars of a folder (none when it does not exist), skipping bundles already installed. */
    private static List<Bundle> install(BundleContext context, Path folder, java.util.Collection<String> installed)
            throws IOException {
        List<Path> jars = jars(folder);
        List<Bundle> bundles = new ArrayList<>();
        for (Path jar : jars) {
            if (!installed.isEmpty() && installed.contains(identity(jar))) {
                continue;
            }
            install(context, jar).ifPresent(bundles::add);
        }
        return bundles;
    }

    /** The {@code .jar} files of a folder in name order: the order they are installed in. */
    static List<Path> jars(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
    }

    /** Installs one jar by reference: the framework reads it where it lies and copies nothing. */
    private static java.util.Optional<Bundle> install(BundleContext context, Path jar) {
        try {
            return java.util.Optional.of(context.installBundle(location(jar)));
        } catch (BundleException e) {
            System.err.println("quiver: cannot install " + jar.getFileName() + ": " + e.getMessage());
            return java.util.Optional.empty();
        }
    }

    private static String location(Path jar) {
        return "reference:" + jar.toUri();
    }

    /** The symbolic name and version a jar's manifest declares, as {@link #names} writes them. */
    private static String identity(Path jar) {
        try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar.toFile())) {
            java.util.jar.Manifest manifest = file.getManifest();
            if (manifest == null) {
                return "";
            }
            String name = manifest.getMainAttributes().getValue(Constants.BUNDLE_SYMBOLICNAME);
            String version = manifest.getMainAttributes().getValue(Constants.BUNDLE_VERSION);
            return (name == null ? "" : name.split(";")[0].strip()) + "@"
                    + org.osgi.framework.Version.parseVersion(version == null ? "0" : version.strip());
        } catch (IOException | IllegalArgumentException e) {
            return "";
        }
    }

    /**
     * Starts bundles in order; the caller starts FileInstall last, so bundles from deploy/ arrive after
     * the kernel's hooks and the catalogue platform's resolver hook. Starts are transient: the cache
     * never says a bundle should start by itself, so a snapshot's bundles wait for this order too.
     */
    private static void startAll(List<Bundle> bundles) {
        for (Bundle bundle : bundles) {
            if ((bundle.adapt(BundleRevision.class).getTypes() & BundleRevision.TYPE_FRAGMENT) != 0) {
                continue;
            }
            try {
                bundle.start(Bundle.START_TRANSIENT);
            } catch (BundleException e) {
                System.err.println("quiver: bundle " + bundle.getSymbolicName() + " did not start: " + e.getMessage());
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Function<String[], Integer> awaitMain(BundleContext context) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAIN_WAIT_MILLIS);
        while (System.nanoTime() < deadline) {
            try {
                ServiceReference<?>[] references = context.getServiceReferences((String) null, MAIN_FILTER);
                if (references != null && references.length > 0) {
                    Object service = context.getService(references[0]);
                    if (service != null) {
                        return (Function<String[], Integer>) service;
                    }
                }
            } catch (org.osgi.framework.InvalidSyntaxException e) {
                throw new IllegalStateException(e);
            }
            Thread.sleep(5);
        }
        return null;
    }

    private static String diagnose(List<Bundle> bundles) {
        List<String> problems = new ArrayList<>();
        for (Bundle bundle : bundles) {
            boolean fragment = (bundle.adapt(BundleRevision.class).getTypes() & BundleRevision.TYPE_FRAGMENT) != 0;
            if (!fragment && bundle.getState() != Bundle.ACTIVE) {
                problems.add(bundle.getSymbolicName() + " is not active");
            }
        }
        return problems.isEmpty() ? "See the log for the component that failed." : String.join("; ", problems) + ".";
    }

    private static void stop(Felix felix, Path storage) {
        stopFramework(felix);
        deleteTree(storage);
    }

    private static void stopFramework(Felix felix) {
        try {
            if ((felix.getState() & (Bundle.ACTIVE | Bundle.STARTING | Bundle.STOPPING)) != 0) {
                felix.stop();
                FrameworkEvent event = felix.waitForStop(10_000);
                if (event.getType() == FrameworkEvent.WAIT_TIMEDOUT) {
                    System.err.println("quiver: the framework did not stop within 10 s.");
                }
            }
        } catch (BundleException | InterruptedException e) {
            // exiting anyway
        }
    }

    static void deleteTree(Path root) {
        deleteContents(root);
        try {
            Files.deleteIfExists(root);
        } catch (IOException ignored) {
            // a leftover temporary folder is harmless; the shutdown hook may be deleting it too
        }
    }

    /** Deletes what a folder holds, keeping the folder. */
    static void deleteContents(Path root) {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(root)).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // a leftover temporary file is harmless
                }
            });
        } catch (IOException | java.io.UncheckedIOException ignored) {
            // a leftover temporary folder is harmless; the shutdown hook may be deleting it too
        }
    }

    /**
     * {@code -Dquiver.startup.trace=true}: one stderr line per start-up phase with its milliseconds,
     * counted from the launcher's start, to see where start-up goes (bench/startup.sh reports the
     * total, the JVM's own start included).
     */
    private record Trace(boolean on, long start, long[] last, java.io.PrintStream err) {
        static Trace from(String property) {
            return new Trace(Boolean.parseBoolean(property), System.currentTimeMillis(), new long[] {0}, System.err);
        }

        void mark(String phase) {
            if (on) {
                long now = System.currentTimeMillis() - start;
                err.printf("quiver startup: %-26s %5d ms (at %d ms)%n", phase, now - last[0], now);
                last[0] = now;
            }
        }
    }
}
