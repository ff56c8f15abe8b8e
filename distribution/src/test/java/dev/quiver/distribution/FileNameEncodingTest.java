package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class FileNameEncodingTest {

    @Test
    void utf8FileNamesNeedNoWarningHoweverTheJvmSpellsIt() {
        for (String encoding : new String[] {"UTF-8", "UTF8", "utf-8", "utf8"}) {
            assertEquals(Optional.empty(), FileNameEncoding.warning(encoding, "C.UTF-8"), encoding);
        }
    }

    @Test
    void anotherEncodingIsOneLineNamingTheEncodingTheLocaleTheConsequenceAndTheFix() {
        String warning = FileNameEncoding.warning("ANSI_X3.4-1968", "C").orElseThrow();
        assertEquals("quiver: warning: Java reads file names as ANSI_X3.4-1968, not UTF-8 (the locale C, and no UTF-8 "
                + "locale is installed), so files whose names are not ASCII may be missed or fail to open. Install "
                + "one (C.UTF-8 or en_US.UTF-8; `locale -a` lists them) and set LC_ALL to it.", warning);
        assertTrue(FileNameEncoding.warning("ISO-8859-1", null).orElseThrow().contains("(no locale set, and"));
        assertTrue(FileNameEncoding.warning("ISO-8859-1", "").orElseThrow().contains("(no locale set, and"));
        assertTrue(!warning.contains("\n"), "one line");
    }
}
