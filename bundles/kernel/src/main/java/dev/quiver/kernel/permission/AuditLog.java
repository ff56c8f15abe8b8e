package dev.quiver.kernel.permission;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.quiver.api.Subject;
import dev.quiver.api.host.Verdict;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code audit.jsonl} in Quiver's state folder for the workspace (outside the working tree, so a
 * repository cannot plant a link there that makes Quiver append to another file): one JSON line per
 * decision on a call — time, session, tool, subjects, decision, what decided, the rule and its
 * file, and a subagent's label on its calls. Arguments other than the subjects (file contents, edit
 * strings) are never written.
 */
public final class AuditLog {

    private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);
    private static final JsonFactory JSON = new JsonFactory();
    /** Subjects are cut here: a megabyte of command line does not belong in an audit line. */
    private static final int MAX_SUBJECT_CHARS = 2000;

    private final Path file;
    private final String session;

    /** @param folder the workspace's state folder */
    public AuditLog(Path folder, String session) {
        this.file = folder.resolve("audit.jsonl");
        this.session = session;
    }

    public Path file() {
        return file;
    }

    public void record(String tool, List<Subject> subjects, Verdict verdict, Optional<Rule> rule) {
        record(tool, subjects, verdict, rule, Optional.empty());
    }

    /** A decision on a call; a subagent's call carries its label in {@code subagent}. */
    public synchronized void record(String tool, List<Subject> subjects, Verdict verdict, Optional<Rule> rule,
            Optional<String> subagent) {
        try {
            StringWriter line = new StringWriter();
            try (JsonGenerator json = JSON.createGenerator(line)) {
                json.writeStartObject();
                json.writeStringField("time", Instant.now().toString());
                json.writeStringField("session", session);
                json.writeStringField("tool", tool);
                json.writeArrayFieldStart("subjects");
                for (Subject subject : subjects) {
                    String value = subject.value();
                    json.writeString(value.length() > MAX_SUBJECT_CHARS ? value.substring(0, MAX_SUBJECT_CHARS) + "..." : value);
                }
                json.writeEndArray();
                json.writeStringField("decision", verdict.decision().id());
                json.writeStringField("by", verdict.by());
                if (rule.isPresent()) {
                    json.writeStringField("rule", rule.get().pattern());
                    json.writeStringField("file", rule.get().file().toString());
                } else {
                    json.writeNullField("rule");
                    json.writeNullField("file");
                }
                if (subagent.isPresent()) {
                    json.writeStringField("subagent", subagent.get());
                }
                json.writeEndObject();
            }
            line.write('\n');
            Path folder = file.getParent();
            if (!Files.isDirectory(folder)) {
                Files.createDirectories(folder);
            }
            Files.writeString(file, line.toString(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot append to the audit log {}", file, e);
        }
    }
}
