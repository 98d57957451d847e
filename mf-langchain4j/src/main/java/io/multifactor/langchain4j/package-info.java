/**
 * LangChain4j routing chat models: {@link io.multifactor.langchain4j.MultiFactorChatModel} and
 * {@link io.multifactor.langchain4j.MultiFactorStreamingChatModel} select, per call, one of several delegate chat models
 * (each LangChain4j's own client of one model) and do what the gateway does for a request, over the serving layer's one
 * request flow.
 */
package io.multifactor.langchain4j;
