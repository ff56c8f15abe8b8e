package dev.quiver.tools.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import dev.quiver.api.UserQuestion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code ask} puts to the front end, and what the model reads of the answer. */
class AskToolTest {

    @TempDir
    Path temp;

    /** A context whose front end gives one scripted answer and keeps the question it got. */
    private final class Answering extends AgentContext {
        final List<UserQuestion> asked = new ArrayList<>();
        private final Optional<List<String>> answer;

        Answering(Optional<List<String>> answer) throws Exception {
            super(Files.createDirectories(temp.resolve("ws")), temp.resolve("state"), false);
            this.answer = answer;
        }

        @Override
        public Optional<List<String>> askUser(UserQuestion question) {
            asked.add(question);
            return answer;
        }
    }

    private static Arguments arguments(Map<String, Object> values) {
        return Arguments.of(values);
    }

    @Test
    void theOptionsGoToTheFrontEndInOrderOnOneLineEachAndTheChoiceComesBack() throws Exception {
        Answering context = new Answering(Optional.of(List.of("Postgres")));
        String result = new AskTool().call(arguments(Map.of("question", "Which database?", "options", List.of(
                Map.of("label", "Postgres", "detail", "what prod\nruns"), Map.of("label", "SQLite")))), context).text();
        assertEquals("The user chose: Postgres", result);
        UserQuestion asked = context.asked.get(0);
        assertEquals(List.of(new UserQuestion.Option("Postgres", "what prod runs"), new UserQuestion.Option("SQLite", "")),
                asked.options());
        assertEquals(false, asked.multiple());
    }

    @Test
    void withoutOptionsTheTypedTextIsTheAnswerAndMultipleMeansNothing() throws Exception {
        Answering context = new Answering(Optional.of(List.of("call it quiver-7")));
        String result = new AskTool().call(arguments(Map.of("question", "Name?", "multiple", true)), context).text();
        assertEquals("The user answered: call it quiver-7", result);
        assertEquals(false, context.asked.get(0).multiple());
    }

    @Test
    void anAnswerTypedInsteadOfAnOptionIsReportedAsTheUsersOwn() throws Exception {
        Answering context = new Answering(Optional.of(List.of("neither, use files")));
        assertEquals("The user answered: neither, use files", new AskTool().call(arguments(Map.of("question",
                "Which db?", "options", List.of(Map.of("label", "Postgres"), Map.of("label", "SQLite")))), context).text());
    }

    @Test
    void aDismissedQuestionTellsTheModelToUseItsJudgement() throws Exception {
        Answering context = new Answering(Optional.empty());
        assertEquals(AskTool.DISMISSED, new AskTool().call(arguments(Map.of("question", "Tabs?", "options",
                List.of(Map.of("label", "yes"), Map.of("label", "no")), "multiple", true)), context).text());
        assertTrue(context.asked.get(0).multiple());
    }

    @Test
    void badQuestionsAreRefusedBeforeAnyoneIsAsked() throws Exception {
        Answering context = new Answering(Optional.of(List.of("x")));
        ToolException empty = assertThrows(ToolException.class,
                () -> new AskTool().call(arguments(Map.of("question", "  ")), context));
        assertTrue(empty.getMessage().contains("empty"), empty.getMessage());
        ToolException twice = assertThrows(ToolException.class, () -> new AskTool().call(arguments(Map.of(
                "question", "Which?", "options", List.of(Map.of("label", "a"), Map.of("label", "a")))), context));
        assertTrue(twice.getMessage().contains("'a'"), twice.getMessage());
        List<Object> ten = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ten.add(Map.of("label", "o" + i));
        }
        ToolException many = assertThrows(ToolException.class,
                () -> new AskTool().call(arguments(Map.of("question", "Which?", "options", ten)), context));
        assertTrue(many.getMessage().contains("at most 9"), many.getMessage());
        assertTrue(context.asked.isEmpty());
    }

    @Test
    void whereNoOneCanAnswerTheToolSaysSo() throws Exception {
        AgentContext headless = new AgentContext(Files.createDirectories(temp.resolve("h")), temp.resolve("s"), false);
        ToolException refused = assertThrows(ToolException.class,
                () -> new AskTool().call(arguments(Map.of("question", "Which?")), headless));
        assertTrue(refused.getMessage().contains("state the assumption"), refused.getMessage());
    }
}
