package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PipedReader;
import java.io.PipedWriter;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PipedInputTest {

    @Test
    void aPipeThatNeverWritesOrClosesIsGivenUpOnWithANotice() throws Exception {
        try (PipedWriter neverWrites = new PipedWriter(); PipedReader in = new PipedReader(neverWrites)) {
            List<String> notices = new ArrayList<>();
            assertEquals(Optional.empty(), PipedInput.read(in, Duration.ofMillis(200), notices::add));
            assertEquals(1, notices.size());
            assertTrue(notices.get(0).startsWith("no input arrived on stdin"), notices.get(0));
        }
    }

    @Test
    void aPipeThatStartsInTimeIsReadToItsEndHoweverLongTheRestTakes() throws Exception {
        PipedWriter out = new PipedWriter();
        PipedReader in = new PipedReader(out);
        Thread writer = new Thread(() -> {
            try (out) {
                out.write("first line\n");
                out.flush();
                Thread.sleep(1500); // longer than the first wait: only the first byte has a deadline
                out.write("second line\n");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        writer.start();
        List<String> notices = new ArrayList<>();
        assertEquals(Optional.of("first line\nsecond line\n"), PipedInput.read(in, Duration.ofSeconds(1), notices::add));
        assertEquals(List.of(), notices);
    }

    @Test
    void emptyInputAddsNothingAndTooMuchIsAnError() throws Exception {
        assertEquals(Optional.empty(), PipedInput.read(new StringReader(" \n"), Duration.ofSeconds(5), n -> { }));
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> PipedInput.read(
                new StringReader("x".repeat(PipedInput.MAX_CHARS + 1)), Duration.ofSeconds(5), n -> { }));
        assertTrue(error.getMessage().startsWith("stdin holds more than 1048576 characters"), error.getMessage());
        assertEquals("review\n\ndiff", PipedInput.prompt("review", Optional.of("diff")));
        assertEquals("diff", PipedInput.prompt("", Optional.of("diff")));
    }
}
