package io.multifactor.serving;

import io.multifactor.api.Request;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The lifecycle answers an attempt's prefix ticket on the backend's first chunk, and abandons it on any other end. */
class PrefixTicketLifecycleTest
{
    private static final String CONFIG = String.join("\n",
        "models:",
        "  - name: a",
        "    backend_refs: [{endpoint: 127.0.0.1:9301}]",
        "    prefix_affinity: {block_bytes: 16}",
        "decisions:",
        "  - name: d",
        "    modelRefs: [{model: a}]",
        "");

    @Test
    void shouldEnterTheBlocksOnTheFirstChunkAndNothingOnAFailureOrACancel()
    {
        final LoadedConfig loaded = Engines.load(CONFIG);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final BackendChooser chooser = BackendChooser.of(loaded, Map.of(), new PrefixBackends());
            final int d = engine.decisionId("d");
            final OpenAiRequest parsed = new OpenAiRequest().capturePrompt(true);
            final byte[] body = ("{\"prompt\":\"" + "p".repeat(100) + "\"}").getBytes(StandardCharsets.UTF_8);
            assertThat(new OpenAiRequestReader().read(body, body.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
            final RequestLifecycle lifecycle = new RequestLifecycle(engine);
            final BackendPrefix backend = chooser.prefixBackends(engine.modelId("a")).get(0);

            // A 5xx: nothing enters, the wait is given back.
            lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
            chooser.choose(lifecycle.modelId(), parsed.prompt(), parsed.promptTokens(), lifecycle.prefixTicket());
            assertThat(backend.pendingTokens()).isEqualTo(25);
            lifecycle.onResponseStatus(503, false);
            lifecycle.fail(503, 0);
            assertThat(backend.pendingTokens()).isZero();
            assertThat(backend.index().size()).isZero();

            // A cancel before the first chunk: the same.
            lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
            chooser.choose(lifecycle.modelId(), parsed.prompt(), parsed.promptTokens(), lifecycle.prefixTicket());
            lifecycle.onResponseStatus(200, true);
            assertThat(backend.pendingTokens()).isEqualTo(25);
            lifecycle.cancel();
            assertThat(backend.pendingTokens()).isZero();
            assertThat(backend.index().size()).isZero();

            // A streamed 200: the first chunk enters the 6 blocks, the rest of the stream changes nothing.
            lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
            chooser.choose(lifecycle.modelId(), parsed.prompt(), parsed.promptTokens(), lifecycle.prefixTicket());
            lifecycle.onRequestSent(1);
            lifecycle.onResponseStatus(200, true);
            assertThat(backend.index().size()).isZero();
            final byte[] chunk = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n"
                .getBytes(StandardCharsets.UTF_8);
            lifecycle.onResponseBytes(chunk, 0, chunk.length, 2);
            assertThat(backend.index().size()).isEqualTo(6);
            assertThat(backend.pendingTokens()).isZero();
            lifecycle.onResponseBytes(chunk, 0, chunk.length, 3);
            lifecycle.complete(200);
            assertThat(backend.pendingTokens()).isZero();
            assertThat(backend.cold()).isEqualTo(3);

            // Now warm, fully cached: nothing joins the wait.
            lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
            chooser.choose(lifecycle.modelId(), parsed.prompt(), parsed.promptTokens(), lifecycle.prefixTicket());
            assertThat(lifecycle.prefixTicket().result()).isEqualTo(PrefixTicket.WARM);
            assertThat(backend.pendingTokens()).isZero();
            lifecycle.onResponseStatus(200, false);
            lifecycle.complete(200);
            assertThat(backend.blocksMatched()).isEqualTo(6);
        }
    }
}
