package io.multifactor.redis;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisFleetSettingsTest
{
    @Test
    void shouldNeverShowThePasswordOfTheUrl()
    {
        final RedisFleetSettings settings =
            RedisFleetSettings.of("rediss://user:hunter2@redis.example:6380/1?x=hunter2", "prod", Duration.ofMillis(250));
        assertThat(settings.redactedUrl()).isEqualTo("rediss://redis.example:6380/1");
        assertThat(settings.toString()).doesNotContain("hunter2").contains("rediss://redis.example:6380/1");
        assertThatThrownBy(() -> RedisFleetSettings.of("http://:hunter2@host", "prod", Duration.ofMillis(250)))
            .hasMessageNotContaining("hunter2");
    }

    @Test
    void shouldRefuseAPeriodBelowFiftyMillisecondsAndABadCluster()
    {
        assertThatThrownBy(() -> RedisFleetSettings.of("redis://h", "prod", Duration.ofMillis(49)))
            .hasMessageContaining("at least 50ms");
        assertThatThrownBy(() -> RedisFleetSettings.of("redis://h", "a b", Duration.ofMillis(250)))
            .hasMessageContaining("cluster");
    }

    @Test
    void shouldMakeUniqueReplicaIdsByDefault()
    {
        final String one = RedisFleetSettings.of("redis://h", "prod", Duration.ofMillis(250)).replicaId();
        final String two = RedisFleetSettings.of("redis://h", "prod", Duration.ofMillis(250)).replicaId();
        assertThat(one).isNotEqualTo(two).contains(Long.toString(ProcessHandle.current().pid()));
    }
}
