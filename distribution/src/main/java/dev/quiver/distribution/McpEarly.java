package dev.quiver.distribution;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.osgi.framework.BundleContext;

/**
 * {@code quiver mcp} over stdio before the framework has started: while Felix starts, answers the
 * client's {@code initialize} and {@code tools/list} from the catalogue recorded at the last start
 * ({@link McpCatalogue}), when it was recorded with exactly this start's inputs.
 *
 * <p>From then on this class's thread is the only reader of standard input: what it did not answer
 * (every {@code tools/call}, and {@code initialize} and {@code notifications/initialized} too, which
 * the live server must see to open its session) goes, in order, into the stream the MCP bundle
 * reads. The bundle takes over through a service of the system bundle, a {@link Supplier} with the
 * property {@value #SERVICE_PROPERTY}: its map holds {@code in} (that stream), {@code initialize}
 * (the id, as JSON, of the {@code initialize} already answered: the live answer to it is not sent
 * again), {@code tools} (the {@code tools/list} result served, so the live server can send
 * {@code notifications/tools/list_changed} if its list differs) and {@code record} (a
 * {@code Consumer<Map<String, String>>} that records the live catalogue for the next start). From the
 * moment it takes over this thread answers nothing and only copies input.
 *
 * <p>Anything unexpected before the answers (a line that is not JSON, a request other than these,
 * a client whose elicitation capability differs from the record's) ends the early answers: the rest
 * is the live server's, exactly as if there had been no record. Without a valid record standard
 * input is not touched at all and the service hands over only {@code record}.
 */
final class McpEarly {

    static final String SERVICE_PROPERTY = "quiver.mcp.early";
    /** A line longer than this is not read here; it and all after it are the live server's. */
    private static final int MAX_LINE = 1024 * 1024;
    private static final byte[] END = new byte[0];

    private final StartRecord.Inputs inputs;
    private final PrintStream out;
    private final CountDownLatch decided = new CountDownLatch(1);
    private final BlockingQueue<byte[]> forwarded = new ArrayBlockingQueue<>(256);
    private final Object lock = new Object();
    private volatile McpCatalogue catalogue;
    private volatile McpCatalogue.Record record;
    private boolean handedOver;
    private boolean answering = true;
    private String answeredInitialize;
    private boolean initialized;
    private boolean served;

    private McpEarly(StartRecord.Inputs inputs, PrintStream out) {
        this.inputs = inputs;
        this.out = out;
    }

    /**
     * Starts the early answers for {@code quiver mcp} over stdio; empty for every other command
     * line, and with {@code -Dquiver.mcp.catalogue=false}.
     */
    static Optional<McpEarly> start(Path home, String[] args, Map<String, Object> properties) {
        if (args.length == 0 || !"mcp".equals(args[0]) || "false".equals(System.getProperty("quiver.mcp.catalogue"))
                || Arrays.stream(args).anyMatch(a -> a.equals("--http") || a.startsWith("--http=") || a.equals("-h")
                        || a.equals("--help") || a.equals("-V") || a.equals("--version"))) {
            return Optional.empty();
        }
        List<Path> folders = List.of(home.resolve("bundle"), Launcher.folder(properties, "felix.fileinstall.dir"),
                Launcher.folder(properties, "quiver.plugins.dir"));
        McpEarly early = new McpEarly(new StartRecord.Inputs(home, Path.of("").toAbsolutePath(), List.of(args),
                System.getenv(), folders), System.out);
        Thread thread = new Thread(early::run, "quiver-mcp-early");
        thread.setDaemon(true);
        thread.start();
        return Optional.of(early);
    }

