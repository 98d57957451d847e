/**
 * Spring Boot auto-configuration of multi-factor: the engine started from {@code multifactor.config} (through the
 * serving layer's one start-up and reload), hot reload of the file, the Micrometer binder when the application has a
 * {@code MeterRegistry}, and an Actuator health indicator when Actuator's health API is present. Nothing starts when
 * {@code multifactor.config} is absent.
 */
package io.multifactor.spring.boot;
