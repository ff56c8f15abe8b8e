package dev.quiver.kernel.permission;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WildcardTest {

    @Test
    void starSpansAnythingIncludingNewlines() {
        assertTrue(Wildcard.matches("git *", "git log --oneline\nrm -rf /"));
        assertTrue(Wildcard.matches("*", ""));
        assertTrue(Wildcard.matches("src/*", "src/a/b/c.java"));
        assertFalse(Wildcard.matches("git *", "gitx status"));
    }

    @Test
    void questionMarkIsExactlyOneCharacterEvenOutsideTheBmp() {
        assertTrue(Wildcard.matches("a?c", "abc"));
        assertTrue(Wildcard.matches("a?c", "a\uD83D\uDE00c"), "one emoji is one character");
        assertFalse(Wildcard.matches("a?c", "ac"));
        assertFalse(Wildcard.matches("a?c", "abbc"));
    }

    @Test
    void everythingElseIsLiteralIncludingRegexMetacharacters() {
        assertTrue(Wildcard.matches("a.b[1]+(x)", "a.b[1]+(x)"));
        assertFalse(Wildcard.matches("a.b", "axb"));
        assertFalse(Wildcard.matches("[ab]", "a"));
    }

    @Test
    void absurdPatternsOnHugeTextsFinishWithoutBlowingTheStack() {
        String text = "a".repeat(200_000);
        assertFalse(Wildcard.matches("*a*a*a*a*a*a*a*a*b", text));
        assertTrue(Wildcard.matches("*a*a*a*a*a*a*a*a*", text));
        assertFalse(Wildcard.matches("?".repeat(200_001), text));
    }
}
