package io.multifactor.envoy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Struct;
import com.google.protobuf.UnsafeByteOperations;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.service.ext_proc.v3.BodyMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.BodyResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.CommonResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.HeaderMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.HeadersResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ImmediateResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.TrailersResponse;
import io.envoyproxy.envoy.type.v3.HttpStatus;
import io.envoyproxy.envoy.type.v3.StatusCode;
import io.multifactor.serving.ServingHeaders;

import java.nio.charset.StandardCharsets;

/**
 * The {@link ProcessingResponse} messages the service answers with. The answers that change nothing are built once
 * (protobuf messages are immutable) and shared by every stream.
 * <p>
 * This class is stateless and threadsafe.
 */
final class ExtProcResponses
{
    /** The dynamic metadata namespace an original-destination cluster reads the endpoint from. */
    static final String LB_NAMESPACE = "envoy.lb";

    static final ProcessingResponse CONTINUE_REQUEST_HEADERS = ProcessingResponse.newBuilder()
        .setRequestHeaders(HeadersResponse.getDefaultInstance()).build();
    static final ProcessingResponse CONTINUE_REQUEST_BODY = ProcessingResponse.newBuilder()
        .setRequestBody(BodyResponse.getDefaultInstance()).build();
    static final ProcessingResponse CONTINUE_REQUEST_TRAILERS = ProcessingResponse.newBuilder()
        .setRequestTrailers(TrailersResponse.getDefaultInstance()).build();
    static final ProcessingResponse CONTINUE_RESPONSE_HEADERS = ProcessingResponse.newBuilder()
        .setResponseHeaders(HeadersResponse.getDefaultInstance()).build();
    static final ProcessingResponse CONTINUE_RESPONSE_BODY = ProcessingResponse.newBuilder()
        .setResponseBody(BodyResponse.getDefaultInstance()).build();
    static final ProcessingResponse CONTINUE_RESPONSE_TRAILERS = ProcessingResponse.newBuilder()
        .setResponseTrailers(TrailersResponse.getDefaultInstance()).build();

    private ExtProcResponses()
    {
    }

    /**
     * @param name lower-case header name.
     * @param value its value.
     * @return a header set that replaces any value the request had.
     */
    static HeaderValueOption set(final String name, final String value)
    {
        return HeaderValueOption.newBuilder()
            .setHeader(HeaderValue.newBuilder().setKey(name).setRawValue(ByteString.copyFromUtf8(value)))
            .setAppendAction(HeaderValueOption.HeaderAppendAction.OVERWRITE_IF_EXISTS_OR_ADD)
            .build();
    }

    /**
     * The answer that routes the request: its header mutation, {@code clear_route_cache} (routing reads the header just
     * set), and the body replaced when {@code bodyOrNull} is given (with its {@code content-length}, which Envoy leaves
     * to the processor in BUFFERED body mode with SEND headers).
     *
     * @param toBody {@code true} to answer a {@code request_body} message, {@code false} a {@code request_headers} one.
     * @param mutation the headers to set.
     * @param bodyOrNull the new body, or {@code null} to leave it as it is; the answer takes it over (wraps it
     *     without a copy), so nothing may write to it afterwards.
     * @param endpointOrNull in {@code endpoint} mode the {@code host:port} also written to {@code envoy.lb} metadata.
     * @return the response.
     */
    static ProcessingResponse route(
        final boolean toBody, final HeaderMutation.Builder mutation, final byte[] bodyOrNull, final String endpointOrNull)
    {
        final CommonResponse.Builder common = CommonResponse.newBuilder().setClearRouteCache(true);
        if (bodyOrNull != null)
        {
            mutation.addSetHeaders(set("content-length", Integer.toString(bodyOrNull.length)));
            // Wrapped, not copied: the caller hands over a fresh array that nothing writes again.
            common.setBodyMutation(BodyMutation.newBuilder().setBody(UnsafeByteOperations.unsafeWrap(bodyOrNull)));
        }
        common.setHeaderMutation(mutation);
        final ProcessingResponse.Builder response = ProcessingResponse.newBuilder();
        if (toBody)
        {
            response.setRequestBody(BodyResponse.newBuilder().setResponse(common));
        }
        else
        {
            response.setRequestHeaders(HeadersResponse.newBuilder().setResponse(common));
        }
        if (endpointOrNull != null)
        {
            response.setDynamicMetadata(Struct.newBuilder().putFields(LB_NAMESPACE, Value.newBuilder()
                .setStructValue(Struct.newBuilder().putFields(ServingHeaders.DESTINATION_ENDPOINT,
                    Value.newBuilder().setStringValue(endpointOrNull).build()))
                .build()));
        }
        return response.build();
    }

    /**
     * @param mutation headers to add to the response on its way to the client.
     * @return the answer to {@code response_headers} that adds them.
     */
    static ProcessingResponse responseHeaders(final HeaderMutation.Builder mutation)
    {
        return ProcessingResponse.newBuilder()
            .setResponseHeaders(HeadersResponse.newBuilder()
                .setResponse(CommonResponse.newBuilder().setHeaderMutation(mutation)))
            .build();
    }

    /**
     * A locally generated reply: Envoy sends it to the client and forwards nothing upstream.
     *
     * @param status the HTTP status (400, 413, 503).
     * @param json the JSON body.
     * @param details why, for Envoy's access log ({@code %RESPONSE_CODE_DETAILS%}); no spaces.
     * @return the response.
     */
    static ProcessingResponse immediate(final int status, final String json, final String details)
    {
        final StatusCode code = StatusCode.forNumber(status);
        return ProcessingResponse.newBuilder()
            .setImmediateResponse(ImmediateResponse.newBuilder()
                .setStatus(code == null ?
                    HttpStatus.newBuilder().setCodeValue(status) : HttpStatus.newBuilder().setCode(code))
                .setHeaders(HeaderMutation.newBuilder().addSetHeaders(set("content-type", "application/json")))
                .setBody(ByteString.copyFrom(json.getBytes(StandardCharsets.UTF_8)))
                .setDetails(details))
            .build();
    }
}
