package example;

import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.spring.ai.MultiFactorChatModelAutoConfiguration;
import io.multifactor.spring.boot.MultiFactorAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.ConfigDataApplicationContextInitializer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Starts the page's application (its application.properties, router.yaml and ChatModels) against fake servers. */
class ChatModelsTest
{
    @Test
    void routesACallThroughTheChatClient()
    {
        try (FakeBackends servers = FakeBackends.start(new BackendsProfile(5, List.of(
            FakeModelProfile.steady("small", 5, 1, 8, 6), FakeModelProfile.steady("large", 5, 1, 8, 6)))))
        {
            new ApplicationContextRunner()
                .withInitializer(new ConfigDataApplicationContextInitializer())
                .withConfiguration(AutoConfigurations.of(MultiFactorAutoConfiguration.class,
                    MultiFactorChatModelAutoConfiguration.class))
                .withUserConfiguration(ChatModels.class)
                .withPropertyValues("example.small-url=http://127.0.0.1:" + servers.port("small") + "/v1",
                    "example.large-url=http://127.0.0.1:" + servers.port("large") + "/v1")
                .run(context ->
                {
                    assertNull(context.getStartupFailure(), "started");
                    final ChatResponse response = context.getBean(ChatClient.class).prompt().user("Say hello").call()
                        .chatResponse();
                    final String model = response.getMetadata().get("multifactor.model");
                    System.out.println("routed to " + model + ": " + response.getResult().getOutput().getText());
                    assertTrue("small".equals(model) || "large".equals(model), model);
                });
        }
    }
}
