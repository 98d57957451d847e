/**
 * An Envoy external-processing (ext_proc v3) gRPC service that selects a model for each request Envoy forwards.
 *
 * <p>Threading: one processor instance per gRPC stream, driven by grpc-java's serialized call callbacks; the server and
 * its engine holder are threadsafe.
 */
package io.multifactor.envoy;
