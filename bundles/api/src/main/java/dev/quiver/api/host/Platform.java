package dev.quiver.api.host;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The plugin platform as a service, registered by the catalogue bundle ({@code dev.quiver.catalog}):
 * what is installed, what the configured catalogues offer, and installing, updating and removing
 * bundles at run time. Front ends call it for {@code quiver catalog ...}, the terminal's
 * {@code /bundles}, {@code /install} and {@code /remove}, and the Gogo shell's {@code quiver:catalog}.
 *
 * <p>The catalogues are those of the installation ({@code conf/catalogs.json}) and, while a session
 * is open, those of its configuration (the {@code catalogs} key). Every method may be called from any
 * thread; {@link #install}, {@link #update} and {@link #remove} run one at a time on the platform's
 * own thread and return when the framework has settled (a refresh included). A tool of an installed
 * bundle is offered from the session's next step; one of a removed bundle is gone from the next step.
 *
 * <p>Refusals and failures are {@link HostException}s whose message is one line for the user, naming
 * the bundle, the catalogue and what to do.
 */
@ProviderType
public interface Platform {

    /** Where an installed bundle came from, as {@link BundleInfo#origin()} says it. */
    String ORIGIN_DISTRIBUTION = "distribution";
    /** Installed by this platform from a catalogue (now, or by an earlier process). */
    String ORIGIN_CATALOG = "catalog";
    /** Dropped into the watched {@code deploy/} folder (Felix FileInstall). */
    String ORIGIN_DEPLOY = "deploy";
    /** Anything else: the framework itself, a test harness, another installer. */
    String ORIGIN_OTHER = "other";

    /**
     * One installed bundle.
     *
     * @param id the framework's bundle id
     * @param name the symbolic name
     * @param version the version
     * @param state {@code installed}, {@code resolved}, {@code starting}, {@code active}, {@code stopping}
     *     or {@code uninstalled}
     * @param origin one of the {@code ORIGIN_} constants
     * @param catalog the catalogue whose entry has exactly this bundle's content (same SHA-256); empty
     *     when none has
     * @param trusted whether the trust policy trusts it (its tools' auto-approval is honoured)
     * @param tools the names of the tools it registers now, sorted
     * @param problem why it does not run or runs incompletely (refused by the policy, a missing
     *     package, a component that failed to activate); empty when there is none
     */
    record BundleInfo(long id, String name, String version, String state, String origin, Optional<String> catalog,
            boolean trusted, List<String> tools, Optional<String> problem) {

        public BundleInfo {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(version, "version");
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(origin, "origin");
            Objects.requireNonNull(catalog, "catalog");
            Objects.requireNonNull(problem, "problem");
            tools = List.copyOf(tools);
        }
    }

    /**
     * One configured catalogue.
     *
     * @param name its name: the index's repository name, or the file name
     * @param location the file or URL of its {@code index.xml}
     * @param signed whether a public key is configured for it, so its signature was required and checked
     * @param trusted the bundle names it trusts, or {@code *} for all of its bundles
     * @param entries how many bundles it lists; 0 when it could not be read
     * @param problem why it could not be used (unreadable, not an index, a missing or bad signature);
     *     empty when it loaded
     */
    record CatalogInfo(String name, String location, boolean signed, List<String> trusted, int entries,
            Optional<String> problem) {

        public CatalogInfo {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(location, "location");
            Objects.requireNonNull(problem, "problem");
            trusted = List.copyOf(trusted);
        }
    }

    /**
     * One bundle a catalogue offers.
     *
     * @param catalog the catalogue's name
     * @param name the bundle's symbolic name, what {@link #install} takes
     * @param version the bundle's version
     * @param sha256 the SHA-256 of the jar, lower-case hex, checked before anything is installed
     * @param size the jar's size in bytes
     * @param url where the jar is fetched from
     * @param providesTools whether the index says it registers {@code dev.quiver.api.Tool} services
     * @param installed the version of the bundle of this name installed now; empty when none is
     */
    record EntryInfo(String catalog, String name, String version, String sha256, long size, String url,
            boolean providesTools, Optional<String> installed) {

        public EntryInfo {
            Objects.requireNonNull(catalog, "catalog");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(version, "version");
            Objects.requireNonNull(sha256, "sha256");
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(installed, "installed");
        }
    }

    /**
     * One result of {@link #verify()}.
     *
     * @param ok whether this check passed
     * @param subject what was checked: a catalogue's name or a bundle's symbolic name
     * @param message what was found, one line
     */
    record Finding(boolean ok, String subject, String message) {

        public Finding {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(message, "message");
        }
    }

    /** Every installed bundle but the framework itself, by id. */
    List<BundleInfo> bundles();

    /** The configured catalogues, loaded now (a signature is checked on every load). */
    List<CatalogInfo> catalogs();

    /** What the catalogues that loaded offer, by name then version, highest version first. */
    List<EntryInfo> entries();

    /**
     * Whether enforcement is on: then nothing outside a catalogue may be installed or resolved, neither
     * through this service nor from {@code deploy/}.
     */
    boolean enforcing();

    /**
     * Installs the highest version a catalogue offers under a name, starts it and keeps it for later
     * processes. The jar's SHA-256 and size are checked against the index before the framework sees
     * it; a mismatch installs nothing. A bundle that cannot resolve or start is uninstalled again.
     *
     * @param name a symbolic name, or its last segments when they name one entry ({@code hello} for
     *     {@code dev.quiver.example.hello})
     * @return the installed bundle
     * @throws HostException when no catalogue offers it, it is already installed, its content does not
     *     match the index, or it does not resolve or start; nothing is left installed
     */
    BundleInfo install(String name);

    /**
     * Replaces an installed catalogue bundle with the highest version its catalogues offer, refreshes
     * the framework so no class of the old revision stays wired, and waits for the refresh.
     *
     * @return the updated bundle (unchanged when it was already the catalogue's content)
     * @throws HostException when the bundle is not installed, did not come from a catalogue, or the new
     *     content does not match the index; the old revision is then kept
     */
    BundleInfo update(String name);

    /**
     * Uninstalls a catalogue bundle, refreshes the framework and waits for the refresh, and forgets it
     * for later processes. A call to one of its tools in flight finishes or fails saying the tool was
     * unloaded.
     *
     * @throws HostException when the bundle is not installed or did not come from a catalogue (bundles
     *     of the distribution are not removable; those of {@code deploy/} go when their file is deleted)
     */
    void remove(String name);

    /**
     * Checks everything: each catalogue loads and its signature verifies where one is required, each
     * entry's jar is reachable and matches its SHA-256 and size, and each installed bundle is in a
     * catalogue.
     *
     * @return the findings, problems first
     */
    List<Finding> verify();
}
