package dev.quiver.cli.terminal;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.TurnListener;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files a prompt names as {@code @path}, attached to it: each is read by the session's
 * {@code read_file}, through the same permission chain as the model's calls (a secret is refused, the
 * output is capped and numbered, and the file counts as read for a later edit), and its output is
 * added after the prompt. A word that names no file ({@code @alice}) stays as it is.
 */
final class Attachments {

    /** Files one prompt attaches; more are named but left for the model to read. */
    static final int MAX_FILES = 10;
    private static final Pattern AT = Pattern.compile("(?<!\\S)@(\\S+)");

    private Attachments() {
    }

    /**
     * The prompt with the files it names attached; what could not be attached is told on {@code sink}.
     *
     * @param listener hears the reads as any direct call's (an approval, if a rule asks for one)
     */
    static String expand(Session session, String prompt, TurnListener listener, Sink sink) {
        Set<String> paths = new LinkedHashSet<>();
        Matcher matcher = AT.matcher(prompt);
        while (matcher.find()) {
            // sentence punctuation after a path is not part of it: "see @a.txt." names a.txt
            String path = matcher.group(1).replaceAll("[.,;:!?)\\]'\"]+$", "");
            if (!path.isEmpty()) {
                paths.add(path);
            }
        }
        if (paths.isEmpty()) {
            return prompt;
        }
        StringBuilder attached = new StringBuilder();
        int count = 0;
        for (String path : paths) {
            if (count == MAX_FILES) {
                sink.notice("only the first " + MAX_FILES + " @files are attached; the model can read the others");
                break;
            }
            CallOutcome read = session.call("read_file", arguments(path), listener);
            if (read.status() == CallOutcome.Status.OK) {
                attached.append("\n\n--- @").append(path).append(" (read_file) ---\n").append(read.output());
                sink.notice("attached @" + path);
                count++;
            } else if (!read.output().startsWith("No such file")) {
                sink.notice("@" + path + " not attached: " + Printable.line(read.output().lines().findFirst().orElse("")));
            }
        }
        return count == 0 ? prompt : prompt + "\n\nThe user attached these files (read_file's output):" + attached;
    }

    private static String arguments(String path) {
        try {
            return CallView.JSON.writeValueAsString(Map.of("path", path));
        } catch (com.fasterxml.jackson.core.JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
