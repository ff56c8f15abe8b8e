package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * Hot swap under load: 8 threads call a tool without pause while its bundle is updated 50 times and
 * removed and reinstalled 10 times through the Platform. The host never fails; every call either
 * completes or says the tool was unloaded (also between a removal and the reinstall: the kernel
 * remembers the name); and afterwards no class of the replaced revisions is reachable.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HotSwapIT {

    private static final String NAME = "com.example.counter";
    private static final TurnListener QUIET = new TurnListener() { };
    private static final int THREADS = 8;
    private static final int UPDATES = 50;
    private static final int REINSTALLS = 10;

    @Inject
    BundleContext context;

    @Inject
    Kernel kernel;

    @Inject
    Platform platform;

    @Configuration
    public Option[] configuration() {
        return HostOptions.platform();
    }

    @Test
    public void callsUnderContinuousUpdatesAndRemovalsCompleteOrSayTheToolWasUnloaded() throws Exception {
        Path temp = Files.createTempDirectory("quiver-hotswap-it");
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        TestCatalog catalog = new TestCatalog(temp.resolve("catalog"));
        Path[] variants = new Path[2];
        for (int i = 0; i < variants.length; i++) {
            variants[i] = Bundles.tool(catalog.folder, NAME, "1.0.0", "counter", "read", "echo", "r" + i, false);
        }
        catalog.writeJars(variants[0]);
        TestCatalog.config(workspace, "{\"catalogs\": [" + catalog.source(false) + "]}");

        List<Session> sessions = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            // yolo: the calls repeat identically outside any turn, and the repeat rule would ask (deny) from the third
            sessions.add(kernel.open(new SessionOptions(workspace, Optional.empty(), true, false, false, Optional.empty(),
                    Optional.empty(), Optional.empty(), true, false)));
        }
        platform.install(NAME);
        WeakReference<Class<?>> firstRevision = new WeakReference<>(bundle().loadClass(Bundles.TOOL_CLASS));
        WeakReference<ClassLoader> firstLoader = new WeakReference<>(firstRevision.get().getClassLoader());

        AtomicBoolean running = new AtomicBoolean(true);
        Map<String, AtomicLong> outcomes = new ConcurrentHashMap<>();
        List<String> unexpected = new CopyOnWriteArrayList<>();
        ExecutorService callers = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> futures = new ArrayList<>();
        for (Session session : sessions) {
            futures.add(callers.submit(() -> {
                while (running.get()) {
                    CallOutcome outcome = session.call("counter", "{}", QUIET);
                    String kind = classify(outcome);
                    outcomes.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
                    if (kind.equals("unexpected")) {
                        unexpected.add(outcome.status() + ": " + outcome.output());
                    }
                }
                return null;
            }));
        }

        int updates = 0;
        int reinstalls = 0;
        long swapStarted = System.nanoTime();
        for (int round = 1; round <= UPDATES; round++) {
            catalog.writeJars(variants[round % 2]);
            platform.update(NAME);
            updates++;
            if (round % (UPDATES / REINSTALLS) == 0) {
                platform.remove(NAME);
                Thread.sleep(5);
                platform.install(NAME);
                reinstalls++;
            }
        }
        long swapMillis = (System.nanoTime() - swapStarted) / 1_000_000;
        Thread.sleep(200);
        running.set(false);
        callers.shutdown();
        assertTrue("the callers stop", callers.awaitTermination(60, TimeUnit.SECONDS));
        for (Future<?> future : futures) {
            future.get(); // a caller that threw: the host failed
        }

        System.out.println("HotSwapIT: " + updates + " updates, " + reinstalls + " removals and reinstalls in "
                + swapMillis + " ms; calls by outcome: " + outcomes);
        assertEquals(UPDATES, updates);
        assertEquals(REINSTALLS, reinstalls);
        assertTrue("unexpected outcomes: " + unexpected, unexpected.isEmpty());
        assertTrue("calls completed throughout: " + outcomes, outcomes.getOrDefault("ok", new AtomicLong()).get() > 100);

        CallOutcome last = sessions.get(0).call("counter", "{}", QUIET);
        assertEquals(last.output(), CallOutcome.Status.OK, last.status());
        assertEquals("counter r0", last.output());
        assertEquals(1, platform.bundles().stream().filter(b -> b.name().equals(NAME)).count());

        // the sessions stay open: they must not pin a replaced revision
        assertCollected(firstRevision, firstLoader);
        for (Session session : sessions) {
            session.close();
        }
        platform.remove(NAME);
    }

    private static String classify(CallOutcome outcome) {
        if (outcome.status() == CallOutcome.Status.OK && outcome.output().matches("counter r[01]")) {
            return "ok";
        }
        if (outcome.status() == CallOutcome.Status.ERROR && outcome.output().startsWith("Tool counter was unloaded")) {
            return "unloaded";
        }
        return "unexpected";
    }

    private Bundle bundle() {
        for (Bundle bundle : context.getBundles()) {
            if (NAME.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new AssertionError(NAME + " is not installed");
    }

    static void assertCollected(WeakReference<?>... references) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && !allCleared(references)) {
            System.gc();
            byte[][] pressure = new byte[64][];
            for (int i = 0; i < pressure.length; i++) {
                pressure[i] = new byte[1 << 20];
            }
            Thread.sleep(100);
        }
        for (WeakReference<?> reference : references) {
            assertNull("a replaced revision is still reachable: " + reference.get(), reference.get());
        }
    }

    private static boolean allCleared(WeakReference<?>... references) {
        for (WeakReference<?> reference : references) {
            if (reference.get() != null) {
                return false;
            }
        }
        return true;
    }
}
