package dev.quiver.api.host;

import java.util.Optional;

/**
 * One tool in the live registry, as front ends list it.
 *
 * @param name the wire name
 * @param set the tool set, empty for plugin tools
 * @param access the access class, lower case
 * @param decision the decision a call gets before any subject is known
 * @param bundle the symbolic name of the bundle that registered it
 * @param schemaBytes bytes of name, description and parameters as sent to the model
 * @param description the description sent to the model
 * @param parameters the JSON Schema of the arguments, compact JSON
 * @param note a remark for the user, such as {@code auto-approve requested, not trusted}; empty for none
 * @param offered whether the session offers it now (the mode or the tool sets may withhold it)
 */
public record ToolInfo(String name, Optional<String> set, String access, Decision decision, String bundle,
        int schemaBytes, String description, String parameters, Optional<String> note, boolean offered) {
}
