package dev.retryafter.agent.instrument.jdk;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which request bodies the agent sends again after a refusal, and which it returns the refusal for. */
class JdkRequestsTest {

    private static HttpRequest post(BodyPublisher body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/upload")).POST(body).build();
    }

    @Test
    void bodiesTheJdkReadsAgainFromTheirSourceAreReplayable() {
        assertTrue(JdkRequests.isReplayable(HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/")).GET().build()));
        assertTrue(JdkRequests.isReplayable(post(BodyPublishers.noBody())));
        assertTrue(JdkRequests.isReplayable(post(BodyPublishers.ofString("twice"))));
        assertTrue(JdkRequests.isReplayable(post(BodyPublishers.ofByteArray(new byte[] {1, 2}))));
        assertTrue(JdkRequests.isReplayable(post(BodyPublishers.ofByteArrays(List.of(new byte[] {1})))));
    }

    @Test
    void streamsAdaptedPublishersAndUnknownBodiesAreNot() {
        assertFalse(JdkRequests.isReplayable(post(BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(new byte[1])))));
        Flow.Publisher<ByteBuffer> publisher = new SubmissionPublisher<>();
        assertFalse(JdkRequests.isReplayable(post(BodyPublishers.fromPublisher(publisher))));
        BodyPublisher own = new BodyPublisher() {
            @Override
            public long contentLength() {
                return 0;
            }

            @Override
            public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
                publisher.subscribe(subscriber);
            }
        };
        assertFalse(JdkRequests.isReplayable(post(own)), "an application's own publisher is not vouched for");
    }
}
