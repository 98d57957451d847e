package io.multifactor.langchain4j.archfixture;

import io.multifactor.gateway.Gateway;

/** A violation for the rule tests only: an mf-langchain4j class that reaches the gateway instead of mf-serving. */
public final class LangChain4jUsingTheGateway
{
    private LangChain4jUsingTheGateway()
    {
    }

    /** @return a class this module must not use. */
    public static Class<?> forbidden()
    {
        return Gateway.class;
    }
}
