package dev.quiver.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code quiver catalog list|bundles|install|update|remove|verify|sign|keygen}: the plugin platform
 * from the command line. Each command opens a session first, so the workspace's and the user's
 * {@code catalogs} apply, then calls the {@link Platform} service of {@code dev.quiver.catalog}.
 * {@code sign} and {@code keygen} need no session: they sign an index with the JDK's own classes.
 */
@Command(name = "catalog", mixinStandardHelpOptions = true,
        description = "Bundles and catalogues: list, bundles, install NAME, update NAME, remove NAME, verify, sign, keygen",
        subcommands = {CatalogCommand.ListEntries.class, CatalogCommand.Bundles.class, CatalogCommand.Install.class,
                CatalogCommand.Update.class, CatalogCommand.Remove.class, CatalogCommand.Verify.class,
                CatalogCommand.Sign.class, CatalogCommand.Keygen.class})
final class CatalogCommand implements Callable<Integer> {

    @ParentCommand
    RootCommand root;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Override
    public Integer call() {
        return new ListEntries().run(this, false);
    }

    /** Opens a session (for its catalogs config), finds the platform and runs the action with it. */
    int withPlatform(CommonOptions options, boolean json, Function<Platform, Integer> action) {
        PrintStream err = root.terminal.err();
        Optional<BundleContext> context = Optional.ofNullable(FrameworkUtil.getBundle(CatalogCommand.class))
                .map(Bundle::getBundleContext);
        ServiceReference<Platform> reference = context.map(c -> c.getServiceReference(Platform.class)).orElse(null);
        if (reference == null) {
            err.println("quiver: the catalogue platform (dev.quiver.catalog) is not running.");
            return ExitCodes.ERROR;
        }
        Platform platform = context.get().getService(reference);
        try (Session session = root.open(options.over(common).over(root.common), false, err)) {
            return action.apply(platform);
        } catch (HostException e) {
            err.println("quiver: " + e.getMessage());
            return ExitCodes.ERROR;
        } finally {
            context.get().ungetService(reference);
        }
    }

    /** {@code quiver catalog [list]}: the catalogues and what they offer. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "The catalogues and the bundles they offer")
    static final class ListEntries implements Callable<Integer> {
        @ParentCommand
        CatalogCommand catalog;
        @Mixin
        CommonOptions common = new CommonOptions();
        @Option(names = "--json", description = "One JSON object: catalogs, entries, enforcing")
        boolean json;

        @Override
        public Integer call() {
            return run(catalog, json);
        }

        int run(CatalogCommand parent, boolean asJson) {
            return parent.withPlatform(common, asJson, platform -> {
                PrintStream out = parent.root.terminal.out();
                List<Platform.CatalogInfo> catalogs = platform.catalogs();
                List<Platform.EntryInfo> entries = platform.entries();
                if (asJson) {
                    ObjectNode node = Output.MAPPER.createObjectNode();
                    node.put("enforcing", platform.enforcing());
                    ArrayNode array = node.putArray("catalogs");
                    for (Platform.CatalogInfo c : catalogs) {
                        ObjectNode item = array.addObject();
                        item.put("name", c.name());
                        item.put("location", c.location());
                        item.put("signed", c.signed());
                        item.putPOJO("trusted", c.trusted());
                        item.put("entries", c.entries());
                        item.put("problem", c.problem().orElse(null));
                    }
                    ArrayNode list = node.putArray("entries");
                    for (Platform.EntryInfo e : entries) {
                        ObjectNode item = list.addObject();
                        item.put("catalog", e.catalog());
                        item.put("name", e.name());
                        item.put("version", e.version());
                        item.put("sha256", e.sha256());
                        item.put("size", e.size());
                        item.put("url", e.url());
                        item.put("tools", e.providesTools());
                        item.put("installed", e.installed().orElse(null));
                    }
                    Output.line(out, node);
                } else {
                    for (Platform.CatalogInfo c : catalogs) {
                        out.println("catalogue " + c.name() + ": " + c.location() + c.problem().map(p -> " - NOT USABLE: " + p)
                                .orElse(" - " + c.entries() + " bundles, " + (c.signed() ? "signature verified" : "unsigned")
                                        + (c.trusted().isEmpty() ? "" : ", trusts " + String.join(" ", c.trusted()))));
                    }
                    if (catalogs.isEmpty()) {
                        out.println("No catalogue is configured (see docs/plugins.md).");
                    }
                    out.println("enforcement: " + (platform.enforcing() ? "on" : "off"));
                    if (!entries.isEmpty()) {
                        out.printf("%-12s %-36s %-16s %-5s %s%n", "CATALOGUE", "NAME", "VERSION", "TOOLS", "INSTALLED");
                        for (Platform.EntryInfo e : entries) {
                            out.printf("%-12s %-36s %-16s %-5s %s%n", e.catalog(), e.name(), e.version(),
                                    e.providesTools() ? "yes" : "-", e.installed().orElse("-"));
                        }
                    }
                }
                return catalogs.stream().anyMatch(c -> c.problem().isPresent()) ? ExitCodes.ERROR : ExitCodes.OK;
            });
        }
    }

    /** {@code quiver catalog bundles}: what is installed, where from, whether trusted, its tools. */
    @Command(name = "bundles", mixinStandardHelpOptions = true, description = "The installed bundles")
    static final class Bundles implements Callable<Integer> {
        @ParentCommand
        CatalogCommand catalog;
        @Mixin
        CommonOptions common = new CommonOptions();
        @Option(names = "--json", description = "One JSON array")
        boolean json;

