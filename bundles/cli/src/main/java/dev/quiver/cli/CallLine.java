package dev.quiver.cli;

import dev.quiver.api.host.CallOutcome;

/** The one line that shows how a call ended. */
final class CallLine {

    private CallLine() {
    }

    static String of(CallOutcome outcome) {
        String status = switch (outcome.status()) {
            case OK -> "ok";
            case ERROR -> "error: " + firstLine(outcome.output());
            case DENIED -> "denied (" + outcome.verdict().by() + "): " + firstLine(outcome.verdict().reason());
        };
        return "· " + outcome.tool() + " " + status + " (" + outcome.elapsedMillis() + " ms)";
    }

    private static String firstLine(String text) {
        int newline = text.indexOf('\n');
        String line = newline < 0 ? text : text.substring(0, newline);
        return line.length() > 160 ? line.substring(0, 160) + "..." : line;
    }
}
