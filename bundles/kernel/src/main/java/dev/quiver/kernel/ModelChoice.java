package dev.quiver.kernel;

import dev.quiver.api.host.HostException;

import java.util.Objects;
import java.util.Optional;

/**
 * A model picked by the user.
 *
 * @param provider the provider bundle's name, such as {@code openai}
 * @param name the provider's model name, such as {@code gpt-4.1}
 * @param baseUrl the server to talk to, in the provider's own convention; empty for its default
 */
record ModelChoice(String provider, String name, Optional<String> baseUrl) {

    public ModelChoice {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(baseUrl, "baseUrl");
    }

    /**
     * Parses {@code PROVIDER/NAME}; the name may itself contain slashes ({@code openai/meta/llama}).
     *
     * @throws HostException when there is no provider part
     */
    static ModelChoice parse(String spec, Optional<String> baseUrl) {
        int slash = spec == null ? -1 : spec.indexOf('/');
        if (slash <= 0 || slash == spec.length() - 1) {
            throw new HostException("Model must be written PROVIDER/NAME, for example openai/gpt-4.1; got '"
                    + spec + "'.");
        }
        return new ModelChoice(spec.substring(0, slash), spec.substring(slash + 1), baseUrl);
    }

    /** {@code PROVIDER/NAME}. */
    String label() {
        return provider + "/" + name;
    }
}
