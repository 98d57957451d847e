/**
 * Fleet-wide signals through Redis: {@link io.multifactor.redis.RedisFleetExchange} (the kernel's fleet exchange over
 * Lettuce, composed of the period state machine {@code FleetPeriods}, its Lua scripts {@code FleetScript} read from
 * this package's resources, and the connection {@code RedisConnection}), its
 * {@link io.multifactor.redis.RedisFleetSettings} and the versioned entry format {@link io.multifactor.redis.FleetCodec}.
 * <p>
 * Threading: an exchange, its parts and its codec belong to one fleet agent thread; settings and scripts are immutable.
 */
package io.multifactor.redis;
