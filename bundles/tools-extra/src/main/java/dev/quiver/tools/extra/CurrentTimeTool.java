package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.time.Clock;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.TextStyle;
import java.util.Locale;
import org.osgi.service.component.annotations.Component;

/** {@code current_time}: now, in the machine's time zone and in UTC. */
@Component(property = {Tool.NAME + "=current_time", Tool.SET + "=extra", Tool.ACCESS + "=read"})
public class CurrentTimeTool implements Tool {

    private static final DateTimeFormatter SHOWN = DateTimeFormatter.ofPattern("EEEE yyyy-MM-dd HH:mm:ss", Locale.ENGLISH);

    private static final ToolSpec SPEC = new ToolSpec("current_time",
            "The current date and time, local and UTC, with the time zone. Use it rather than guessing today's date.",
            """
            {"type":"object","properties":{}}""");

    private final Clock clock;

    public CurrentTimeTool() {
        this(Clock.systemDefaultZone());
    }

    CurrentTimeTool(Clock clock) {
        this.clock = clock;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) {
        ZonedDateTime local = ZonedDateTime.now(clock).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        ZonedDateTime utc = local.withZoneSameInstant(java.time.ZoneOffset.UTC);
        return ToolResult.of("Local: " + local.format(SHOWN) + " " + local.getOffset() + " ("
                + local.getZone().getId() + ", " + local.getZone().getDisplayName(TextStyle.FULL, Locale.ENGLISH) + ")\n"
                + "UTC: " + utc.format(SHOWN) + "\n"
                + "ISO 8601: " + local.toOffsetDateTime() + "\n"
                + "Unix time: " + local.toEpochSecond());
    }
}
