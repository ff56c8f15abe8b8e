package dev.quiver.cli;

import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import java.util.Locale;

/** The approval line and how an answer to it is read; plain functions, so they are tested without a terminal. */
public final class ApprovalPrompt {

    /**
     * What an answer in the terminal said.
     *
     * @param approval the answer, or null when the user must still say what to do instead
     *     ({@link #askInstead}) or the answer was not understood ({@link #unclear})
     * @param askInstead the user said no; ask what to do instead
     */
    public record Reading(Approval approval, boolean askInstead) {

        /** Whether the answer was neither y, a nor n: ask again. */
        public boolean unclear() {
            return approval == null && !askInstead;
        }
    }

    private ApprovalPrompt() {
    }

    /** {@code y allow once | a always allow bash git status * | n deny}, without "a" when nothing can be granted. */
    public static String choices(ApprovalRequest request) {
        return request.pattern()
                // the pattern is cut from the command: its control characters are shown, never sent to the terminal
                .map(pattern -> "y allow once | a always allow " + request.tool() + " "
                        + dev.quiver.cli.terminal.Printable.visible(pattern) + " | n deny")
                .orElse("y allow once | n deny");
    }

    /** {@code y} or {@code yes}, {@code a} or {@code always} (only when offered); anything else denies. */
    public static Approval parse(String answer, ApprovalRequest request) {
        String choice = answer == null ? "" : answer.strip().toLowerCase(Locale.ROOT);
        if (choice.equals("y") || choice.equals("yes")) {
            return Approval.once();
        }
        if ((choice.equals("a") || choice.equals("always")) && request.pattern().isPresent()) {
            return Approval.always();
        }
        return Approval.deny("");
    }

    /**
     * Reads an answer typed at the terminal by its first word: {@code y}/{@code yes} allows once,
     * {@code a}/{@code always} allows the pattern (when one is offered), {@code n}/{@code no} denies,
     * and what follows {@code n} is what to do instead ({@code n use git diff}); a bare {@code n} asks
     * for it. Anything else, an empty line included, is unclear and asked again.
     */
    public static Reading read(String answer, ApprovalRequest request) {
        String text = answer == null ? "" : answer.strip();
        int space = indexOfSpace(text);
        String word = (space < 0 ? text : text.substring(0, space)).toLowerCase(Locale.ROOT).replaceAll("[.,!:;]+$", "");
        String rest = space < 0 ? "" : text.substring(space).strip();
        switch (word) {
            case "y", "yes" -> {
                return new Reading(Approval.once(), false);
            }
            case "a", "always" -> {
                return request.pattern().isPresent() ? new Reading(Approval.always(), false) : new Reading(null, false);
            }
            case "n", "no" -> {
                return rest.isEmpty() ? new Reading(null, true) : new Reading(Approval.deny(rest), false);
            }
            default -> {
                return new Reading(null, false);
            }
        }
    }

    /**
     * Whether a line is nothing but an answer word ({@code y}, {@code yes}, {@code a}, {@code always},
     * {@code n}, {@code no}): typed while no question waits, it was meant for one, not for the model.
     */
    public static boolean isAnswerWord(String line) {
        String word = line == null ? "" : line.strip().toLowerCase(Locale.ROOT).replaceAll("[.,!:;]+$", "");
        return switch (word) {
            case "y", "yes", "a", "always", "n", "no" -> true;
            default -> false;
        };
    }

    /** Whether an answer to a yes-or-no question is yes: {@code y} or {@code yes}, in any case. */
    public static boolean yes(String answer) {
        String word = answer == null ? "" : answer.strip().toLowerCase(Locale.ROOT).replaceAll("[.,!:;]+$", "");
        return word.equals("y") || word.equals("yes");
    }

    /** What an answer did, for the line left on screen: {@code allowed once}, {@code denied: use rg}. */
    public static String outcome(Approval approval, ApprovalRequest request) {
        return switch (approval.choice()) {
            case ONCE -> "allowed once";
            case ALWAYS -> "allowed " + request.tool() + " "
                    + dev.quiver.cli.terminal.Printable.visible(request.pattern().orElse("")) + " for this session";
            case DENY -> approval.instead().isBlank() ? "denied" : "denied: " + approval.instead();
        };
    }

    private static int indexOfSpace(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isWhitespace(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }
}
