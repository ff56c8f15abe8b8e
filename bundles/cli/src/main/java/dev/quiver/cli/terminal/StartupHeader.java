package dev.quiver.cli.terminal;

import dev.quiver.api.host.Session;
import java.util.ArrayList;
import java.util.List;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/** The interactive start-up header: version, model, workspace, tool sets, sandbox state and warnings. */
public final class StartupHeader {

    static final AttributedStyle WARNING = AttributedStyle.DEFAULT.foreground(AttributedStyle.YELLOW);
    static final AttributedStyle YOLO = AttributedStyle.BOLD.foreground(AttributedStyle.RED);

    private StartupHeader() {
    }

    /**
     * The agent variant and thinking level for a header, when they are not the default's: a variant changes
     * what is offered and how hard the model thinks, and a level above the default's (the config's
     * {@code thinking}, a trusted workspace's included) costs more on every request, so either is said from
     * the start.
     */
    public static java.util.Optional<String> variant(Session session) {
        if (!session.agent().equals("default")) {
            return java.util.Optional.of("agent " + session.agent() + " (thinking " + session.thinking() + ")");
        }
        return session.thinking().equals(DEFAULT_THINKING) ? java.util.Optional.empty()
                : java.util.Optional.of("thinking " + session.thinking());
    }

    /** The default variant's thinking level, which the header leaves unsaid. */
    static final String DEFAULT_THINKING = "medium";

    /**
     * The header's lines, with the modes that change what runs unasked or what is offered: {@code --yolo}
     * in red, since asks are now allows; {@code --read-only}.
     *
     * @param sandbox the shell service's one-line sandbox state, or why it is unknown
     */
    public static List<AttributedString> lines(String version, Session session, String sandbox, boolean yolo,
            boolean readOnly) {
        List<AttributedString> lines = new ArrayList<>();
        AttributedStringBuilder first = new AttributedStringBuilder();
        first.style(AttributedStyle.BOLD).append("quiver ").append(version);
        first.style(Markdown.FAINT).append(" · ");
        first.style(AttributedStyle.DEFAULT).append("model ").append(session.model().orElse("none"));
        variant(session).ifPresent(variant -> {
            first.style(Markdown.FAINT).append(" · ");
            first.style(AttributedStyle.DEFAULT).append(variant);
        });
        first.style(Markdown.FAINT).append(" · ");
        first.style(AttributedStyle.DEFAULT).append(session.workspace().toString());
        lines.add(first.toAttributedString());
        List<String> sets = session.toolSets();
        lines.add(new AttributedString("tools " + (sets.isEmpty() ? "none" : String.join(", ", sets)) + " · "
                + session.tools().size() + " offered"));
        boolean unsafe = sandbox.startsWith("NOT") || sandbox.startsWith("unknown") || sandbox.contains("refuse");
        lines.add(new AttributedStringBuilder().append("sandbox ").style(unsafe ? WARNING : AttributedStyle.DEFAULT)
                .append(sandbox).toAttributedString());
        if (yolo) {
            lines.add(new AttributedString("--yolo: calls that would ask run without asking; guards, secrets and deny "
                    + "rules still refuse", YOLO));
        }
        if (readOnly) {
            lines.add(new AttributedString("--read-only: only read and state tools are offered; nothing is changed"));
        }
        for (String warning : session.warnings()) {
            lines.add(new AttributedString("warning: " + warning, WARNING));
        }
        return lines;
    }

    /** The sandbox line from the shell service, or why it cannot be told. */
    public static String sandbox(Services services, Session session) {
        return services.shell().map(shell -> {
            try {
                return shell.status(session.config("shell"));
            } catch (RuntimeException | LinkageError e) {
                return "unknown: " + e.getMessage();
            }
        }).orElse("unknown: the shell bundle is not running");
    }

    /** The line under the header in the terminal. */
    public static AttributedString keys() {
        return new AttributedString("/help for commands · @ completes paths · esc aborts a turn · ctrl-c stops a command",
                Markdown.FAINT);
    }
}
