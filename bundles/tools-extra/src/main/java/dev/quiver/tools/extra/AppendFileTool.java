package dev.quiver.tools.extra;

import dev.quiver.api.Tool;
import org.osgi.service.component.annotations.Component;

/** {@code append_file}: lines added after the last line of a file read earlier. */
@Component(service = Tool.class, property = {Tool.NAME + "=append_file", Tool.SET + "=extra", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class AppendFileTool extends EndLinesTool {

    public AppendFileTool() {
        super("append_file", "Add lines at the end of an existing file read earlier, in its line endings.", true);
    }
}
