package dev.quiver.kernel;

import dev.quiver.api.Access;
import dev.quiver.api.Subject;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Verdict;
import java.util.List;

/**
 * The permission decision for a call, before modes and approvals. This is the defaults by access
 * class; configured rules, secrets and the shell parser build on this seam.
 */
final class Permissions {

    static final String BY_DEFAULT = "default";

    Verdict decide(RegisteredTool tool, List<Subject> subjects) {
        Access access = tool.access();
        return switch (access) {
            case READ, STATE -> new Verdict(Decision.ALLOW, BY_DEFAULT,
                    tool.name() + " is a " + access.id() + "-only tool; those run without asking by default.");
            case WRITE, EXECUTE, NETWORK -> new Verdict(Decision.ASK, BY_DEFAULT,
                    tool.name() + " is " + (access == Access.EXECUTE ? "an " : "a ") + access.id() + " tool; those ask by default.");
        };
    }

    /** The decision for a tool the registry does not have. */
    Verdict unknown(String name) {
        return new Verdict(Decision.ASK, BY_DEFAULT, name + " is not a registered tool; unknown tools ask.");
    }
}
