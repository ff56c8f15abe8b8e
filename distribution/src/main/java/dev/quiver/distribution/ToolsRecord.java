package dev.quiver.distribution;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.osgi.framework.BundleContext;

/**
 * {@code quiver tools --json} from the output of the last run with exactly the same inputs
 * ({@link StartRecord}, kind {@code tools-json}): its exit code and the bytes it wrote on stdout and
 * stderr, given back before the framework starts.
 *
 * <p>Only the installation's own tools are answered so: with any jar in {@code deploy/} or the plugins
 * folder the command always runs live (a plugin's tool may describe itself differently at every start),
 * and so does {@code --with-mcp} (a server's tools can change at any time). The command line bundle
 * records a run only when it says the run was one a record can stand for (no warning printed, the
 * shell sandboxed); the launcher records it only when nothing else was printed on stderr and the
 * exit code is the one the command returned. {@code -Dquiver.tools.record=false} turns both off.
 *
 * <p>The command line bundle takes the recorder through a service of the system bundle, a
 * {@code Consumer<Map<String, String>>} with the property {@value #SERVICE_PROPERTY}, given
 * {@code code}, {@code stdout} and {@code stderr} (the bytes, Base64).
 */
final class ToolsRecord {

    static final String SERVICE_PROPERTY = "quiver.tools.record";
    private static final String FORMAT = "quiver tools json 1";
    private static final List<String> FIELDS = List.of("code", "stdout", "stderr");

    /** What a run printed and how it ended. */
    record Answer(int code, byte[] stdout, byte[] stderr) {
    }

    private final StartRecord record;
    private volatile Answer live;

    private ToolsRecord(StartRecord record) {
        this.record = record;
    }

    /**
     * The record of this start when the command line is {@code tools --json} with nothing that keeps it
     * live; empty otherwise.
     */
    static Optional<ToolsRecord> of(Path home, String[] args, Map<String, Object> properties) {
        if (args.length < 2 || !"tools".equals(args[0]) || !Arrays.asList(args).contains("--json")
                || "false".equals(System.getProperty("quiver.tools.record"))
                || Arrays.stream(args).anyMatch(a -> a.equals("--with-mcp") || a.equals("-h") || a.equals("--help")
                        || a.equals("-V") || a.equals("--version"))) {
            return Optional.empty();
        }
        Path deploy = Launcher.folder(properties, "felix.fileinstall.dir");
        Path plugins = Launcher.folder(properties, "quiver.plugins.dir");
        try {
            if (!Launcher.jars(deploy).isEmpty() || !Launcher.jars(plugins).isEmpty()) {
                return Optional.empty();
            }
            StartRecord.Inputs inputs = new StartRecord.Inputs(home, Path.of("").toAbsolutePath(), List.of(args),
                    System.getenv(), List.of(home.resolve("bundle"), deploy, plugins));
            return StartRecord.of("tools-json", FORMAT, inputs).map(ToolsRecord::new);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The recorded answer, when there is one for exactly these inputs. */
    Optional<Answer> read() {
        return record.read(FIELDS).flatMap(fields -> {
            try {
                int code = Integer.parseInt(fields.get(0));
                Base64.Decoder base64 = Base64.getDecoder();
                return Optional.of(new Answer(code, base64.decode(fields.get(1)), base64.decode(fields.get(2))));
            } catch (IllegalArgumentException e) {
                return Optional.empty(); // garbled: run live
            }
        });
    }

    /**
     * Writes the answer where a live run writes it; returns its exit code. A stream that cannot be
     * written (closed, a full disk) is skipped as the live run's {@code PrintStream} skips it: the other
     * still gets its bytes and the exit code is the recorded one.
     */
    static int give(Answer answer) {
        write(FileDescriptor.err, answer.stderr());
        write(FileDescriptor.out, answer.stdout());
        return answer.code();
    }

    private static void write(FileDescriptor descriptor, byte[] bytes) {
        try {
            FileOutputStream stream = new FileOutputStream(descriptor);
            stream.write(bytes);
            stream.flush();
        } catch (IOException e) {
            // as a live run: PrintStream notes the error and goes on
        }
    }

    /** Offers the recorder to the command line bundle. */
    void register(BundleContext system) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(SERVICE_PROPERTY, "true");
        Consumer<Map<String, String>> recorder = fields -> {
            try {
                Base64.Decoder base64 = Base64.getDecoder();
                live = new Answer(Integer.parseInt(fields.get("code")), base64.decode(fields.get("stdout")),
                        base64.decode(fields.get("stderr")));
            } catch (RuntimeException e) {
                live = null;
            }
        };
        system.registerService(Consumer.class, recorder, properties);
    }

    /**
     * Records what the command line bundle handed over, when the process ended as it said.
     *
     * @param code the exit code the process ends with
     * @param othersPrinted whether anything besides the command wrote on stderr
     */
    void recordIfClean(int code, boolean othersPrinted) {
        Answer answer = live;
        if (answer == null || othersPrinted || answer.code() != code) {
            return;
        }
        Map<String, String> fields = new LinkedHashMap<>();
        Base64.Encoder base64 = Base64.getEncoder();
        fields.put("code", String.valueOf(answer.code()));
        fields.put("stdout", base64.encodeToString(answer.stdout()));
        fields.put("stderr", base64.encodeToString(answer.stderr()));
        record.write(fields);
    }
}
