package io.multifactor.sim.suite;

import io.multifactor.config.LoadedConfig;
import io.multifactor.sim.SimulationProfile;

import java.nio.file.Path;

/**
 * One scenario of the suite: {@code NAME.profile.yaml} (the traffic and how the servers behave), {@code NAME.yaml}
 * (the models, backends and decisions every policy runs with, its type swapped) and, when present,
 * {@code NAME.recommended.yaml} (the {@code multi_factor} configuration recommended for this kind of workload, run as
 * its own row). A configuration with a {@code fleet:} block runs as {@value ComparisonSuite#FLEET_REPLICAS} router
 * replicas sharing their signals. The SLO of every run is the TTFT and TPOT ceilings of {@code NAME.yaml}'s decisions.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name the scenario's name (the files' stem).
 * @param profileFile its profile.
 * @param profile the profile read.
 * @param config the configuration every policy runs with.
 * @param recommendedOrNull the recommended configuration, or null.
 * @param replicas router replicas: 1, or {@value ComparisonSuite#FLEET_REPLICAS} for a fleet.
 */
public record Scenario(String name, Path profileFile, SimulationProfile profile, LoadedConfig config,
    LoadedConfig recommendedOrNull, int replicas)
{
}
