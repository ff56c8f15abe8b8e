package dev.quiver.kernel;

import dev.langchain4j.model.chat.ChatModel;
import dev.quiver.api.Guard;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.Verdict;
import dev.quiver.kernel.permission.AuditLog;
import dev.quiver.kernel.permission.PermissionEngine;
import dev.quiver.kernel.permission.RuleSet;
import dev.quiver.langchain4j.ModelProvider;
import dev.quiver.langchain4j.ModelSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
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

    private final Workspace workspace;
    private final SessionOptions options;
    private final Config config;
    private final ToolRegistry registry;
    private final Function<String, Optional<ModelProvider>> providers;
    private final ExecutorService workers;
    private final CallChain chain;
    private final Optional<ModelChoice> model;
    private AgentLoop loop;

    KernelSession(Workspace workspace, SessionOptions options, Config config, ToolRegistry registry,
            Function<String, Optional<ModelProvider>> providers, Supplier<List<Guard>> guards) {
        this.workspace = workspace;
        this.options = options;
        this.config = config;
        this.registry = registry;
        this.providers = providers;
        AtomicInteger threads = new AtomicInteger();
        this.workers = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "quiver-tool-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        Duration toolTimeout = config.positiveNumber("toolTimeout").map(Duration::ofSeconds).orElse(DEFAULT_TOOL_TIMEOUT);
        List<String> ruleWarnings = new ArrayList<>();
        RuleSet rules = RuleSet.parse(config.all("permission"), ruleWarnings);
        ruleWarnings.forEach(config::warn);
        PermissionEngine engine = new PermissionEngine(rules, workspace,
                System.getenv().getOrDefault("HOME", System.getProperty("user.home")));
        this.chain = new CallChain(workspace, engine, guards, workers,
                new CallChain.Modes(options.yolo(), options.interactive(), options.readOnly()), toolTimeout,
                new AuditLog(workspace.root(), UUID.randomUUID().toString()), config::plain);
        Optional<String> baseUrl = options.baseUrl().or(() -> config.text("baseUrl"));
        this.model = options.model().or(() -> config.text("model")).map(spec -> ModelChoice.parse(spec, baseUrl));
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
    public List<String> warnings() {
        return config.warnings();
    }

    @Override
    public List<String> toolSets() {
        TreeSet<String> sets = new TreeSet<>();
        for (RegisteredTool tool : offered()) {
            tool.set().ifPresent(sets::add);
        }
        return List.copyOf(sets);
    }

    /** The tools of this step: the registry's snapshot less any the mode withholds or whose spec cannot be sent. */
    private List<RegisteredTool> offered() {
        return registry.snapshot().stream().filter(chain::offers).filter(tool -> tool.spec().isPresent()).toList();
    }

    @Override
    public List<ToolInfo> tools() {
        List<ToolInfo> infos = new ArrayList<>();
        for (RegisteredTool tool : offered()) {
            tool.spec().ifPresent(spec -> infos.add(new ToolInfo(tool.name(), tool.set(), tool.access().id(),
                    chain.defaultDecision(tool), tool.bundle(), tool.schemaBytes(), spec.description(),
                    tool.compactParameters(),
                    tool.autoApproveRequested() ? Optional.of("auto-approve requested, not trusted") : Optional.empty())));
        }
        return infos;
    }

    @Override
    public Verdict check(String tool, String argumentsJson) {
        return chain.check(offered(), tool, argumentsJson);
    }

    @Override
    public CallOutcome call(String tool, String argumentsJson, TurnListener listener) {
        return chain.run(offered(), tool, argumentsJson, listener);
    }

    @Override
    public TurnResult send(String prompt, TurnListener listener) {
        if (loop == null) {
            loop = new AgentLoop(chatModel(), chain, this::offered, workspace.root(), options.interactive());
        }
        chain.newTurn();
        return loop.send(prompt, listener);
    }

    private ChatModel chatModel() {
        ModelChoice choice = model.orElseThrow(() -> new HostException("No model configured. Pass --model openai/NAME "
                + "(with --base-url http://HOST:PORT/v1 for an OpenAI-compatible server, or OPENAI_API_KEY for "
                + "api.openai.com), or set \"model\" in .quiver/config.json."));
        ModelProvider provider = providers.apply(choice.provider()).orElseThrow(() -> new HostException(
                "No model provider '" + choice.provider() + "' is installed. Use --model openai/NAME."));
        Duration timeout = config.positiveNumber("modelTimeout").map(Duration::ofSeconds).orElse(DEFAULT_MODEL_TIMEOUT);
        try {
            return provider.chatModel(new ModelSettings(choice.name(), choice.baseUrl(), timeout));
        } catch (IllegalArgumentException e) {
            throw new HostException(e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        chain.cancelAll();
        workers.shutdownNow();
    }
}
