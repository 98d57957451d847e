package io.multifactor.fakes;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One fake server's cache of prompt blocks: an LRU of chained block hashes bounded by its {@link PrefixCaching}'s
 * {@code gpuBlocks}, with vLLM's two counters in tokens. {@link #admit} looks a prompt's blocks up (the leading ones
 * found, up to the first miss, are hits) and then puts all of them at the young end, evicting the oldest beyond the
 * capacity.
 * <p>
 * The prompt is the server's own reading of the request, not the gateway's: for chat each message's {@code role}, a 0
 * byte, its {@code content} text, a 0 byte; for completions the {@code prompt} text; cut into blocks of
 * {@link PrefixCaching#blockBytes()} bytes, block i's hash covering blocks 0..i (FNV-1a 64 continued over the chain).
 * <p>
 * This class is not threadsafe: its server touches it on its own event loop only; the counters are read through
 * volatile fields.
 */
final class PromptBlockCache
{
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private final PrefixCaching caching;
    private final LinkedHashMap<Long, Boolean> blocks;
    private volatile long queriedTokens;
    private volatile long hitTokens;

    /** @param caching block size, capacity and prefill rate. */
    PromptBlockCache(final PrefixCaching caching)
    {
        this.caching = caching;
        final int capacity = caching.gpuBlocks();
        this.blocks = new LinkedHashMap<>(16, 0.75f, true)
        {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(final Map.Entry<Long, Boolean> eldest)
            {
                return size() > capacity;
            }
        };
    }

    /**
     * @param prompt the prompt's bytes as the class comment describes.
     * @return its chained block hashes, one per full block.
     */
    long[] blockHashes(final byte[] prompt)
    {
        final int blockBytes = caching.blockBytes();
        final long[] hashes = new long[prompt.length / blockBytes];
        long hash = FNV_OFFSET;
        for (int b = 0; b < hashes.length; b++)
        {
            for (int i = b * blockBytes, end = i + blockBytes; i < end; i++)
            {
                hash = (hash ^ (prompt[i] & 0xff)) * FNV_PRIME;
            }
            hashes[b] = hash;
        }
        return hashes;
    }

    /**
     * Counts a prompt's lookup (its tokens queried, its leading cached blocks' tokens hit) and caches all its blocks.
     *
     * @param hashes the prompt's chained block hashes.
     * @param promptTokens the prompt's tokens, >= the tokens of its full blocks.
     * @return the prompt's tokens found cached.
     */
    long admit(final long[] hashes, final long promptTokens)
    {
        int leading = 0;
        while (leading < hashes.length && blocks.containsKey(hashes[leading]))
        {
            leading++;
        }
        for (final long hash : hashes)
        {
            blocks.put(hash, Boolean.TRUE);
        }
        final long hit = Math.min(promptTokens, (long)leading * caching.blockTokens());
        queriedTokens += promptTokens;
        hitTokens += hit;
        return hit;
    }

    /** @return blocks held now. */
    int size()
    {
        return blocks.size();
    }

    /** @return prompt tokens looked up so far ({@code vllm:prefix_cache_queries_total}). */
    long queriedTokens()
    {
        return queriedTokens;
    }

    /** @return prompt tokens found cached so far ({@code vllm:prefix_cache_hits_total}). */
    long hitTokens()
    {
        return hitTokens;
    }

    /**
     * @param chat whether the body is a chat completion.
     * @param json the request body.
     * @return the prompt's bytes as the class comment describes.
     */
    static byte[] promptBytes(final boolean chat, final JsonObject json)
    {
        final StringBuilder text = new StringBuilder();
        if (!chat)
        {
            final Object prompt = json.getValue("prompt");
            return prompt instanceof String ? ((String)prompt).getBytes(StandardCharsets.UTF_8) : new byte[0];
        }
        final Object messages = json.getValue("messages");
        if (messages instanceof JsonArray)
        {
            for (final Object message : (JsonArray)messages)
            {
                if (message instanceof JsonObject)
                {
                    final JsonObject m = (JsonObject)message;
                    final Object role = m.getValue("role");
                    text.append(role instanceof String ? (String)role : "").append('\0');
                    appendContent(text, m.getValue("content"));
                    text.append('\0');
                }
            }
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void appendContent(final StringBuilder text, final Object content)
    {
        if (content instanceof String)
        {
            text.append((String)content);
        }
        else if (content instanceof JsonArray)
        {
            for (final Object part : (JsonArray)content)
            {
                if (part instanceof JsonObject &&
                    ((JsonObject)part).getValue("text") instanceof String)
                {
                    text.append(((JsonObject)part).getString("text"));
                }
            }
        }
    }
}
