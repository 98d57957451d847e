package io.multifactor.serving;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;

/** Configurations for the tests of this package. */
final class Engines
{
    static final String TWO_MODELS = String.join("\n",
        "models:",
        "  - name: a",
        "    quality_score: 0.9",
        "    provider_model_id: acme/a-7b",
        "    backend_refs:",
        "      - {name: a1, endpoint: 127.0.0.1:8001, weight: 80}",
        "      - {name: a2, endpoint: 127.0.0.1:8002, weight: 20}",
        "  - name: b",
        "    quality_score: 0.5",
        "    backend_refs:",
        "      - {name: b1, base_url: 'https://b.example.invalid/v1', api_key_env: B_KEY}",
        "decisions:",
        "  - name: d",
        "    modelRefs: [{model: a}, {model: b}]",
        "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}",
        "  - name: e",
        "    modelRefs: [{model: b}]",
        "");

    private Engines()
    {
    }

    static LoadedConfig load(final String yaml)
    {
        try
        {
            return ConfigLoader.load("test.yaml", yaml, null);
        }
        catch (final InvalidConfigurationException ex)
        {
            throw new AssertionError(ex.getMessage(), ex);
        }
    }
}
