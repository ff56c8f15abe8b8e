package dev.quiver.kernel.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.SessionSummary;
import dev.quiver.api.host.Usage;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Sessions on disk: one JSON Lines file per session under the user's data folder
 * ({@code $XDG_DATA_HOME/quiver/sessions/<workspace>/<id>.jsonl}, by default under
 * {@code ~/.local/share}). Every event is appended and written through as it happens, so a crash
 * loses at most the event being written; a torn last line is skipped when the session is read.
 *
 * <p>Events: {@code session} (first line: id, workspace, model, time), {@code user},
 * {@code assistant} (text and tool calls), {@code tool} (call id, tool, status, decision, by,
 * output), {@code usage}, {@code compacted} (text; summary: what replaced the history, keptTurn: all but the turn under way),
 * {@code rewound} (turns: how many of the last turns an undo took
 * back), {@code section} (name, text: a system prompt section a tool set, such as the todo list; empty text
 * removed it).
 */
public final class SessionStore {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private final Path root;

    public SessionStore(Path root) {
        this.root = root;
    }

    /** The sessions folder from the environment: XDG_DATA_HOME, else ~/.local/share. */
    public static SessionStore fromEnvironment(Map<String, String> environment) {
        String data = environment.get("XDG_DATA_HOME");
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        Path base = data != null && !data.isBlank() ? Path.of(data) : Path.of(home, ".local", "share");
        return new SessionStore(base.resolve("quiver").resolve("sessions"));
    }

