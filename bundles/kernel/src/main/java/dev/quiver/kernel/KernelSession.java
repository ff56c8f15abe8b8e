package dev.quiver.kernel;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.quiver.api.Guard;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.RunOptions;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.UndoReport;
import dev.quiver.api.host.Verdict;
import dev.quiver.kernel.checkpoint.Checkpoints;
import dev.quiver.kernel.conversation.Compaction;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.kernel.permission.AuditLog;
import dev.quiver.kernel.permission.PermissionEngine;
import dev.quiver.kernel.permission.RuleSet;
import dev.quiver.langchain4j.ModelProvider;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.langchain4j.QuiverHttpClientBuilder;
import dev.quiver.langchain4j.RetryPolicy;
import dev.quiver.langchain4j.Thinking;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/** A {@link Session}: one workspace, its configuration, its call chain and its conversation. */
final class KernelSession implements Session {

    /** A tool call that runs longer is cancelled; above bash's own maximum of 600 s. */
    static final Duration DEFAULT_TOOL_TIMEOUT = Duration.ofSeconds(660);
    static final Duration DEFAULT_MODEL_TIMEOUT = Duration.ofSeconds(300);
    /** The context window assumed when the config does not say (most current models have at least this). */
    static final int DEFAULT_CONTEXT_TOKENS = 128_000;

    private final Workspace workspace;
    private final SessionOptions options;
    private final Config config;
    private final ToolRegistry registry;
    private final Function<String, Optional<ModelProvider>> providers;
    private final ExecutorService workers;
    private final CallChain chain;
    private final ToolSets toolSets;
    private volatile Optional<ModelChoice> model;
    /** The agent variant of the following turns ({@code --agent}, {@code /agent}, the config's {@code agent}). */
    private volatile Variant variant = Variant.DEFAULT;
    /** The thinking level chosen over the variant's ({@code --think}, {@code /think}, the config's {@code thinking}). */
    private volatile Optional<Thinking> thinkingChosen = Optional.empty();
    /** The cheaper model of explore and review subagents ({@code subagentModel}); empty for the session's. */
    private final Optional<ModelChoice> subagentModel;
    /** The models that were told once that they take no thinking level, as {@code PROVIDER/NAME}. */
    private final Set<String> toldNoThinking = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /**
     * The base URL the start gave the model's provider ({@code --base-url} or {@code baseUrl}): a switch
     * to another model of that provider, even after another provider's, talks to the same server.
     */
    private final Map<String, String> startBaseUrls = new java.util.HashMap<>();
    /** Where the model client's retry notices go: the listener of the turn under way, none between turns. */
    private final java.util.concurrent.atomic.AtomicReference<java.util.function.Consumer<String>> retryNotices =
            new java.util.concurrent.atomic.AtomicReference<>(notice -> { });
    /** Why the configured model cannot be used (a bad name, one the managed policy does not allow). */
    private Optional<String> modelProblem = Optional.empty();
    private final SessionStore store;
    private final List<String> warnings;
    private final SessionContextImpl context;
    private final Runnable onClose;
    private final java.util.function.Predicate<RegisteredTool> trusted;
    private final ProcessEnvironment environment;
    private final Notes notes;
    private final Instructions instructions;
    private volatile SessionStore.Recorder recorder;
    private List<ChatMessage> resumed = List.of();
    private AgentLoop loop;
    private final Checkpoints checkpoints;
    private final ModelAsk asking;
    private final Subagents subagents;
    private final Worktrees worktrees;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(KernelSession.class);
    /** The models a tool's question goes to, and the choice they were built for. */
    private AgentLoop.Models askedModels;
    /** Subagents' models by model and thinking level. */
    private final Map<List<Object>, AgentLoop.Models> builtForChildren = new java.util.concurrent.ConcurrentHashMap<>();
    private ModelChoice askedFor;
    /** Turns begun in this session, prompts and direct calls alike: the next turn's number is one more. */
    private int turnsSoFar;
    /** The numbers of the turns the conversation holds, oldest first: what undo takes back. */
    private final List<Integer> conversationTurns = new ArrayList<>();
    /** The search's idle warm-up services ({@link IdleWarmup}); none until the kernel gives them. */
    private java.util.function.BiConsumer<Workspace, java.util.function.BooleanSupplier> searchWarmup = (w, stop) -> { };
    /** Guards {@link #warmup} and {@link #closed}: its own lock, since the warm-up may start from a model's streaming thread. */
    private final Object warmupLock = new Object();
    private IdleWarmup warmup;
    /** Whether {@link #warmUp} has run: it tries once ({@link #warmup} stays null when none started for the root). */
    private boolean warmupAsked;
    private boolean closed;

