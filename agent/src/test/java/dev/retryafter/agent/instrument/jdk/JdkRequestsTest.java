package dev.retryafter.agent.instrument.jdk;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
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

    @TempDir
    Path dir;

    @Test
    void bodiesTheJdkReadsAgainFromTheirSourceAreReplayable() throws Exception {
        Path file = Files.write(dir.resolve("body.json"), new byte[] {'{', '}'});
        assertTrue(JdkRequests.isReplayable(HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/")).GET().build()));
        assertTrue(JdkRequests.isReplayable(post(BodyPublishers.noBody())));
        assertTrue(JdkRequests.isReplayable(post(BodyPublishers.ofString("twice"))));
        assertTrue(JdkRequests.isReplayable(post(BodyPublishers.ofByteArray(new byte[] {1, 2}))));
        assertTrue(JdkRequests.isReplayable(post(BodyPublishers.ofByteArray(new byte[] {1, 2, 3}, 1, 2))));
        assertTrue(JdkRequests.isReplayable(post(BodyPublishers.ofFile(file))));
        assertTrue(JdkRequests.isReplayable(HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/")).DELETE().build()));
    }

    /** The case: the second POST went out with an empty body, and the application saw 200. */
    @Test
    void byteArraysFromAnIterableAreNotForItMayBeOneShot() {
        Iterator<byte[]> once = List.of("thirteen char".getBytes(StandardCharsets.UTF_8)).iterator();
        Iterable<byte[]> oneShot = () -> once;
        assertFalse(JdkRequests.isReplayable(post(BodyPublishers.ofByteArrays(oneShot))));
        assertFalse(JdkRequests.isReplayable(post(BodyPublishers.ofByteArrays(List.of(new byte[] {1})))),
                "the agent cannot see which Iterable the JDK holds, so a List is not vouched for either");
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
