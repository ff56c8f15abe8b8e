package dev.quiver.workspace;

import dev.quiver.api.Workspace;
import dev.quiver.api.WorkspaceFactory;
import java.io.IOException;
import java.nio.file.Path;
import org.osgi.service.component.annotations.Component;

/** Registers the workspace implementation as a {@link WorkspaceFactory} service. */
@Component(service = WorkspaceFactory.class)
public class WorkspaceFactoryComponent implements WorkspaceFactory {

    @Override
    public Workspace open(Path root) throws IOException {
        return JailedWorkspace.open(root, null);
    }

    @Override
    public Workspace open(Path root, Path stateFolder) throws IOException {
        return JailedWorkspace.open(root, stateFolder);
    }
}
