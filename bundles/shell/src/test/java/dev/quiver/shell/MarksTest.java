package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MarksTest {

    @Test
    void underAnInheritedTagEveryOwnerIsDrawnBelowIt() {
        for (int i = 0; i < 10_000; i++) {
            long owner = Marks.newOwner(5);
            assertTrue(owner >= 1 && owner <= 4, "owner " + owner);
        }
        long unbounded = 0;
        for (int i = 0; i < 100; i++) {
            unbounded = Math.max(unbounded, Marks.newOwner(-1));
        }
        assertTrue(unbounded > 4, "without an inherited tag owners use all 28 bits: " + unbounded);
    }

    /** A command of a Quiver that runs inside another Quiver's command can still be tagged. */
    @Test
    void aTagDrawnUnderAnOuterTagCanBeSetInsideIt() throws Exception {
        assertTrue(Marks.tagsAvailable(), "prlimit is part of util-linux, which the shell needs");
        long outer = Marks.tag(Marks.newOwner(), 9); // below this JVM's own tag, if it runs under one
        long inner = Marks.tag(Marks.newOwner(Marks.owner(outer)), 1_000_000);
        List<String> command = new ArrayList<>(Marks.tagging(outer));
        command.addAll(List.of("--", "sh", "-c", String.join(" ", Marks.tagging(inner)) + " -- true"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.waitFor(), "an inner tag above the outer one is refused by the kernel: " + output);
    }
}