    /** The folder of one workspace's sessions: its name plus a hash of its path, so two "app" folders differ. */
    Path folder(Path workspace) {
        String name = workspace.getFileName() == null ? "root" : workspace.getFileName().toString()
                .replaceAll("[^A-Za-z0-9._-]", "_");
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(workspace.toString().getBytes(StandardCharsets.UTF_8));
            return root.resolve(name + "-" + HexFormat.of().formatHex(hash, 0, 6));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The workspace's state folder, beside its sessions and like them outside the working tree: what tools
     * keep about the workspace across sessions (the agent's notes). Not created here.
     */
    public Path stateFolder(Path workspace) {
        return folder(workspace).resolve("state");
    }

    /** A new session's writer; its file appears with its first event. */
    public Recorder create(Path workspace, String model) {
        String id = ID_TIME.format(Instant.now()) + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(0, 4);
        // the folder is found when the first event is written: its name hashes the workspace path, and
        // SHA-256's first use costs a start some 10 ms that `tools`, `call` and `check` never need
        return new Recorder(() -> folder(workspace).resolve(id + ".jsonl"), id, workspace, model, false);
    }

    /**
     * A stored session, read back.
     *
     * @param turns the numbers of the turns its history holds (the n-th prompt ever sent is turn n),
     *     oldest first: what an undo of the session's last turns undoes
     * @param prompts how many prompts it was ever sent, rewound ones included; the next turn is one more
     * @param sections the system prompt sections its tools last set (the todo list), by name
     */
    public record Loaded(Recorder recorder, List<ChatMessage> history, List<Integer> turns, int prompts,
            Map<String, String> sections) {
    }

    /**
     * Reads a stored session to continue it.
     *
     * @param which an id, a unique prefix of one, or {@code latest}
     * @throws HostException naming what was not found or was ambiguous
     */
    public Loaded resume(Path workspace, String which, String model) {
        List<Path> files = files(workspace);
        Path chosen;
        if ("latest".equals(which)) {
            if (files.isEmpty()) {
                throw new HostException("There is no session to continue in " + workspace + ".");
            }
            chosen = files.get(0);
        } else {
            List<Path> matching = files.stream().filter(f -> f.getFileName().toString().startsWith(which)).toList();
            if (matching.isEmpty()) {
                throw new HostException("No session '" + which + "' in " + workspace + ". `quiver sessions` lists them.");
            }
            if (matching.size() > 1) {
                throw new HostException("Session '" + which + "' is ambiguous: it matches " + matching.size()
                        + " sessions. Give more of the id.");
            }
            chosen = matching.get(0);
        }
        String id = chosen.getFileName().toString().replaceFirst("\\.jsonl$", "");
        Replayed replayed = read(chosen);
        return new Loaded(new Recorder(() -> chosen, id, workspace, model, true),
                Compaction.repairPairs(replayed.history()), replayed.turns(), replayed.prompts(), replayed.sections());
    }

    /** The id of the workspace's newest session (for tests and tools that show it). */
    static String latestOf(SessionStore store, Path workspace) {
        List<Path> files = store.files(workspace);
        return files.isEmpty() ? "latest" : files.get(0).getFileName().toString().replaceFirst("\\.jsonl$", "");
    }

    /** The workspace's sessions, newest first. */
    public List<SessionSummary> list(Path workspace) {
        List<SessionSummary> sessions = new ArrayList<>();
        for (Path file : files(workspace)) {
            Instant started = null;
            int prompts = 0;
            String title = "";
            for (JsonNode event : events(file)) {
                switch (event.path("type").asText()) {
                    case "session" -> started = Instant.parse(event.path("time").asText(Instant.EPOCH.toString()));
                    case "user" -> {
                        if (prompts++ == 0) {
                            title = shorten(event.path("text").asText());
                        }
                    }
                    default -> {
                    }
                }
            }
            try {
                Instant updated = Files.getLastModifiedTime(file).toInstant();
                sessions.add(new SessionSummary(file.getFileName().toString().replaceFirst("\\.jsonl$", ""),
                        started == null ? updated : started, updated, prompts, title));
            } catch (IOException vanished) {
                // a session deleted while listing is simply not listed
            }
        }
        return sessions;
    }

    private List<Path> files(Path workspace) {
        Path folder = folder(workspace);
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> listing = Files.list(folder)) {
            // ids begin with their time, so name order is time order
            return listing.filter(p -> p.getFileName().toString().endsWith(".jsonl"))
                    .sorted(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed()).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static List<JsonNode> events(Path file) {
        List<JsonNode> events = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                try {
                    events.add(JSON.readTree(line));
                } catch (IOException torn) {
                    // the event being written when the process died: skipped
                }
            }
        } catch (IOException e) {
            throw new HostException("Cannot read session file " + file + ": " + e.getMessage(), e);
        }
        return events;
    }

    /** A session file replayed: its history, the numbers of the turns it holds, and how many prompts it was sent. */
    private record Replayed(List<ChatMessage> history, List<Integer> turns, int prompts, Map<String, String> sections) {
    }

    private static Replayed read(Path file) {
        List<ChatMessage> history = new ArrayList<>();
        List<Integer> turns = new ArrayList<>();
        Map<String, String> sections = new java.util.TreeMap<>();
        int prompts = 0;
        for (JsonNode event : events(file)) {
            switch (event.path("type").asText()) {
                case "user" -> {
                    history.add(UserMessage.from(event.path("text").asText()));
                    turns.add(++prompts);
                }
                case "rewound" -> {
                    int rewound = Math.min(turns.size(), Math.max(0, event.path("turns").asInt()));
                    history = Compaction.withoutLastTurns(history, rewound);
                    turns.subList(turns.size() - rewound, turns.size()).clear();
                }
                case "assistant" -> {
                    List<ToolExecutionRequest> requests = new ArrayList<>();
                    for (JsonNode call : event.path("calls")) {
                        requests.add(ToolExecutionRequest.builder().id(call.path("id").asText())
                                .name(call.path("name").asText()).arguments(call.path("arguments").asText()).build());
                    }
                    String text = event.path("text").isTextual() ? event.path("text").asText() : null;
                    if (requests.isEmpty()) {
                        if (text != null && !text.isBlank()) {
                            history.add(AiMessage.from(text));
                        }
                    } else {
                        // a session written before calls were bounded may hold megabytes of one call's arguments
                        history.add(ArgumentLimit.bounded(text == null || text.isBlank() ? AiMessage.from(requests)
                                : AiMessage.from(text, requests)));
                    }
                }
                case "tool" -> history.add(ToolExecutionResultMessage.from(event.path("id").asText(),
                        event.path("tool").asText(), event.path("output").asText()));
                case "compacted" -> {
                    // the history that follows a compaction is what was stored, except that a summary stands for
                    // what it replaced in the session: everything, or the turns before the one under way
                    int start = event.path("keptTurn").asBoolean() ? Compaction.currentTurnStart(history) : history.size();
                    if (event.path("summary").isTextual() && start > 0) {
                        history = new ArrayList<>(Compaction.summarised(history, start, event.path("summary").asText()));
                    }
                }
                case "section" -> {
                    // the last text of each section counts; an empty one removed it
                    String name = event.path("name").asText();
                    String text = event.path("text").asText();
                    if (text.isEmpty()) {
                        sections.remove(name);
                    } else if (!name.isEmpty()) {
                        sections.put(name, text);
                    }
                }
                default -> {
                }
            }
        }
        return new Replayed(history, turns, prompts, sections);
    }

    private static String shorten(String text) {
        String line = text.strip().replaceAll("\\s+", " ");
        return line.length() > 80 ? line.substring(0, 80) + "..." : line;
    }

    /** Appends one session's events to its file. */
    public static final class Recorder {
        private final Supplier<Path> locate;
        private Path file;
        private final String id;
        private final Path workspace;
        private final String model;
        private boolean started;
        /** The session's own recorder where this one is a subagent's; null otherwise. */
        private final Recorder parent;

        Recorder(Supplier<Path> file, String id, Path workspace, String model, boolean exists) {
            this.locate = file;
            this.id = id;
            this.workspace = workspace;
            this.model = model;
            this.started = exists;
            this.parent = null;
        }

        private Recorder(Recorder parent) {
            this.locate = parent.locate;
            this.id = parent.id;
            this.workspace = parent.workspace;
            this.model = parent.model;
            this.parent = parent;
        }

        /**
         * A subagent's recorder: what its model requests used goes into this session's file, and nothing
         * of its conversation, which is its own and is not resumed with the session's.
         */
        public Recorder forSubagent() {
            return new Recorder(this);
        }

        public String id() {
            return id;
        }

        public synchronized Path file() {
            if (file == null) {
                file = locate.get();
            }
            return file;
        }

        public void user(String text) {
            ObjectNode event = event("user");
            event.put("text", text);
            append(event);
        }

        /** Records a model message; a call's arguments over {@link ArgumentLimit#MAX_BYTES} are kept as their stand-in. */
        public void assistant(AiMessage message) {
            AiMessage kept = ArgumentLimit.bounded(message);
            ObjectNode event = event("assistant");
            event.put("text", kept.text());
            ArrayNode calls = event.putArray("calls");
            if (kept.hasToolExecutionRequests()) {
                for (ToolExecutionRequest request : kept.toolExecutionRequests()) {
                    ObjectNode call = calls.addObject();
                    call.put("id", request.id());
                    call.put("name", request.name());
                    call.put("arguments", request.arguments());
                }
            }
            append(event);
        }

        public void tool(ToolExecutionRequest request, CallOutcome outcome, String output) {
            ObjectNode event = event("tool");
            event.put("id", request.id());
            event.put("tool", request.name());
            event.put("status", outcome.status().id());
            event.put("decision", outcome.verdict().decision().id());
            event.put("by", outcome.verdict().by());
            event.put("output", output);
            append(event);
        }

        public void usage(Usage usage) {
            ObjectNode event = event("usage");
            event.put("input", usage.inputTokens());
            event.put("output", usage.outputTokens());
            usage.costUsd().ifPresent(cost -> event.put("cost_usd", cost));
            append(event);
        }

        /** The last {@code turns} turns were undone: reading the session back leaves them out. */
        public void rewound(int turns) {
            ObjectNode event = event("rewound");
            event.put("turns", turns);
            append(event);
        }

        /** A system prompt section a tool set (empty text: removed), so a resumed session has it back. */
        public void section(String name, String text) {
            ObjectNode event = event("section");
            event.put("name", name);
            event.put("text", text);
            append(event);
        }

        public void compacted(String description) {
            ObjectNode event = event("compacted");
            event.put("text", description);
            append(event);
        }

        /**
         * A compaction that replaced the history by {@code summary}, all of it or ({@code keptTurn}) all but the
         * turn under way, so that a resume does too.
         */
        public void summarised(String description, String summary, boolean keptTurn) {
            ObjectNode event = event("compacted");
            event.put("text", description);
            event.put("summary", summary);
            event.put("keptTurn", keptTurn);
            append(event);
        }

        private ObjectNode event(String type) {
            ObjectNode event = JSON.createObjectNode();
            event.put("type", type);
            event.put("time", Instant.now().toString());
            return event;
        }

        private synchronized void append(ObjectNode event) {
            if (parent != null) {
                if ("usage".equals(event.path("type").asText())) {
                    parent.append(event);
                }
                return;
            }
            try {
                if (!started) {
                    Files.createDirectories(file().getParent());
                    ObjectNode header = event("session");
                    header.put("id", id);
                    header.put("workspace", workspace.toString());
                    header.put("model", model);
                    write(header);
                    started = true;
                }
                write(event);
            } catch (IOException e) {
                throw new HostException("Cannot write the session file " + file() + ": " + e.getMessage(), e);
            }
        }

        private void write(ObjectNode event) throws IOException {
            // one write per event, opened in append mode: what was written is on disk before the next event
            Files.writeString(file(), JSON.writeValueAsString(event) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.DSYNC);
        }

        Optional<Path> existing() {
            Path path = file();
            return Files.exists(path) ? Optional.of(path) : Optional.empty();
        }
    }
}
