package io.multifactor.config.read;

import io.multifactor.api.Capability;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlSequence;

import java.util.List;

/**
 * Reads a list of capabilities ({@code tools}, {@code vision}, {@code json_schema}) into a mask of
 * {@link Capability} bits: a model's {@code capabilities} and a scenario's {@code needs}. An unknown word is an error
 * at its line and column, with the nearest word when it looks like a typo; a repeated one is allowed.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class CapabilityList
{
    private static final List<String> WORDS = List.of(Capability.labels());

    private CapabilityList()
    {
    }

    /**
     * @param reader the mapping that holds the key.
     * @param key an optional key whose value is a list of capability words.
     * @param absent the mask when the key is absent.
     * @return the mask ({@code []} is 0), {@code absent} when the key is absent, -1 after an error was reported.
     */
    public static int read(final MappingReader reader, final String key, final int absent)
    {
        if (!reader.has(key))
        {
            return absent;
        }
        final YamlSequence list = reader.optionalSequence(key);
        if (list == null)
        {
            return -1;
        }
        int mask = 0;
        boolean valid = true;
        for (int i = 0; i < list.items().size(); i++)
        {
            final YamlNode item = list.items().get(i);
            final String path = reader.path(key) + '[' + i + ']';
            final String word = Values.string(item, path, reader.problems());
            if (word == null)
            {
                valid = false;
                continue;
            }
            final int bit = Capability.parse(word);
            if (bit == 0)
            {
                reader.problems().error(item, path, "unknown capability \"" + Excerpt.value(word) +
                    "\" (expected tools, vision or json_schema" + NearestName.suggestion(word, WORDS) + ')');
                valid = false;
                continue;
            }
            mask |= bit;
        }
        return valid ? mask : -1;
    }
}
