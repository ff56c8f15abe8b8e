package dev.quiver.kernel.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArgumentLimitTest {

    private static ToolExecutionRequest call(String id, String arguments) {
        return ToolExecutionRequest.builder().id(id).name("write_file").arguments(arguments).build();
    }

    @Test
    void theSizeIsCountedInUtf8Bytes() {
        String ascii = "a".repeat(ArgumentLimit.MAX_BYTES);
        assertEquals(-1, ArgumentLimit.oversize(ascii));
        assertEquals(ArgumentLimit.MAX_BYTES + 1, ArgumentLimit.oversize(ascii + "b"));
        // under the limit in characters, over it in bytes: two, three and four bytes a character
        for (String character : List.of("é", "€", "😀")) {
            String text = character.repeat(ArgumentLimit.MAX_BYTES / 2 + 1);
            assertEquals(text.getBytes(StandardCharsets.UTF_8).length, ArgumentLimit.oversize(text), character);
        }
        assertEquals(-1, ArgumentLimit.oversize(null));
    }

    @Test
    void onlyCallsOverTheLimitGetTheStandInWhichIsAJsonObjectAndKeepTheirIds() throws Exception {
        String huge = "{\"content\":\"" + "x".repeat(2 * ArgumentLimit.MAX_BYTES) + "\"}";
        AiMessage message = AiMessage.from("Writing both.", List.of(call("call_1", "{\"path\":\"a\"}"), call("call_2", huge)));
        AiMessage bounded = ArgumentLimit.bounded(message);
        assertEquals("Writing both.", bounded.text());
        assertEquals(message.toolExecutionRequests().get(0), bounded.toolExecutionRequests().get(0));
        ToolExecutionRequest standIn = bounded.toolExecutionRequests().get(1);
        assertEquals("call_2", standIn.id());
        assertEquals("write_file", standIn.name());
        assertEquals(ArgumentLimit.standIn(huge.length()), standIn.arguments());
        assertEquals(huge.length() + " bytes of arguments, over the limit of 1048576; refused and not kept",
                new ObjectMapper().readTree(standIn.arguments()).get("omitted").asText());

        AiMessage small = AiMessage.from(List.of(call("call_3", "{}")));
        assertSame(small, ArgumentLimit.bounded(small));
    }
}