    KernelSession(Workspace workspace, SessionOptions options, Config config, ToolRegistry registry,
            Function<String, Optional<ModelProvider>> providers, Supplier<List<Guard>> guards, SessionStore store,
            java.util.function.Predicate<RegisteredTool> trusted, Runnable onClose) {
        this.trusted = trusted;
        this.onClose = onClose;
        this.workspace = workspace;
        this.options = options;
        this.config = config;
        this.registry = registry;
        this.providers = providers;
        this.store = store;
        AtomicInteger threads = new AtomicInteger();
        this.workers = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "quiver-tool-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        Duration toolTimeout = Duration.ofSeconds(config.limit("toolTimeout", DEFAULT_TOOL_TIMEOUT.toSeconds()));
        List<String> found = new ArrayList<>();
        RuleSet rules = rules(config, options.run(), found);
        unknownTools(options.run(), registry.snapshot(), found);
        Set<String> installed = new HashSet<>();
        registry.snapshot().forEach(tool -> tool.set().ifPresent(installed::add));
        this.toolSets = ToolSets.from(config.get("toolSets"), installed, found)
                .narrowedTo(config.narrowing("toolSets"), found);
        Optional<String> baseUrl = options.baseUrl().or(() -> config.text("baseUrl"));
        Optional<ModelChoice> chosen;
        try {
            chosen = options.model().or(() -> config.text("model")).map(spec -> ModelChoice.parse(spec, baseUrl));
            chosen.ifPresent(this::checkAllowed);
        } catch (HostException e) {
            found.add(e.getMessage());
            modelProblem = Optional.of(e.getMessage());
            chosen = Optional.empty();
        }
        this.model = chosen;
        chosen.ifPresent(choice -> choice.baseUrl().ifPresent(url -> startBaseUrls.put(choice.provider(), url)));
        chooseVariant(options.run(), config, found);
        this.subagentModel = subagentModel(config, found);
        PermissionEngine engine = new PermissionEngine(rules, workspace,
                System.getenv().getOrDefault("HOME", System.getProperty("user.home")));
        String label = model.map(ModelChoice::label).orElse("none");
        Map<String, String> restoredSections = Map.of();
        if (options.resume().isPresent()) {
            SessionStore.Loaded loaded = store.resume(workspace.root(), options.resume().get(), label);
            this.recorder = loaded.recorder();
            this.resumed = loaded.history();
            this.turnsSoFar = loaded.prompts();
            this.conversationTurns.addAll(loaded.turns());
            restoredSections = loaded.sections();
        } else {
            this.recorder = store.create(workspace.root(), label);
        }
        this.environment = ProcessEnvironment.of(System.getenv(), passThrough(config, found));
        Path state = store.stateFolder(workspace.root());
        this.chain = new CallChain(workspace, engine, guards, workers,
                new CallChain.Modes(options.yolo(), options.interactive(), options.readOnly()), toolTimeout,
                new AuditLog(state, recorder.id()), config::plain, trusted, registry::wasUnloaded,
                environment::kept);
        // the todo list and other sections the resumed session's tools last set, then every change recorded
        chain.sections().restore(restoredSections);
        chain.sections().onChange((name, text) -> recorder.section(name, text));
        Supplier<Optional<Path>> stateFolder = () -> Optional.of(state);
        this.checkpoints = new Checkpoints(workspace, state, workers);
        chain.withStateFolder(stateFolder).withRedactor(new Redactor(workspace, environment.removed()))
                .withCheckpoints(checkpoints::beforeCall);
        this.asking = new ModelAsk(this::askingModels, () -> recorder, workers);
        chain.withAsker(asking);
        this.subagents = new Subagents(this::childModels, this::offered, chain, workspace.root(),
                options.interactive(), () -> recorder, contextTokens(), silenceLimit(), workers);
        chain.withSubagents(subagents);
        this.worktrees = new Worktrees(workspace, state);
        java.util.function.BooleanSupplier trustedNow = () -> {
            config.reloadIfChanged();
            return config.trusted();
        };
        chain.withTrust(trustedNow);
        this.notes = new Notes(stateFolder, () -> {
            config.reloadIfChanged();
            return config.sharedNotes();
        });
        this.instructions = new Instructions(workspace.root(), config.userFolder(), trustedNow);
        // a child reads the project's instructions and the user's own words as the session does
        subagents.withPrompt(instructions, options.run().appendSystemPrompt());
        this.context = new SessionContextImpl(this::id, workspace.root(), config, environment.kept(),
                options.inspectOnly());
        found.addAll(0, config.warnings());
        // a change a killed process left half done was finished or rolled back as the workspace opened
        found.addAll(workspace.recovered());
        untrustedNotice(config, workspace.root()).ifPresent(found::add);
        this.warnings = List.copyOf(found);
    }

