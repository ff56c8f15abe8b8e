package dev.quiver.tools.nav;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A file's identifiers decide, without reading it again, whether it may declare a name: by their hashes
 * for an exact name, by a filter of three-byte runs for a glob's literal part. A file that holds the name
 * must never be ruled out; one that cannot hold it should be.
 */
class SourcesTest {

    private static boolean mayDeclare(String text, String name) throws Exception {
        return Sources.identifiers(text.getBytes(StandardCharsets.UTF_8)).mayDeclare(NamePattern.parse(name));
    }

    @Test
    void everyPartOfEveryIdentifierOfALargeFilePasses() throws Exception {
        Random random = new Random(21);
        List<String> names = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 5_000; i++) {
            StringBuilder name = new StringBuilder();
            for (int length = 3 + random.nextInt(14); name.length() < length; ) {
                name.append("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789$".charAt(random.nextInt(64)));
            }
            names.add(name.toString());
            text.append(name).append(i % 7 == 0 ? "(\n" : " = ");
        }
        Sources.Identifiers identifiers = Sources.identifiers(text.toString().getBytes(StandardCharsets.UTF_8));
        for (String name : names) {
            assertTrue(identifiers.mayDeclare(NamePattern.parse(name)), name);
            for (int from = 0; from + 3 <= name.length(); from++) {
                for (int to = from + 3; to <= name.length(); to++) {
                    String glob = "*" + name.substring(from, to) + "*";
                    assertTrue(identifiers.mayDeclare(NamePattern.parse(glob)), glob);
                }
            }
        }
    }

    @Test
    void aLiteralNoIdentifierHoldsIsRuledOut() throws Exception {
        String text = "class Hash { Map<String, Größe> table; }\n";
        assertTrue(mayDeclare(text, "*Hash*"));
        assertTrue(mayDeclare(text, "*öße"), "non-ASCII bytes belong to identifiers");
        assertFalse(mayDeclare(text, "*shMa*"), "runs across two identifiers are not runs of one");
        assertFalse(mayDeclare(text, "*Mapper"));
        assertFalse(mayDeclare(text, "Concurrent*"));
        assertFalse(mayDeclare(text, "Table"), "an exact name is looked up by its hash: case counts");
        assertTrue(mayDeclare(text, "table"));
    }

    /**
     * {@code Fork} in a file that has {@code For} and {@code ork} only in other words: its runs of three
     * pass, its run of four mostly does not. A filter of runs of three alone would rule none of these out.
     */
    @Test
    void runsOfFourRuleOutALiteralWhoseRunsOfThreeSitInDifferentIdentifiers() throws Exception {
        Random random = new Random(4);
        List<String> literals = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            StringBuilder literal = new StringBuilder();
            while (literal.length() < 4) {
                literal.append((char) ('a' + random.nextInt(26)));
            }
            literals.add(literal.toString());
            text.append(literal, 0, 3).append(' ').append(literal, 1, 4).append('\n');
        }
        Sources.Identifiers identifiers = Sources.identifiers(text.toString().getBytes(StandardCharsets.UTF_8));
        int ruledOut = 0;
        for (String literal : literals) {
            assertTrue(identifiers.mayDeclare(NamePattern.parse("*" + literal.substring(0, 3) + "*")));
            if (!identifiers.mayDeclare(NamePattern.parse("*" + literal + "*"))) {
                ruledOut++;
            }
        }
        assertTrue(ruledOut > 50, ruledOut + " of 100 ruled out");
    }
}
