package dev.retryafter.agent.engine;

/** Which policy governs a host. The config package reads one from the policy file. */
@FunctionalInterface
public interface PolicyLookup {

    Policy policyFor(String host, int port);

    static PolicyLookup everyHost(Policy policy) {
        return new PolicyLookup() {
            @Override
            public Policy policyFor(String host, int port) {
                return policy;
            }
        };
    }
}
