/**
 * The OpenAI-compatible streaming gateway behind {@code bin/mf serve}, on Vert.x core: one event loop owns each
 * request's lifecycle (select, forward, stream back, end); configuration reloads swap an immutable route table.
 */
package io.multifactor.gateway;
