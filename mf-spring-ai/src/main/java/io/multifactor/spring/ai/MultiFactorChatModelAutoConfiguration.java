package io.multifactor.spring.ai;

import io.multifactor.serving.EngineHost;
import io.multifactor.spring.boot.MultiFactorAutoConfiguration;
import io.multifactor.spring.boot.MultiFactorProperties;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Defines the routing {@link MultiFactorChatModel} (the primary {@code ChatModel}) when multi-factor is configured
 * ({@code multifactor.config}) and {@code multifactor.models} maps model names to {@code ChatModel} bean names, and the
 * {@link ConversationSessionAdvisor}. Delegates that retry on their own are logged as a warning at start-up.
 * <p>
 * This class is threadsafe: Spring calls it while it builds the context.
 */
@AutoConfiguration(after = MultiFactorAutoConfiguration.class)
@ConditionalOnBean(EngineHost.class)
public class MultiFactorChatModelAutoConfiguration
{
    private static final System.Logger LOG = System.getLogger(MultiFactorChatModel.class.getName());

    /** Creates the auto-configuration (Spring does). */
    public MultiFactorChatModelAutoConfiguration()
    {
    }

    /**
     * @param host the running engine host.
     * @param properties {@code multifactor.models}, {@code multifactor.decision}, {@code multifactor.max-attempts}.
     * @param beans where the delegate beans are found by name.
     * @return the routing chat model.
     * @throws IllegalStateException when {@code multifactor.models} is empty.
     */
    @Bean
    @Primary
    @ConditionalOnMissingBean(MultiFactorChatModel.class)
    public MultiFactorChatModel multiFactorChatModel(final EngineHost host, final MultiFactorProperties properties,
        final BeanFactory beans)
    {
        if (properties.models().isEmpty())
        {
            throw new IllegalStateException("multifactor.models is empty: map each model of " + properties.config() +
                " to the name of the ChatModel bean that calls it (multifactor.models.<model>=<bean>)");
        }
        final Map<String, ChatModel> delegates = new LinkedHashMap<>();
        properties.models().forEach((model, bean) -> delegates.put(model, beans.getBean(bean, ChatModel.class)));
        final MultiFactorChatModel chatModel =
            new MultiFactorChatModel(host, delegates, properties.decision(), properties.maxAttempts());
        for (final String warning : chatModel.retryWarnings())
        {
            LOG.log(System.Logger.Level.WARNING, warning);
        }
        return chatModel;
    }

    /** @return the advisor that copies a conversation id into the session key. */
    @Bean
    @ConditionalOnMissingBean
    public ConversationSessionAdvisor multiFactorConversationSessionAdvisor()
    {
        return new ConversationSessionAdvisor();
    }
}
