package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.quiver.api.Access;
import dev.quiver.api.Guard;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolCall;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import javax.inject.Inject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * A third-party {@link Guard}, registered by another bundle (the test probe) while a session is
 * open: it refuses what it names, before the rules and whatever --yolo says; a guard that throws
 * refuses (fails closed); and once it is unregistered the call is allowed again.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class ThirdPartyGuardIT {

    private static final String PLAN = "private/plan.md";
    private static final String PLAN_TEXT = "launch on tuesday";
    private static final String REASON = "the launch plan is embargoed; ask the release manager for it";
    private static final String READ_PLAN = "{\"path\":\"" + PLAN + "\"}";
    private static final String READ_NOTES = "{\"path\":\"notes.txt\"}";

    @Inject
    BundleContext context;

    @Inject
    Kernel kernel;

    private Path workspace;
    private final List<ServiceRegistration<Guard>> registrations = new CopyOnWriteArrayList<>();

    @Configuration
    public Option[] configuration() {
        return HostOptions.host();
    }

    @Before
    public void workspace() throws Exception {
        workspace = Files.createTempDirectory("quiver-guard-it");
        Files.writeString(workspace.resolve("notes.txt"), "first\nsecond\n");
        Files.createDirectories(workspace.resolve("private"));
        Files.writeString(workspace.resolve(PLAN), PLAN_TEXT + "\n");
    }

    @After
    public void unregisterLeftovers() {
        for (ServiceRegistration<Guard> registration : registrations) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // unregistered by the test
            }
        }
    }

    /** Refuses read_file of {@link #PLAN} and records every call it was shown. */
    private static final class PlanGuard implements Guard {
        final List<ToolCall> seen = new CopyOnWriteArrayList<>();

        @Override
        public Optional<String> refusal(ToolCall call) {
            seen.add(call);
            boolean plan = call.tool().equals("read_file")
                    && call.subjects().stream().anyMatch(s -> s.kind() == Subject.Kind.PATH && s.value().equals(PLAN));
            return plan ? Optional.of(REASON) : Optional.empty();
        }
    }

    /** Refuses every bash call, to show --yolo does not reach guards. */
    private static final class NoShellGuard implements Guard {
        @Override
        public Optional<String> refusal(ToolCall call) {
            return call.tool().equals("bash") ? Optional.of("no shell in this test") : Optional.empty();
        }
    }

    /** Throws on read_file of {@link #PLAN}, passes everything else. */
    private static final class BrokenGuard implements Guard {
        @Override
        public Optional<String> refusal(ToolCall call) {
            if (call.tool().equals("read_file") && call.subjects().contains(Subject.path(PLAN))) {
                throw new IllegalStateException("guard database unreachable");
            }
            return Optional.empty();
        }
    }

    private ServiceRegistration<Guard> register(Guard guard) {
        ServiceRegistration<Guard> registration = context.registerService(Guard.class, guard, new Hashtable<>());
        registrations.add(registration);
        return registration;
    }

    @Test
    public void aGuardRegisteredAtRuntimeRefusesItsCallWithItsReasonAndTheCallIsAllowedAgainOnceItIsGone()
            throws Exception {
        try (Session session = kernel.open(SessionOptions.headless(workspace))) {
            // before: read_file is a read tool and runs unasked
            assertEquals(Decision.ALLOW, session.check("read_file", READ_PLAN).decision());
            assertReadsPlan(session.call("read_file", READ_PLAN, new TurnListener() { }));

            PlanGuard guard = new PlanGuard();
            ServiceRegistration<Guard> registration = register(guard);

            Verdict verdict = await(session, READ_PLAN, v -> v.decision() == Decision.DENY);
            assertEquals(Decision.DENY, verdict.decision());
            assertEquals("guard", verdict.by());
            assertEquals(REASON, verdict.reason());

            CallOutcome refused = session.call("read_file", READ_PLAN, new TurnListener() { });
            assertEquals(refused.toString(), CallOutcome.Status.DENIED, refused.status());
            assertEquals("guard", refused.verdict().by());
            assertEquals(REASON, refused.verdict().reason());
            assertTrue(refused.output(), refused.output().contains(REASON));
            assertFalse("a refused call never reaches the tool: " + refused.output(), refused.output().contains(PLAN_TEXT));

            // what the guard was shown: the tool, its access class, its arguments and subjects
            ToolCall shown = guard.seen.stream().filter(c -> c.tool().equals("read_file")).reduce((a, b) -> b).orElseThrow();
            assertEquals(Access.READ, shown.access());
            assertEquals(PLAN, shown.arguments().string("path"));
            assertEquals(List.of(Subject.path(PLAN)), shown.subjects());

            // it refuses only what it names
            assertEquals(Decision.ALLOW, session.check("read_file", READ_NOTES).decision());
            CallOutcome notes = session.call("read_file", READ_NOTES, new TurnListener() { });
            assertEquals(notes.output(), CallOutcome.Status.OK, notes.status());

            // a session opened while the guard is there is guarded as well
            try (Session later = kernel.open(SessionOptions.headless(workspace))) {
                Verdict again = later.check("read_file", READ_PLAN);
                assertEquals("guard", again.by());
                assertEquals(REASON, again.reason());
            }

            registration.unregister();
            Verdict after = await(session, READ_PLAN, v -> v.decision() == Decision.ALLOW);
            assertEquals(after.toString(), Decision.ALLOW, after.decision());
            assertFalse(after.toString(), after.by().equals("guard"));
            assertReadsPlan(session.call("read_file", READ_PLAN, new TurnListener() { }));
        }
    }

    @Test
    public void yoloDoesNotReachAThirdPartyGuard() throws Exception {
        SessionOptions yolo = new SessionOptions(workspace, Optional.empty(), true, false, false, Optional.empty(),
                Optional.empty(), Optional.empty());
        String touch = "{\"command\":\"touch guarded.txt\"}";
        try (Session session = kernel.open(yolo)) {
            assertEquals(Decision.ALLOW, session.check("bash", touch).decision());
            ServiceRegistration<Guard> registration = register(new NoShellGuard());
            Verdict verdict = await(session, "bash", touch, v -> v.decision() == Decision.DENY);
            assertEquals("guard", verdict.by());
            assertEquals("no shell in this test", verdict.reason());
            CallOutcome refused = session.call("bash", touch, new TurnListener() { });
            assertEquals(refused.toString(), CallOutcome.Status.DENIED, refused.status());
            assertFalse("the refused command never ran", Files.exists(workspace.resolve("guarded.txt")));

            registration.unregister();
            await(session, "bash", touch, v -> v.decision() == Decision.ALLOW);
            CallOutcome ran = session.call("bash", touch, new TurnListener() { });
            assertEquals(ran.toString(), CallOutcome.Status.OK, ran.status());
            assertTrue(Files.exists(workspace.resolve("guarded.txt")));
        }
    }

    @Test
    public void aGuardThatThrowsRefusesTheCallAndTheCallIsAllowedAgainOnceItIsGone() throws Exception {
        try (Session session = kernel.open(SessionOptions.headless(workspace))) {
            assertEquals(Decision.ALLOW, session.check("read_file", READ_PLAN).decision());
            ServiceRegistration<Guard> registration = register(new BrokenGuard());

            Verdict verdict = await(session, READ_PLAN, v -> v.decision() == Decision.DENY);
            assertEquals(Decision.DENY, verdict.decision());
            assertEquals("guard", verdict.by());
            assertTrue(verdict.reason(), verdict.reason().contains("failed while checking this call"));
            assertTrue("the reason names the guard: " + verdict.reason(),
                    verdict.reason().contains(BrokenGuard.class.getName()));

            CallOutcome refused = session.call("read_file", READ_PLAN, new TurnListener() { });
            assertEquals(refused.toString(), CallOutcome.Status.DENIED, refused.status());
            assertEquals("guard", refused.verdict().by());
            assertFalse("fails closed: the tool was not reached: " + refused.output(), refused.output().contains(PLAN_TEXT));
            assertFalse("the exception is not handed to the model: " + refused.output(),
                    refused.output().contains("guard database unreachable"));

            // a call the guard does not throw on goes on to the rules
            CallOutcome notes = session.call("read_file", READ_NOTES, new TurnListener() { });
            assertEquals(notes.output(), CallOutcome.Status.OK, notes.status());

            registration.unregister();
            Verdict after = await(session, READ_PLAN, v -> v.decision() == Decision.ALLOW);
            assertEquals(after.toString(), Decision.ALLOW, after.decision());
            assertReadsPlan(session.call("read_file", READ_PLAN, new TurnListener() { }));
        }
    }

    private static void assertReadsPlan(CallOutcome outcome) {
        assertEquals(outcome.toString(), CallOutcome.Status.OK, outcome.status());
        assertTrue(outcome.output(), outcome.output().contains("1: " + PLAN_TEXT));
    }

    private static Verdict await(Session session, String readArguments, Predicate<Verdict> until)
            throws InterruptedException {
        return await(session, "read_file", readArguments, until);
    }

    /**
     * The verdict once it satisfies the condition, or the last one after 10 s. Declarative Services
     * binds a dynamic reference as the service event is delivered, so this normally returns at once.
     */
    private static Verdict await(Session session, String tool, String arguments, Predicate<Verdict> until)
            throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        Verdict verdict = session.check(tool, arguments);
        while (!until.test(verdict) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            verdict = session.check(tool, arguments);
        }
        return verdict;
    }
}
