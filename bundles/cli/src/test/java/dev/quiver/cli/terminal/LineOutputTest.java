package dev.quiver.cli.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineOutputTest {

    @Test
    void handsOverCompleteLinesDecodedAndTheUnfinishedOneAtClose() {
        List<String> lines = new ArrayList<>();
        try (PrintStream out = new PrintStream(new LineOutput(lines::add), true, StandardCharsets.UTF_8)) {
            out.print("first ");
            out.print("half\r\nsecond · ü\n");
            assertEquals(List.of("first half", "second · ü"), lines);
            out.print("unfinished");
        }
        assertEquals(List.of("first half", "second · ü", "unfinished"), lines);
    }
}
