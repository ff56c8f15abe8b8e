package dev.quiver.cli.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jline.utils.AttributedString;
import org.junit.jupiter.api.Test;

class LiveAreaTest {

    private static List<String> text(LiveArea live, int width, int height, long now) {
        return live.render(width, height, now).stream().map(AttributedString::toString).toList();
    }

    @Test
    void idleThereIsNothingLive() {
        LiveArea live = new LiveArea();
        assertEquals(List.of(), text(live, 80, 24, 0));
        assertEquals("› ", live.prompt());
    }

    @Test
    void aRunningCallShowsWithTheLastLinesOfItsOutput() {
        LiveArea live = new LiveArea();
        long now = System.currentTimeMillis();
        live.busy(now);
        live.callStarted("bash", "npm test");
        for (int i = 1; i <= 9; i++) {
            live.callOutput("line " + i + "\n");
        }
        live.callOutput("partial\033[31m red");
        List<String> lines = text(live, 80, 24, now + 4200);
        assertTrue(lines.get(0).matches(". bash  npm test · 4 s · ctrl-c stops it"), lines.get(0));
        assertEquals(List.of("  ▏ line 5", "  ▏ line 6", "  ▏ line 7", "  ▏ line 8", "  ▏ line 9", "  ▏ partial red"),
                lines.subList(1, 7));
        live.callEnded();
        assertTrue(text(live, 80, 24, now + 5000).get(0).contains("working · 5 s · esc aborts"));
    }

    @Test
    void queuedPromptsAndTheUnfinishedAnswerAreShownAboveTheStatus() {
        LiveArea live = new LiveArea();
        live.busy(0);
        live.tail(List.of(new AttributedString("The answer so f")));
        live.queued(List.of("second\nwith two lines", "third"));
        List<String> lines = text(live, 80, 24, 1000);
        assertEquals("The answer so f", lines.get(0));
        assertEquals("queued › second", lines.get(1));
        assertEquals("queued › third", lines.get(2));
        assertTrue(lines.get(3).endsWith("working · 1 s · esc aborts · 2 queued"), lines.get(3));
    }

    @Test
    void anApprovalReplacesTheStatusAndTheRunningCall() {
        LiveArea live = new LiveArea();
        live.busy(0);
        live.callStarted("bash", "rm x");
        live.question("y allow once | n deny");
        assertEquals(List.of("y allow once | n deny"), text(live, 80, 24, 0));
        assertEquals("? ", live.prompt());
    }

    @Test
    void theTimeAQuestionWaitsIsLeftOutOfTheTurnsTimer() {
        LiveArea live = new LiveArea();
        live.busy(0);
        live.question("y allow once | n deny", 2_000);
        live.question(null, 62_000); // a minute at the question
        assertTrue(text(live, 80, 24, 65_000).get(0).contains("working · 5 s · esc aborts"),
                text(live, 80, 24, 65_000).toString());
    }

    @Test
    void aLongUnfinishedAnswerKeepsItsLastRowsOnScreen() {
        LiveArea live = new LiveArea();
        live.busy(0);
        List<AttributedString> tail = List.of(new AttributedString("x".repeat(200)), new AttributedString("last"));
        live.tail(tail);
        List<String> lines = text(live, 40, 6, 0);
        assertEquals(List.of("last"), lines.subList(0, 1), "the 5-row line does not fit in 3 rows: " + lines);
    }

    @Test
    void hintsExpire() {
        LiveArea live = new LiveArea();
        live.hint("ctrl-c again quits", 1000);
        assertEquals(List.of("ctrl-c again quits"), text(live, 80, 24, 999));
        assertEquals(List.of(), text(live, 80, 24, 1000));
    }
}
