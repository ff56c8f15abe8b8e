package dev.quiver.kernel.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.SessionSummary;
import dev.quiver.api.host.Usage;
import dev.quiver.api.host.Verdict;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionStoreTest {

    @TempDir
    Path temp;

    private SessionStore.Recorder recordOne(SessionStore store, Path workspace, String prompt) {
        SessionStore.Recorder recorder = store.create(workspace, "openai/test");
        recorder.user(prompt);
        ToolExecutionRequest request = ToolExecutionRequest.builder().id("call_1").name("read_file")
                .arguments("{\"path\":\"a.txt\"}").build();
        recorder.assistant(AiMessage.from("Let me look.", List.of(request)));
        recorder.tool(request, new CallOutcome("read_file", CallOutcome.Status.OK, "1: hello", 3,
                new Verdict(Decision.ALLOW, "default", "read")), "1: hello");
        recorder.usage(new Usage(120, 30, Optional.empty()));
        recorder.assistant(AiMessage.from("It says hello."));
        return recorder;
    }

    @Test
    void aRewoundTurnIsLeftOutWhenTheSessionIsReadBackAndTurnNumbersAreNeverReused() throws Exception {
        SessionStore store = new SessionStore(temp.resolve("sessions"));
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        SessionStore.Recorder recorder = recordOne(store, workspace, "first");
        recorder.user("second");
        recorder.assistant(AiMessage.from("done second"));
        recorder.user("third");
        recorder.assistant(AiMessage.from("done third"));
        recorder.rewound(2);
        recorder.user("fourth");
        recorder.assistant(AiMessage.from("done fourth"));
        SessionStore.Loaded loaded = store.resume(workspace, recorder.id(), "openai/test");
        List<String> prompts = loaded.history().stream().filter(UserMessage.class::isInstance)
                .map(message -> ((UserMessage) message).singleText()).toList();
        assertEquals(List.of("first", "fourth"), prompts);
        assertEquals(List.of(1, 4), loaded.turns(), "each prompt keeps the number it was sent with");
        assertEquals(4, loaded.prompts());
        assertEquals("done fourth", ((AiMessage) loaded.history().get(loaded.history().size() - 1)).text());
    }

    @Test
    void everyEventIsOnDiskAsItHappensAndResumingRebuildsTheHistory() throws Exception {
        SessionStore store = new SessionStore(temp.resolve("sessions"));
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        SessionStore.Recorder recorder = store.create(workspace, "openai/test");
        recorder.user("first prompt");
        List<String> lines = Files.readAllLines(recorder.file());
        assertEquals(2, lines.size(), "the header and the prompt are written at once");
        assertTrue(lines.get(0).contains("\"type\":\"session\"") && lines.get(1).contains("first prompt"));

        SessionStore.Recorder full = recordOne(store, workspace, "what does a.txt say?");
        SessionStore.Loaded loaded = store.resume(workspace, full.id(), "openai/test");
        List<ChatMessage> history = loaded.history();
        assertEquals(4, history.size(), history.toString());
        assertEquals("what does a.txt say?", ((UserMessage) history.get(0)).singleText());
        assertEquals("call_1", ((AiMessage) history.get(1)).toolExecutionRequests().get(0).id());
        assertEquals("1: hello", ((ToolExecutionResultMessage) history.get(2)).text());
        assertEquals("It says hello.", ((AiMessage) history.get(3)).text());
        assertEquals(full.id(), loaded.recorder().id());
    }

    @Test
    void aTornLastLineFromACrashIsSkippedAndAnUnansweredCallIsRepaired() throws Exception {
        SessionStore store = new SessionStore(temp.resolve("sessions"));
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        SessionStore.Recorder recorder = store.create(workspace, "openai/test");
        recorder.user("run it");
        ToolExecutionRequest request = ToolExecutionRequest.builder().id("c9").name("bash").arguments("{}").build();
        recorder.assistant(AiMessage.from(request));
        Files.writeString(recorder.file(), "{\"type\":\"tool\",\"id\":\"c9\",\"out", StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
        List<ChatMessage> history = store.resume(workspace, SessionStore.latestOf(store, workspace), "x").history();
        CompactionTest.assertPaired(history);
        assertTrue(((ToolExecutionResultMessage) history.get(2)).text().contains("lost"));
    }

    @Test
    void sessionsAreListedNewestFirstPerWorkspaceAndFoundByPrefix() throws Exception {
        SessionStore store = new SessionStore(temp.resolve("sessions"));
        Path one = Files.createDirectories(temp.resolve("app"));
        Path other = Files.createDirectories(temp.resolve("other/app"));
        SessionStore.Recorder first = recordOne(store, one, "the first task");
        Thread.sleep(1100);
        SessionStore.Recorder second = recordOne(store, one, "the second task");
        recordOne(store, other, "elsewhere");
        List<SessionSummary> listed = store.list(one);
        assertEquals(List.of(second.id(), first.id()), listed.stream().map(SessionSummary::id).toList());
        assertEquals("the second task", listed.get(0).title());
        assertEquals(1, listed.get(0).prompts());
        assertEquals(second.id(), store.resume(one, "latest", "m").recorder().id());
        assertEquals(first.id(), store.resume(one, first.id().substring(0, first.id().length() - 2), "m").recorder().id());
        HostException missing = assertThrows(HostException.class, () -> store.resume(one, "nope", "m"));
        assertTrue(missing.getMessage().contains("quiver sessions"), missing.getMessage());
        assertThrows(HostException.class, () -> store.resume(Files.createDirectories(temp.resolve("empty")), "latest", "m"));
    }

    @Test
    void theFolderFollowsXdgDataHome() {
        SessionStore store = SessionStore.fromEnvironment(Map.of("XDG_DATA_HOME", temp.toString()));
        assertTrue(store.folder(Path.of("/repo/app")).startsWith(temp.resolve("quiver/sessions")));
        assertTrue(store.folder(Path.of("/repo/app")).getFileName().toString().startsWith("app-"));
    }
}