    /**
     * The permission rules of every layer. A managed policy's bad rule is fatal: dropping it would run
     * with less than the policy says.
     */
    private static RuleSet rules(Config config, RunOptions run, List<String> warnings) {
        List<RuleSet.Source> sources = new ArrayList<>();
        List<String> managedProblems = new ArrayList<>();
        int managedFiles = 0;
        for (Config.Permission permission : config.permissions()) {
            // every managed file is a layer of its own, so each one's tables hold; the user's files share one
            int rank = permission.layer() == Config.Layer.MANAGED ? managedFiles++
                    : 1000 * permission.layer().ordinal();
            RuleSet.Source source = new RuleSet.Source(permission.file(), rank,
                    permission.layer() == Config.Layer.WORKSPACE, permission.narrowOnly(), permission.node(),
                    permission.layer() == Config.Layer.MANAGED ? RuleSet.Authority.MANAGED : RuleSet.Authority.ORDINARY);
            if (permission.layer() == Config.Layer.MANAGED) {
                RuleSet.layered(List.of(source), managedProblems);
            }
            sources.add(source);
        }
        if (!managedProblems.isEmpty()) {
            throw new HostException(String.join(" ", managedProblems) + " Quiver does not start without the managed "
                    + "policy; ask whoever manages this machine to fix it.");
        }
        // the command line's rules for this run, each a layer of its own below the files
        sources.add(new RuleSet.Source(Path.of("--disallowedTools"), RUN_DENY_RANK, false, false,
                table(run.disallowedTools(), "deny")));
        sources.add(new RuleSet.Source(Path.of("--allowedTools"), RUN_ALLOW_RANK, false, false,
                table(run.allowedTools(), "allow"), RuleSet.Authority.RUN_ALLOW));
        return RuleSet.layered(sources, warnings);
    }

    /** Ranks of the command line's layers: after every file's (managed files count up from 0, then 1000, 2000). */
    private static final int RUN_DENY_RANK = 3000;
    private static final int RUN_ALLOW_RANK = 4000;

    /** {@code {"bash": {"git push *": "deny"}}}: the form of a config file's {@code permission} value. */
    private static com.fasterxml.jackson.databind.node.ObjectNode table(Map<String, List<String>> rules, String decision) {
        com.fasterxml.jackson.databind.node.ObjectNode permission = Json.MAPPER.createObjectNode();
        rules.forEach((tool, patterns) -> {
            com.fasterxml.jackson.databind.node.ObjectNode table = permission.putObject(tool);
            patterns.forEach(pattern -> table.put(pattern, decision));
        });
        return permission;
    }

