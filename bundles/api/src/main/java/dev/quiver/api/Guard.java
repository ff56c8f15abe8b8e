package dev.quiver.api;

import java.util.Optional;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A refusal that runs before permission rules and approvals, registered as an OSGi service.
 *
 * <p>A guard refuses, it never approves: returning empty passes the call on to the rules.
 * {@code --yolo} does not reach guards. A guard that throws refuses the call (fails closed).
 */
@ConsumerType
public interface Guard {

    /**
     * Looks at one call before it runs.
     *
     * @param call the tool, its arguments and subjects
     * @return the reason to refuse, written for the model, or empty to let the call go on
     */
    Optional<String> refusal(ToolCall call);
}
