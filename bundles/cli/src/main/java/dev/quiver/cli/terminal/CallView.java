package dev.quiver.cli.terminal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.host.CallOutcome;
import java.util.Locale;
import java.util.Map;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/** The one line a tool call leaves on screen, and the pieces it is made of; plain functions. */
public final class CallView {

    /** The terminal package's one mapper (building one costs start-up time). */
    static final ObjectMapper JSON = new ObjectMapper();
    /** Argument names that say best what a call is about, in order of preference. */
    private static final String[] SUBJECTS = {"command", "pattern", "path", "file_path", "url", "query", "handle", "name"};

    static final AttributedStyle OK = AttributedStyle.DEFAULT.foreground(AttributedStyle.GREEN);
    static final AttributedStyle FAILED = AttributedStyle.DEFAULT.foreground(AttributedStyle.RED);
    static final AttributedStyle REFUSED = AttributedStyle.DEFAULT.foreground(AttributedStyle.YELLOW);

    private CallView() {
    }

    /**
     * What a call acts on, in one line: the command of {@code bash}, the path of a file tool, the
     * pattern of a search; otherwise the arguments as compact JSON.
     */
    public static String summary(String arguments) {
        JsonNode node;
        try {
            node = JSON.readTree(arguments == null || arguments.isBlank() ? "{}" : arguments);
        } catch (Exception e) {
            return oneLine(arguments == null ? "" : arguments);
        }
        if (node == null || !node.isObject()) {
            return oneLine(String.valueOf(node));
        }
        for (String key : SUBJECTS) {
            JsonNode value = node.get(key);
            if (value != null && value.isTextual() && !value.asText().isBlank()) {
                String text = oneLine(value.asText());
                JsonNode pathTwo = node.get("path");
                if (key.equals("pattern") && pathTwo != null && pathTwo.isTextual()) {
                    text += " in " + oneLine(pathTwo.asText());
                }
                return text;
            }
        }
        if (node.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            if (out.length() > 0) {
                out.append(' ');
            }
            JsonNode value = field.getValue();
            out.append(field.getKey()).append('=').append(value.isTextual() ? value.asText() : value.toString());
        }
        return oneLine(out.toString());
    }

    /** A text on one line: line breaks shown as {@code ⏎}, control characters dropped. */
    static String oneLine(String text) {
        String[] lines = text.strip().split("\r?\n");
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            if (i > 0) {
                out.append(" ⏎ ");
            }
            out.append(Printable.line(lines[i]));
        }
        return out.toString();
    }

    /**
     * {@code ✓ bash  git status  12 ms}, {@code ✗ bash  sleep 30 · The command was interrupted ... 2.0 s},
     * {@code ⊘ bash  rm -rf x · refused (guard): ...}.
     *
     * @param summary what the call acted on, from {@link #summary}
     * @param width the terminal's width, to keep it to one line; 0 for no limit
     */
    public static AttributedString line(CallOutcome outcome, String summary, int width) {
        AttributedStringBuilder out = new AttributedStringBuilder();
        String mark;
        AttributedStyle style;
        String status;
        switch (outcome.status()) {
            case OK -> {
                mark = "✓";
                style = OK;
                status = "";
            }
            case ERROR -> {
                mark = "✗";
                style = FAILED;
                status = Printable.firstLine(outcome.output().strip());
            }
            default -> {
                mark = "⊘";
                style = REFUSED;
                status = "user".equals(outcome.verdict().by()) ? "denied"
                        : "refused (" + outcome.verdict().by() + "): " + Printable.firstLine(outcome.verdict().reason());
            }
        }
        String time = duration(outcome.elapsedMillis());
        out.style(style).append(mark).append(' ');
        out.style(AttributedStyle.BOLD).append(outcome.tool());
        out.style(AttributedStyle.DEFAULT);
        int used = 2 + outcome.tool().length() + 2 + time.length();
        int room = width <= 0 ? Integer.MAX_VALUE : Math.max(10, width - used - 1);
        String middle = summary.isEmpty() ? "" : "  " + summary;
        String tail = status.isEmpty() ? "" : " · " + Printable.line(status);
        if (middle.length() + tail.length() > room) {
            int forStatus = Math.min(tail.length(), Math.max(room / 2, room - middle.length()));
            tail = Printable.cut(tail, forStatus);
            middle = Printable.cut(middle, Math.max(0, room - tail.length()));
        }
        out.append(middle);
        out.style(style).append(tail);
        out.style(Markdown.FAINT).append("  ").append(time);
        return out.toAttributedString();
    }

    /** {@code 840 ms}, {@code 3.2 s}, {@code 2m 05s}. */
    public static String duration(long millis) {
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        long seconds = millis / 1000;
        return String.format(Locale.ROOT, "%dm %02ds", seconds / 60, seconds % 60);
    }
}
