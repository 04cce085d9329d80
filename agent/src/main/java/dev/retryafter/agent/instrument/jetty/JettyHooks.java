package dev.retryafter.agent.instrument.jetty;

import dev.retryafter.agent.instrument.ModuleHooks;
import dev.retryafter.agent.log.AgentLog;

/**
 * What the hooks of both Jetty shims share: the core, a send hook and a refusal hook, and their API, one per copy of
 * Jetty met, found from the class of the Jetty object each hook is handed: its class loader, and Jetty's root package
 * as the class's name has it (a fat jar may have relocated it).
 */
public abstract class JettyHooks<A extends JettyApi> implements ModuleHooks {

    protected final JettyExchanges core;
    private final String sendHook;
    private final String refusalHook;
    private final String abortHook;
    /** The names below Jetty's root package of the classes the hooks are handed (or that those extend). */
    private final String[] handed;
    private final ClassValue<A> apis = new ClassValue<A>() {
        @Override
        protected A computeValue(Class<?> type) {
            for (Class<?> each = type; each != null; each = each.getSuperclass()) {
                String name = each.getName();
                for (String suffix : handed) {
                    if (name.endsWith("." + suffix)) {
                        try {
                            return newApi(each.getClassLoader(), name.substring(0, name.length() - suffix.length()));
                        } catch (ReflectiveOperationException | RuntimeException e) {
                            throw new IllegalStateException("not a Jetty client of a known shape: " + name, e);
                        }
                    }
                }
            }
            throw new IllegalStateException("not a Jetty client's class: " + type.getName());
        }
    };

    protected JettyHooks(JettyExchanges core, String sendHook, String refusalHook, String abortHook, String... handed) {
        this.core = core;
        this.sendHook = sendHook;
        this.refusalHook = refusalHook;
        this.abortHook = abortHook;
        this.handed = handed;
    }

    /** The API of the copy of Jetty whose root package is {@code root} ({@code "org.eclipse.jetty."}). */
    protected abstract A newApi(ClassLoader loader, String root) throws ReflectiveOperationException;

    @Override
    public final String[] hooks() {
        return new String[] {sendHook, refusalHook, abortHook};
    }

    /** Off, a request whose turn the agent granted is still let through: it holds a permit. */
    @Override
    public final Object call(String hook, Object[] a, NewCalls newCalls) {
        Object handed = a[0];
        boolean refusal = hook.equals(refusalHook);
        boolean abort = hook.equals(abortHook);
        if (handed == null || !refusal && !abort && core.isOwnSend(handed)) {
            return null;
        }
        A api = null;
        try {
            api = apis.get(handed.getClass());
            if (abort) {
                core.aborted(api, handed);
                return null;
            }
            return refusal ? refusal(api, a) : send(api, a, newCalls) ? Boolean.TRUE : null;
        } catch (Throwable t) {
            String client = api == null ? "Jetty" : api.client;
            AgentLog.failure(refusal ? "taking a " + client + " refusal" : abort ? "ending an aborted " + client + " request's wait"
                    : "governing a " + client + " request", t);
            return null;
        }
    }

    /** The send hook: true when the agent sends the request itself once its turn has come, or has failed it (a held host). */
    protected abstract boolean send(A api, Object[] a, NewCalls newCalls) throws Exception;

    /** The refusal hook: what takes a governed refusal in place of the application's listeners, or null. */
    protected abstract Object refusal(A api, Object[] a) throws Exception;
}
