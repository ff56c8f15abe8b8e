import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import dev.quiver.tools.core.GlobTool;
import dev.quiver.tools.core.GrepTool;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * grep and glob without the host: reads {@code {"tool":..,"args":{..}}} lines as {@code quiver call --batch -}
 * does and calls the tools directly on a workspace of the tree, as bench/FilesBench.java does, answering
 * {@code {"status":"ok","tool_ns":N}} with the time inside the tool's call. Run by bench/grep-phases.sh beside
 * a real batch process, so that the two are timed the same way; never a test.
 */
public final class GrepServer {

    public static void main(String[] args) throws Exception {
        Workspace workspace = new WorkspaceFactoryComponent().open(Path.of(args[0]));
        ToolContext context = new ToolContext() {
            @Override
            public Workspace workspace() {
                return workspace;
            }

            @Override
            public Optional<Object> config(String key) {
                return Optional.empty();
            }

            @Override
            public void stream(String text) {
            }

            @Override
            public Map<String, String> environment() {
                return System.getenv();
            }

            @Override
            public boolean isCancelled() {
                return false;
            }
        };
        Map<String, Tool> tools = Map.of("grep", new GrepTool(), "glob", new GlobTool());
        ObjectMapper mapper = new ObjectMapper();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            @SuppressWarnings("unchecked")
            Map<String, Object> request = mapper.readValue(line, Map.class);
            @SuppressWarnings("unchecked")
            Map<String, Object> arguments = (Map<String, Object>) request.get("args");
            Tool tool = tools.get((String) request.get("tool"));
            long start = System.nanoTime();
            tool.call(Arguments.of(arguments), context);
            out.println("{\"status\":\"ok\",\"tool_ns\":" + (System.nanoTime() - start) + "}");
            out.flush();
        }
        System.exit(0); // nothing the tools started needs to finish
    }
}