    /**
     * A command-line rule for a tool that does not exist matches nothing, which for a deny is a silent hole:
     * said at start-up. MCP tools and globs are not checked (servers register their tools later).
     */
    private static void unknownTools(RunOptions run, List<RegisteredTool> registered, List<String> warnings) {
        Set<String> names = new HashSet<>();
        registered.forEach(tool -> names.add(tool.name()));
        for (Map.Entry<String, Map<String, List<String>>> flag : Map.of("--allowedTools", run.allowedTools(),
                "--disallowedTools", run.disallowedTools()).entrySet()) {
            for (String tool : flag.getValue().keySet()) {
                if (!names.contains(tool) && !tool.startsWith("mcp__") && tool.indexOf('*') < 0 && tool.indexOf('?') < 0) {
                    warnings.add(flag.getKey() + " names " + tool + ", which is no tool here, so its rule matches "
                            + "nothing. `quiver tools` lists the tools.");
                }
            }
        }
    }

    /**
     * The variant and thinking level the session starts with: the command line's, else the config's. A bad
     * name on the command line stops the session (the front end checks it first); one in a config file is
     * reported and the default used.
     */
    private void chooseVariant(RunOptions run, Config config, List<String> warnings) {
        if (run.agent().isPresent()) {
            variant = Variant.named(run.agent().get(), " (--agent)");
        } else {
            config.text("agent").ifPresent(name -> {
                try {
                    variant = Variant.named(name, " (config key 'agent')");
                } catch (HostException e) {
                    warnings.add(e.getMessage() + " Using default.");
                }
            });
        }
        if (run.thinking().isPresent()) {
            thinkingChosen = Optional.of(Variant.level(run.thinking().get(), " (--think)"));
        } else {
            config.text("thinking").ifPresent(name -> {
                try {
                    thinkingChosen = Optional.of(Variant.level(name, " (config key 'thinking')"));
                } catch (HostException e) {
                    warnings.add(e.getMessage() + " Using the agent variant's.");
                }
            });
        }
    }

    /**
     * The config's {@code subagentModel}, read as {@code model} is (an untrusted workspace's is held back),
     * on the server the start chose for its provider; a bad one is reported and the session's model used.
     */
    private Optional<ModelChoice> subagentModel(Config config, List<String> warnings) {
        try {
            return config.text("subagentModel").map(spec -> {
                ModelChoice named = ModelChoice.parse(spec, Optional.empty());
                ModelChoice choice = new ModelChoice(named.provider(), named.name(),
                        Optional.ofNullable(startBaseUrls.get(named.provider())));
                checkAllowed(choice);
                return choice;
            });
        } catch (HostException e) {
            warnings.add("Config key 'subagentModel': " + e.getMessage() + " Subagents use the session's model.");
            return Optional.empty();
        }
    }

    /** The managed policy's lists of models and servers, when it has them. */
    private void checkAllowed(ModelChoice choice) {
        Optional<List<String>> models = config.managedList("allowedModels");
        if (models.isPresent() && models.get().stream().noneMatch(pattern -> dev.quiver.kernel.permission.Wildcard
                .matches(pattern, choice.label()))) {
            throw new HostException("The managed policy does not allow the model " + choice.label() + " (allowed: "
                    + String.join(", ", models.get()) + ").");
        }
    }

