package dev.quiver.itests;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;

/**
 * Hot-swap latency, run on demand (not an IT: no timing is asserted anywhere):
 * {@code mvn -o verify -f itests/pom.xml -Dit.test=HotSwapBenchmark}. Prints a Markdown table for
 * docs/benchmarks.md: from {@code Platform.install} to the first successful call, from
 * {@code Platform.update} to the new revision answering, from {@code Platform.remove} to the tool being
 * gone, and from a jar landing in a watched folder (FileInstall, 100 ms poll) to its tool answering.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HotSwapBenchmark {

    private static final int ROUNDS = 20;
    private static final TurnListener QUIET = new TurnListener() { };

    @Inject
    BundleContext context;

    @Inject
    Kernel kernel;

    @Inject
    Platform platform;

    @Configuration
    public Option[] configuration() throws Exception {
        return HostOptions.withDeployFolder(Files.createTempDirectory("quiver-bench-deploy"));
    }

    @Test
    public void measure() throws Exception {
        Path temp = Files.createTempDirectory("quiver-bench");
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        TestCatalog catalog = new TestCatalog(temp.resolve("catalog"));
        Path v1 = Bundles.tool(catalog.folder, "com.example.bench", "1.0.0", "bench", "read", "echo", "v1", false);
        Path v2 = Bundles.tool(catalog.folder, "com.example.bench", "1.0.1", "bench", "read", "echo", "v2", false);
        TestCatalog.config(workspace, "{\"catalogs\": [" + catalog.source(false) + "]}");
        Path deploy = Path.of(context.getProperty("felix.fileinstall.dir"));
        List<Long> install = new ArrayList<>();
        List<Long> update = new ArrayList<>();
        List<Long> remove = new ArrayList<>();
        List<Long> dropIn = new ArrayList<>();
        List<Long> dropOut = new ArrayList<>();
        try (Session session = kernel.open(new SessionOptions(workspace, Optional.empty(), true, false, false,
                Optional.empty(), Optional.empty(), Optional.empty(), true, false))) {
            for (int round = 0; round < ROUNDS + 2; round++) {
                boolean counted = round >= 2; // two warm-up rounds
                catalog.writeJars(v1);
                long started = System.nanoTime();
                platform.install("com.example.bench");
                await(() -> answers(session, "bench v1"));
                long installed = System.nanoTime();
                catalog.writeJars(v2);
                platform.update("com.example.bench");
                await(() -> answers(session, "bench v2"));
                long updated = System.nanoTime();
                platform.remove("com.example.bench");
                await(() -> session.tools().stream().noneMatch(t -> t.name().equals("bench")));
                long removed = System.nanoTime();

                Path dropped = Files.copy(v1, deploy.resolve("bench.jar"));
                long copied = System.nanoTime();
                await(() -> answers(session, "bench v1"));
                long appeared = System.nanoTime();
                Files.delete(dropped);
                long deleted = System.nanoTime();
                await(() -> session.tools().stream().noneMatch(t -> t.name().equals("bench")));
                long gone = System.nanoTime();
                if (counted) {
                    install.add(installed - started);
                    update.add(updated - installed);
                    remove.add(removed - updated);
                    dropIn.add(appeared - copied);
                    dropOut.add(gone - deleted);
                }
            }
        }
        System.out.println("\n| hot swap (" + ROUNDS + " rounds) | median ms | min ms | max ms |\n|---|---|---|---|");
        row("catalog install → first successful call", install);
        row("catalog update → the new revision answers", update);
        row("catalog remove → gone from the registry", remove);
        row("jar copied into the watched folder → first successful call", dropIn);
        row("jar deleted from the watched folder → gone", dropOut);
    }

    private static boolean answers(Session session, String expected) {
        CallOutcome outcome = session.call("bench", "{}", QUIET);
        return outcome.status() == CallOutcome.Status.OK && outcome.output().equals(expected);
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out");
            }
            Thread.sleep(1);
        }
    }

    private static void row(String what, List<Long> nanos) {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        System.out.printf("| %s | %.1f | %.1f | %.1f |%n", what, sorted.get(sorted.size() / 2) / 1e6, sorted.get(0) / 1e6,
                sorted.get(sorted.size() - 1) / 1e6);
    }
}
