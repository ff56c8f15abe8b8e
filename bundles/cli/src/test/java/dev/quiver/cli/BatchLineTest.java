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

    @Test
    void aLineLongerThanTheLimitIsAnsweredWithAnErrorAndTheNextLinesStillRun() throws Exception {
        List<BatchLine> lines = new ArrayList<>();
        String longLine = "{\"tool\":\"a\",\"args\":{\"c\":\"" + "x".repeat(200) + "\"}}";
        BatchLine.each("-", new BufferedReader(new StringReader(
                "{\"tool\":\"a\"}\r\n" + longLine + "\r{\"tool\":\"b\"}\r\n" + "y".repeat(500))), lines::add, 100);
        assertEquals(4, lines.size());
        assertEquals("a", lines.get(0).tool());
        assertTrue(lines.get(1).error().startsWith("line 2 is longer than 100 characters"), lines.get(1).error());
        assertEquals("b", lines.get(2).tool());
        assertEquals(3, lines.get(2).number());
        assertTrue(lines.get(3).error().startsWith("line 4 is longer"), lines.get(3).error());
    }

    @Test
    void aLineOfExactlyTheLimitIsRead() throws Exception {
        String line = "{\"tool\":\"" + "t".repeat(100 - 11) + "\"}";
        assertEquals(100, line.length());
        List<BatchLine> lines = new ArrayList<>();
        BatchLine.each("-", new BufferedReader(new StringReader(line)), lines::add, 100);
        assertEquals("t".repeat(89), lines.get(0).tool());
    }

    @Test
    void aStringAsLongAsTheLineLimitAllowsIsParsed() {
        // Jackson's own default stops at 20,000,000 characters, below the line limit
        String content = "x".repeat(BatchLine.MAX_LINE - 100);
        BatchLine line = BatchLine.parse(1, "{\"tool\":\"write_file\",\"args\":{\"content\":\"" + content + "\"}}");
        assertNull(line.error());
        assertEquals(content.length() + 14, line.arguments().length());
    }
}
