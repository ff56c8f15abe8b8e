package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ShellConfigTest {

    private static String error(Object value) {
        return assertThrows(ShellConfig.Invalid.class, () -> ShellConfig.parse(Optional.of(value))).getMessage();
    }

    @Test
    void unsetMeansAutoWithoutNetwork() throws Exception {
        assertEquals(new ShellConfig(ShellConfig.Sandboxing.AUTO, false), ShellConfig.parse(Optional.empty()));
        assertEquals(ShellConfig.DEFAULT, ShellConfig.parse(Optional.of(Map.of())));
    }

    @Test
    void everySettingIsRead() throws Exception {
        assertEquals(new ShellConfig(ShellConfig.Sandboxing.REQUIRED, true),
                ShellConfig.parse(Optional.of(Map.of("sandbox", "required", "network", true))));
        assertEquals(new ShellConfig(ShellConfig.Sandboxing.OFF, false),
                ShellConfig.parse(Optional.of(Map.of("sandbox", "off"))));
    }

    @Test
    void badValuesAreErrorsNeverDefaults() {
        assertEquals("\"shell\".\"sandbox\" must be \"auto\", \"required\" or \"off\", got \"Required\".",
                error(Map.of("sandbox", "Required")));
        assertEquals("\"shell\".\"sandbox\" must be \"auto\", \"required\" or \"off\", got false.",
                error(Map.of("sandbox", false)));
        assertEquals("\"shell\".\"network\" must be true or false, got \"yes\".", error(Map.of("network", "yes")));
        assertEquals("\"shell\" has an unknown key \"netwrok\"; the keys are \"sandbox\" and \"network\".",
                error(Map.of("netwrok", true)));
        assertEquals("\"shell\" must be an object such as {\"sandbox\": \"auto\", \"network\": false}, got \"off\".",
                error("off"));
        assertEquals("\"shell\" must be an object such as {\"sandbox\": \"auto\", \"network\": false}, got [off].",
                error(List.of("off")));
    }
}