    /** Offers the hand-over to the MCP bundle. */
    void register(BundleContext system) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(SERVICE_PROPERTY, "true");
        Supplier<Map<String, Object>> handOver = this::handOver;
        system.registerService(Supplier.class, handOver, properties);
    }

    private Map<String, Object> handOver() {
        try {
            decided.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Map<String, Object> state = new HashMap<>();
        McpCatalogue current = catalogue;
        if (current != null) {
            Consumer<Map<String, String>> recorder = fields -> current.write(Boolean.parseBoolean(fields.get("interactive")),
                    List.of(fields.get("protocols").split(" ")), fields.get("initialize"), fields.get("tools"));
            state.put("record", recorder);
        }
        if (record != null) {
            synchronized (lock) {
                handedOver = true;
                state.put("in", new QueueInputStream());
                if (answeredInitialize != null) {
                    state.put("initialize", answeredInitialize);
                }
                if (served) {
                    state.put("tools", record.tools());
                }
            }
        }
        return state;
    }

    private void run() {
        try {
            catalogue = McpCatalogue.of(inputs).orElse(null);
            record = catalogue == null ? null : catalogue.read().orElse(null);
        } catch (IOException | RuntimeException e) {
            record = null;
        } finally {
            decided.countDown();
        }
        if (record == null) {
            return; // standard input stays the live server's own
        }
        InputStream in = new BufferedInputStream(new FileInputStream(FileDescriptor.in), 64 * 1024);
        try {
            ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
            while (true) {
                synchronized (lock) {
                    if (handedOver || !answering) {
                        break;
                    }
                }
                line.reset();
                int b;
                while ((b = in.read()) != -1 && b != '\n' && line.size() < MAX_LINE) {
                    line.write(b);
                }
                if (b == '\n') {
                    line.write(b);
                } else if (b != -1) {
                    line.write(b); // too long: the live server reads the rest of it
                }
                synchronized (lock) {
                    if (handedOver || !answering || b != '\n' || !answered(line.toString(StandardCharsets.UTF_8))) {
                        answering = answering && b == '\n' && !handedOver;
                        put(line.toByteArray());
                    }
                }
                if (b == -1) {
                    put(END);
                    return;
                }
            }
            byte[] buffer = new byte[64 * 1024];
            for (int n; (n = in.read(buffer)) != -1; ) {
                if (n > 0) {
                    put(Arrays.copyOf(buffer, n));
                }
            }
        } catch (IOException e) {
            // the client's side is gone: the live server sees the end of input
        }
        put(END);
    }

    /**
     * Answers one line when it is a request answered from the record.
     *
     * @return whether the live server must not see it
     */
    private boolean answered(String line) {
        Object parsed;
        try {
            parsed = MiniJson.parse(line);
        } catch (IllegalArgumentException e) {
            answering = false;
            return false;
        }
        if (!(parsed instanceof Map<?, ?> message) || !"2.0".equals(message.get("jsonrpc"))
                || !(message.get("method") instanceof String method)) {
            answering = false;
            return false;
        }
        String id = id(message.get("id"));
        if (answeredInitialize == null) {
            answering = "initialize".equals(method) && id != null && answerInitialize(id, message.get("params"));
            return false; // the live server opens its session from it; its answer is not sent twice
        }
        if ("notifications/initialized".equals(method) && !message.containsKey("id")) {
            initialized = true;
            return false;
        }
        if ("tools/list".equals(method) && id != null && initialized) {
            send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + record.tools() + "}");
            served = true;
            return true;
        }
        return false; // tools/call and everything else: the live server's, in order
    }

    private boolean answerInitialize(String id, Object params) {
        if (!(params instanceof Map<?, ?> map) || !(map.get("protocolVersion") instanceof String requested)) {
            return false;
        }
        boolean interactive = map.get("capabilities") instanceof Map<?, ?> capabilities
                && capabilities.containsKey("elicitation") && capabilities.get("elicitation") != MiniJson.NULL;
        if (interactive != record.interactive()) {
            return false;
        }
        List<String> protocols = record.protocols();
        String protocol = protocols.contains(requested) ? requested : protocols.get(protocols.size() - 1);
        String rest = record.initialize().substring(1).strip();
        send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"protocolVersion\":" + MiniJson.quote(protocol)
                + (rest.equals("}") ? "" : ",") + rest + "}");
        answeredInitialize = id;
        return true;
    }

    /** A request id as the live server writes it back: a string or an integer; anything else is not answered here. */
    private static String id(Object id) {
        if (id instanceof String text) {
            return MiniJson.quote(text);
        }
        return id instanceof MiniJson.Number number && number.isInteger() ? number.literal() : null;
    }

    private void send(String json) {
        out.print(json + "\n");
        out.flush();
    }

    private void put(byte[] bytes) {
        try {
            forwarded.put(bytes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Standard input as the live server sees it: the lines it must still read, then the rest. */
    private final class QueueInputStream extends InputStream {
        private byte[] chunk = new byte[0];
        private int at;
        private boolean ended;

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            while (at == chunk.length) {
                if (ended) {
                    return -1;
                }
                try {
                    chunk = forwarded.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException();
                }
                at = 0;
                if (chunk == END) {
                    ended = true;
                    chunk = new byte[0];
                }
            }
            int n = Math.min(length, chunk.length - at);
            System.arraycopy(chunk, at, buffer, offset, n);
            at += n;
            return n;
        }

        @Override
        public int available() {
            return chunk.length - at;
        }
    }
}
