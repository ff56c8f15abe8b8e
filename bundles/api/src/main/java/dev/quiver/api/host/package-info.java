/**
 * The contract between the kernel and the front ends (the command line, the terminal, the MCP
 * server). Tool authors do not need it.
 *
 * <p>A front end gets the {@link dev.quiver.api.host.Kernel} service, opens a
 * {@link dev.quiver.api.host.Session} for a workspace, and then lists tools, checks or runs single
 * calls through the full permission chain, or sends prompts to the agent loop.
 *
 * <p>1.1 added workspace trust ({@code Kernel.workspaceTrust}, {@code trust}, {@code revokeTrust},
 * {@code trustedWorkspaces}); 1.2 checkpoints and undo ({@link dev.quiver.api.host.Checkpoint},
 * {@link dev.quiver.api.host.UndoReport}, {@code Session.previewUndo} and {@code undo},
 * {@code Kernel.checkpoints} and {@code undo}); 1.3 {@code SessionOptions.mcpConfig}, the
 * {@code --mcp-config} files of a run, the command line's other settings of a run
 * ({@link dev.quiver.api.host.RunOptions}, {@code SessionOptions.run}), three listener events for
 * machine-readable output ({@code TurnListener.callStarted} with the call's id, {@code callDecided},
 * {@code retrying}) and {@code ApprovalRequest.diff}; 1.4 agent variants and thinking levels
 * ({@code RunOptions.agent}, {@code thinking}, {@code maxTurnsGiven}, {@code AGENTS}, {@code THINKING};
 * {@code Session.agent}, {@code switchAgent}, {@code thinking}, {@code switchThinking}) and
 * {@code TurnListener.ask}, a tool's question for the person at the front end; 1.5
 * {@code Session.warmUp}, the idle warm-up of a long-lived front end.
 */
@Export
@Version("1.5.0")
package dev.quiver.api.host;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
