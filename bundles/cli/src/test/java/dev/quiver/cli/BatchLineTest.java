package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchLineTest {

    @Test
    void aLineNamesTheToolAndCarriesTheArgumentsAsJson() {
        BatchLine line = BatchLine.parse(1, "{\"tool\":\"read_file\",\"args\":{\"path\":\"a b\"}}");
        assertEquals("read_file", line.tool());
        assertEquals("{\"path\":\"a b\"}", line.arguments());
        assertNull(line.error());
    }

    @Test
    void missingArgsMeanNoArgumentsAndStringArgsAreTakenAsJsonText() {
        assertEquals("{}", BatchLine.parse(1, "{\"tool\":\"glob\"}").arguments());
        assertEquals("{\"a\":1}", BatchLine.parse(1, "{\"tool\":\"glob\",\"args\":\"{\\\"a\\\":1}\"}").arguments());
    }

    @Test
    void malformedLinesSayWhichLineAndWhatIsWrong() {
        assertTrue(BatchLine.parse(4, "nope").error().startsWith("line 4 is not valid JSON"));
        assertEquals("line 2 has no \"tool\" string", BatchLine.parse(2, "{\"args\":{}}").error());
        assertTrue(BatchLine.parse(3, "[1,2]").error().startsWith("line 3 must be a JSON object"));
    }

    @Test
    void everyLineIsAnsweredABlankOneWithAnErrorSoAnswersPairWithLines() throws Exception {
        List<BatchLine> lines = new ArrayList<>();
        BatchLine.each("-", new BufferedReader(new StringReader("{\"tool\":\"a\"}\n\n   \n{\"tool\":\"b\"}\n")), lines::add);
        assertEquals(4, lines.size());
        assertEquals("b", lines.get(3).tool());
        assertEquals(4, lines.get(3).number());
        assertTrue(lines.get(1).error().startsWith("line 2 is empty"), lines.get(1).error());
        assertTrue(lines.get(2).error().startsWith("line 3 is empty"), lines.get(2).error());
    }
}
