package dev.quiver.cli;

import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import java.util.Locale;

/** The approval line and how an answer to it is read; plain functions, so they are tested without a terminal. */
final class ApprovalPrompt {

    private ApprovalPrompt() {
    }

    /** {@code y allow once | a always allow bash git status * | n deny}, without "a" when nothing can be granted. */
    static String choices(ApprovalRequest request) {
        return request.pattern()
                .map(pattern -> "y allow once | a always allow " + request.tool() + " " + pattern + " | n deny")
                .orElse("y allow once | n deny");
    }

    /** {@code y} or {@code yes}, {@code a} or {@code always} (only when offered); anything else denies. */
    static Approval parse(String answer, ApprovalRequest request) {
        String choice = answer == null ? "" : answer.strip().toLowerCase(Locale.ROOT);
        if (choice.equals("y") || choice.equals("yes")) {
            return Approval.once();
        }
        if ((choice.equals("a") || choice.equals("always")) && request.pattern().isPresent()) {
            return Approval.always();
        }
        return Approval.deny("");
    }
}
