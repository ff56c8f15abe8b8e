package dev.quiver.kernel.permission;

import dev.quiver.api.host.Verdict;
import java.util.List;
import java.util.Optional;

/**
 * The engine's decision for a call.
 *
 * @param verdict allow, ask or deny, with what decided and why
 * @param rule the configured rule that decided, for the audit log
 * @param grant what "always allow" would grant when the verdict asks; empty when it would grant nothing
 * @param unjudgeable the verdict asks because part of the call cannot be judged before it runs: neither
 *     --yolo nor anything but the user's own answer may let it run
 */
public record Decided(Verdict verdict, Optional<Rule> rule, List<String> grant, boolean unjudgeable) {

    public Decided {
        grant = List.copyOf(grant);
    }

    public Decided(Verdict verdict, Optional<Rule> rule, List<String> grant) {
        this(verdict, rule, grant, false);
    }
}
