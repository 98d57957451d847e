/**
 * Fleet-wide signals through Redis: {@link io.multifactor.redis.RedisFleetExchange} (the Lettuce transport of the
 * kernel's fleet exchange), its {@link io.multifactor.redis.RedisFleetSettings} and the versioned entry format
 * {@link io.multifactor.redis.FleetCodec}.
 * <p>
 * Threading: an exchange and its codec belong to one fleet agent thread; settings are immutable.
 */
package io.multifactor.redis;