        @Override
        public Integer call() {
            return catalog.withPlatform(common, json, platform -> {
                PrintStream out = catalog.root.terminal.out();
                List<Platform.BundleInfo> bundles = platform.bundles();
                if (json) {
                    ArrayNode array = Output.MAPPER.createArrayNode();
                    for (Platform.BundleInfo b : bundles) {
                        array.add(bundle(b));
                    }
                    Output.line(out, array);
                    return ExitCodes.OK;
                }
                out.printf("%-4s %-36s %-16s %-9s %-12s %-7s %s%n", "ID", "NAME", "VERSION", "STATE", "ORIGIN", "TRUSTED",
                        "TOOLS");
                for (Platform.BundleInfo b : bundles) {
                    out.printf("%-4d %-36s %-16s %-9s %-12s %-7s %s%n", b.id(), b.name(), b.version(), b.state(), b.origin(),
                            b.trusted() ? "yes" : "-", b.tools().isEmpty() ? "-" : String.join(",", b.tools()));
                    b.problem().ifPresent(p -> out.println("     ! " + p));
                }
                return ExitCodes.OK;
            });
        }
    }

    static ObjectNode bundle(Platform.BundleInfo b) {
        ObjectNode item = Output.MAPPER.createObjectNode();
        item.put("id", b.id());
        item.put("name", b.name());
        item.put("version", b.version());
        item.put("state", b.state());
        item.put("origin", b.origin());
        item.put("catalog", b.catalog().orElse(null));
        item.put("trusted", b.trusted());
        item.putPOJO("tools", b.tools());
        item.put("problem", b.problem().orElse(null));
        return item;
    }

    static String describe(Platform.BundleInfo b) {
        return b.name() + " " + b.version() + " (" + b.state() + (b.tools().isEmpty() ? "" : "; tools: "
                + String.join(", ", b.tools())) + (b.trusted() ? "; trusted" : "") + ")"
                + b.problem().map(p -> " - " + p).orElse("");
    }

    /** {@code quiver catalog install NAME}. */
    @Command(name = "install", mixinStandardHelpOptions = true,
            description = "Install a bundle a catalogue offers (its SHA-256 is checked first) and keep it")
    static final class Install implements Callable<Integer> {
        @ParentCommand
        CatalogCommand catalog;
        @Mixin
        CommonOptions common = new CommonOptions();
        @Parameters(paramLabel = "NAME", description = "Symbolic name, or its last segments")
        String name;

        @Override
        public Integer call() {
            return catalog.withPlatform(common, false, platform -> {
                catalog.root.terminal.out().println("installed " + describe(platform.install(name)));
                return ExitCodes.OK;
            });
        }
    }

    /** {@code quiver catalog update NAME}. */
    @Command(name = "update", mixinStandardHelpOptions = true,
            description = "Move an installed catalogue bundle to the highest version its catalogues offer")
    static final class Update implements Callable<Integer> {
        @ParentCommand
        CatalogCommand catalog;
        @Mixin
        CommonOptions common = new CommonOptions();
        @Parameters(paramLabel = "NAME", description = "Symbolic name, or its last segments")
        String name;

        @Override
        public Integer call() {
            return catalog.withPlatform(common, false, platform -> {
                catalog.root.terminal.out().println("now " + describe(platform.update(name)));
                return ExitCodes.OK;
            });
        }
    }

    /** {@code quiver catalog remove NAME}. */
    @Command(name = "remove", mixinStandardHelpOptions = true, description = "Uninstall a catalogue bundle and forget it")
    static final class Remove implements Callable<Integer> {
        @ParentCommand
        CatalogCommand catalog;
        @Mixin
        CommonOptions common = new CommonOptions();
        @Parameters(paramLabel = "NAME", description = "Symbolic name, or its last segments")
        String name;

        @Override
        public Integer call() {
            return catalog.withPlatform(common, false, platform -> {
                platform.remove(name);
                catalog.root.terminal.out().println("removed " + name);
                return ExitCodes.OK;
            });
        }
    }

