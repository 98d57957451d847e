package io.multifactor.serving;

import io.multifactor.api.Request;

/**
 * What {@link OpenAiRequestReader} found in one request body: the {@code model} field (and where it is in the bytes),
 * {@code stream}, the output token bound and the prompt's size. A caller-owned, reusable result: {@link #clear()} and
 * read again.
 * <p>
 * This class is not threadsafe: one request at a time.
 */
public final class OpenAiRequest
{
    /** Value of {@link #modelStart()} when the body has no top-level {@code model} string. */
    public static final int NO_MODEL = -1;

    String model;
    boolean stream;
    long maxOutputTokens = Request.NO_TOKENS;
    long promptBytes;
    int modelStart = NO_MODEL;
    int modelEnd = NO_MODEL;
    int objectStart;
    String error;
    boolean capturePrompt;
    final PromptBlocks prompt = new PromptBlocks();
    int needs;

    /** @return this, emptied for the next body. */
    public OpenAiRequest clear()
    {
        model = null;
        stream = false;
        maxOutputTokens = Request.NO_TOKENS;
        promptBytes = 0;
        modelStart = NO_MODEL;
        modelEnd = NO_MODEL;
        objectStart = 0;
        error = null;
        prompt.clear();
        needs = 0;
        return this;
    }

    /**
     * Whether the reader also writes the prompt's bytes into {@link #prompt()} (for prefix-cache affinity); kept
     * across {@link #clear()}. Off by default: a router without {@code prefix_affinity} copies nothing.
     *
     * @param capture whether to capture.
     * @return this.
     */
    public OpenAiRequest capturePrompt(final boolean capture)
    {
        this.capturePrompt = capture;
        return this;
    }

    /** @return the prompt's bytes and blocks (empty unless {@link #capturePrompt(boolean)} was set before the read). */
    public PromptBlocks prompt()
    {
        return prompt;
    }

    /** @return the top-level {@code model} string, or {@code null} when absent. */
    public String model()
    {
        return model;
    }

    /** @return whether the body asks for a streamed response ({@code "stream": true}). */
    public boolean stream()
    {
        return stream;
    }

    /**
     * @return {@code max_completion_tokens}, else {@code max_output_tokens} (Responses), else {@code max_tokens}, or
     *     {@link Request#NO_TOKENS} when the body sets none.
     */
    public long maxOutputTokens()
    {
        return maxOutputTokens;
    }

    /**
     * @return the UTF-8 byte count of the messages' text content (chat), of {@code prompt} (completions) or of
     *     {@code input} (Responses, embeddings).
     */
    public long promptBytes()
    {
        return promptBytes;
    }

    /**
     * @return the prompt token estimate, {@link #promptBytes()} / 4; meaningful for the selection only when
     *     {@link #hasTokenCounts()}.
     */
    public long promptTokens()
    {
        return promptBytes / 4;
    }

    /** @return whether the request carries token counts for the selection (it sets an output token bound). */
    public boolean hasTokenCounts()
    {
        return maxOutputTokens != Request.NO_TOKENS;
    }

    /** @return offset in the body of the {@code model} value's opening quote, or {@link #NO_MODEL}. */
    public int modelStart()
    {
        return modelStart;
    }

    /** @return offset in the body just past the {@code model} value's closing quote, or {@link #NO_MODEL}. */
    public int modelEnd()
    {
        return modelEnd;
    }

    /** @return the reader's message for the last refused body, or {@code null}. */
    public String error()
    {
        return error;
    }

    /**
     * @return what the request needs of a model, bits of {@link io.multifactor.api.Capability}: {@code tools} or
     *     {@code functions} present: tools; an {@code image_url} content part: vision; {@code response_format.type:
     *     json_schema}: JSON schema.
     */
    public int needs()
    {
        return needs;
    }
}
