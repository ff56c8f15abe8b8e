package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutputCaptureTest {

    private final List<String> live = new ArrayList<>();

    private static void feed(OutputCapture capture, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        capture.accept(bytes, bytes.length);
    }

    @Test
    void outputWithinTheLimitsIsKeptWhole() {
        OutputCapture capture = new OutputCapture(10, 5, live::add);
        feed(capture, "0123456789");
        feed(capture, "abcde");
        assertEquals("0123456789abcde", capture.text());
        assertEquals(15, capture.total());
    }

    @Test
    void outputPastTheLimitsKeepsHeadAndTailAndCountsTheDroppedMiddle() {
        OutputCapture capture = new OutputCapture(4, 3, live::add);
        feed(capture, "HEAD");
        feed(capture, "middle-that-goes-");
        feed(capture, "away");
        feed(capture, "END");
        long total = "HEADmiddle-that-goes-awayEND".length();
        assertEquals("HEAD\n... [" + (total - 7) + " bytes of output dropped from the middle; " + total
                + " bytes in all] ...\nEND", capture.text());
    }

    @Test
    void oneBigReadIsSplitIntoHeadAndTail() {
        OutputCapture capture = new OutputCapture(3, 3, live::add);
        feed(capture, "abcdefghij");
        assertEquals("abc\n... [4 bytes of output dropped from the middle; 10 bytes in all] ...\nhij", capture.text());
    }

    @Test
    void everythingIsPassedOnLive() {
        OutputCapture capture = new OutputCapture(2, 2, live::add);
        feed(capture, "hello ");
        feed(capture, "world");
        assertEquals("hello world", String.join("", live));
    }

    @Test
    void multiByteCharacterSplitAcrossReadsIsPassedOnWhole() {
        OutputCapture capture = new OutputCapture(100, 100, live::add);
        byte[] euro = "x\u20acy".getBytes(StandardCharsets.UTF_8); // x, three bytes, y
        capture.accept(new byte[] {euro[0], euro[1]}, 2);
        capture.accept(new byte[] {euro[2]}, 1);
        capture.accept(new byte[] {euro[3], euro[4]}, 2);
        assertEquals("x\u20acy", String.join("", live));
        assertEquals("x\u20acy", capture.text());
    }

    @Test
    void liveConsumerThatThrowsDoesNotStopTheCapture() {
        OutputCapture capture = new OutputCapture(100, 100, text -> {
            throw new IllegalStateException("terminal gone");
        });
        feed(capture, "kept");
        assertEquals("kept", capture.text());
    }
}
