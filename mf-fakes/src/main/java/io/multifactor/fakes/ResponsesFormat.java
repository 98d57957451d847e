package io.multifactor.fakes;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * What a fake model server writes for the OpenAI Responses API ({@code POST /v1/responses}: the events
 * {@code response.created}, {@code response.output_text.delta} per token and {@code response.completed} with
 * {@code usage.output_tokens}, or one {@code response} object) and the embeddings API ({@code POST /v1/embeddings}: a
 * list of small deterministic vectors). The field sets follow OpenAI's API reference, as its SDKs read them.
 * <p>
 * This class is stateless and threadsafe.
 */
final class ResponsesFormat
{
    /** Dimensions of a fake embedding. */
    static final int EMBEDDING_DIMENSIONS = 8;

    private ResponsesFormat()
    {
    }

    /** @return the {@code response.created} event that opens a stream. */
    static String created(final String id, final String model, final long createdS)
    {
        return event("response.created", "{\"type\":\"response.created\",\"sequence_number\":0,\"response\":" +
            response(id, model, createdS, "in_progress", null, null) + '}');
    }

    /** @return one {@code response.output_text.delta} event. */
    static String delta(final String id, final String text, final int sequence)
    {
        return event("response.output_text.delta", "{\"type\":\"response.output_text.delta\",\"item_id\":\"msg_" + id +
            "\",\"output_index\":0,\"content_index\":0,\"delta\":\"" + text + "\",\"logprobs\":[],\"sequence_number\":" +
            sequence + '}');
    }

    /** @return the {@code response.completed} event that ends a stream, with the whole text and the usage. */
    static String completed(final String id, final String model, final long createdS, final String text,
        final long inputTokens, final long outputTokens, final int sequence)
    {
        return event("response.completed", "{\"type\":\"response.completed\",\"sequence_number\":" + sequence +
            ",\"response\":" + response(id, model, createdS, "completed", text, usage(inputTokens, outputTokens)) + '}');
    }

    /** @return a non-streamed answer: the whole {@code response} object. */
    static String whole(final String id, final String model, final long createdS, final String text,
        final long inputTokens, final long outputTokens)
    {
        return response(id, model, createdS, "completed", text, usage(inputTokens, outputTokens));
    }

    /**
     * @param request the embeddings request.
     * @param model the model's name.
     * @return one vector per input (a string, or each string or token list of a list), and the usage.
     */
    static String embeddings(final JsonObject request, final String model)
    {
        final Object input = request.getValue("input");
        final int inputs = input instanceof JsonArray && !((JsonArray)input).isEmpty() &&
            !(((JsonArray)input).getValue(0) instanceof Number) ? ((JsonArray)input).size() : 1;
        final long tokens = Math.max(1, String.valueOf(input).length() / 4);
        final StringBuilder sb = new StringBuilder("{\"object\":\"list\",\"data\":[");
        for (int i = 0; i < inputs; i++)
        {
            sb.append(i == 0 ? "" : ",").append("{\"object\":\"embedding\",\"index\":").append(i).append(",\"embedding\":[");
            for (int d = 0; d < EMBEDDING_DIMENSIONS; d++)
            {
                sb.append(d == 0 ? "" : ",").append((i + 1) * 0.125 + d * 0.01);
            }
            sb.append("]}");
        }
        return sb.append("],\"model\":\"").append(model).append("\",\"usage\":{\"prompt_tokens\":").append(tokens)
            .append(",\"total_tokens\":").append(tokens).append("}}").toString();
    }

    private static String event(final String type, final String json)
    {
        return "event: " + type + "\ndata: " + json + "\n\n";
    }

    private static String usage(final long inputTokens, final long outputTokens)
    {
        return "{\"input_tokens\":" + inputTokens + ",\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":" +
            outputTokens + ",\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":" +
            (inputTokens + outputTokens) + '}';
    }

    private static String response(final String id, final String model, final long createdS, final String status,
        final String textOrNull, final String usageOrNull)
    {
        final String output = textOrNull == null ? "[]" : "[{\"type\":\"message\",\"id\":\"msg_" + id +
            "\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"" +
            textOrNull + "\",\"annotations\":[]}]}]";
        return "{\"id\":\"resp_" + id + "\",\"object\":\"response\",\"created_at\":" + createdS + ",\"status\":\"" +
            status + "\",\"error\":null,\"incomplete_details\":null,\"instructions\":null,\"metadata\":{},\"model\":\"" +
            model + "\",\"output\":" + output + ",\"parallel_tool_calls\":true,\"temperature\":1.0,\"tool_choice\":" +
            "\"auto\",\"tools\":[],\"top_p\":1.0,\"usage\":" + (usageOrNull == null ? "null" : usageOrNull) + '}';
    }
}
