package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.api.Shell;
import dev.quiver.api.host.Session;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class HeaderTest {

    private static final String BASE = "quiver 1.2.3 · workspace /ws · model openai/gpt · tools core, extra";

    private final List<Optional<Object>> configsSeen = new ArrayList<>();

    /** A session with a workspace, a model, two tool sets and the given "shell" config. */
    private static Session session(Optional<Object> shellConfig) {
        return session(shellConfig, "default", "medium");
    }

    private static Session session(Optional<Object> shellConfig, String agent) {
        return session(shellConfig, agent, "high");
    }

    private static Session session(Optional<Object> shellConfig, String agent, String thinking) {
        return (Session) Proxy.newProxyInstance(HeaderTest.class.getClassLoader(), new Class<?>[] {Session.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "agent" -> agent;
                    case "thinking" -> thinking;
                    case "workspace" -> Path.of("/ws");
                    case "model" -> Optional.of("openai/gpt");
                    case "toolSets" -> List.of("core", "extra");
                    case "config" -> "shell".equals(args[0]) ? shellConfig : Optional.empty();
                    case "warnings" -> List.of();
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** A shell whose status is computed from the "shell" config it is given. */
    private Optional<Shell> shell(Function<Optional<Object>, String> status) {
        return Optional.of((Shell) Proxy.newProxyInstance(HeaderTest.class.getClassLoader(), new Class<?>[] {Shell.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("status")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    @SuppressWarnings("unchecked")
                    Optional<Object> config = (Optional<Object>) args[0];
                    configsSeen.add(config);
                    return status.apply(config);
                }));
    }

    @Test
    void aVariantOtherThanDefaultIsNamedWithItsThinkingLevel() {
        assertEquals("quiver 1.2.3 · workspace /ws · model openai/gpt · agent review (thinking high) · tools core, extra",
                Header.line("1.2.3", session(Optional.empty(), "review"), Optional.empty()));
    }

    /**
     * A config (a trusted workspace's included) that sets only {@code thinking: max} costs more on every
     * request; the default variant must not hide it.
     */
    @Test
    void aThinkingLevelOtherThanTheDefaultsIsNamedUnderTheDefaultVariantToo() {
        assertEquals("quiver 1.2.3 · workspace /ws · model openai/gpt · thinking max · tools core, extra",
                Header.line("1.2.3", session(Optional.empty(), "default", "max"), Optional.empty()));
    }

    @Test
    void notSandboxedIsSaidPlainlyOnTheLine() {
        String line = Header.line("1.2.3", session(Optional.empty()),
                shell(config -> "NOT sandboxed: bubblewrap (bwrap) is not installed"));
        assertEquals(BASE + " · NOT sandboxed: bubblewrap (bwrap) is not installed", line);
    }

    @Test
    void theShellIsAskedWithTheSessionsShellConfig() {
        Object off = Map.of("sandbox", "off");
        String line = Header.line("1.2.3", session(Optional.of(off)), shell(config -> config.isPresent()
                ? "NOT sandboxed: \"shell\": {\"sandbox\": \"off\"} in the config" : "sandboxed (bubblewrap)"));
        assertEquals(BASE + " · NOT sandboxed: \"shell\": {\"sandbox\": \"off\"} in the config", line);
        assertEquals(List.of(Optional.of(off)), configsSeen);
    }

    @Test
    void sandboxedCommandsAddNothing() {
        assertEquals(BASE, Header.line("1.2.3", session(Optional.empty()), shell(config -> "sandboxed (bubblewrap)")));
        assertEquals(BASE, Header.line("1.2.3", session(Optional.empty()),
                shell(config -> "sandboxed (bubblewrap), network allowed")));
    }

    @Test
    void aShellThatRefusesEveryCommandSaysWhy() {
        String refusing = "shell refuses every command: \"sandbox\" is \"required\" but bubblewrap (bwrap) is not installed";
        assertEquals(BASE + " · " + refusing, Header.line("1.2.3", session(Optional.empty()), shell(config -> refusing)));
    }

    @Test
    void aReasonOverSeveralLinesStaysOnTheOneLine() {
        String line = Header.line("1.2.3", session(Optional.empty()), shell(config ->
                "NOT sandboxed: bubblewrap cannot create a sandbox here (bwrap: No permissions\n  to create new namespace)\n"));
        assertEquals(BASE + " · NOT sandboxed: bubblewrap cannot create a sandbox here (bwrap: No permissions to create "
                + "new namespace)", line);
    }

    @Test
    void aShellThatFailsToSayIsReportedAsUnknown() {
        String line = Header.line("1.2.3", session(Optional.empty()), shell(config -> {
            throw new IllegalStateException("bundle stopping");
        }));
        assertEquals(BASE + " · sandbox state unknown (IllegalStateException: bundle stopping)", line);
    }

    @Test
    void withoutAShellServiceTheLineIsAsBefore() {
        assertEquals(BASE, Header.line("1.2.3", session(Optional.empty()), Optional.empty()));
    }
}
