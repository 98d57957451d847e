package io.multifactor.serving.archfixture;

import dev.langchain4j.model.chat.ChatModel;

/** A violation for the rule tests only: a core (mf-serving) class that uses a framework's type. */
public final class ServingUsingLangChain4j
{
    private ServingUsingLangChain4j()
    {
    }

    /** @return a class the core modules must not use. */
    public static Class<?> forbidden()
    {
        return ChatModel.class;
    }
}
