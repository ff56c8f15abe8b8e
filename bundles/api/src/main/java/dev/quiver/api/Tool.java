package dev.quiver.api;

import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A tool the model can call, registered as an OSGi service.
 *
 * <p>Register it with these service properties so the kernel can place it without calling it:
 * <ul>
 *   <li>{@value #NAME}: the wire name, {@code snake_case}, equal to {@code spec().name()};</li>
 *   <li>{@value #SET}: the tool set ({@code core}, {@code edit-plus}, ...), absent for plugin tools;</li>
 *   <li>{@value #ACCESS}: one of {@link Access}, written in lower case; it picks the default decision;</li>
 *   <li>{@value #AUTO_APPROVE}: {@code true} asks for calls to run unasked, honoured only for
 *       bundles the installation trusts.</li>
 * </ul>
 *
 * <p>With Declarative Services:
 * <pre>{@code
 * @Component(property = {Tool.NAME + "=hello", Tool.ACCESS + "=read"})
 * public class HelloTool implements Tool { ... }
 * }</pre>
 *
 * <p>The kernel may call a tool from several threads at once. A tool never sees other tools.
 */
@ConsumerType
public interface Tool {

    /** Service property: the tool's wire name. */
    String NAME = "quiver.tool.name";
    /** Service property: the tool set the tool belongs to. */
    String SET = "quiver.tool.set";
    /** Service property: the tool's {@link Access} class, in lower case. */
    String ACCESS = "quiver.tool.access";
    /** Service property: {@code true} when the bundle asks for the tool to run without approval. */
    String AUTO_APPROVE = "quiver.tool.autoApprove";
    /**
     * Service property: {@code true} when every change the tool makes goes through its context's
     * {@link Workspace} (its {@link Workspace#change change} or its own operations) and it has no other
     * effect. Such a tool's call may be run once against a workspace that records instead of writing, so
     * the approval question shows the diff; once approved, exactly the recorded changes are made and the
     * dry run's result is the call's. A tool that writes any other way must not set it.
     *
     * @since 1.6
     */
    String PREVIEW = "quiver.tool.preview";

    /** The name, description and argument schema sent to the model on every request. */
    ToolSpec spec();

    /**
     * What a call is matched on by permission rules: the command, every path, the URL.
     * The default, no subjects, makes rules match the call as {@code *}.
     *
     * @param arguments the call's arguments, not yet validated
     * @throws ToolException when the arguments are too malformed to name a subject
     */
    default List<Subject> subjects(Arguments arguments) throws ToolException {
        return List.of();
    }

    /**
     * The subjects of a call, for tools that must look at the workspace to name them — such as a tool
     * that runs the project's own check commands, which are matched and guarded as commands. The
     * kernel calls this one; by default it returns {@link #subjects(Arguments)}.
     *
     * @param arguments the call's arguments, not yet validated
     * @param workspace the session's workspace, for reading only
     * @throws ToolException when the arguments are too malformed to name a subject
     */
    default List<Subject> subjects(Arguments arguments, Workspace workspace) throws ToolException {
        return subjects(arguments);
    }

    /**
     * Runs one call. Only reached after the kernel allowed it.
     *
     * @param arguments the arguments the model sent
     * @param context the workspace, output stream and cancellation of this call
     * @return what the model reads back
     * @throws ToolException with a message written for the model: what was wrong, what to do next
     */
    ToolResult call(Arguments arguments, ToolContext context) throws ToolException;

    /**
     * Text this tool adds to the system prompt of every step that offers it, read again at each step so
     * that it reflects the workspace as it is now (the skills found in it, say). The kernel shows it under
     * the tool's name, cut at 4,000 characters, and calls this on the step's thread: keep it quick and
     * bounded. The context is the session's, outside any call: it has no output stream, no prompt
     * sections and no model to ask. A failure leaves the section out of that step.
     *
     * @param context the session's workspace, configuration, state folder and trust
     * @return the section's text; empty, the default, for none
     * @since 1.7
     */
    default String promptSection(ToolContext context) {
        return "";
    }
}