    /** {@code quiver catalog verify}: exit 0 when every check passed, 1 otherwise. */
    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = "Check signatures, every listed jar's SHA-256, and that every installed bundle is in a catalogue")
    static final class Verify implements Callable<Integer> {
        @ParentCommand
        CatalogCommand catalog;
        @Mixin
        CommonOptions common = new CommonOptions();
        @Option(names = "--json", description = "One JSON array of {ok, subject, message}")
        boolean json;

        @Override
        public Integer call() {
            return catalog.withPlatform(common, json, platform -> {
                PrintStream out = catalog.root.terminal.out();
                List<Platform.Finding> findings = platform.verify();
                long problems = findings.stream().filter(f -> !f.ok()).count();
                if (json) {
                    ArrayNode array = Output.MAPPER.createArrayNode();
                    for (Platform.Finding f : findings) {
                        array.addObject().put("ok", f.ok()).put("subject", f.subject()).put("message", f.message());
                    }
                    Output.line(out, array);
                } else {
                    for (Platform.Finding f : findings) {
                        out.println((f.ok() ? "ok    " : "FAIL  ") + f.subject() + ": " + f.message());
                    }
                    out.println(problems == 0 ? "verified: no problems" : problems + (problems == 1 ? " problem" : " problems"));
                }
                return problems == 0 ? ExitCodes.OK : ExitCodes.ERROR;
            });
        }
    }

    /** {@code quiver catalog sign INDEX --key KEY}: writes {@code INDEX.sig}, the detached signature. */
    @Command(name = "sign", mixinStandardHelpOptions = true,
            description = "Sign an index.xml with a PEM private key (Ed25519 or RSA): writes INDEX.sig")
    static final class Sign implements Callable<Integer> {
        @ParentCommand
        CatalogCommand catalog;
        @Parameters(paramLabel = "INDEX", description = "The index.xml to sign")
        Path index;
        @Option(names = "--key", required = true, paramLabel = "FILE", description = "PEM PRIVATE KEY (PKCS #8)")
        Path key;
        @Option(names = "--out", paramLabel = "FILE", description = "Where to write the signature (default: INDEX.sig)")
        Path out;

        @Override
        public Integer call() throws IOException {
            PrintStream err = catalog.root.terminal.err();
            try {
                PrivateKey privateKey = privateKey(Files.readString(key));
                Signature signer = Signature.getInstance(privateKey.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "Ed25519");
                signer.initSign(privateKey);
                signer.update(Files.readAllBytes(index));
                Path target = out != null ? out : index.resolveSibling(index.getFileName() + ".sig");
                Files.write(target, signer.sign());
                catalog.root.terminal.out().println("signed " + index + " -> " + target + " ("
                        + (privateKey.getAlgorithm().equals("RSA") ? "RSA SHA-256" : "Ed25519") + ")");
                return ExitCodes.OK;
            } catch (GeneralSecurityException e) {
                err.println("quiver: cannot sign with " + key + ": " + e.getMessage());
                return ExitCodes.ERROR;
            }
        }
    }

    /** {@code quiver catalog keygen --out DIR [--rsa]}: a key pair for signing catalogues. */
    @Command(name = "keygen", mixinStandardHelpOptions = true,
            description = "Make a signing key pair: DIR/catalog-key.pem (keep it secret) and DIR/catalog-key.pub.pem")
    static final class Keygen implements Callable<Integer> {
        @ParentCommand
        CatalogCommand catalog;
        @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for the two PEM files")
        Path out;
        @Option(names = "--rsa", description = "RSA 3072 instead of Ed25519")
        boolean rsa;

        @Override
        public Integer call() throws IOException, GeneralSecurityException {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(rsa ? "RSA" : "Ed25519");
            if (rsa) {
                generator.initialize(3072);
            }
            KeyPair pair = generator.generateKeyPair();
            Files.createDirectories(out);
            Path secret = out.resolve("catalog-key.pem");
            Path pub = out.resolve("catalog-key.pub.pem");
            if (Files.exists(secret)) {
                catalog.root.terminal.err().println("quiver: " + secret + " exists; not overwriting a key.");
                return ExitCodes.ERROR;
            }
            Files.writeString(secret, pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
            try {
                Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException notPosix) {
                // best effort
            }
            Files.writeString(pub, pem("PUBLIC KEY", pair.getPublic().getEncoded()));
            String fingerprint = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(pair.getPublic().getEncoded())).substring(0, 16);
            catalog.root.terminal.out().println("wrote " + secret + " and " + pub + " (key " + fingerprint + ")");
            return ExitCodes.OK;
        }
    }

    static PrivateKey privateKey(String pem) throws GeneralSecurityException {
        String begin = "-----BEGIN PRIVATE KEY-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf("-----END PRIVATE KEY-----");
        if (from < 0 || to < from) {
            throw new GeneralSecurityException("not a PEM PRIVATE KEY (PKCS #8; convert with openssl pkcs8 -topk8 -nocrypt)");
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to)));
        for (String algorithm : new String[] {"Ed25519", "RSA"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException wrongAlgorithm) {
                // try the next
            }
        }
        throw new GeneralSecurityException("the key is neither Ed25519 nor RSA");
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
