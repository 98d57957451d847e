package io.multifactor.spring.ai;

import io.multifactor.api.Request;
import io.multifactor.serving.DelegateCall;
import io.multifactor.serving.EngineHost;
import io.multifactor.serving.RoutingRefusedException;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import reactor.core.publisher.Flux;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Spring AI {@link ChatModel} that routes each call to one of several delegate chat models (each Spring AI's client of
 * one model), doing what the gateway does for a request over the serving layer's one request flow: the engine selects
 * (the decision: {@link MultiFactorChatOptions#decision()}, else the {@code model} option when it names a decision,
 * else the default decision), the delegate is called with the {@code model} option replaced by the chosen model's
 * {@code provider_model_id}, the lease ends exactly once (on completion, on an error with the status its exception kept,
 * on a cancel of the {@code Flux}), and a failure before the first token is retried on the next candidate while
 * attempts remain, never after it. {@link #stream} measures TTFT (to the first chunk with text) and TPOT (first to last
 * chunk with text, divided by the usage's completion tokens when reported) through the serving layer's one stream meter;
 * {@link #call} measures neither, as the gateway does for a whole response. Each response's metadata carries the chosen
 * model ({@link DelegateCall#METADATA_MODEL}), the decision, the attempts and the explain JSON.
 * <p>
 * The delegates must not retry on their own (the routing model's attempts replace them): {@link #retryWarnings()} lists
 * those whose options say they do, and the Spring configuration logs them at start-up.
 * <p>
 * This class is threadsafe: each call has its own flow; a stream's signals come one at a time.
 */
public final class MultiFactorChatModel implements ChatModel
{
    private final EngineHost host;
    private final Map<String, ChatModel> delegates;
    private final Map<ChatModel, ChatOptions> delegateDefaults = new IdentityHashMap<>();
    private final String decision;
    private final int maxAttempts;

    /**
     * @param host the running engine host (its engine selects; its configuration gives {@code provider_model_id}).
     * @param delegates each model's name in the configuration to the chat model that calls it; copied, and each one's
     *     default options ({@code getOptions()}) read once, here.
     * @param defaultDecisionOrNull the decision of a call that names none, or {@code null}.
     * @param maxAttempts attempts a call makes at most, >= 1.
     * @throws IllegalArgumentException for a delegate of a model the configuration does not have, or an unknown
     *     default decision.
     */
    public MultiFactorChatModel(final EngineHost host, final Map<String, ChatModel> delegates,
        final String defaultDecisionOrNull, final int maxAttempts)
    {
        if (maxAttempts < 1)
        {
            throw new IllegalArgumentException("maxAttempts must be >= 1: " + maxAttempts);
        }
        DelegateCall.check(host.engine(), delegates.keySet(), defaultDecisionOrNull);
        this.host = host;
        this.delegates = Map.copyOf(delegates);
        for (final ChatModel delegate : this.delegates.values())
        {
            // Read once: a client's getOptions() copies its defaults (OpenAiChatModel's: some forty fields) per call.
            delegateDefaults.put(delegate, delegate.getOptions());
        }
        this.decision = defaultDecisionOrNull;
        this.maxAttempts = maxAttempts;
    }

    private DelegateCall<ChatModel> begin(final Prompt prompt)
    {
        final DelegateCall<ChatModel> call =
            new DelegateCall<>(host.engine(), host::providerModelId, delegates, decision, maxAttempts);
        final ChatOptions options = prompt.getOptions();
        final String explicit = options instanceof MultiFactorChatOptions ? ((MultiFactorChatOptions)options).decision() : null;
        final Integer maxTokens = options == null ? null : options.getMaxTokens();
        if (options instanceof MultiFactorChatOptions)
        {
            final MultiFactorChatOptions routing = (MultiFactorChatOptions)options;
            // The call's session key, priority and own TTFT/TPOT ceilings, as the gateway's headers carry them.
            call.options(routing.sessionKey(), routing.priority(), routing.maxTtftMs(), routing.maxTpotMs());
        }
        call.begin(explicit, options == null ? null : options.getModel(), DelegateCall.promptTokens(characters(prompt)),
            maxTokens == null ? Request.NO_TOKENS : maxTokens);
        return call;
    }

    private static long characters(final Prompt prompt)
    {
        long characters = 0;
        final List<Message> messages = prompt.getInstructions();
        for (int i = 0, n = messages.size(); i < n; i++)
        {
            final String text = messages.get(i).getText();
            characters += text == null ? 0 : text.length();
        }
        return characters;
    }

    /**
     * The prompt for the chosen delegate: its options are the delegate's own type (a client may require it, as Spring
     * AI's {@code OpenAiChatModel} does), from its defaults (read when this model was built), with the caller's options
     * laid over them and the {@code model} option replaced by the chosen model's {@code provider_model_id}.
     */
    private Prompt forDelegate(final Prompt prompt, final ChatModel delegate, final String providerModelId)
    {
        final ChatOptions defaults = delegateDefaults.get(delegate);
        final ChatOptions.Builder<?> routed = defaults == null ? ChatOptions.builder() : defaults.mutate();
        final ChatOptions options = prompt.getOptions();
        if (options != null)
        {
            routed.combineWith(options.mutate());
        }
        return new Prompt(prompt.getInstructions(), routed.model(providerModelId).build());
    }

    /**
     * @throws RoutingRefusedException when no decision is named or no candidate can be called.
     */
    @Override
    public ChatResponse call(final Prompt prompt)
    {
        final DelegateCall<ChatModel> call = begin(prompt);
        while (true)
        {
            final ChatResponse response;
            try
            {
                final Prompt routed = forDelegate(prompt, call.delegate(), call.providerModelId());
                call.sent();
                response = call.delegate().call(routed);
            }
            catch (final RuntimeException ex)
            {
                if (call.retryAfter(ex))
                {
                    continue;
                }
                throw ex;
            }
            call.complete();
            return withRouting(response, call);
        }
    }

    @Override
    public Flux<ChatResponse> stream(final Prompt prompt)
    {
        return Flux.defer(() -> attempt(prompt, begin(prompt)));
    }

    private Flux<ChatResponse> attempt(final Prompt prompt, final DelegateCall<ChatModel> call)
    {
        return Flux.defer(() ->
            {
                final Prompt routed = forDelegate(prompt, call.delegate(), call.providerModelId());
                call.sent();
                return call.delegate().stream(routed);
            })
            .map(response -> onChunk(response, call))
            .doOnComplete(call::complete)
            .doOnCancel(call::cancel)
            .onErrorResume(error -> call.retryAfter(error) ? attempt(prompt, call) : Flux.error(error));
    }

    private static ChatResponse onChunk(final ChatResponse response, final DelegateCall<ChatModel> call)
    {
        final Generation generation = response.getResult();
        if (generation != null && generation.getOutput() != null)
        {
            final String text = generation.getOutput().getText();
            if (text != null && !text.isEmpty())
            {
                call.chunk();
            }
        }
        final ChatResponseMetadata metadata = response.getMetadata();
        final Usage usage = metadata == null ? null : metadata.getUsage();
        if (usage != null && usage.getCompletionTokens() != null && usage.getCompletionTokens() > 0)
        {
            call.usage(usage.getCompletionTokens());
        }
        return withRouting(response, call);
    }

    private static ChatResponse withRouting(final ChatResponse response, final DelegateCall<ChatModel> call)
    {
        final ChatResponseMetadata original = response.getMetadata();
        final ChatResponseMetadata.Builder metadata = ChatResponseMetadata.builder();
        if (original != null)
        {
            metadata.id(original.getId()).model(original.getModel()).rateLimit(original.getRateLimit())
                .usage(original.getUsage()).promptMetadata(original.getPromptMetadata());
            for (final Map.Entry<String, Object> entry : original.entrySet())
            {
                metadata.keyValue(entry.getKey(), entry.getValue());
            }
        }
        metadata.keyValue(DelegateCall.METADATA_MODEL, call.selectedModelName())
            .keyValue(DelegateCall.METADATA_DECISION, call.decisionName())
            .keyValue(DelegateCall.METADATA_ATTEMPTS, call.attempts());
        final String explain = call.explainJson();
        if (explain != null)
        {
            metadata.keyValue(DelegateCall.METADATA_EXPLAIN, explain);
        }
        return new ChatResponse(response.getResults(), metadata.build());
    }

    @Override
    public ChatOptions getOptions()
    {
        return MultiFactorChatOptions.builder().build();
    }

    /**
     * @return one line per delegate whose default options say it retries on its own (a public {@code getMaxRetries()}
     *     that is unset, which means the client's default, or above 0); empty when none can be told to.
     */
    public List<String> retryWarnings()
    {
        final List<String> warnings = new ArrayList<>();
        delegates.forEach((model, delegate) ->
        {
            final ChatOptions options = delegate.getOptions();
            if (options == null)
            {
                return;
            }
            try
            {
                final Method getter = options.getClass().getMethod("getMaxRetries");
                final Object retries = getter.invoke(options);
                if (retries == null || retries instanceof Integer && (Integer)retries > 0)
                {
                    warnings.add("multifactor: the delegate of model " + model + " (" +
                        delegate.getClass().getSimpleName() + ") retries on its own (maxRetries " +
                        (retries == null ? "unset: the client's default" : retries) + "); build it with " +
                        "maxRetries(0): the routing model's attempts replace its retries");
                }
            }
            catch (final ReflectiveOperationException | RuntimeException ex)
            {
                // Options without a retry setting: nothing to tell.
            }
        });
        return warnings;
    }
}
