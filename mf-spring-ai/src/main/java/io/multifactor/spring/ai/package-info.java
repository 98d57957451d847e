/**
 * The Spring AI routing chat model: {@link io.multifactor.spring.ai.MultiFactorChatModel} selects, per call, one of
 * several delegate {@code ChatModel} beans and does what the gateway does for a request, over the serving layer's one
 * request flow; {@link io.multifactor.spring.ai.MultiFactorChatOptions} carry the routing inputs of a call and
 * {@link io.multifactor.spring.ai.ConversationSessionAdvisor} copies a conversation id into the session key.
 */
package io.multifactor.spring.ai;
