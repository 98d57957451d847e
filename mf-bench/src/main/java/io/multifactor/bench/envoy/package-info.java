/**
 * The timed harness of the Envoy ext_proc service: one request's full exchange over a loopback socket, with the
 * service in its own JVM, measured as that JVM's CPU time and allocation per exchange.
 *
 * <p>Threading: the harness drives one stream at a time from one thread; the server JVM is the service as deployed.
 */
package io.multifactor.bench.envoy;
