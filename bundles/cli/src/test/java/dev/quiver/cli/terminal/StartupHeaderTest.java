package dev.quiver.cli.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.jline.utils.AttributedString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The header says when asks have become allows (--yolo, in red) and when nothing can change (--read-only). */
class StartupHeaderTest {

    @TempDir
    Path dir;

    @Test
    void yoloIsARedLineAndReadOnlyALineOfItsOwnAndNeitherShowsWhenOff() {
        FakeSession session = new FakeSession(dir);
        List<AttributedString> both = StartupHeader.lines("9.9.9", session, "sandboxed", true, true);
        AttributedString yolo = both.stream().filter(line -> line.toString().startsWith("--yolo")).findFirst().orElseThrow();
        assertEquals("--yolo: calls that would ask run without asking; guards, secrets and deny rules still refuse",
                yolo.toString());
        assertEquals(StartupHeader.YOLO, yolo.styleAt(0));
        assertTrue(both.stream().anyMatch(line -> line.toString().startsWith("--read-only: only read and state tools")),
                both.toString());
        List<AttributedString> neither = StartupHeader.lines("9.9.9", session, "sandboxed", false, false);
        assertFalse(neither.stream().anyMatch(line -> line.toString().startsWith("--")), neither.toString());
    }
}
