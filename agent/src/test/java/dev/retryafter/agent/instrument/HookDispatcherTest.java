package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.CharacterisationChange;
import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.DecisionListener;
import dev.retryafter.agent.engine.learn.HintBudget;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.RetryEngine;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.message.BasicClassicHttpResponse;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The blocking clients' hooks: what advice hands over reaches the call's engine, and a failure of the agent's own never reaches the client. */
class HookDispatcherTest {

    private final List<String> hints = new CopyOnWriteArrayList<>();
    private final RetryEngine engine = engine(new InMemoryKnowledgeStore(), hints, true);

    /** An engine on {@code knowledge} whose hint lines go to {@code said}, each after its host when {@code withHost}. */
    private static RetryEngine engine(KnowledgeStore knowledge, List<String> said, boolean withHost) {
        return RetryEngine.builder().knowledge(knowledge).listener(new DecisionListener() {
            @Override
            public void onHints(HostState host, HintBudget.Change change) {
                said.add(withHost ? host.key() + " " + change : change.toString());
            }

            @Override
            public void onRefusal(HostState host, Decision decision) {
            }

            @Override
            public void onRecharacterised(HostState host, CharacterisationChange change) {
            }

            @Override
            public void onHeldRequest(HostState host, HostHeldException failure) {
            }
        }).policies(PolicyLookup.everyHost(Policy.builder().build())).build();
    }

    private final HookDispatcher dispatcher = new HookDispatcher(engine, new CallDepth());

    /** An Apache 5 response as the client hands it over, with these headers (name, value, ...). */
    private static BasicClassicHttpResponse response(int status, String... headers) {
        BasicClassicHttpResponse response = new BasicClassicHttpResponse(status);
        for (int i = 0; i < headers.length; i += 2) {
            response.addHeader(headers[i], headers[i + 1]);
        }
        return response;
    }

    @Test
    void headersHandedOverWithTheResponseAreReadForTheHostsHints() throws Exception {
        Object call = dispatcher.begin("apache5", null, "https", "portal.example", 443, true);
        assertNotNull(call);
        assertTrue(((Call) call).wantsHeaders(200), "a host's first responses are looked at");
        assertFalse(dispatcher.respond("apache5", call, response(200, "Content-Type", "application/json",
                "RateLimit", "limit=20, remaining=19, reset=2", "RateLimit-Policy", "20;w=2"), null, 200, null));

        assertEquals(1, hints.size(), () -> "one belief: " + hints);
        assertTrue(hints.get(0).startsWith("portal.example:443 pacing by its rate-limit hints"), hints.get(0));
        Object next = dispatcher.begin("apache5", null, "https", "portal.example", 443, true);
        assertTrue(((Call) next).wantsHeaders(200), "every response of a host whose hints are believed");
        assertFalse(dispatcher.respond("apache5", next, response(200), null, 200, null));
    }

    @Test
    void hintsFoundFalseByAnEarlierRunAreNotBelievedAgain() throws Exception {
        InMemoryKnowledgeStore known = new InMemoryKnowledgeStore();
        known.distrustHints("portal.example:443", "refused when 6 should have been left");
        List<String> said = new CopyOnWriteArrayList<>();
        RetryEngine remembering = engine(known, said, false);
        HookDispatcher hooks = new HookDispatcher(remembering, new CallDepth());
        Object call = hooks.begin("apache5", null, "https", "portal.example", 443, true);
        assertFalse(hooks.respond("apache5", call, response(200, "X-RateLimit-Limit", "20", "X-RateLimit-Remaining", "19",
                "X-RateLimit-Reset", "2"), null, 200, null));
        assertEquals(1, said.size(), said::toString);
        assertTrue(said.get(0).startsWith("rate-limit hints distrusted: refused when 6 should have been left, as found before"), said.get(0));
        assertTrue(remembering.host("portal.example:443").hints().startsWith("distrusted"), remembering.host("portal.example:443").hints());
    }

    /** A refusal the agent retries: its body read to its end before the wait, so its connection may go back to the pool. */
    @Test
    void aRefusalHandedOverIsDiscardedAndSentAgain() throws Exception {
        Object call = dispatcher.begin("apache5", null, "https", "portal.example", 443, true);
        BasicClassicHttpResponse refused = response(429, "Retry-After", "0");
        ByteArrayInputStream body = new ByteArrayInputStream("slow down".getBytes(StandardCharsets.US_ASCII));
        refused.setEntity(new InputStreamEntity(body, ContentType.TEXT_PLAIN));
        assertTrue(dispatcher.respond("apache5", call, refused, null, 429, null), "sent again");
        assertEquals(0, body.available(), "the refused body was read to its end");
        assertFalse(dispatcher.respond("apache5", call, response(200), null, 200, null));
    }

    @Test
    void aFailureWhileReadingAResponseIsTheAgentsOwnAndNeverThrown() throws Exception {
        Object call = dispatcher.begin("apache5", null, "https", "portal.example", 443, true);
        assertFalse(dispatcher.respond("apache5", call, new Object(), null, 200, null), "no headers to read: decided on the status alone");
        Object notACall = new Object(); // what a broken agent could pass: the hooks cast it
        assertFalse(dispatcher.respond("apache5", notACall, response(429, "X-RateLimit-Remaining", "0"), null, 429, null));
        assertFalse(dispatcher.respond("apache5", null, response(429), null, 429, null));
    }
}