    /** What the start-up output says when an untrusted workspace's files were held back. */
    static Optional<String> untrustedNotice(Config config, Path root) {
        if (config.held().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("This workspace is not trusted, so Quiver ignored what its files ask for beyond narrowing: "
                + String.join(", ", config.held()) + ". If you wrote or reviewed them, trust it with: quiver trust "
                + root + " (or pass --trust-workspace for one run).");
    }

    /** The names {@code "shell": {"env": [...]}} passes through to processes although they look secret. */
    private static List<String> passThrough(Config config, List<String> warnings) {
        Optional<Config.Value> shell = config.get("shell");
        if (shell.isEmpty() || !shell.get().node().isObject() || !shell.get().node().has("env")) {
            return List.of();
        }
        com.fasterxml.jackson.databind.JsonNode env = shell.get().node().get("env");
        List<String> names = new ArrayList<>();
        if (env.isArray()) {
            env.forEach(name -> {
                if (name.isTextual() && !name.asText().isBlank()) {
                    names.add(name.asText().strip());
                }
            });
        }
        if (!env.isArray() || names.size() != env.size()) {
            warnings.add("Config key 'shell.env' in " + shell.get().file() + " must be a list of variable names; "
                    + "what is not a name is ignored.");
        }
        return names;
    }

    @Override
    public String id() {
        return recorder.id();
    }

    SessionContextImpl context() {
        return context;
    }

    @Override
    public Path workspace() {
        return workspace.root();
    }

    @Override
    public Optional<String> model() {
        return model.map(ModelChoice::label);
    }

    @Override
    public Optional<Object> config(String key) {
        return config.plain(key);
    }

    @Override
    public List<String> warnings() {
        return warnings;
    }

    @Override
    public List<String> toolSets() {
        TreeSet<String> sets = new TreeSet<>();
        for (RegisteredTool tool : allowed(registry.snapshot())) {
            tool.set().ifPresent(sets::add);
        }
        return List.copyOf(sets);
    }

    /** The tools of this step: the registry's snapshot less what the mode and tool sets withhold and any spec that cannot be sent. */
    private List<RegisteredTool> offered() {
        return offered(registry.snapshot());
    }

    private List<RegisteredTool> offered(List<RegisteredTool> registered) {
        return allowed(registered).stream().filter(tool -> tool.spec().isPresent()).toList();
    }

    /**
     * The tools the mode and tool sets allow, told from their service properties alone. No spec is
     * asked for, so no tool is activated: the header needs only set names.
     */
    private List<RegisteredTool> allowed(List<RegisteredTool> registered) {
        boolean readOnly = options.readOnly() || variant.readOnly;
        return registered.stream().filter(tool -> !readOnly || CallChain.offeredReadOnly(tool))
                .filter(toolSets::offers)
                // a question no one can answer is withheld: headless, the prompt says to decide instead
                // (quiver tools and check list what a session offers where someone answers)
                .filter(tool -> options.interactive() || options.inspectOnly() || !tool.name().equals(CallChain.ASK_USER))
                .toList();
    }

    /**
     * The tools a call or check by name sees. When the named tool is allowed and gives its spec, the
     * allowed tools, so that a one-shot {@code quiver call} activates that tool alone; otherwise the
     * offered ones (every spec asked for), so that the refusal names exactly what is offered.
     */
    private List<RegisteredTool> forCallOf(String name, List<RegisteredTool> registered) {
        List<RegisteredTool> allowed = allowed(registered);
        for (RegisteredTool tool : allowed) {
            if (tool.name().equals(name) && tool.spec().isPresent()) {
                return allowed;
            }
        }
        return allowed.stream().filter(tool -> tool.spec().isPresent()).toList();
    }

    @Override
    public List<ToolInfo> tools() {
        return infos(offered());
    }

    @Override
    public List<ToolInfo> registered() {
        return infos(registry.snapshot());
    }

    private List<ToolInfo> infos(List<RegisteredTool> tools) {
        List<RegisteredTool> offered = offered();
        List<ToolInfo> infos = new ArrayList<>();
        for (RegisteredTool tool : tools) {
            tool.spec().ifPresent(spec -> infos.add(new ToolInfo(tool.name(), tool.set(), tool.access().id(),
                    chain.defaultDecision(tool), tool.bundle(), tool.schemaBytes(), spec.description(),
                    tool.compactParameters(), note(tool), offered.contains(tool))));
        }
        return infos;
    }

    private Optional<String> note(RegisteredTool tool) {
        if (!tool.autoApproveRequested()) {
            return Optional.empty();
        }
        return Optional.of(trusted.test(tool) ? "auto-approved (trusted bundle)" : "auto-approve requested, not trusted");
    }

    @Override
    public AutoCloseable onToolsChanged(Runnable listener) {
        return registry.onChange(listener);
    }

    @Override
    public boolean interruptCalls() {
        return chain.cancelAll();
    }

    @Override
    public void cancelTurn() {
        AgentLoop current = loop;
        if (current != null) {
            current.cancel();
        }
        chain.cancelAll();
    }

    private static HostException noProvider(String provider) {
        return new HostException("No model provider '" + provider + "' is running: its bundle is missing or stopped "
                + "(Quiver ships openai, anthropic and ollama).");
    }

    @Override
    public void switchModel(String spec) {
        // everything is checked before anything changes: a refused switch keeps the model in use
        ModelChoice named = ModelChoice.parse(spec, Optional.empty());
        ModelChoice choice = new ModelChoice(named.provider(), named.name(),
                Optional.ofNullable(startBaseUrls.get(named.provider())));
        if (providers.apply(choice.provider()).isEmpty()) {
            throw noProvider(choice.provider());
        }
        checkAllowed(choice);
        AgentLoop.Models replacement = models(choice, modelTimeout(), thinkingLevel());
        replacement.chat(); // the provider's checks now: a base URL the policy refuses, a missing key
        model = Optional.of(choice);
        AgentLoop current = loop;
        if (current != null) {
            current.switchModels(replacement);
        }
    }

    @Override
    public String agent() {
        return variant.id();
    }

    @Override
    public void switchAgent(String name) {
        Thinking before = thinkingLevel();
        variant = Variant.named(name, "");
        AgentLoop current = loop;
        if (current != null) {
            current.withVariant(stepCap(), variant.prompt);
        }
        if (thinkingLevel() != before) {
            thinkingChanged();
        }
    }

    @Override
    public String thinking() {
        return thinkingLevel().id();
    }

    @Override
    public void switchThinking(String level) {
        thinkingChosen = Optional.of(Variant.level(level, ""));
        thinkingChanged();
    }

    /** The level the next request asks for: the one chosen, else the variant's. */
    private Thinking thinkingLevel() {
        return thinkingChosen.orElse(variant.thinking);
    }

    /** The conversation's models built again for the level now asked for; the next request uses them. */
    private void thinkingChanged() {
        AgentLoop current = loop;
        Optional<ModelChoice> choice = model;
        if (current != null && choice.isPresent()) {
            current.switchModels(models(choice.get(), modelTimeout(), thinkingLevel()));
        }
    }

    /** A turn's step cap: {@code --max-turns} when given, else the variant's. */
    private int stepCap() {
        return options.run().maxTurnsGiven() ? options.run().maxTurns() : variant.stepCap;
    }

    /**
     * Tells the user once per model that the level asked for is not sent: the model takes none. Only a level
     * someone chose ({@code --think}, {@code /think}, the config, a variant other than default) is worth the
     * line; the default's medium on a model without thinking is what every such session has.
     */
    private void tellIfNoThinking(ModelChoice choice, TurnListener listener) {
        Thinking level = thinkingLevel();
        boolean chosen = thinkingChosen.isPresent() || variant != Variant.DEFAULT;
        if (!chosen || level == Thinking.OFF
                || providers.apply(choice.provider()).map(p -> p.thinks(choice.name())).orElse(true)
                || !toldNoThinking.add(choice.label())) {
            return;
        }
        listener.notice(choice.label() + " takes no thinking level, so '" + level.id() + "' is not sent; its "
                + "requests go without one. (Thinking levels reach OpenAI's reasoning models and Claude 3.7 or newer.)");
    }

    @Override
    public String compact() {
        AgentLoop current = loop;
        return current == null ? "Nothing to compact." : current.compactNow(new TurnListener() { });
    }

    @Override
    public void clear() {
        loop = null;
        resumed = List.of();
        recorder = store.create(workspace.root(), model.map(ModelChoice::label).orElse("none"));
        turnsSoFar = 0;
        conversationTurns.clear();
        chain.sections().clear();
        chain.newTurn();
    }

    @Override
    public Verdict check(String tool, String argumentsJson) {
        return chain.check(forCallOf(tool, registry.snapshot()), tool, argumentsJson);
    }

    @Override
    public void warmUp() {
        synchronized (warmupLock) {
            if (!warmupAsked && !closed && IdleWarmup.enabled(System.getenv())) {
                warmupAsked = true;
                warmup = IdleWarmup.start(workspace, searchWarmup);
            }
        }
    }

    /** The idle warm-up, or null when none started; for tests. */
    IdleWarmup warmup() {
        synchronized (warmupLock) {
            return warmup;
        }
    }

    /** A real call is under way: the warm-up stops at its next check (what it filled so far is shared). */
    private void yieldToCall() {
        synchronized (warmupLock) {
            if (warmup != null) {
                warmup.yieldToCall();
            }
        }
    }

    /** What the idle warm-up runs after the walk and the secret look: the search's own warm-up services. */
    KernelSession withSearchWarmup(java.util.function.BiConsumer<Workspace, java.util.function.BooleanSupplier> search) {
        this.searchWarmup = search;
        return this;
    }

    @Override
    public CallOutcome call(String tool, String argumentsJson, TurnListener listener) {
        yieldToCall();
        // the tools and the unloaded names of one moment: a tool swapped meanwhile is still "unloaded"
        ToolRegistry.State now = registry.state();
        // a direct call is a turn of its own: quiver undo takes it back alone
        checkpoints.beginTurn(id(), ++turnsSoFar, "call", false);
        try {
            return chain.run(forCallOf(tool, now.tools()), tool, argumentsJson, listener, now::wasUnloaded);
        } finally {
            checkpoints.endTurn().ifPresent(listener::notice);
        }
    }

    @Override
    public TurnResult send(String prompt, TurnListener listener) {
        ModelChoice choice = model.orElseThrow(() -> modelProblem.map(HostException::new).orElseGet(() -> new HostException("No model configured. Pass --model openai/NAME "
                + "(with --base-url http://HOST:PORT/v1 for an OpenAI-compatible server, or OPENAI_API_KEY for "
                + "api.openai.com), or set \"model\" in ~/.config/quiver/config.json.")));
        if (loop == null) {
            loop = new AgentLoop(models(choice, modelTimeout(), thinkingLevel()), chain, this::offered,
                    workspace.root(), options.interactive(), recorder, resumed, contextTokens(), silenceLimit(), workers)
                    .withNotes(notes).withInstructions(instructions)
                    .withRun(options.run().maxTurns(), options.run().appendSystemPrompt())
                    .withVariant(stepCap(), variant.prompt).withSummaries(asking)
                    // the model's answer is under way, its request long on the wire: the session is idle until
                    // the answer's calls (-p's start to its first request is never slowed by this)
                    .whileAnswering(this::warmUp, this::yieldToCall);
        }
        tellIfNoThinking(choice, listener);
        chain.newTurn();
        int turn = ++turnsSoFar;
        conversationTurns.add(turn);
        checkpoints.beginTurn(id(), turn, "prompt", !options.readOnly());
        retryNotices.set(listener::retrying);
        asking.takeTurnUsage();
        subagents.takeTurnUsage();
        try {
            TurnResult result = loop.send(prompt, listener);
            // the questions the turn's tools asked the model, and its subagents' requests, count in its total
            return new TurnResult(result.status(), result.answer(), result.calls(), result.steps(),
                    result.usage().plus(asking.takeTurnUsage()).plus(subagents.takeTurnUsage()));
        } finally {
            retryNotices.set(notice -> { });
            checkpoints.endTurn().ifPresent(listener::notice);
        }
    }

    @Override
    public UndoReport previewUndo(int turns, boolean force) {
        return checkpoints.undoSession(id(), lastTurns(turns), force, false, turns);
    }

    @Override
    public UndoReport undo(int turns, boolean force) {
        UndoReport report = checkpoints.undoSession(id(), lastTurns(turns), force, true, turns);
        AgentLoop current = loop;
        if (current != null) {
            current.rewind(turns);
        } else {
            resumed = Compaction.withoutLastTurns(resumed, turns);
        }
        recorder.rewound(turns);
        conversationTurns.subList(conversationTurns.size() - turns, conversationTurns.size()).clear();
        return report;
    }

    /** The numbers of the conversation's last turns. */
    private List<Integer> lastTurns(int turns) {
        if (turns < 1) {
            throw new HostException("Give a number of turns to undo of 1 or more.");
        }
        int held = conversationTurns.size();
        if (turns > held) {
            throw new HostException(held == 0 ? "This conversation has no turn to undo yet."
                    : "This conversation holds " + held + " turn" + (held == 1 ? "" : "s") + ", so it cannot undo "
                            + turns + ". (quiver undo --list shows the turns of every session of this workspace.)");
        }
        return List.copyOf(conversationTurns.subList(held - turns, held));
    }

    private int contextTokens() {
        return (int) Math.min(Integer.MAX_VALUE, config.limit("contextTokens", DEFAULT_CONTEXT_TOKENS));
    }

    /** A last resort past everything the HTTP client may take: it reports its own failures better. */
    private Duration silenceLimit() {
        return RetryPolicy.DEFAULT.longestSilence(QuiverHttpClientBuilder.DEFAULT_CONNECT_TIMEOUT, modelTimeout())
                .plusMinutes(1);
    }

    private Duration modelTimeout() {
        return Duration.ofSeconds(config.limit("modelTimeout", DEFAULT_MODEL_TIMEOUT.toSeconds()));
    }

    /**
     * The session's model for a tool's question: the conversation's without thinking (a commit message
     * needs none), built again only when it changes.
     */
    private synchronized Optional<AgentLoop.Models> askingModels() {
        Optional<ModelChoice> choice = model;
        if (choice.isPresent() && !choice.get().equals(askedFor)) {
            askedModels = models(choice.get(), modelTimeout(), Thinking.OFF);
            askedFor = choice.get();
        }
        return choice.map(chosen -> askedModels);
    }

    /**
     * A subagent's model: for explore and review children the config's {@code subagentModel} when it names
     * one, else (and for workers) the session's, at the session's thinking level.
     */
    private Optional<AgentLoop.Models> childModels(dev.quiver.api.ToolContext.SubagentKind kind) {
        Optional<ModelChoice> choice = kind == dev.quiver.api.ToolContext.SubagentKind.WORKER ? model
                : subagentModel.or(() -> model);
        Thinking level = thinkingLevel();
        // built once per model and level: each is a provider's model with its own HTTP client
        return choice.map(chosen -> builtForChildren.computeIfAbsent(List.of(chosen, level),
                key -> models(chosen, modelTimeout(), level)));
    }

    /** The chosen model, built once per provider service: a provider bundle updated mid-session is picked up. */
    private AgentLoop.Models models(ModelChoice choice, Duration timeout, Thinking thinking) {
        ModelSettings settings = new ModelSettings(choice.name(), choice.baseUrl(), timeout,
                config.managedList("allowedBaseUrls").orElse(List.of()), notice -> retryNotices.get().accept(notice),
                thinking);
        return new AgentLoop.Models() {
            private ModelProvider builtBy;
            private ChatModel chat;
            private StreamingChatModel streaming;

            private synchronized ModelProvider provider() {
                ModelProvider provider = providers.apply(choice.provider()).orElseThrow(() -> noProvider(choice.provider()));
                if (provider != builtBy) {
                    try {
                        chat = provider.chatModel(settings);
                        streaming = provider.streamingChatModel(settings);
                    } catch (IllegalArgumentException e) {
                        throw new HostException(e.getMessage(), e);
                    }
                    builtBy = provider;
                }
                return provider;
            }

            @Override
            public synchronized ChatModel chat() {
                provider();
                return chat;
            }

            @Override
            public synchronized StreamingChatModel streaming() {
                provider();
                return streaming;
            }

            @Override
            public String name() {
                return choice.name();
            }
        };
    }

    /** How workers' checkouts are opened as workspaces ({@code spawn_subagent}); without it none can start. */
    KernelSession withWorkspaces(dev.quiver.api.WorkspaceFactory factory) {
        subagents.withWorktrees(worktrees, factory::open);
        return this;
    }

    @Override
    public void close() {
        IdleWarmup started;
        synchronized (warmupLock) {
            closed = true;
            started = warmup;
        }
        // a turn under way is cancelled first; the warm-up then stops without holding the close up
        cancelTurn();
        if (started != null) {
            started.stop();
        }
        // the workers' checkouts not kept; their branches stay in the repository
        subagents.close().forEach(problem -> LOG.warn(problem));
        context.close();
        onClose.run();
        workers.shutdownNow();
    }
}
