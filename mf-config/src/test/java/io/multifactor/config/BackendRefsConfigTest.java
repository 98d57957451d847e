package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.ModelConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class BackendRefsConfigTest
{
    private static final String DECISIONS = String.join("\n",
        "decisions:",
        "  - name: d",
        "    modelRefs:",
        "      - model: a",
        "");

    @Test
    void shouldReadProviderModelIdAndBackendsInTheProjectsFormat() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("c.yaml", String.join("\n",
            "models:",
            "  - name: a",
            "    provider_model_id: acme/a-7b",
            "    backend_refs:",
            "      - name: a1",
            "        endpoint: 127.0.0.1:8000",
            "        weight: 80",
            "      - endpoint: '[::1]:9000'",
            "        protocol: https",
            "      - base_url: https://api.example.invalid/openai/v1/",
            "        api_key_env: A_KEY",
            "      - base_url: http://10.0.0.1",
            "  - name: b",
            "") + DECISIONS, null);
        final ModelConfig a = loaded.config().models().get(0);
        assertThat(a.providerModelId()).isEqualTo("acme/a-7b");
        assertThat(a.backendRefs()).containsExactly(
            new BackendRef("a1", false, "127.0.0.1", 8000, "/v1", 80.0, null),
            new BackendRef("[::1]:9000", true, "::1", 9000, "/v1", 1.0, null),
            new BackendRef("https://api.example.invalid/openai/v1/", true, "api.example.invalid", 443, "/openai/v1", 1.0,
                "A_KEY"),
            new BackendRef("http://10.0.0.1", false, "10.0.0.1", 80, "", 1.0, null));
        assertThat(a.backendRefs().get(1).authority()).isEqualTo("[::1]:9000");
        final ModelConfig b = loaded.config().models().get(1);
        assertThat(b.providerModelId()).isEqualTo("b");
        assertThat(b.backendRefs()).isEmpty();
    }

    @Test
    void shouldReportEveryBackendProblemAtOnceWithItsPlace()
    {
        final String yaml = String.join("\n",
            "models:",
            "  - name: a",
            "    provider_model_id: ''",
            "    backend_refs:",
            "      - endpoint: 127.0.0.1",
            "      - endpoint: localhost:70000",
            "      - endpoint: http://127.0.0.1:8000",
            "      - base_url: ftp://x/v1",
            "      - endpoint: h:1",
            "        base_url: http://h:1",
            "      - name: none",
            "      - endpoint: h:1",
            "        weight: 0",
            "      - endpoint: h:1",
            "        weight: -2",
            "      - endpoint: h:1",
            "        protocol: grpc",
            "      - endpoint: h:1",
            "        wieght: 2",
            "      - base_url: http://h/v1",
            "        protocol: https",
            "") + DECISIONS;
        final InvalidConfigurationException ex = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("c.yaml", yaml, null));
        assertThat(ex.problems()).extracting(ConfigProblem::toString).containsExactly(
            "c.yaml:3:24: models[0].provider_model_id: must not be empty, got \"\"",
            "c.yaml:5:19: models[0].backend_refs[0].endpoint: expected host:port with a port 1..65535, got \"127.0.0.1\"",
            "c.yaml:6:19: models[0].backend_refs[1].endpoint: expected host:port with a port 1..65535, got " +
                "\"localhost:70000\"",
            "c.yaml:7:19: models[0].backend_refs[2].endpoint: expected host:port, got \"http://127.0.0.1:8000\" (a URL " +
                "goes in base_url)",
            "c.yaml:8:19: models[0].backend_refs[3].base_url: expected an http:// or https:// URL with a host, no " +
                "query, no user, got \"ftp://x/v1\"",
            "c.yaml:9:9: models[0].backend_refs[4]: set endpoint or base_url, not both",
            "c.yaml:11:9: models[0].backend_refs[5]: missing required key \"endpoint\" (host:port) or \"base_url\" (a URL)",
            "c.yaml:13:17: models[0].backend_refs[6].weight: must be > 0, got 0",
            "c.yaml:15:17: models[0].backend_refs[7].weight: must be >= 0, got -2",
            "c.yaml:17:19: models[0].backend_refs[8].protocol: unknown protocol \"grpc\": expected http or https",
            "c.yaml:19:9: models[0].backend_refs[9].wieght: unknown key \"wieght\" (did you mean weight?)",
            "c.yaml:21:19: models[0].backend_refs[10].protocol: protocol https contradicts base_url's scheme http " +
                "(protocol applies to endpoint)");
    }

    @Test
    void shouldIgnoreVsrsOwnBackendKeysButCheckTheOnesItReads()
    {
        final String yaml = String.join("\n",
            "version: v0.3",
            "providers:",
            "  models:",
            "    - name: a",
            "      backend_refs:",
            "        - name: x",
            "          endpoint: 127.0.0.1:8000",
            "          provider: openai",
            "          health_check_path: /health",
            "        - weight: 1",
            "routing:",
            "  decisions:",
            "    - name: d",
            "      modelRefs:",
            "        - model: a",
            "      algorithm:",
            "        type: multi_factor",
            "");
        final InvalidConfigurationException ex = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("v.yaml", yaml, null));
        assertThat(ex.problems()).extracting(ConfigProblem::toString).containsExactly(
            "v.yaml:10:11: providers.models[0].backend_refs[1]: missing required key \"endpoint\" (host:port) or " +
                "\"base_url\" (a URL)");
        final LoadedConfig ok;
        try
        {
            ok = ConfigLoader.load("v.yaml", yaml.replace("        - weight: 1\n", ""), null);
        }
        catch (final InvalidConfigurationException e)
        {
            throw new AssertionError(e.getMessage(), e);
        }
        assertThat(ok.config().models().get(0).backendRefs())
            .isEqualTo(List.of(new BackendRef("x", false, "127.0.0.1", 8000, "/v1", 1.0, null)));
    }
}
