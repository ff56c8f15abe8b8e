/**
 * The Quiver tool SPI: everything a tool bundle needs to compile.
 *
 * <p>A tool is an OSGi service of type {@link dev.quiver.api.Tool} with the service properties
 * named in {@link dev.quiver.api.Tool}. The kernel is the only bundle that can see tool services;
 * it decides whether each call runs, runs it with a {@link dev.quiver.api.ToolContext}, and caps
 * what comes back. Tools reach files through the {@link dev.quiver.api.Workspace} jail and
 * processes through the {@link dev.quiver.api.Shell} service. {@link dev.quiver.api.Guard}
 * services add refusals that no approval can override. {@link dev.quiver.api.SearchBackend}
 * services are the engines behind {@code web_search} (1.6). 1.7 added
 * {@link dev.quiver.api.ToolContext#runSubagent}, which runs a child agent for the {@code task} tool,
 * {@link dev.quiver.api.Tool#promptSection} and {@link dev.quiver.api.ToolContext#workspaceTrusted}; 1.8 {@link dev.quiver.api.ToolContext#askUser} and
 * {@link dev.quiver.api.UserQuestion}, a question for the person at the front end, and
 * {@link dev.quiver.api.ToolContext#runWorkerInWorktree}, a worker in a git checkout of its own for
 * {@code spawn_subagent}; 1.9 {@link dev.quiver.api.Workspace.Folder#openFolder}, a folder opened
 * relative to a held one.
 */
@Export
@Version("1.9.0")
package dev.quiver.api;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
