package dev.quiver.tools.extra;

import dev.quiver.api.Tool;
import org.osgi.service.component.annotations.Component;

/** {@code prepend_file}: lines added before the first line of a file read earlier. */
@Component(service = Tool.class, property = {Tool.NAME + "=prepend_file", Tool.SET + "=extra", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class PrependFileTool extends EndLinesTool {

    public PrependFileTool() {
        super("prepend_file", "Add lines at the start of an existing file read earlier (a license header, say), in "
                + "its line endings.", false);
    }
}
