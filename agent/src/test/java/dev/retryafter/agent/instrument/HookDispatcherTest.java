package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.CharacterisationChange;
import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.DecisionListener;
import dev.retryafter.agent.engine.HintBudget;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.KnowledgeStore;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The header hooks: what advice offers reaches the call's engine, and a failure of the agent's own never reaches the client. */
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

    @Test
    void headersOfferedBeforeTheResponseAreReadForTheHostsHints() throws Exception {
        Object call = dispatcher.begin("https", "portal.example", 443, true);
        assertNotNull(call);
        assertTrue(dispatcher.wantsHeaders(call, 200), "a host's first responses are looked at");
        dispatcher.header(call, "Content-Type", "application/json");
        dispatcher.header(call, "RateLimit", "limit=20, remaining=19, reset=2");
        dispatcher.header(call, "RateLimit-Policy", "20;w=2");
        assertFalse(dispatcher.shouldRetry(call, 200, null));

        assertEquals(1, hints.size(), () -> "one belief: " + hints);
        assertTrue(hints.get(0).startsWith("portal.example:443 pacing by its rate-limit hints"), hints.get(0));
        Object next = dispatcher.begin("https", "portal.example", 443, true);
        assertTrue(dispatcher.wantsHeaders(next, 200), "every response of a host whose hints are believed");
        assertFalse(dispatcher.shouldRetry(next, 200, null));
    }

    @Test
    void hintsFoundFalseByAnEarlierRunAreNotBelievedAgain() throws Exception {
        InMemoryKnowledgeStore known = new InMemoryKnowledgeStore();
        known.distrustHints("portal.example:443", "refused when 6 should have been left");
        List<String> said = new CopyOnWriteArrayList<>();
        RetryEngine remembering = engine(known, said, false);
        HookDispatcher hooks = new HookDispatcher(remembering, new CallDepth());
        Object call = hooks.begin("https", "portal.example", 443, true);
        assertTrue(hooks.wantsHeaders(call, 200));
        hooks.header(call, "X-RateLimit-Limit", "20");
        hooks.header(call, "X-RateLimit-Remaining", "19");
        hooks.header(call, "X-RateLimit-Reset", "2");
        assertFalse(hooks.shouldRetry(call, 200, null));
        assertEquals(1, said.size(), said::toString);
        assertTrue(said.get(0).startsWith("rate-limit hints distrusted: refused when 6 should have been left, as found before"), said.get(0));
        assertTrue(remembering.host("portal.example:443").hints().startsWith("distrusted"), remembering.host("portal.example:443").hints());
    }

    @Test
    void aFailureWhileOfferingHeadersIsTheAgentsOwnAndNeverThrown() {
        Object notACall = new Object(); // what a broken agent could pass: the hooks cast it
        assertFalse(dispatcher.wantsHeaders(notACall, 429), "decided on the status and Retry-After alone");
        dispatcher.header(notACall, "X-RateLimit-Remaining", "0");
        dispatcher.header(null, "X-RateLimit-Remaining", "0");
        assertFalse(dispatcher.wantsHeaders(null, 429));
    }
}
