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
        assertEquals(new ShellConfig(ShellConfig.Sandboxing.AUTO, false, List.of(), List.of()),
                ShellConfig.parse(Optional.empty()));
        assertEquals(ShellConfig.DEFAULT, ShellConfig.parse(Optional.of(Map.of())));
    }

    @Test
    void everySettingIsRead() throws Exception {
        assertEquals(new ShellConfig(ShellConfig.Sandboxing.REQUIRED, true, List.of(), List.of()),
                ShellConfig.parse(Optional.of(Map.of("sandbox", "required", "network", true))));
        assertEquals(new ShellConfig(ShellConfig.Sandboxing.OFF, false, List.of(), List.of()),
                ShellConfig.parse(Optional.of(Map.of("sandbox", "off"))));
        assertEquals(new ShellConfig(ShellConfig.Sandboxing.AUTO, false, List.of("~", "/opt/tools"), List.of("~/.m2")),
                ShellConfig.parse(Optional.of(Map.of("readable", List.of("~", "/opt/tools"), "writable", List.of("~/.m2")))));
    }

    @Test
    void envIsTheKernelsAndAccepted() throws Exception {
        // the kernel reads "env" for the process environment; the shell must not refuse every command over it
        assertEquals(ShellConfig.DEFAULT, ShellConfig.parse(Optional.of(Map.of("env", List.of("NPM_TOKEN")))));
    }

    @Test
    void badValuesAreErrorsNeverDefaults() {
        assertEquals("\"shell\".\"sandbox\" must be \"auto\", \"required\" or \"off\", got \"Required\".",
                error(Map.of("sandbox", "Required")));
        assertEquals("\"shell\".\"sandbox\" must be \"auto\", \"required\" or \"off\", got false.",
                error(Map.of("sandbox", false)));
        assertEquals("\"shell\".\"network\" must be true or false, got \"yes\".", error(Map.of("network", "yes")));
        assertEquals("\"shell\" has an unknown key \"netwrok\"; the keys are \"sandbox\", \"network\", \"readable\", "
                + "\"writable\" and \"env\".", error(Map.of("netwrok", true)));
        assertEquals("\"shell\".\"writable\" must be a list of absolute paths or paths starting with ~/, such as "
                + "[\"~/.m2\", \"/opt/tools\"], got \".m2\" in the list.", error(Map.of("writable", List.of(".m2"))));
        assertEquals("\"shell\".\"readable\" must be a list of absolute paths or paths starting with ~/, such as "
                + "[\"~/.m2\", \"/opt/tools\"], got \"~/.sdkman\".", error(Map.of("readable", "~/.sdkman")));
        assertEquals("\"shell\".\"readable\" must be a list of absolute paths or paths starting with ~/, such as "
                + "[\"~/.m2\", \"/opt/tools\"], got \"~bob/x\" in the list.", error(Map.of("readable", List.of("~bob/x"))));
        assertEquals("\"shell\" must be an object such as {\"sandbox\": \"auto\", \"network\": false}, got \"off\".",
                error("off"));
        assertEquals("\"shell\" must be an object such as {\"sandbox\": \"auto\", \"network\": false}, got [off].",
                error(List.of("off")));
    }
}
