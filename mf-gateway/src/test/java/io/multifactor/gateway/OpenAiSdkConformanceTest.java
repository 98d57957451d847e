package io.multifactor.gateway;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.InternalServerException;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.EmbeddingCreateParams;
import com.openai.models.models.Model;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStreamEvent;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.fakes.TimeWindow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The gateway driven by the official OpenAI Java SDK ({@code com.openai:openai-java}, its own retries off), against the
 * fake model servers over real sockets: chat completions streamed (with {@code stream_options.include_usage}) and not,
 * completions, Responses streamed and not, embeddings, the models list, and the gateway's errors arriving as the SDK's
 * own exception types with their {@code code}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenAiSdkConformanceTest
{
    static FakeBackends fakes;
    static Gateway gateway;
    static OpenAIClient client;
    static Path dir;

    @BeforeAll
    static void start() throws Exception
    {
        fakes = FakeBackends.start(new BackendsProfile(11, List.of(
            FakeModelProfile.steady("m", 5, 1, 8, 4),
            FakeModelProfile.steady("busy", 5, 1, 8, 4)
                .withRateLimited(List.of(new TimeWindow(0.0, 3_600.0, 1.0, 1.0, 3L, 1.0))))));
        dir = Files.createTempDirectory("mf-sdk");
        final Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, String.join("\n",
            "models:",
            "  - name: m",
            "    quality_score: 0.8",
            "    provider_model_id: fake/m",
            "    backend_refs: [{endpoint: 127.0.0.1:" + fakes.port("m") + "}]",
            "  - name: busy",
            "    quality_score: 0.9",
            "    backend_refs: [{endpoint: 127.0.0.1:" + fakes.port("busy") + "}]",
            "decisions:",
            "  - name: chat",
            "    modelRefs: [{model: m}]",
            "  - name: crowded",
            "    modelRefs: [{model: busy}]",
            "  - name: picky",
            "    modelRefs: [{model: m}]",
            "    algorithm: {type: multi_factor, multi_factor: {slo: {min_quality: 0.99}, on_no_candidates: fail}}",
            ""));
        gateway = Gateway.start(file, GatewayOptions.defaults().withPort(0), result -> { });
        client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + gateway.port() + "/v1").apiKey("unused")
            .maxRetries(0).build();
    }

    @AfterAll
    static void stop() throws Exception
    {
        client.close();
        gateway.close();
        fakes.close();
        Files.deleteIfExists(dir.resolve("gateway.yaml"));
        Files.deleteIfExists(dir);
    }

    @Test
    void shouldCompleteAChatWholeAndStreamedWithUsage()
    {
        final ChatCompletion whole = client.chat().completions().create(ChatCompletionCreateParams.builder()
            .model("chat").addUserMessage("hello").maxCompletionTokens(32).build());
        assertThat(whole.choices().get(0).message().content()).hasValue("the model says hello ");
        assertThat(whole.model()).isEqualTo("m");

        final List<String> deltas = new ArrayList<>();
        final List<Long> usage = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(
            ChatCompletionCreateParams.builder().model("chat").addUserMessage("hello").maxCompletionTokens(32)
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build()))
        {
            stream.stream().forEach(chunk ->
            {
                chunk.choices().forEach(choice -> choice.delta().content().filter(c -> !c.isEmpty()).ifPresent(deltas::add));
                chunk.usage().ifPresent(u -> usage.add(u.completionTokens()));
            });
        }
        assertThat(String.join("", deltas)).isEqualTo("the model says hello ");
        assertThat(usage).containsExactly(4L);
    }

    @Test
    void shouldCompleteAPrompt()
    {
        final Completion completion = client.completions().create(CompletionCreateParams.builder()
            .model("chat").prompt("once upon").maxTokens(16).build());
        assertThat(completion.choices().get(0).text()).isEqualTo("the model says hello ");
    }

    @Test
    void shouldAnswerResponsesWholeAndStreamed()
    {
        final Response whole = client.responses().create(ResponseCreateParams.builder().model("chat").input("hello")
            .build());
        assertThat(whole.output().get(0).asMessage().content().get(0).asOutputText().text())
            .isEqualTo("the model says hello ");
        assertThat(whole.usage().orElseThrow().outputTokens()).isEqualTo(4);

        final StringBuilder text = new StringBuilder();
        final List<Long> outputTokens = new ArrayList<>();
        try (StreamResponse<ResponseStreamEvent> stream = client.responses().createStreaming(
            ResponseCreateParams.builder().model("chat").input("hello").build()))
        {
            stream.stream().forEach(event ->
            {
                event.outputTextDelta().ifPresent(delta -> text.append(delta.delta()));
                event.completed().ifPresent(done -> outputTokens.add(done.response().usage().orElseThrow()
                    .outputTokens()));
            });
        }
        assertThat(text).hasToString("the model says hello ");
        assertThat(outputTokens).containsExactly(4L);
    }

    @Test
    void shouldEmbedAndListTheDecisionsAsModels()
    {
        final CreateEmbeddingResponse embeddings = client.embeddings().create(EmbeddingCreateParams.builder()
            .model("chat").input("hello").build());
        assertThat(embeddings.data()).hasSize(1);
        assertThat(embeddings.data().get(0).embedding()).hasSize(8);

        final List<String> ids = new ArrayList<>();
        for (final Model model : client.models().list().data())
        {
            ids.add(model.id());
            assertThat(model.ownedBy()).isEqualTo("multi-factor");
        }
        assertThat(ids).containsExactly("chat", "crowded", "picky");
    }

    @Test
    void shouldRaiseTheSdksOwnExceptionTypesWithTheGatewaysCodes()
    {
        assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder()
            .model("chat").addUserMessage("hello").maxCompletionTokens(-1).build()))
            .isInstanceOfSatisfying(BadRequestException.class, ex ->
            {
                assertThat(ex.statusCode()).isEqualTo(400);
                assertThat(ex.code()).hasValue("invalid_json");
                assertThat(ex.type()).hasValue("invalid_request_error");
            });
        assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder()
            .model("gpt-4o").addUserMessage("hello").build()))
            .isInstanceOfSatisfying(NotFoundException.class, ex ->
            {
                assertThat(ex.code()).hasValue("model_not_found");
                assertThat(ex.param()).hasValue("model");
            });
        assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder()
            .model("crowded").addUserMessage("hello").build()))
            .isInstanceOfSatisfying(RateLimitException.class, ex ->
            {
                assertThat(ex.statusCode()).isEqualTo(429);
                assertThat(ex.headers().values("retry-after")).containsExactly("3");
            });
        assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder()
            .model("picky").addUserMessage("hello").build()))
            .isInstanceOfSatisfying(InternalServerException.class, ex ->
            {
                assertThat(ex.statusCode()).isEqualTo(503);
                assertThat(ex.code()).hasValue("no_candidate");
            });
        assertThat(OpenAIServiceException.class).isAssignableFrom(InternalServerException.class);
    }
}
